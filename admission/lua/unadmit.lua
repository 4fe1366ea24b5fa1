-- unadmit.lua: put an admitted job back to waiting, atomically, after its
-- publish failed (so it is never in neither set).
--
-- KEYS[1] the tenant's waiting jobs   KEYS[2] the tenant's jobs in flight
-- ARGV[1] job key   ARGV[2] its score while waiting (submission ms)
-- Returns 1.
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
