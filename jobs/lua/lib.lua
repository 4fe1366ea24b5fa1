-- lib.lua: the shared prelude of every script that acts on one job, loaded
-- after the generated schema.lua (TERMINAL, TRANSITIONS, INDEX, job_keys,
-- LEDGER_STATE; F, EV, AU, STATE, KEY and ARG are inlined: see schema.go). It reads the common KEYS
-- and ARGV layout and holds set_state, the one place where a job changes
-- state: every side effect of a transition (state field, tenant index,
-- tenants set, dead-letter index, ledger entry, TTLs) lives there.
--
-- Script-specific KEYS start at NKEYS + 1, script-specific ARGV at NARGS + 1.

local NOW = tonumber(ARGV[ARG.now])
local INPUT_TTL = tonumber(ARGV[ARG.input_ttl])
local RESULT_TTL = tonumber(ARGV[ARG.result_ttl])
local LEDGER_TTL = tonumber(ARGV[ARG.ledger_ttl])
local AUDIT_RETENTION = tonumber(ARGV[ARG.audit_retention])

-- J is the job the script was called for (the common KEYS layout); the
-- keys its document shares with its other versions (version counter,
-- streams, indexes) are KEYS[KEY.doc] .. KEYS[NKEYS].
local J = job_keys(0, ARGV[ARG.key])

local ZERO_EVENT = string.rep('0', 32)

local function unhex(h)
  return (string.gsub(h, '..', function(x) return string.char(tonumber(x, 16)) end))
end

local function hex(b)
  return (string.gsub(b, '.', function(c) return string.format('%02x', string.byte(c)) end))
end

-- index_add adds a member to an index of ended jobs, scored by creation
-- time, and unless no_trim trims members older than the result retention,
-- so the index never outgrows the records it lists (an ended job's record
-- expires; a list skips a member whose record is gone, so the trim bounds
-- memory and never decides what is listed). The one caller that skips the
-- trim is a commit, which trims on one commit in several (Go decides:
-- Store.trimSucceeded); every other end of a job trims.
-- The open index needs no trim, only its ZADD: the record of an open job has
-- no TTL, and its member leaves by set_state's ZREM when the job ends, so an
-- open member never outlives its record (nor, as a trim by creation time
-- would, drops a job that is still open).
local function index_add(key, score, member, no_trim)
  redis.call('ZADD', key, score, member)
  if not no_trim then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (NOW - RESULT_TTL))
  end
end

-- audit_xadd appends an audit entry (fields: field, value pairs) to
-- stream key whose ID carries its time, now: the audit list merges the
-- shards' streams by ID and reads each entry's time from it, so it is
-- newest first by the time it shows. When the stream holds a later ID
-- already (another process's clock ahead, or a request whose now came
-- first ran second) the entry takes that ID's time; on a Redis before 7.0
-- (no "<ms>-*" IDs) Redis picks the ID. decide.lua, which has no prelude,
-- carries a copy.
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

local function audit_add(...)
  audit_xadd(KEYS[KEY.audit], NOW, AUDIT_RETENTION, { ... })
end

-- set_state changes job J's state from o.from (nil: the job is created) to
-- to, checked against TRANSITIONS before anything is written: a transition
-- it does not list is a broken invariant, raised as a script error (the
-- script stops; Go reports it at lib.lua's line).
-- It writes the state, F.updated_at and o.fields (more field, value pairs,
-- a list it extends) in one HSET and maintains the tenant's state indexes (scored by o.ca, the
-- job's creation ms, read when not given), the shard's tenants set and, when
-- the job ends, the dead-letter index, the ledger entry (o.code, and o.ph/o.ev
-- or o.raw, the packed hash and eventId) and the TTLs of every bulky key
-- (o.no_ckpt: the job has no checkpoint hash, see commit.lua; o.no_trim:
-- the new state's index is not trimmed this time, see index_add).
-- Expiry is set here, by the script that ends the job, never by a sweeper
-- that could fall behind.
local function set_state(J, to, o)
  local from = o.from
  if not TRANSITIONS[(from or 'new') .. '>' .. to] then
    error('set_state: ' .. J.key .. ': transition ' .. tostring(from or 'new') .. ' -> ' .. to .. ' is not declared')
  end
  -- o.fields is extended in place: no copy of the caller's list.
  local fields = o.fields or {}
  local n = #fields
  fields[n + 1], fields[n + 2], fields[n + 3], fields[n + 4] = F.state, to, F.updated_at, NOW
  if TERMINAL[to] then
    fields[n + 5], fields[n + 6], fields[n + 7], fields[n + 8] = F.error_code, o.code, F.finished_at, NOW
  end
  redis.call('HSET', J.job, unpack(fields))

  if not from then
    -- A new job is open: its index takes a ZADD only (see index_add). The
    -- shard's tenants set names the open indexes the reconciler reads, so
    -- the end of a job has no other index of open jobs to leave.
    redis.call('ZADD', KEYS[INDEX[to]], NOW, J.key)
    redis.call('SADD', KEYS[KEY.tenants], string.match(J.key, '^[^:]+'))
    return
  end
  -- Open states share one index: only the end of a job changes its index.
  if INDEX[from] ~= INDEX[to] then
    local ca = tonumber(o.ca or redis.call('HGET', J.job, F.created_at))
    redis.call('ZREM', KEYS[INDEX[from]], J.key)
    index_add(KEYS[INDEX[to]], ca, J.key, o.no_trim)
  end
  if not TERMINAL[to] then return end

  if to == STATE.dead_lettered then
    redis.call('ZADD', KEYS[KEY.dlq], NOW, J.key)
    redis.call('ZREMRANGEBYSCORE', KEYS[KEY.dlq], '-inf', '(' .. (NOW - RESULT_TTL))
  end
  local raw = o.raw
  if not raw then
    local ph, ev = o.ph, o.ev
    if not ph then
      local f = redis.call('HMGET', J.job, F.payload_hash, F.event_id)
      ph, ev = f[1], ev or f[2]
    end
    raw = unhex(ph) .. unhex(ev or ZERO_EVENT)
  end
  local ledger = LEDGER_STATE[to] .. raw .. NOW .. '|' .. o.code .. '|'
  if LEDGER_TTL > 0 then
    redis.call('SET', J.ledger, ledger, 'PX', LEDGER_TTL)
  else
    redis.call('SET', J.ledger, ledger)
  end
  redis.call('PEXPIRE', J.input, INPUT_TTL)
  if to ~= STATE.succeeded then
    redis.call('PEXPIRE', J.result, RESULT_TTL) -- commit.lua sets it with its TTL
  end
  redis.call('PEXPIRE', J.job, RESULT_TTL)
  if to == STATE.succeeded then
    -- The result supersedes the stage outputs; a dead or cancelled job
    -- keeps them, for diagnosis, as long as a result would live. o.no_ckpt:
    -- the caller knows the job has no checkpoint hash to delete.
    if not o.no_ckpt then
      redis.call('DEL', J.ckpt)
    end
  else
    redis.call('PEXPIRE', J.ckpt, RESULT_TTL)
  end
end

-- split_ledger parses a ledger entry into {state, payload hash (hex),
-- eventId (hex, '' if none), finished ms, code, flags}.
local function split_ledger(v)
  local ev = hex(string.sub(v, LEDGER_HASH_END + 1, LEDGER_EVENT_END))
  if ev == ZERO_EVENT then ev = '' end
  local ms, code, flags = string.match(string.sub(v, LEDGER_EVENT_END + 1), '^(%d+)|([^|]*)|(.*)$')
  return { LEDGER_STATE_NAME[string.sub(v, 1, 1)], hex(string.sub(v, 2, LEDGER_HASH_END)), ev, ms, code, flags }
end

-- create_job creates job J, queued, with its input, its limits, the
-- document's version counter and its job.submitted outbox row; the
-- creation's indexes are set_state's.
local function create_job(J, ver, ph, blob, ma, mr, ds, rf)
  local fields = { F.attempts, 0, F.recoveries, 0, F.fence, 0, F.payload_hash, ph,
    F.max_attempts, ma, F.max_recoveries, mr, F.deadline_seconds, ds,
    F.deadline_at, NOW + tonumber(ds) * 1000, F.created_at, NOW, F.enqueued_at, NOW }
  if rf ~= '' then
    fields[#fields + 1] = F.reprocessed_from
    fields[#fields + 1] = rf
  end
  set_state(J, STATE.queued, { fields = fields })
  redis.call('SET', J.input, blob)
  -- The document's highest version. Most jobs are their document's first:
  -- SET NX writes its counter in one command; otherwise it is raised to
  -- ver if lower, and its TTL renewed either way.
  local first
  if LEDGER_TTL > 0 then
    first = redis.call('SET', KEYS[KEY.doc], ver, 'PX', LEDGER_TTL, 'NX')
  else
    first = redis.call('SET', KEYS[KEY.doc], ver, 'NX')
  end
  if not first then
    local maxv = tonumber(redis.call('GET', KEYS[KEY.doc]) or '0')
    if tonumber(ver) > maxv then
      maxv = ver
    end
    if LEDGER_TTL > 0 then
      redis.call('SET', KEYS[KEY.doc], maxv, 'PX', LEDGER_TTL)
    else
      redis.call('SET', KEYS[KEY.doc], maxv)
    end
  end
  redis.call('XADD', KEYS[KEY.outbox], '*', EV.type, 'job.submitted', EV.key, J.key, EV.at, NOW)
end
