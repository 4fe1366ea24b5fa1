-- ratelimit.lua: a token bucket (GCRA) shared by every API process. The
-- bucket holds `burst` tokens and regains one every `interval`; the key
-- stores the bucket's "theoretical arrival time" (TAT) and expires when the
-- bucket is full again.
--
-- A token is taken for one subject (the job being reprocessed) and held by
-- it for a while: every call for the same subject meanwhile is admitted on
-- that token without taking another. So concurrent identical calls, of which
-- one creates and the others are repeats, cost one token between them and
-- are never refused; only the holder gives the token back, once.
--
-- KEYS[1] the bucket (string)
-- KEYS[2] the subject's hold (string, in the bucket's slot)
-- ARGV[1] now ms   ARGV[2] interval ms   ARGV[3] burst
-- ARGV[4] "take" (take a token for the subject) or "give" (give the
--         subject's token back)
-- ARGV[5] hold ms: how long a taken token is held for its subject
-- Returns:
--   take: {"taken"} a token was taken and is held by the subject now
--         {"held"}  the subject already holds a token: admitted, nothing taken
--         {"wait", ms} no token before ms: nothing taken
--   give: {"given"} the held token was given back (and the hold dropped)
--         {"none"}  the subject holds no token: nothing given
local now, interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local function store(tat)
  if tat > now then
    redis.call('SET', KEYS[1], tat, 'PX', tat - now)
  else
    redis.call('DEL', KEYS[1])
  end
end

local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)
if ARGV[4] == 'give' then
  if redis.call('DEL', KEYS[2]) == 0 then return { 'none' } end
  store(math.max(tat - interval, now))
  return { 'given' }
end
if redis.call('EXISTS', KEYS[2]) == 1 then return { 'held' } end
local allowed_at = tat - (burst - 1) * interval
if now < allowed_at then
  return { 'wait', allowed_at - now }
end
store(tat + interval)
redis.call('SET', KEYS[2], '1', 'PX', ARGV[5])
return { 'taken' }
