-- fail.lua: end an attempt that did not commit. Fenced; terminal states
-- never change.
--
-- KEYS: the common layout (schema.go)
-- ARGV: the common layout (schema.go), plus
--   ARGV[NARGS+1] fence   ARGV[NARGS+2] error code
--   ARGV[NARGS+3] mode: "transient" (retry while attempts remain, else dead-letter
--           with max_attempts_exceeded), "dead" (dead-letter now),
--           "cancel" (cancel now), "release" (retry without counting the
--           attempt: the claim's increment of att is taken back, so a
--           failure that is not the job's fault, such as a model endpoint
--           refusing the deployment's credentials, never exhausts its
--           attempts; the job's deadline still ends it)
--   ARGV[NARGS+4] error reason, mode "dead" only: a rejected document's reason
--           code (field er), "" for none
--   ARGV[NARGS+5] rejection detail, mode "dead" with a reason only: what was read
--           (the partial extraction and the fields the failing check concerns,
--           JSON, sealed like an input), stored in the result key so it expires
--           with the job's result; "" for none
-- A terminal outcome appends a job.dead_lettered or job.cancelled row to the
-- shard's outbox (codes only), for the webhook notifier.
-- Returns: the job's state after the call ("retrying", "dead_lettered",
-- "cancelled"), or "stale". A repeat of the same call answers the same.
local f = redis.call('HMGET', J.job, F.state, F.fence, F.attempts, F.max_attempts, F.error_code, F.created_at, F.payload_hash)
local st, fen, att, ma, ec, ca, ph = f[1], f[2], tonumber(f[3]), tonumber(f[4]), f[5], f[6], f[7]
if not st or fen ~= ARGV[NARGS + 1] then return 'stale' end
local code, mode, reason, detail = ARGV[NARGS + 2], ARGV[NARGS + 3], ARGV[NARGS + 4] or '', ARGV[NARGS + 5] or ''

local function ended(type, code, reason)
  redis.call('XADD', KEYS[KEY.outbox], '*', EV.type, type, EV.key, J.key, EV.code, code, EV.error_reason, reason, EV.at, NOW)
end

if st ~= STATE.running then
  -- Only a repeat of the call that ended this attempt is answered.
  if (mode == 'transient' and (st == STATE.retrying or (st == STATE.dead_lettered and ec == 'max_attempts_exceeded')))
    or (mode == 'release' and st == STATE.retrying and ec == code)
    or (mode == 'dead' and st == STATE.dead_lettered and ec == code)
    or (mode == 'cancel' and st == STATE.cancelled and ec == code) then
    return st
  end
  return 'stale'
end

if mode == 'transient' then
  if att >= ma then
    set_state(J, STATE.dead_lettered, { from = st, ca = ca, ph = ph, code = 'max_attempts_exceeded' })
    ended('job.dead_lettered', 'max_attempts_exceeded', '')
    return 'dead_lettered'
  end
  set_state(J, STATE.retrying, { from = st, ca = ca, fields = { F.error_code, code, F.enqueued_at, NOW } })
  return 'retrying'
elseif mode == 'release' then
  set_state(J, STATE.retrying, { from = st, ca = ca, fields = { F.attempts, att - 1, F.error_code, code, F.enqueued_at, NOW } })
  return 'retrying'
elseif mode == 'dead' then
  local fields = {}
  if reason ~= '' then fields = { F.error_reason, reason } end
  -- set_state gives the result key its TTL.
  if reason ~= '' and detail ~= '' then redis.call('SET', J.result, detail) end
  set_state(J, STATE.dead_lettered, { from = st, ca = ca, ph = ph, code = code, fields = fields })
  ended('job.dead_lettered', code, reason)
  return 'dead_lettered'
elseif mode == 'cancel' then
  set_state(J, STATE.cancelled, { from = st, ca = ca, ph = ph, code = code })
  ended('job.cancelled', code, '')
  return 'cancelled'
end
return redis.error_reply('fail.lua: unknown mode ' .. tostring(mode))
