-- apply.lua: the review consumer. One review per job version, created by the
-- first delivery of its extraction.committed event; any repeat (a relay
-- republish, a redelivery) is answered without effect. The review lives in
-- the job record (fields rv, rca) and is listed through the tenant's
-- succeeded index; the job's ledger entry carries the "applied" flag, so the
-- dedupe outlives the review itself.
--
-- KEYS[1] the job's ledger entry   KEYS[2] the job record
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] eventId
-- Returns: "applied", "duplicate_event", or "no_ledger" (the job never
-- committed, or its ledger expired: nothing to review).
local ledger = redis.call('GET', KEYS[1])
if not ledger then return 'no_ledger' end
if string.sub(ledger, -1) == 'r' or redis.call('HEXISTS', KEYS[2], 'rv') == 1 then
  return 'duplicate_event'
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'rv', 'pending', 'rca', ARGV[2])
end
redis.call('SET', KEYS[1], ledger .. 'r', 'KEEPTTL')
return 'applied'
