-- submit.lua: create a job, or answer for the one that exists under its key.
-- All or nothing: job record + input + job.submitted outbox row + audit entry
-- + indexes.
--
-- KEYS: the common layout (lib.lua), plus
--   KEYS[17] request key (remembers that this request ID created the job), optional
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7]  tenant             ARGV[8]  documentId      ARGV[9] version
--   ARGV[10] payload hash       ARGV[11] input blob
--   ARGV[12] maxAttempts        ARGV[13] maxRecoveries   ARGV[14] deadline seconds
--   ARGV[15] request TTL ms
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
local tenant, doc, ver, ph = ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local req = KEYS[17]

local function with_job(status)
  local out = { status, redis.call('EXISTS', K.input), redis.call('EXISTS', K.result) }
  for _, v in ipairs(redis.call('HGETALL', K.job)) do
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
    if status == 'created' and redis.call('EXISTS', K.job) == 1 then
      return with_job('created')
    end
  end
end

local existing = redis.call('HGET', K.job, 'ph')
if existing then
  if existing ~= ph then return { 'conflict' } end
else
  local ledger = redis.call('GET', K.ledger)
  if ledger then
    if split_ledger(ledger)[2] ~= ph then return { 'conflict' } end
    local p = split_ledger(ledger)
    return { 'deduped_ledger', p[1], p[2], p[3], p[4], p[5] }
  else
    create_job(ver, ph, ARGV[11], ARGV[12], ARGV[13], ARGV[14], '')
    audit_add('a', 'submitted', 'tn', tenant, 'k', JOBKEY, 'nh', ph, 'at', NOW)
    if req then
      redis.call('SET', req, 'created|' .. ph, 'PX', ARGV[15])
    end
    -- The caller knows everything a new job holds: no read-back.
    return { 'created' }
  end
end
return with_job('deduped')
