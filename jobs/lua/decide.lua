-- decide.lua: record an operator's review decision, once. Repeating the same
-- decision is answered as done; a different decision after one was made is
-- refused.
--
-- KEYS[1] job record (holds the review)   KEYS[2] audit stream
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] status (approved|rejected)
-- ARGV[4] operator  ARGV[5] note     ARGV[6] tenant   ARGV[7] audit retention ms
-- Returns: {status, rv, ev, rop, rn, rca, rda}: status is "decided" (this
-- call decided), "same" (already decided this way) or "other" (decided
-- otherwise), followed by the review's fields as they now are; or
-- {"not_found"}.
local now = tonumber(ARGV[2])
local st = redis.call('HGET', KEYS[1], 'rv')
local function answer(status)
  return {status, unpack(redis.call('HMGET', KEYS[1], 'rv', 'ev', 'rop', 'rn', 'rca', 'rda'))}
end
if not st then return {'not_found'} end
if st == ARGV[3] then return answer('same') end
if st ~= 'pending' then return answer('other') end
redis.call('HSET', KEYS[1], 'rv', ARGV[3], 'rop', ARGV[4], 'rn', ARGV[5], 'rda', now)
redis.call('XADD', KEYS[2], 'MINID', '~', tostring(now - tonumber(ARGV[7])), '*',
  'a', 'review_decided', 'tn', ARGV[6], 'k', ARGV[1], 'op', ARGV[4], 'r', ARGV[3], 'at', now)
return answer('decided')
