-- apply.lua: the review consumer. One review per eventId: the first delivery
-- of an extraction.committed event creates the job version's review; any
-- repeat (a relay republish, a redelivery) is answered without effect.
--
-- KEYS[1] applied-event marker   KEYS[2] review (hash)
-- KEYS[3] tenant reviews index   KEYS[4] all-tenant reviews index
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] eventId   ARGV[4] tenant
-- ARGV[5] review TTL ms (result retention)   ARGV[6] ledger TTL ms (0 = forever)
-- Returns: "applied" or "duplicate_event".
local now = tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return 'duplicate_event'
end
redis.call('HSET', KEYS[2], 'ev', ARGV[3], 'st', 'pending', 'ca', now, 'tn', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
for i = 3, 4 do
  redis.call('ZADD', KEYS[i], now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. (now - tonumber(ARGV[5])))
end
if tonumber(ARGV[6]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[6])
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 'applied'
