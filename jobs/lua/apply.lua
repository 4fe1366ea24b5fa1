-- apply.lua: the review consumer, for any number of extraction.committed
-- events of one shard at once. One review per job version, created by the
-- first delivery of its extraction.committed event; any repeat (a relay
-- republish, a redelivery) is answered without effect. The review lives in
-- the succeeded job's record (F.review_status, F.review_created_at), so it
-- cannot outlive it, and is listed through the tenant's succeeded index.
-- The relay's outbox entries are acked here too, in the same atomic step as
-- the reviews they carry: an entry is never acked without its effect, and a
-- batch costs one round trip.
--
-- KEYS[1] the shard's outbox stream   KEYS[2..] the job records, one per event
-- ARGV[1] now ms   ARGV[2] the relay's consumer group
-- ARGV[3] n, the number of outbox entry IDs to ack, then those n IDs
-- ARGV[4+n..] per job record, in KEYS' order: its eventId, then what the
--   duplicate check found ("" for nothing): the review's duplicate mark
--   ("strength|first job key|matched fields") and, after a second "|", the
--   job key of the invoice a credit note refers to
-- Returns {"statuses", status...}: one status per job record, "applied",
-- "duplicate_event", or "not_committed" (no succeeded job record with this
-- eventId: never committed, or expired).
local now, group, nack = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = { 'statuses' }
for i = 2, #KEYS do
  local at = 3 + nack + 2 * (i - 1) - 1
  local f = redis.call('HMGET', KEYS[i], F.state, F.event_id, F.review_status)
  if f[1] ~= STATE.succeeded or f[2] ~= ARGV[at] then
    out[i] = 'not_committed'
  elseif f[3] then
    out[i] = 'duplicate_event'
  else
    redis.call('HSET', KEYS[i], F.review_status, 'pending', F.review_created_at, now)
    local dup, credits = string.match(ARGV[at + 1] or '', '^(.-)|([^|]*)$')
    if dup and dup ~= '' then redis.call('HSET', KEYS[i], F.duplicate, dup) end
    if credits and credits ~= '' then redis.call('HSET', KEYS[i], F.credits, credits) end
    out[i] = 'applied'
  end
end
-- In chunks: unpack's stack is bounded.
for first = 4, 3 + nack, 500 do
  redis.call('XACK', KEYS[1], group, unpack(ARGV, first, math.min(first + 499, 3 + nack)))
end
return out
