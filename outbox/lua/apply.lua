-- apply.lua: the review consumer. One review per eventId: the first delivery
-- of an extraction.committed event creates the job version's review; any
-- repeat (a relay republish, a redelivery) is answered without effect.
--
-- The job's ledger entry carries the "applied" flag, so the marker costs no
-- key of its own and lives exactly as long as the ledger.
--
-- KEYS[1] the job's ledger entry  KEYS[2] review (hash)
-- KEYS[3] tenant reviews index    KEYS[4] all-tenant reviews index
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] eventId   ARGV[4] tenant
-- ARGV[5] review TTL ms (result retention)
-- Returns: "applied", "duplicate_event", or "no_ledger" (the job never
-- committed, or its ledger expired: nothing to review).
local now = tonumber(ARGV[2])
local ledger = redis.call('GET', KEYS[1])
if not ledger then return 'no_ledger' end
if string.sub(ledger, -1) == 'r' or redis.call('EXISTS', KEYS[2]) == 1 then
  return 'duplicate_event'
end
redis.call('HSET', KEYS[2], 'ev', ARGV[3], 'st', 'pending', 'ca', now, 'tn', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
for i = 3, 4 do
  redis.call('ZADD', KEYS[i], now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. (now - tonumber(ARGV[5])))
end
redis.call('SET', KEYS[1], ledger .. 'r', 'KEEPTTL')
return 'applied'
