-- count.lua: count one document read with a supplier's profile, and
-- whether it missed (rejected, or a field it read corrected); nothing when
-- the profile was deleted meanwhile.
--
-- KEYS[1] the profile (hash; r reads, m misses beside save.lua's fields)
-- ARGV[1] reads to add (0 or 1)   ARGV[2] misses to add (0 or 1)
-- Returns 1 when counted, 0 when there is no profile.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '0' then redis.call('HINCRBY', KEYS[1], 'r', ARGV[1]) end
if ARGV[2] ~= '0' then redis.call('HINCRBY', KEYS[1], 'm', ARGV[2]) end
return 1
