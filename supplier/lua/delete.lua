-- delete.lua: forget a supplier profile, with its audit entry. Its
-- aliases and the fingerprints of its documents stay: they catch
-- duplicates, and hold hashes only.
--
-- KEYS[1] the profile   KEYS[2] the tenant's profile index
-- KEYS[3] the tenant's supplier data bytes   KEYS[4] the tenant's supplier audit stream
-- ARGV[1] supplier id   ARGV[2] now ms   ARGV[3] audit retention ms
-- ARGV[4..] the audit entry's field, value pairs
-- Returns {"deleted"} | {"not_found"}
local b = redis.call('HGET', KEYS[1], 'b')
if not b then return { 'not_found' } end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DECRBY', KEYS[3], tonumber(b))
redis.call('XADD', KEYS[4], 'MINID', '~', tostring(tonumber(ARGV[2]) - tonumber(ARGV[3])), '*', unpack(ARGV, 4))
return { 'deleted' }
