-- rotate.lua: give an endpoint a new signing secret; the current one keeps
-- signing beside it until the grace period ends.
--
-- KEYS[1] secrets (hash: id -> "current|previous|previous valid until, unix ms";
-- each secret in clear or sealed, never holding "|": moved here unopened)
-- ARGV[1] endpoint id   ARGV[2] new secret   ARGV[3] previous valid until (unix ms)
-- Returns: "rotated" or "not_found".
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 'not_found' end
local current = string.match(cur, '^([^|]*)')
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. current .. '|' .. ARGV[3])
return 'rotated'
