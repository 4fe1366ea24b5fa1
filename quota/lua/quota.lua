-- quota.lua: a tenant's submission quotas, shared by every API process: a
-- submit rate (a token bucket, GCRA) and a cap on the tenant's open backlog
-- in jobs and in stored input bytes. Every key carries the tenant's own
-- hash tag (one slot).
--
-- The backlog is counted by reservation: a job key is reserved before its
-- submission (with its input size) and stays reserved while the job is
-- open; a prune releases the reservations of jobs that ended (quota.go
-- checks their records, which live in other slots). A reservation whose
-- submission never happened (a crash between this script and submit.lua)
-- is released by the prune too, once old enough: no crash leaks budget.
--
-- KEYS[1] the rate bucket (string: theoretical arrival time, ms)
-- KEYS[2] the open jobs (sorted set: job key -> reservation ms)
-- KEYS[3] the open jobs' input sizes (hash: job key -> bytes)
-- KEYS[4] the open input bytes in total (string)
-- ARGV[1] now ms   ARGV[2] op: "take", "give" or "release"
-- take:    ARGV[3] job key  ARGV[4] bytes  ARGV[5] rate interval ms (0: no
--          rate)  ARGV[6] burst  ARGV[7] max jobs (0: none)  ARGV[8] max
--          bytes (0: none)
-- give:    ARGV[3] job key  ARGV[4] rate interval ms: a reservation taken
--          for a call that created nothing is given back, rate token too
-- release: ARGV[3..] job keys whose jobs ended (or never were): their
--          reservations are dropped; the rate is not refunded
-- Returns:
--   take:    {"taken"} reserved now
--            {"held"}  the job is reserved already (a resubmission of an
--                      open job): admitted, nothing counted
--            {"rate", ms}  no rate token before ms: nothing reserved
--            {"jobs", open} / {"bytes", openBytes}  the backlog is full
--   give:    {"given"} or {"none"} (nothing was reserved)
--   release: {"released", n}
local now, op = tonumber(ARGV[1]), ARGV[2]

local function drop(key)
  if redis.call('ZREM', KEYS[2], key) == 0 then return false end
  local n = tonumber(redis.call('HGET', KEYS[3], key) or '0')
  redis.call('HDEL', KEYS[3], key)
  if redis.call('DECRBY', KEYS[4], n) <= 0 then redis.call('DEL', KEYS[4]) end
  return true
end

local function store_tat(tat)
  if tat > now then
    redis.call('SET', KEYS[1], tat, 'PX', tat - now)
  else
    redis.call('DEL', KEYS[1])
  end
end

if op == 'release' then
  local n = 0
  for i = 3, #ARGV do
    if drop(ARGV[i]) then n = n + 1 end
  end
  return { 'released', n }
end

local key = ARGV[3]
local interval = tonumber(op == 'give' and ARGV[4] or ARGV[5])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)

if op == 'give' then
  if not drop(key) then return { 'none' } end
  if interval > 0 then store_tat(math.max(tat - interval, now)) end
  return { 'given' }
end

if redis.call('ZSCORE', KEYS[2], key) then return { 'held' } end
local bytes, burst, maxjobs, maxbytes = tonumber(ARGV[4]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
if interval > 0 then
  local allowed_at = tat - (burst - 1) * interval
  if now < allowed_at then return { 'rate', allowed_at - now } end
end
if maxjobs > 0 then
  local open = redis.call('ZCARD', KEYS[2])
  if open >= maxjobs then return { 'jobs', open } end
end
if maxbytes > 0 then
  local total = tonumber(redis.call('GET', KEYS[4]) or '0')
  if total + bytes > maxbytes then return { 'bytes', total } end
end
if interval > 0 then store_tat(tat + interval) end
redis.call('ZADD', KEYS[2], now, key)
redis.call('HSET', KEYS[3], key, bytes)
redis.call('INCRBY', KEYS[4], bytes)
return { 'taken' }
