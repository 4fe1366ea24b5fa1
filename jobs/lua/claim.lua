-- claim.lua: start (or recover) an attempt and hand out its fencing token.
-- The claim itself ends a job that must not run: past its deadline it is
-- cancelled (deadline_exceeded); found running more often than its recovery
-- cap allows it is dead-lettered (crash_loop); either end appends its outbox
-- row (job.cancelled, job.dead_lettered) as fail.lua's ends do. A claim that finds the job
-- running is a crash recovery: it does not count a business attempt. The
-- running answer carries what the attempt needs (input, checkpoints), so a
-- handler needs no other read.
--
-- KEYS: the common layout (schema.go)
-- ARGV: the common layout (schema.go), plus
--   ARGV[NARGS+1] claim token (one per handler invocation; the job remembers the
--           latest in field tok, so a re-run of that claim gets its fence back)
-- Returns:
--   {"running", fence, attempt, recoveries, recovered(0|1), payloadHash,
--    deadlineAt, enqueuedAt, createdAt, input blob or false,
--    corrections blob or false (F.corrections: a reprocess with corrections),
--    stage, output, stage, output...}
--   {"terminal", state, errorCode, endedNow(0|1), createdAt}   endedNow: this
--                          claim ended the job (deadline or crash loop)
--   {"stale"}              a re-run of a claim that was superseded since
--   {"not_found"}
local f = redis.call('HMGET', J.job, F.state, F.error_code, F.token, F.deadline_at, F.fence, F.attempts,
  F.recoveries, F.max_recoveries, F.payload_hash, F.enqueued_at, F.created_at, F.started_at)
local st, ec, tok, dl, fen, att, rec, mr, ph, eq, ca, sa =
  f[1], f[2], f[3], tonumber(f[4]), tonumber(f[5]), tonumber(f[6]), tonumber(f[7]), tonumber(f[8]), f[9], f[10], f[11], f[12]

if not st then
  local ledger = redis.call('GET', J.ledger)
  if ledger then
    local p = split_ledger(ledger)
    return { 'terminal', p[1], p[5], 0, '' }
  end
  return { 'not_found' }
end
if TERMINAL[st] then return { 'terminal', st, ec or '', 0, ca } end

local token = ARGV[NARGS + 1]
local recovered = 0
if tok == token then
  -- A re-run of the latest claim (its reply was lost): same fence.
  if st ~= STATE.running then return { 'stale' } end
elseif NOW >= dl then
  set_state(J, STATE.cancelled, { from = st, ca = ca, ph = ph, code = 'deadline_exceeded' })
  redis.call('XADD', KEYS[KEY.outbox], '*', EV.type, 'job.cancelled', EV.key, J.key, EV.code, 'deadline_exceeded', EV.at, NOW)
  return { 'terminal', 'cancelled', 'deadline_exceeded', 1, ca }
elseif st == STATE.running then
  recovered = 1
  rec = rec + 1
  if rec > mr then
    set_state(J, STATE.dead_lettered, { from = st, ca = ca, ph = ph, code = 'crash_loop', fields = { F.recoveries, rec } })
    redis.call('XADD', KEYS[KEY.outbox], '*', EV.type, 'job.dead_lettered', EV.key, J.key, EV.code, 'crash_loop', EV.at, NOW)
    return { 'terminal', 'dead_lettered', 'crash_loop', 1, ca }
  end
  fen = fen + 1
  -- Still running (a recovery is not a transition): a new fence only.
  redis.call('HSET', J.job, F.recoveries, rec, F.fence, fen, F.updated_at, NOW, F.token, token)
else
  att, fen = att + 1, fen + 1
  set_state(J, STATE.running, { from = st, ca = ca, fields = { F.attempts, att, F.fence, fen, F.token, token, F.started_at, sa or NOW } })
end

local out = { 'running', fen, att, rec, recovered, ph, dl, eq, ca, redis.call('GET', J.input),
  redis.call('HGET', J.job, F.corrections) }
if att > 1 or rec > 0 then
  for _, v in ipairs(redis.call('HGETALL', J.ckpt)) do
    out[#out + 1] = v
  end
end
return out
