-- lib.lua: the supplier resolution both claim.lua and resolve.lua run,
-- loaded before them (the package's loader prepends it).
--
-- resolve(ids, window) takes the document's identity keys ("scheme:hash",
-- strongest first; KEYS[i] is the alias key of ids[i]) and returns the
-- supplier id: the supplier of the strongest alias that does not conflict
-- with the document (an alias whose supplier is anchored on another key of
-- a scheme this document states is another supplier's: two companies of
-- one name, a factor's shared IBAN), else a new supplier named by the
-- strongest key. Every alias of the document that is free or already the
-- supplier's is (re)set to "supplier|anchor", the anchor being the
-- strongest key the supplier is known by, and kept for window ms (0:
-- forever).
local rank = { vat = 1, tax = 2, legal = 3, gln = 4, iban = 5, email = 6, name = 7 }
local function scheme(k) return string.match(k, '^([^:]+):') end
local function keep(key, window)
  if window > 0 then redis.call('PEXPIRE', key, window) end
end

local function resolve(ids, window)
  local n = #ids
  local mine = {}
  for i = 1, n do
    local s = scheme(ids[i])
    mine[s] = mine[s] or {}
    mine[s][ids[i]] = true
  end
  local function conflicts(anchor)
    local s = scheme(anchor)
    return mine[s] ~= nil and not mine[s][anchor]
  end
  local sup, anchor
  local aliases = {}
  for i = 1, n do
    local v = redis.call('GET', KEYS[i])
    if v then
      local s, a = string.match(v, '^(.-)|(.*)$')
      aliases[i] = s
      if not sup and s and not conflicts(a) then sup, anchor = s, a end
    end
  end
  if not sup then sup, anchor = ids[1], ids[1] end
  for i = 1, n do
    if (aliases[i] == nil or aliases[i] == sup) and rank[scheme(ids[i])] < rank[scheme(anchor)] then
      anchor = ids[i]
    end
  end
  for i = 1, n do
    if aliases[i] == nil or aliases[i] == sup then
      redis.call('SET', KEYS[i], sup .. '|' .. anchor)
      keep(KEYS[i], window)
    end
  end
  return sup
end
