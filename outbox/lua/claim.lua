-- claim.lua: start (or recover) an attempt and hand out its fencing token.
-- The claim itself ends a job that must not run: past its deadline it is
-- cancelled (deadline_exceeded); found running more often than its recovery
-- cap allows it is dead-lettered (crash_loop). A claim that finds the job
-- running is a crash recovery: it does not count a business attempt.
--
-- KEYS: the common layout (lib.lua)
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7] claim token (one per handler invocation; the job remembers the
--           latest in field tok, so a re-run of that claim gets its fence back)
-- Returns:
--   {"running", fence, attempt, recoveries, recovered(0|1), payloadHash, deadlineAt, enqueuedAt}
--   {"terminal", state, errorCode}
--   {"stale"}              a re-run of a claim that was superseded since
--   {"not_found"}
local function terminal_answer()
  local f = redis.call('HMGET', K.job, 'st', 'ec')
  return { 'terminal', f[1], f[2] or '' }
end

local function running_answer(recovered)
  local f = redis.call('HMGET', K.job, 'fen', 'att', 'rec', 'ph', 'dl', 'eq')
  return { 'running', f[1], f[2], f[3], recovered, f[4], f[5], f[6] }
end

local st = redis.call('HGET', K.job, 'st')
if not st then
  local ledger = redis.call('GET', K.ledger)
  if ledger then
    local p = split_ledger(ledger)
    return { 'terminal', p[1], p[5] }
  end
  return { 'not_found' }
end

if TERMINAL[st] then return terminal_answer() end

if redis.call('HGET', K.job, 'tok') == ARGV[7] then
  -- A re-run of the latest claim (its reply was lost): same fence.
  if st == 'running' then return running_answer(0) end
  return { 'stale' }
end

if NOW >= tonumber(redis.call('HGET', K.job, 'dl')) then
  finish('cancelled', 'deadline_exceeded')
  return terminal_answer()
end

local recovered = 0
if st == 'running' then
  recovered = 1
  local rec = redis.call('HINCRBY', K.job, 'rec', 1)
  if rec > tonumber(redis.call('HGET', K.job, 'mr')) then
    finish('dead_lettered', 'crash_loop')
    return terminal_answer()
  end
else
  redis.call('HINCRBY', K.job, 'att', 1)
  move_state(st, 'running')
end
local fence = redis.call('HINCRBY', K.job, 'fen', 1)
redis.call('HSET', K.job, 'st', 'running', 'ua', NOW, 'tok', ARGV[7])
redis.call('HSETNX', K.job, 'sa', NOW)
return running_answer(recovered)
