-- decide.lua: record an operator's review decision, once. Repeating the same
-- decision is answered as done; a different decision after one was made is
-- refused.
--
-- KEYS[1] job record (holds the review)   KEYS[2] audit stream
-- KEYS[3] outbox stream (a decision appends a review.decided row)
-- ARGV[1] job key   ARGV[2] now ms   ARGV[3] status (approved|rejected)
-- ARGV[4] operator  ARGV[5] note (sealed by the caller when a data key is set)
-- ARGV[6] tenant    ARGV[7] audit retention ms
-- ARGV[8] corrections of an approval (sealed JSON overrides), "" for none: kept in
--         F.review_corrections; the committed result stays as it was
-- ARGV[9] the audit's per-field changes (sealed), "" for none
-- ARGV[10] the corrected fields' names, comma-separated (names only), "" for none:
--         the review.decided row carries them for the webhook
-- ARGV[11] an approval of a strong possible duplicate: the job key of the first
--         document it is not a duplicate of, which must be the marked one
-- Returns: {status, review_status, event_id, review_operator, review_note,
-- review_created_at, review_decided_at}: status is "decided" (this
-- call decided), "same" (already decided this way) or "other" (decided
-- otherwise), followed by the review's fields as they now are; or
-- {"not_found"}; or {"duplicate", first job key}: an approval of a strong
-- possible duplicate that does not name its first job.
local now = tonumber(ARGV[2])

-- audit_xadd is lib.lua's (this script has no prelude): the entry's stream
-- ID carries its time, so the audit list is newest first by it.
local function audit_xadd(key, now, retention, fields)
  local minid = tostring(now - retention)
  local id = redis.pcall('XADD', key, 'MINID', '~', minid, tostring(now) .. '-*', unpack(fields))
  if type(id) ~= 'table' or not id.err then return end
  local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  if top then
    id = redis.pcall('XADD', key, 'MINID', '~', minid, string.match(top[1], '^%d+') .. '-*', unpack(fields))
    if type(id) ~= 'table' or not id.err then return end
  end
  redis.call('XADD', key, 'MINID', '~', minid, '*', unpack(fields))
end

local st = redis.call('HGET', KEYS[1], F.review_status)
local function answer(status)
  return {status, unpack(redis.call('HMGET', KEYS[1], F.review_status, F.event_id, F.review_operator,
    F.review_note, F.review_created_at, F.review_decided_at, F.duplicate, F.credits))}
end
if not st then return {'not_found'} end
if st == ARGV[3] then return answer('same') end
if st ~= 'pending' then return answer('other') end
local corrections, changes, names, notdup = ARGV[8] or '', ARGV[9] or '', ARGV[10] or '', ARGV[11] or ''
if ARGV[3] == 'approved' then
  local strength, first = string.match(redis.call('HGET', KEYS[1], F.duplicate) or '', '^(%a+)|([^|]*)|')
  if strength == 'strong' and notdup ~= first then return {'duplicate', first} end
end
redis.call('HSET', KEYS[1], F.review_status, ARGV[3], F.review_operator, ARGV[4], F.review_note, ARGV[5], F.review_decided_at, now)
if corrections ~= '' then redis.call('HSET', KEYS[1], F.review_corrections, corrections) end
local entry = { AU.action, 'review_decided', AU.tenant, ARGV[6], AU.key, ARGV[1], AU.operator, ARGV[4], AU.decision, ARGV[3], AU.at, now }
if ARGV[5] ~= '' then
  entry[#entry + 1], entry[#entry + 2] = AU.note, ARGV[5]
end
if changes ~= '' then
  entry[#entry + 1], entry[#entry + 2] = AU.changes, changes
end
if notdup ~= '' and ARGV[3] == 'approved' then
  entry[#entry + 1], entry[#entry + 2] = AU.not_duplicate_of, notdup
end
audit_xadd(KEYS[2], now, tonumber(ARGV[7]), entry)
if names ~= '' then
  redis.call('XADD', KEYS[3], '*', EV.type, 'review.decided', EV.key, ARGV[1], EV.decision, ARGV[3], EV.corrected_fields, names, EV.at, now)
else
  redis.call('XADD', KEYS[3], '*', EV.type, 'review.decided', EV.key, ARGV[1], EV.decision, ARGV[3], EV.at, now)
end
return answer('decided')
