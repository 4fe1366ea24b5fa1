-- slots.lua: register this process's worker slots, forget the processes
-- whose registration expired, and sum the slots of those still live. One
-- key (the registry's hash tag {adm}), so this is one atomic step.
--
-- KEYS[1] the live processes (sorted set: "<slots>:<process ID>" -> expiry ms)
-- ARGV[1] now ms   ARGV[2] this process's member ("<slots>:<process ID>")
-- ARGV[3] its expiry ms (0: deregister it)
-- Returns the sum of the slots of the live processes (this one's included
-- unless it deregistered), an integer >= 0.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if tonumber(ARGV[3]) > 0 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
else
  redis.call('ZREM', KEYS[1], ARGV[2])
end
local total = 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  total = total + (tonumber(string.match(m, '^(%d+):')) or 0)
end
return total
