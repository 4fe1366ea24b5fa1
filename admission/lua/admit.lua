-- admit.lua: admit a tenant's waiting jobs, oldest submission first, up to
-- its in-flight cap. Both keys carry the tenant's own hash tag, so the check
-- and the move are one atomic step however many admitters run.
--
-- KEYS[1] the tenant's waiting jobs (sorted set: job key -> submission ms)
-- KEYS[2] the tenant's jobs in flight (sorted set: job key -> admission ms)
-- ARGV[1] now ms   ARGV[2] cap (0: no cap)   ARGV[3] most jobs to admit now
-- Returns {jobKey, score, jobKey, score, ...}: the jobs admitted with their
-- waiting scores,
-- in admission order (empty when the tenant is at its cap or has none).
-- A job already in flight (published again after its admission) is admitted
-- again without taking a second slot.
local cap, n = tonumber(ARGV[2]), tonumber(ARGV[3])
if cap > 0 then
  n = math.min(n, cap - redis.call('ZCARD', KEYS[2]))
end
if n <= 0 then return {} end
local popped = redis.call('ZPOPMIN', KEYS[1], n)
for i = 1, #popped, 2 do
  redis.call('ZADD', KEYS[2], ARGV[1], popped[i])
end
return popped
