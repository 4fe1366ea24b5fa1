-- delete.lua: remove an endpoint and everything recorded about it.
--
-- KEYS[1] endpoints   KEYS[2] secrets   KEYS[3] disabled   KEYS[4] failures
-- KEYS[5] the endpoint's attempts list
-- ARGV[1] endpoint id
-- Returns: 1 deleted, 0 not found.
local n = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5])
return n
