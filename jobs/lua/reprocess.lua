-- reprocess.lua: run a dead-lettered job again as the document's next
-- version. Creates the new job (fresh attempts, the old job's limits,
-- deadlineAt = now + the old deadline seconds), links old <-> new, writes the
-- audit entry and the outbox row. The dead job otherwise stays as it was.
--
-- KEYS: the common layout (lib.lua) for the OLD job, plus
--   KEYS[17] new job record   KEYS[18] new input   KEYS[19] new ledger entry
-- ARGV: the common layout (lib.lua) for the OLD job, plus
--   ARGV[7]  new job key          ARGV[8]  document max version the caller read
--   ARGV[9]  operator             ARGV[10] reason
--   ARGV[11] "1" if new content is given, else "0"
--   ARGV[12] new payload hash (ignored without content)   ARGV[13] new input blob
--   ARGV[14] tenant
-- Returns:
--   {"created", newKey}    {"repeat", newKey}   the same reprocess was done before
--   {"moved", key}         the job was reprocessed as another key: call again with it
--   {"race"}               the document's max version moved: read it and call again
--   {"conflict"}           reprocessed before with different content
--   {"not_found"} {"cancelled"} {"not_dead", state} {"input_expired"}
local st = redis.call('HGET', K.job, 'st')
if not st then
  local ledger = redis.call('GET', K.ledger)
  if not ledger then return { 'not_found' } end
  st = split_ledger(ledger)[1]
  if st == 'dead_lettered' then return { 'input_expired' } end
end
if st == 'cancelled' then return { 'cancelled' } end
if st ~= 'dead_lettered' then return { 'not_dead', st } end

local old = redis.call('HMGET', K.job, 'ph', 'ma', 'mr', 'ds', 'ra')
local oldph, ma, mr, ds, ra = old[1], old[2], old[3], old[4], old[5]
local tenant = ARGV[14]
local newkey = ARGV[7]
local newph = oldph
if ARGV[11] == '1' then newph = ARGV[12] end

if ra then
  if ra ~= newkey then return { 'moved', ra } end
  local nph = redis.call('HGET', KEYS[17], 'ph')
  if not nph then
    local ledger = redis.call('GET', KEYS[19])
    if ledger then nph = split_ledger(ledger)[2] end
  end
  if nph ~= newph then return { 'conflict' } end
  return { 'repeat', newkey }
end

if (redis.call('GET', K.doc) or '0') ~= ARGV[8] then return { 'race' } end

local blob = ARGV[13]
if ARGV[11] ~= '1' then
  blob = redis.call('GET', K.input)
  if not blob then return { 'input_expired' } end
end

local oldkey = JOBKEY
redis.call('HSET', K.job, 'ra', newkey)
K.job, K.input, K.ledger = KEYS[17], KEYS[18], KEYS[19]
JOBKEY = newkey
create_job(tonumber(ARGV[8]) + 1, newph, blob, ma, mr, ds, oldkey)
audit_add('a', 'reprocessed', 'tn', tenant, 'k', oldkey, 'nk', newkey, 'op', ARGV[9],
  'r', ARGV[10], 'oh', oldph, 'nh', newph, 'at', NOW)
return { 'created', newkey }
