-- reprocess.lua: run a dead-lettered job again as the document's next
-- version. Creates the new job (fresh attempts, the old job's limits,
-- deadlineAt = now + the old deadline seconds), links old <-> new, writes the
-- audit entry and the outbox row. The dead job otherwise stays as it was.
--
-- KEYS: the common layout (schema.go) for the OLD job, plus the NEW job's
--   own keys in the order of jobKeySlots (schema.go): KEYS[NKEYS+1] record, KEYS[NKEYS+2] input,
--   KEYS[NKEYS+3] result, KEYS[NKEYS+4] checkpoints, KEYS[NKEYS+5] ledger
-- ARGV: the common layout (schema.go) for the OLD job, plus
--   ARGV[NARGS+1] new job key          ARGV[NARGS+2] document max version the caller read
--   ARGV[NARGS+3] operator             ARGV[NARGS+4] reason
--   ARGV[NARGS+5] "1" if new content is given, else "0"
--   ARGV[NARGS+6] new payload hash, with content or corrections ("" otherwise: the
--           old job's)                                       ARGV[NARGS+7] new input blob
--   ARGV[NARGS+8] tenant
--   ARGV[NARGS+9] corrections: the operator's field overrides (sealed), "" for none;
--           stored on the new job (F.corrections) for the worker to put over the extraction
--   ARGV[NARGS+10] the audit's per-field changes (sealed), "" for none
--   ARGV[NARGS+11] the reason code the corrections overrule (not_an_invoice), "" for none
-- Returns:
--   {"created", newKey}    {"repeat", newKey}   the same reprocess was done before
--   {"moved", key}         the job was reprocessed as another key: call again with it
--   {"race"}               the document's max version moved: read it and call again
--   {"conflict"}           reprocessed before with different content
--   {"not_found"} {"cancelled"} {"not_dead", state} {"input_expired"}
local newkey, maxv, operator, reason = ARGV[NARGS + 1], ARGV[NARGS + 2], ARGV[NARGS + 3], ARGV[NARGS + 4]
local given, givenph, givenblob, tenant = ARGV[NARGS + 5] == '1', ARGV[NARGS + 6], ARGV[NARGS + 7], ARGV[NARGS + 8]
local corrections, changes, overruled = ARGV[NARGS + 9] or '', ARGV[NARGS + 10] or '', ARGV[NARGS + 11] or ''
-- N is the new version's key set, built explicitly: the old job stays J.
local N = job_keys(NKEYS, newkey)

local st = redis.call('HGET', J.job, F.state)
if not st then
  local ledger = redis.call('GET', J.ledger)
  if not ledger then return { 'not_found' } end
  st = split_ledger(ledger)[1]
  if st == STATE.dead_lettered then return { 'input_expired' } end
end
if st == STATE.cancelled then return { 'cancelled' } end
if st ~= STATE.dead_lettered then return { 'not_dead', st } end

local old = redis.call('HMGET', J.job, F.payload_hash, F.max_attempts, F.max_recoveries, F.deadline_seconds, F.reprocessed_as)
local oldph, ma, mr, ds, ra = old[1], old[2], old[3], old[4], old[5]
local newph = oldph
if given or givenph ~= '' then newph = givenph end

if ra then
  if ra ~= newkey then return { 'moved', ra } end
  local nph = redis.call('HGET', N.job, F.payload_hash)
  if not nph then
    local ledger = redis.call('GET', N.ledger)
    if ledger then nph = split_ledger(ledger)[2] end
  end
  if nph ~= newph then return { 'conflict' } end
  return { 'repeat', newkey }
end

if (redis.call('GET', KEYS[KEY.doc]) or '0') ~= maxv then return { 'race' } end

local blob = givenblob
if not given then
  blob = redis.call('GET', J.input)
  if not blob then return { 'input_expired' } end
end

redis.call('HSET', J.job, F.reprocessed_as, newkey)
create_job(N, tonumber(maxv) + 1, newph, blob, ma, mr, ds, J.key)
if corrections ~= '' then redis.call('HSET', N.job, F.corrections, corrections) end
local entry = { AU.action, 'reprocessed', AU.tenant, tenant, AU.key, J.key, AU.new_key, newkey, AU.operator, operator,
  AU.reason, reason, AU.old_hash, oldph, AU.new_hash, newph, AU.at, NOW }
if changes ~= '' then
  entry[#entry + 1], entry[#entry + 2] = AU.changes, changes
end
if overruled ~= '' then
  entry[#entry + 1], entry[#entry + 2] = AU.overruled, overruled
end
audit_add(unpack(entry))
return { 'created', newkey }
