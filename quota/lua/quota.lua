-- quota.lua: a tenant's submission quotas, shared by every API process: a
-- submit rate (a token bucket, GCRA), a cap on the tenant's open backlog
-- in jobs and in input bytes, and a cap on the input bytes the tenant has
-- stored, open or ended, until each input expires. Every key carries the
-- tenant's own hash tag (one slot).
--
-- The backlog is counted by reservation: a job key is reserved before its
-- submission (with its input size) and stays reserved while the job is
-- open; a prune releases the reservations of jobs that ended (quota.go
-- checks their records, which live in other slots). A reservation whose
-- submission never happened (a crash between this script and submit.lua)
-- is released by the prune too, once old enough: no crash leaks budget.
--
-- Stored inputs are counted from the same reservation, until the input
-- expires: each has an expiry (the score of KEYS[5]), first a bound (the
-- job's deadline plus the input retention plus a slack, ARGV[10]), then,
-- once quota.go saw the job end, the input's own expiry ("heal"). Every
-- take and heal first drops entries whose expiry passed, so the count
-- heals as inputs expire, without a sweep. An entry whose input never came
-- to exist is dropped by heal (quota.go checks, after a grace).
--
-- KEYS[1] the rate bucket (string: theoretical arrival time, ms)
-- KEYS[2] the open jobs (sorted set: job key -> reservation ms)
-- KEYS[3] the open jobs' input sizes (hash: job key -> bytes)
-- KEYS[4] the open input bytes in total (string)
-- KEYS[5] the stored inputs (sorted set: job key -> input expiry ms)
-- KEYS[6] the stored inputs' sizes (hash: job key -> bytes)
-- KEYS[7] the stored input bytes in total (string)
-- KEYS[8] the stored inputs whose expiry is still the bound (sorted set:
--         job key -> when last looked at, ms): what heal looks at
-- ARGV[1] now ms   ARGV[2] op: "take", "give", "release", "heal" or "adopt"
-- take:    ARGV[3] job key  ARGV[4] bytes  ARGV[5] rate interval ms (0: no
--          rate)  ARGV[6] burst  ARGV[7] max jobs (0: none)  ARGV[8] max
--          bytes (0: none)  ARGV[9] max stored bytes (0: none, and stored
--          inputs are not counted)  ARGV[10] the input's expiry bound, ms
--          ARGV[11] "1" to reserve the open job in KEYS[2..4] (a rate or a
--          backlog limit is set; with the stored cap alone nothing would
--          prune those reservations)
-- give:    ARGV[3] job key  ARGV[4] rate interval ms  ARGV[5] "1" when the
--          take counted a stored input: a reservation taken for a call
--          that created nothing is given back, rate token and stored
--          input too
-- release: ARGV[3..] job keys whose jobs ended (or never were): their
--          reservations are dropped; the rate is not refunded, and their
--          stored inputs stay counted until they expire
-- heal:    ARGV[3..] triples (job key, verdict, ms): "at" the input expires
--          at ms; "open" its job is still open (looked at now); "gone" no
--          input is stored under it
-- adopt:   ARGV[3..] quadruples (job key, bytes, expiry ms, bound): count a
--          stored input the recount found (quota.go walks the tenant's
--          job indexes: inputs stored before the cap was on, or by a
--          process without it), unless it is counted already or expired;
--          bound "1": the expiry is a bound (its job is open), heal looks
--          at it later
-- Returns:
--   take:    {"taken", stored} reserved now; stored is 1 when a stored
--                      input was counted
--            {"held"}  the job is reserved already (a resubmission of an
--                      open job): admitted, nothing counted
--            {"rate", ms}  no rate token before ms: nothing reserved
--            {"jobs", open} / {"bytes", openBytes}  the backlog is full
--            {"stored", storedBytes, ms}  the stored inputs fill the cap;
--                      enough of them expire in ms (0: not within the
--                      ones looked at)
--   give:    {"given"} or {"none"} (nothing was reserved)
--   release: {"released", n}
--   heal:    {"healed", n} entries changed
--   adopt:   {"adopted", n, bytes} inputs newly counted, and their bytes
local now, op = tonumber(ARGV[1]), ARGV[2]

-- Dropped per call at most: a take adds one entry, so expiry keeps up.
local EXPIRE_BATCH = 100
-- Entries looked at for a refusal's Retry-After.
local RETRY_SCAN = 100

local function drop(key)
  if redis.call('ZREM', KEYS[2], key) == 0 then return false end
  local n = tonumber(redis.call('HGET', KEYS[3], key) or '0')
  redis.call('HDEL', KEYS[3], key)
  if redis.call('DECRBY', KEYS[4], n) <= 0 then redis.call('DEL', KEYS[4]) end
  return true
end

local function drop_stored(key)
  if redis.call('ZREM', KEYS[5], key) == 0 then return false end
  redis.call('ZREM', KEYS[8], key)
  local n = tonumber(redis.call('HGET', KEYS[6], key) or '0')
  redis.call('HDEL', KEYS[6], key)
  if redis.call('DECRBY', KEYS[7], n) <= 0 then redis.call('DEL', KEYS[7]) end
  return true
end

local function expire_stored()
  local gone = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, EXPIRE_BATCH)
  for _, key in ipairs(gone) do drop_stored(key) end
end

-- stored_wait: ms until enough stored bytes expire for bytes more to fit.
local function stored_wait(total, bytes, max)
  local entries = redis.call('ZRANGE', KEYS[5], 0, RETRY_SCAN - 1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    total = total - tonumber(redis.call('HGET', KEYS[6], entries[i]) or '0')
    if total + bytes <= max then return math.max(tonumber(entries[i + 1]) - now, 1) end
  end
  return 0
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

if op == 'heal' then
  expire_stored()
  local n = 0
  for i = 3, #ARGV, 3 do
    local key, verdict, ms = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
    if redis.call('ZSCORE', KEYS[5], key) then
      if verdict == 'gone' then
        drop_stored(key)
      elseif verdict == 'at' then
        redis.call('ZADD', KEYS[5], ms, key)
        redis.call('ZREM', KEYS[8], key)
      else
        redis.call('ZADD', KEYS[8], now, key)
      end
      n = n + 1
    end
  end
  return { 'healed', n }
end

if op == 'adopt' then
  expire_stored()
  local n, added = 0, 0
  for i = 3, #ARGV, 4 do
    local key, bytes, at = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
    if at > now and not redis.call('ZSCORE', KEYS[5], key) then
      redis.call('ZADD', KEYS[5], at, key)
      redis.call('HSET', KEYS[6], key, bytes)
      redis.call('INCRBY', KEYS[7], bytes)
      if ARGV[i + 3] == '1' then redis.call('ZADD', KEYS[8], now, key) end
      n, added = n + 1, added + bytes
    end
  end
  return { 'adopted', n, added }
end

local key = ARGV[3]
local interval = tonumber(op == 'give' and ARGV[4] or ARGV[5])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)

if op == 'give' then
  if ARGV[5] == '1' then drop_stored(key) end
  if not drop(key) then return { 'none' } end
  if interval > 0 then store_tat(math.max(tat - interval, now)) end
  return { 'given' }
end

if redis.call('ZSCORE', KEYS[2], key) then return { 'held' } end
local bytes, burst, maxjobs, maxbytes = tonumber(ARGV[4]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local maxstored = tonumber(ARGV[9])
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
-- A job whose input is counted already (a resubmission of an ended job
-- whose input is still kept) adds nothing and is never refused for it.
local count_stored = maxstored > 0 and not redis.call('ZSCORE', KEYS[5], key)
if count_stored then
  expire_stored()
  local total = tonumber(redis.call('GET', KEYS[7]) or '0')
  if total + bytes > maxstored then return { 'stored', total, stored_wait(total, bytes, maxstored) } end
end
if interval > 0 then store_tat(tat + interval) end
if ARGV[11] == '1' then
  redis.call('ZADD', KEYS[2], now, key)
  redis.call('HSET', KEYS[3], key, bytes)
  redis.call('INCRBY', KEYS[4], bytes)
end
if not count_stored then return { 'taken', 0 } end
redis.call('ZADD', KEYS[5], ARGV[10], key)
redis.call('HSET', KEYS[6], key, bytes)
redis.call('INCRBY', KEYS[7], bytes)
redis.call('ZADD', KEYS[8], now, key)
return { 'taken', 1 }
