-- reseal.lua: replace an endpoint's stored secrets with the same secrets
-- sealed under another data key, unless they changed since they were read
-- (a rotation in between wins; the caller reads and tries again).
--
-- KEYS[1] secrets (hash: id -> "current|previous|previous valid until, unix ms")
-- ARGV[1] endpoint id   ARGV[2] the value read   ARGV[3] its replacement
-- Returns: 1 replaced, 0 changed or deleted since it was read (nothing written).
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
