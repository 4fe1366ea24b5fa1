-- claim.lua (after lib.lua): resolve a committed document's supplier and claim its
-- fingerprint, exactly once per document: the first document of a tenant
-- with a supplier's number (and type) owns it; another document with it is
-- a possible duplicate of the owner. Every key is in the tenant's slot
-- {sup:<tenant>}. A re-run for the same job answers the same.
--
-- KEYS[1..n]  the alias key of each identity key of the document, strongest first
-- KEYS[n+1]   the number key: a hash of supplier id -> owner
-- KEYS[n+2]   the amount key (total, date, type): a hash of supplier id -> owner
-- KEYS[n+3]   the number key of the invoice a credit note refers to (its
--             number hashed as an invoice's), or the number key again
-- ARGV[1] now (unix ms)   ARGV[2] window (ms; 0: forever)   ARGV[3] job key
-- ARGV[4] document ref (tenant/documentId: the versions of one document are one)
-- ARGV[5] n   ARGV[6..5+n] the identity keys ("scheme:hash"), as KEYS[1..n]
-- ARGV[6+n] number hash   ARGV[7+n] amount hash   ARGV[8+n] total hash
-- ARGV[9+n] "1": KEYS[n+3] is a preceding invoice's number key
-- Returns {supplier id, status, of job key, matched, credits job key}:
--   status "first"  this document owns its number (or a version of it did)
--          "strong" another document owns the number with the same total
--          "weak"   another document has the number with another total, or
--                   the total and date with another number
--   matched: the comma-separated fields that matched (number,total,date)
local now, window, job, doc = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local n = tonumber(ARGV[5])
local ids = {}
for i = 1, n do ids[i] = ARGV[5 + i] end
local numhash, amthash, tothash = ARGV[6 + n], ARGV[7 + n], ARGV[8 + n]
local has_preceding = ARGV[9 + n] == '1'
local K_NUM, K_AMT, K_PRE = KEYS[n + 1], KEYS[n + 2], KEYS[n + 3]

local sup = resolve(ids, window)
local function keep_w(key) keep(key, window) end

-- An owner is "job|doc|a|b|at"; one older than the window is gone.
local function owner(key)
  local v = redis.call('HGET', key, sup)
  if not v then return nil end
  local j, d, a, b, at = string.match(v, '^(.-)|(.-)|(.-)|(.-)|(%d+)$')
  if not j or (window > 0 and now - tonumber(at) > window) then return nil end
  return { job = j, doc = d, a = a, b = b }
end

local status, of, matched = 'first', '', ''
local o = owner(K_NUM)
if o and o.doc ~= doc then
  of = o.job
  if o.a == tothash then
    status, matched = 'strong', 'number,total'
    if o.b == amthash then matched = 'number,total,date' end
  else
    status, matched = 'weak', 'number'
  end
else
  -- this document owns the number: a first claim, a re-run, or a newer
  -- version of the owner's document, which supersedes it
  redis.call('HSET', K_NUM, sup, job .. '|' .. doc .. '|' .. tothash .. '|' .. amthash .. '|' .. now)
  keep_w(K_NUM)
end

local a = owner(K_AMT)
if a and a.doc ~= doc then
  if status == 'first' and a.a ~= numhash then
    status, of, matched = 'weak', a.job, 'total,date'
  end
elseif status ~= 'strong' then
  redis.call('HSET', K_AMT, sup, job .. '|' .. doc .. '|' .. numhash .. '|-|' .. now)
  keep_w(K_AMT)
end

local credits = ''
if has_preceding then
  local p = owner(K_PRE)
  if p and p.doc ~= doc then credits = p.job end
end
return { sup, status, of, matched, credits }
