-- ratelimit.lua: a token bucket (GCRA) shared by every API process. The
-- bucket holds `burst` tokens and regains one every `interval`; the key
-- stores the bucket's "theoretical arrival time" (TAT) and expires when the
-- bucket is full again.
--
-- KEYS[1] the bucket (string)
-- ARGV[1] now ms   ARGV[2] interval ms   ARGV[3] burst
-- ARGV[4] "take" (take one token) or "give" (return one taken token)
-- Returns: 0 when a token was taken (or given back), else the ms until one
-- will be available.
local now, interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)
if ARGV[4] == 'give' then
  tat = math.max(tat - interval, now)
else
  local allowed_at = tat - (burst - 1) * interval
  if now < allowed_at then
    return allowed_at - now
  end
  tat = tat + interval
end
if tat > now then
  redis.call('SET', KEYS[1], tat, 'PX', tat - now)
else
  redis.call('DEL', KEYS[1])
end
return 0
