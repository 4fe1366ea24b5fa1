-- apply.lua: the review consumer. One review per job version, created by the
-- first delivery of its extraction.committed event; any repeat (a relay
-- republish, a redelivery) is answered without effect. The review lives in
-- the succeeded job's record (F.review_status, F.review_created_at), so it cannot outlive it, and
-- is listed through the tenant's succeeded index.
--
-- KEYS[1] the job record
-- ARGV[1] now ms   ARGV[2] eventId
-- Returns: "applied", "duplicate_event", or "not_committed" (no succeeded
-- job record with this eventId: never committed, or expired).
local f = redis.call('HMGET', KEYS[1], F.state, F.event_id)
if f[1] ~= STATE.succeeded or f[2] ~= ARGV[2] then
  return 'not_committed'
end
if redis.call('HSETNX', KEYS[1], F.review_status, 'pending') == 0 then
  return 'duplicate_event'
end
redis.call('HSET', KEYS[1], F.review_created_at, ARGV[1])
return 'applied'
