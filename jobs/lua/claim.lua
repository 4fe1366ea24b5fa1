-- claim.lua: start (or recover) an attempt and hand out its fencing token.
-- The claim itself ends a job that must not run: past its deadline it is
-- cancelled (deadline_exceeded); found running more often than its recovery
-- cap allows it is dead-lettered (crash_loop). A claim that finds the job
-- running is a crash recovery: it does not count a business attempt. The
-- running answer carries what the attempt needs (input, checkpoints), so a
-- handler needs no other read.
--
-- KEYS: the common layout (lib.lua)
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7] claim token (one per handler invocation; the job remembers the
--           latest in field tok, so a re-run of that claim gets its fence back)
-- Returns:
--   {"running", fence, attempt, recoveries, recovered(0|1), payloadHash,
--    deadlineAt, enqueuedAt, createdAt, input blob or false,
--    stage, output, stage, output...}
--   {"terminal", state, errorCode, endedNow(0|1), createdAt}   endedNow: this
--                          claim ended the job (deadline or crash loop)
--   {"stale"}              a re-run of a claim that was superseded since
--   {"not_found"}
local f = redis.call('HMGET', K.job, 'st', 'ec', 'tok', 'dl', 'fen', 'att', 'rec', 'mr', 'ph', 'eq', 'ca', 'sa')
local st, ec, tok, dl, fen, att, rec, mr, ph, eq, ca, sa =
  f[1], f[2], f[3], tonumber(f[4]), tonumber(f[5]), tonumber(f[6]), tonumber(f[7]), tonumber(f[8]), f[9], f[10], f[11], f[12]

if not st then
  local ledger = redis.call('GET', K.ledger)
  if ledger then
    local p = split_ledger(ledger)
    return { 'terminal', p[1], p[5], 0, '' }
  end
  return { 'not_found' }
end
if TERMINAL[st] then return { 'terminal', st, ec or '', 0, ca } end

local recovered = 0
if tok == ARGV[7] then
  -- A re-run of the latest claim (its reply was lost): same fence.
  if st ~= 'running' then return { 'stale' } end
elseif NOW >= dl then
  finish('cancelled', 'deadline_exceeded', { st = st, ca = ca, ph = ph })
  return { 'terminal', 'cancelled', 'deadline_exceeded', 1, ca }
elseif st == 'running' then
  recovered = 1
  rec = rec + 1
  if rec > mr then
    redis.call('HSET', K.job, 'rec', rec)
    finish('dead_lettered', 'crash_loop', { st = st, ca = ca, ph = ph })
    return { 'terminal', 'dead_lettered', 'crash_loop', 1, ca }
  end
  fen = fen + 1
  redis.call('HSET', K.job, 'rec', rec, 'fen', fen, 'ua', NOW, 'tok', ARGV[7])
else
  att, fen = att + 1, fen + 1
  redis.call('HSET', K.job, 'st', 'running', 'att', att, 'fen', fen, 'ua', NOW, 'tok', ARGV[7], 'sa', sa or NOW)
  move_state(st, 'running', ca)
end

local out = { 'running', fen, att, rec, recovered, ph, dl, eq, ca, redis.call('GET', K.input) }
if att > 1 or rec > 0 then
  for _, v in ipairs(redis.call('HGETALL', K.ckpt)) do
    out[#out + 1] = v
  end
end
return out
