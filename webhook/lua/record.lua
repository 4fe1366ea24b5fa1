-- record.lua: record one delivery attempt of an endpoint, and disable the
-- endpoint when the attempt says so (410 Gone) or when it is the threshold-th
-- failure in a row. All keys carry the tenant's {wh:<tenant>} hash tag.
--
-- KEYS[1] endpoints (hash: id -> endpoint JSON)
-- KEYS[2] disabled  (hash: id -> "reason|unix ms")
-- KEYS[3] failures  (hash: id -> consecutive failed attempts)
-- KEYS[4] attempts  (list of attempt JSON, newest first)
-- ARGV[1] endpoint id   ARGV[2] attempt JSON   ARGV[3] outcome: ok | fail | gone | defer
-- (defer: nothing was sent; the attempt is kept and counts for nothing)
-- ARGV[4] threshold (0: never disable for failures)   ARGV[5] now (unix ms)
-- ARGV[6] attempts kept
-- Returns: {status, consecutive failures, disabled reason}: status is
-- "recorded", "disabled" (this attempt disabled the endpoint) or
-- "not_found" (the endpoint was deleted: nothing is written).
local id, outcome = ARGV[1], ARGV[3]
if redis.call('HEXISTS', KEYS[1], id) == 0 then return {'not_found', 0, ''} end
redis.call('LPUSH', KEYS[4], ARGV[2])
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[6]) - 1)
if outcome == 'defer' then
  return {'recorded', tonumber(redis.call('HGET', KEYS[3], id) or 0), ''}
end
if outcome == 'ok' then
  redis.call('HDEL', KEYS[3], id)
  return {'recorded', 0, ''}
end
local n = redis.call('HINCRBY', KEYS[3], id, 1)
local reason = ''
if outcome == 'gone' then
  reason = 'gone'
elseif tonumber(ARGV[4]) > 0 and n >= tonumber(ARGV[4]) then
  reason = 'consecutive_failures'
end
if reason ~= '' and redis.call('HEXISTS', KEYS[2], id) == 0 then
  redis.call('HSET', KEYS[2], id, reason .. '|' .. ARGV[5])
  return {'disabled', n, reason}
end
return {'recorded', n, ''}
