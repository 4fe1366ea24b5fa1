-- commit.lua: the exactly-once effect. Result + extraction.committed outbox
-- row + ledger (dedupe marker) + state succeeded, all or nothing.
--
-- KEYS: the common layout (lib.lua)
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7] fence   ARGV[8] payload hash the attempt worked on
--   ARGV[9] result  ARGV[10] new eventId
--   ARGV[11] the raw payload hash and eventId (48 bytes: the ledger's packing,
--            done by the caller so the script need not convert hex)
-- Returns:
--   {"committed", eventId}
--   {"deduped", eventId}   this commit was already applied (same fence, same payload)
--   {"conflict"}           the payload hash differs from the job's
--   {"stale"}              the fence is not current, or the job ended otherwise
local f = redis.call('HMGET', K.job, 'st', 'fen', 'ph', 'ev', 'ca')
local st, fen, ph, ev, ca = f[1], f[2], f[3], f[4], f[5]
if not st then
  local ledger = redis.call('GET', K.ledger)
  if ledger then
    local p = split_ledger(ledger)
    if p[2] ~= ARGV[8] then return { 'conflict' } end
    if p[1] == 'succeeded' then return { 'deduped', p[3] } end
  end
  return { 'stale' }
end
if fen ~= ARGV[7] then return { 'stale' } end
if ph ~= ARGV[8] then return { 'conflict' } end
if st == 'succeeded' then return { 'deduped', ev } end
if st ~= 'running' then return { 'stale' } end

redis.call('SET', K.result, ARGV[9], 'PX', RESULT_TTL)
redis.call('XADD', K.outbox, '*', 't', 'extraction.committed', 'k', JOBKEY, 'e', ARGV[10], 'at', NOW)
finish('succeeded', '', { st = st, ca = ca, ph = ph, ev = ARGV[10], raw = ARGV[11] }, 'ev', ARGV[10])
return { 'committed', ARGV[10] }
