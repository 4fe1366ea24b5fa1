-- publish.lua: take a submitted job in, atomically in its tenant's slot:
-- publish it at once while the tenant is under its cap with nothing
-- waiting (the fast path), else queue it behind the tenant's waiting jobs.
-- Both keys carry the tenant's own hash tag, so the check and the write are
-- one step however many admitters run, and admit.lua sees the same counts.
--
-- KEYS[1] the tenant's waiting jobs (sorted set: job key -> submission ms)
-- KEYS[2] the tenant's jobs in flight (sorted set: job key -> admission ms)
-- ARGV[1] job key   ARGV[2] submission ms   ARGV[3] now ms
-- ARGV[4] cap (0: no cap)
-- Returns 0: the job waits (added, or already waiting); 1: admitted now
-- (added to in flight), publish it; 2: already in flight (published again
-- after its admission), publish it again without taking a second slot.
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 2 end
local cap = tonumber(ARGV[4])
if redis.call('ZCARD', KEYS[1]) == 0 and (cap == 0 or redis.call('ZCARD', KEYS[2]) < cap) then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return 1
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
return 0
