-- save.lua: store a supplier profile's new version, if the stored one is
-- still the version it was made from (a concurrent learning retries), in
-- the tenant's budget of supplier data, with its audit entry.
--
-- KEYS[1] the profile (hash: v version, d sealed JSON, u updated ms, b bytes)
-- KEYS[2] the tenant's profile index (sorted set: supplier id by updated ms)
-- KEYS[3] the tenant's supplier data bytes (integer)
-- KEYS[4] the tenant's supplier audit stream
-- ARGV[1] supplier id   ARGV[2] the version it was made from (0: none)
-- ARGV[3] its new version   ARGV[4] sealed JSON   ARGV[5] now ms
-- ARGV[6] the tenant's budget of supplier data bytes (0: none)
-- ARGV[7] audit retention ms   ARGV[8..] the audit entry's field, value pairs
-- Returns {"saved"} | {"conflict", stored version} | {"quota", bytes used}
local from, now, budget = ARGV[2], tonumber(ARGV[5]), tonumber(ARGV[6])
local cur = redis.call('HMGET', KEYS[1], 'v', 'b')
local stored, had = cur[1] or '0', tonumber(cur[2] or '0')
if stored ~= from then return { 'conflict', stored } end
local size = #ARGV[4] + #ARGV[1]
local used = tonumber(redis.call('GET', KEYS[3]) or '0')
if budget > 0 and used - had + size > budget then return { 'quota', tostring(used) } end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'd', ARGV[4], 'u', now, 'b', size)
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('INCRBY', KEYS[3], size - had)
redis.call('XADD', KEYS[4], 'MINID', '~', tostring(now - tonumber(ARGV[7])), '*', unpack(ARGV, 8))
return { 'saved' }
