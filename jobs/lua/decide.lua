-- decide.lua: record an operator's review decision, once. Repeating the same
-- decision is answered as done; a different decision after one was made is
-- refused.
--
-- KEYS[1] job record (holds the review)   KEYS[2] audit stream
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] status (approved|rejected)
-- ARGV[4] operator  ARGV[5] note     ARGV[6] tenant   ARGV[7] audit retention ms
-- Returns: "decided", "same" (already decided this way), "other" (decided
-- otherwise), "not_found".
local now = tonumber(ARGV[2])
local st = redis.call('HGET', KEYS[1], 'rv')
if not st then return 'not_found' end
if st == ARGV[3] then return 'same' end
if st ~= 'pending' then return 'other' end
redis.call('HSET', KEYS[1], 'rv', ARGV[3], 'rop', ARGV[4], 'rn', ARGV[5], 'rda', now)
redis.call('XADD', KEYS[2], 'MINID', '~', tostring(now - tonumber(ARGV[7])), '*',
  'a', 'review_decided', 'tn', ARGV[6], 'k', ARGV[1], 'op', ARGV[4], 'r', ARGV[3], 'at', now)
return 'decided'
