-- submit.lua: create a job, or answer for the one that exists under its key.
-- All or nothing: job record + input + job.submitted outbox row + audit entry
-- + indexes.
--
-- KEYS: the common layout (schema.go), plus
--   KEYS[NKEYS+1] request key (remembers that this request ID created the job), optional
-- ARGV: the common layout (schema.go), plus
--   ARGV[NARGS+1] tenant          ARGV[NARGS+2] documentId     ARGV[NARGS+3] version
--   ARGV[NARGS+4] payload hash    ARGV[NARGS+5] input blob
--   ARGV[NARGS+6] maxAttempts     ARGV[NARGS+7] maxRecoveries  ARGV[NARGS+8] deadline seconds
--   ARGV[NARGS+9] request TTL ms
-- Returns (the job's fields follow so the caller needs no second read):
--   {"created"}              a new job, exactly as requested
--   {"created", inputExists, resultExists, field, value, ...}   the replay of
--                            the request that created the job, as it is now
--   {"deduped", inputExists, resultExists, field, value, ...}   same key, same
--                            payload: the existing job stands
--   {"deduped_ledger", state, hash, eventId, finishedMs, code}
--                            same, but only the ledger entry remains
--   {"conflict"}             same key (or request ID), different payload
-- A replay of a request ID answers what the original answered. Only a
-- request that created the job is remembered: a dedupe stores nothing (its
-- replay is a dedupe again anyway), so fresh request IDs cannot grow Redis.
local tenant, ver, ph = ARGV[NARGS + 1], ARGV[NARGS + 3], ARGV[NARGS + 4]
local req = KEYS[NKEYS + 1]

local function with_job(status)
  local out = { status, redis.call('EXISTS', J.input), redis.call('EXISTS', J.result) }
  for _, v in ipairs(redis.call('HGETALL', J.job)) do
    out[#out + 1] = v
  end
  return out
end

if req then
  local prev = redis.call('GET', req)
  if prev then
    local status, prevph = string.match(prev, '^([^|]*)|(.*)$')
    if prevph ~= ph then
      return { 'conflict' }
    end
    if status == 'created' and redis.call('EXISTS', J.job) == 1 then
      return with_job('created')
    end
  end
end

-- Most submissions create their job: one EXISTS of the record and the
-- ledger entry tells, and only a key that is known reads them.
local known = redis.call('EXISTS', J.job, J.ledger) > 0
local existing = known and redis.call('HGET', J.job, F.payload_hash)
if existing then
  if existing ~= ph then return { 'conflict' } end
else
  local ledger = known and redis.call('GET', J.ledger)
  if ledger then
    local p = split_ledger(ledger)
    if p[2] ~= ph then return { 'conflict' } end
    return { 'deduped_ledger', p[1], p[2], p[3], p[4], p[5] }
  else
    create_job(J, ver, ph, ARGV[NARGS + 5], ARGV[NARGS + 6], ARGV[NARGS + 7], ARGV[NARGS + 8], '')
    audit_add(AU.action, 'submitted', AU.tenant, tenant, AU.key, J.key, AU.new_hash, ph, AU.at, NOW)
    if req then
      redis.call('SET', req, 'created|' .. ph, 'PX', ARGV[NARGS + 9])
    end
    -- The caller knows everything a new job holds: no read-back.
    return { 'created' }
  end
end
return with_job('deduped')
