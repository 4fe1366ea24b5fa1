-- fail.lua: end an attempt that did not commit. Fenced; terminal states
-- never change.
--
-- KEYS: the common layout (lib.lua)
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7] fence   ARGV[8] error code
--   ARGV[9] mode: "transient" (retry while attempts remain, else dead-letter
--           with max_attempts_exceeded), "dead" (dead-letter now),
--           "cancel" (cancel now), "release" (retry without counting the
--           attempt: the claim's increment of att is taken back, so a
--           failure that is not the job's fault, such as a model endpoint
--           refusing the deployment's credentials, never exhausts its
--           attempts; the job's deadline still ends it)
--   ARGV[10] error reason, mode "dead" only: a rejected document's reason
--           code (field er), "" for none
-- Returns: the job's state after the call ("retrying", "dead_lettered",
-- "cancelled"), or "stale". A repeat of the same call answers the same.
local f = redis.call('HMGET', K.job, 'st', 'fen', 'att', 'ma', 'ec', 'ca', 'ph')
local st, fen, att, ma, ec = f[1], f[2], tonumber(f[3]), tonumber(f[4]), f[5]
local known = { st = st, ca = f[6], ph = f[7] }
if not st or fen ~= ARGV[7] then return 'stale' end
local mode, code, reason = ARGV[9], ARGV[8], ARGV[10] or ''

if st ~= 'running' then
  -- Only a repeat of the call that ended this attempt is answered.
  if (mode == 'transient' and (st == 'retrying' or (st == 'dead_lettered' and ec == 'max_attempts_exceeded')))
    or (mode == 'release' and st == 'retrying' and ec == code)
    or (mode == 'dead' and st == 'dead_lettered' and ec == code)
    or (mode == 'cancel' and st == 'cancelled' and ec == code) then
    return st
  end
  return 'stale'
end

if mode == 'transient' then
  if att >= ma then
    finish('dead_lettered', 'max_attempts_exceeded', known)
    return 'dead_lettered'
  end
  redis.call('HSET', K.job, 'st', 'retrying', 'ec', code, 'ua', NOW, 'eq', NOW)
  move_state('running', 'retrying', known.ca)
  return 'retrying'
elseif mode == 'release' then
  redis.call('HSET', K.job, 'st', 'retrying', 'att', att - 1, 'ec', code, 'ua', NOW, 'eq', NOW)
  move_state('running', 'retrying', known.ca)
  return 'retrying'
elseif mode == 'dead' then
  if reason ~= '' then
    finish('dead_lettered', code, known, 'er', reason)
  else
    finish('dead_lettered', code, known)
  end
  return 'dead_lettered'
elseif mode == 'cancel' then
  finish('cancelled', code, known)
  return 'cancelled'
end
return redis.error_reply('fail.lua: unknown mode ' .. tostring(mode))
