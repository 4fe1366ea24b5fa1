-- commit.lua: the exactly-once effect. Result + extraction.committed outbox
-- row + ledger (dedupe marker) + state succeeded, all or nothing.
--
-- KEYS: the common layout (schema.go)
-- ARGV: the common layout (schema.go), plus
--   ARGV[NARGS+1] fence   ARGV[NARGS+2] payload hash the attempt worked on
--   ARGV[NARGS+3] result (sealed by the caller when a data key is set; stored as given)
--   ARGV[NARGS+4] new eventId
--   ARGV[NARGS+5] the raw payload hash and eventId (48 bytes: the ledger's packing,
--            done by the caller so the script need not convert hex)
--   ARGV[NARGS+6] "1": trim the tenant's succeeded index (one commit in several
--            into it per process does; see Store.trimSucceeded), "0": only add to it
--   ARGV[NARGS+7] the result's duplicate fingerprint (hashes only), "" for none:
--            carried by the extraction.committed row to the review consumer
--   ARGV[NARGS+8] the result's document type, "" for none: carried by the row to
--            the webhook
-- Returns:
--   {"committed", eventId}
--   {"deduped", eventId}   this commit was already applied (same fence, same payload)
--   {"conflict"}           the payload hash differs from the job's
--   {"stale"}              the fence is not current, or the job ended otherwise
local fence, wantph, result, eventid, raw = ARGV[NARGS + 1], ARGV[NARGS + 2], ARGV[NARGS + 3], ARGV[NARGS + 4], ARGV[NARGS + 5]
local trim = ARGV[NARGS + 6] == '1'
local fp, doctype = ARGV[NARGS + 7] or '', ARGV[NARGS + 8] or ''
local f = redis.call('HMGET', J.job, F.state, F.fence, F.payload_hash, F.event_id, F.created_at, F.checkpointed)
local st, fen, ph, ev, ca, ck = f[1], f[2], f[3], f[4], f[5], f[6]
if not st then
  local ledger = redis.call('GET', J.ledger)
  if ledger then
    local p = split_ledger(ledger)
    if p[2] ~= wantph then return { 'conflict' } end
    if p[1] == STATE.succeeded then return { 'deduped', p[3] } end
  end
  return { 'stale' }
end
if fen ~= fence then return { 'stale' } end
if ph ~= wantph then return { 'conflict' } end
if st == STATE.succeeded then return { 'deduped', ev } end
if st ~= STATE.running then return { 'stale' } end

redis.call('SET', J.result, result, 'PX', RESULT_TTL)
local row = { EV.type, 'extraction.committed', EV.key, J.key, EV.event_id, eventid, EV.at, NOW }
if fp ~= '' then row[#row + 1], row[#row + 2] = EV.fingerprint, fp end
if doctype ~= '' then row[#row + 1], row[#row + 2] = EV.document_type, doctype end
redis.call('XADD', KEYS[KEY.outbox], '*', unpack(row))
-- Fence 1 is the job's only claim ever: this attempt is the only one that
-- could have checkpointed, through the checkpoint.lua that marks the record
-- (F.checkpointed), so an unmarked record has no checkpoint hash to delete.
-- After any other claim the mark is not trusted (a checkpoint written by an
-- older script leaves none) and the hash is deleted as always.
set_state(J, STATE.succeeded, { from = st, ca = ca, code = '', raw = raw, fields = { F.event_id, eventid },
  no_ckpt = fen == '1' and not ck, no_trim = not trim })
return { 'committed', eventid }
