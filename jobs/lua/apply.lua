-- apply.lua: the review consumer. One review per job version, created by the
-- first delivery of its extraction.committed event; any repeat (a relay
-- republish, a redelivery) is answered without effect. The review lives in
-- the succeeded job's record (fields rv, rca), so it cannot outlive it, and
-- is listed through the tenant's succeeded index.
--
-- KEYS[1] the job record
-- ARGV[1] now ms   ARGV[2] eventId
-- Returns: "applied", "duplicate_event", or "not_committed" (no succeeded
-- job record with this eventId: never committed, or expired).
local f = redis.call('HMGET', KEYS[1], 'st', 'ev')
if f[1] ~= 'succeeded' or f[2] ~= ARGV[2] then
  return 'not_committed'
end
if redis.call('HSETNX', KEYS[1], 'rv', 'pending') == 0 then
  return 'duplicate_event'
end
redis.call('HSET', KEYS[1], 'rca', ARGV[1])
return 'applied'
