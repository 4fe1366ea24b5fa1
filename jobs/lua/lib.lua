-- lib.lua: shared prelude, prepended by the Go loader to every script that
-- acts on one job. It names the common KEYS and ARGV layout and holds the one
-- place where a job changes state.
--
-- Common KEYS (built by keyspace.jobFamily; one hash tag, one slot):
--   KEYS[1]  job record (hash)          KEYS[2]  input (string)
--   KEYS[3]  result (string)            KEYS[4]  checkpoints (hash)
--   KEYS[5]  ledger entry (string)      KEYS[6]  document's max version (string)
--   KEYS[7]  outbox stream              KEYS[8]  audit stream
--   KEYS[9]  active index (zset)        KEYS[10] dlq index (zset)
--   KEYS[11..16] tenant state indexes of queued, running, retrying,
--                succeeded, dead_lettered, cancelled (the three open states
--                share one index: the same key three times)
-- Common ARGV:
--   ARGV[1] job key string   ARGV[2] now (unix ms, from the injected clock)
--   ARGV[3] input TTL ms     ARGV[4] result TTL ms (results, checkpoints, job record)
--   ARGV[5] ledger TTL ms (0 = forever)   ARGV[6] audit retention ms
-- Script-specific KEYS start at 17, script-specific ARGV at 7.

local K = {
  job = KEYS[1], input = KEYS[2], result = KEYS[3], ckpt = KEYS[4],
  ledger = KEYS[5], doc = KEYS[6], outbox = KEYS[7], audit = KEYS[8],
  active = KEYS[9], dlq = KEYS[10],
}
local STATE_INDEX = {
  queued = KEYS[11], running = KEYS[12], retrying = KEYS[13],
  succeeded = KEYS[14], dead_lettered = KEYS[15], cancelled = KEYS[16],
}
local JOBKEY = ARGV[1]
local NOW = tonumber(ARGV[2])
local INPUT_TTL = tonumber(ARGV[3])
local RESULT_TTL = tonumber(ARGV[4])
local LEDGER_TTL = tonumber(ARGV[5])
local AUDIT_RETENTION = tonumber(ARGV[6])

local TERMINAL = { succeeded = true, dead_lettered = true, cancelled = true }

-- The ledger entry is the small record that outlives the job (DESIGN.md,
-- Retention), packed to stay small: one state byte, the raw 32-byte payload
-- hash, the raw 16-byte eventId (zeros if none), then "finishedMs|code|flags"
-- (no flags are defined yet).
local LEDGER_STATE = { succeeded = 's', dead_lettered = 'd', cancelled = 'c' }
local LEDGER_STATE_NAME = { s = 'succeeded', d = 'dead_lettered', c = 'cancelled' }
local ZERO_EVENT = string.rep('0', 32)

local function unhex(h)
  return (string.gsub(h, '..', function(x) return string.char(tonumber(x, 16)) end))
end

local function hex(b)
  return (string.gsub(b, '.', function(c) return string.format('%02x', string.byte(c)) end))
end

-- index_add adds a member scored by creation time and trims members older
-- than the result retention, so indexes never outgrow the records they list.
local function index_add(key, score, member)
  redis.call('ZADD', key, score, member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (NOW - RESULT_TTL))
end

local function audit_add(...)
  redis.call('XADD', K.audit, 'MINID', '~', tostring(NOW - AUDIT_RETENTION), '*', ...)
end

-- move_state records a state change of the job in the state indexes.
-- created (the job's creation ms) is read when the caller does not know it.
local function move_state(from, to, created)
  if from and STATE_INDEX[from] == STATE_INDEX[to] then return end
  created = tonumber(created or redis.call('HGET', K.job, 'ca'))
  if from and STATE_INDEX[from] then
    redis.call('ZREM', STATE_INDEX[from], JOBKEY)
  end
  index_add(STATE_INDEX[to], created, JOBKEY)
end

-- finish ends the job: terminal state, ledger entry, and the TTLs of every
-- bulky key. Expiry is set here, by the script that ends the job, never by a
-- sweeper that could fall behind. j holds the job fields the caller already
-- read (st, ca, ph, ev; raw: the ledger's packed hash and eventId, when the
-- caller has them); missing ones are read here. extra are more job fields to
-- set in the same write.
local function finish(to, code, j, ...)
  j = j or {}
  if not (j.st and j.ca and j.ph) then
    local f = redis.call('HMGET', K.job, 'st', 'ca', 'ph', 'ev')
    j = { st = f[1], ca = f[2], ph = f[3], ev = j.ev or f[4], raw = j.raw }
  end
  redis.call('HSET', K.job, 'st', to, 'ec', code, 'fa', NOW, 'ua', NOW, ...)
  move_state(j.st, to, j.ca)
  redis.call('ZREM', K.active, JOBKEY)
  if to == 'dead_lettered' then
    redis.call('ZADD', K.dlq, NOW, JOBKEY)
    redis.call('ZREMRANGEBYSCORE', K.dlq, '-inf', '(' .. (NOW - RESULT_TTL))
  end
  local ledger = LEDGER_STATE[to] .. (j.raw or (unhex(j.ph) .. unhex(j.ev or ZERO_EVENT))) .. NOW .. '|' .. code .. '|'
  if LEDGER_TTL > 0 then
    redis.call('SET', K.ledger, ledger, 'PX', LEDGER_TTL)
  else
    redis.call('SET', K.ledger, ledger)
  end
  redis.call('PEXPIRE', K.input, INPUT_TTL)
  if to ~= 'succeeded' then
    redis.call('PEXPIRE', K.result, RESULT_TTL) -- commit.lua sets it with its TTL
  end
  redis.call('PEXPIRE', K.job, RESULT_TTL)
  if to == 'succeeded' then
    -- The result supersedes the stage outputs; a dead or cancelled job
    -- keeps them, for diagnosis, as long as a result would live.
    redis.call('DEL', K.ckpt)
  else
    redis.call('PEXPIRE', K.ckpt, RESULT_TTL)
  end
end

-- split_ledger parses a ledger entry into {state, payload hash (hex),
-- eventId (hex, '' if none), finished ms, code, flags}.
local function split_ledger(v)
  local ev = hex(string.sub(v, 34, 49))
  if ev == ZERO_EVENT then ev = '' end
  local ms, code, flags = string.match(string.sub(v, 50), '^(%d+)|([^|]*)|(.*)$')
  return { LEDGER_STATE_NAME[string.sub(v, 1, 1)], hex(string.sub(v, 2, 33)), ev, ms, code, flags }
end

-- create_job writes a new queued job with its input, outbox row and indexes.
-- Fields (the key itself names tenant, document and version): st state,
-- att attempts, rec recoveries, fen fence, tok latest claim token, ph payload
-- hash, ma/mr limits, ds deadline seconds, dl deadlineAt ms, ca/ua/eq/sa/fa
-- created/updated/enqueued/started/finished ms, ec error code, er error
-- reason (a rejected document's reason code; fail.lua), ev eventId,
-- rf/ra reprocessed from/as; the review: rv status, rca created ms, rop
-- operator, rn note, rda decided ms.
local function create_job(ver, ph, blob, ma, mr, ds, rf)
  redis.call('HSET', K.job, 'st', 'queued',
    'att', 0, 'rec', 0, 'fen', 0, 'ph', ph, 'ma', ma, 'mr', mr, 'ds', ds,
    'dl', NOW + tonumber(ds) * 1000, 'ca', NOW, 'ua', NOW, 'eq', NOW)
  if rf ~= '' then
    redis.call('HSET', K.job, 'rf', rf)
  end
  redis.call('SET', K.input, blob)
  local maxv = tonumber(redis.call('GET', K.doc) or '0')
  if tonumber(ver) > maxv then
    maxv = ver
  end
  if LEDGER_TTL > 0 then
    redis.call('SET', K.doc, maxv, 'PX', LEDGER_TTL)
  else
    redis.call('SET', K.doc, maxv)
  end
  redis.call('XADD', K.outbox, '*', 't', 'job.submitted', 'k', JOBKEY, 'at', NOW)
  index_add(STATE_INDEX.queued, NOW, JOBKEY)
  redis.call('ZADD', K.active, NOW, JOBKEY)
end
