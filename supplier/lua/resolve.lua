-- resolve.lua (after lib.lua): the supplier of a document's identity keys,
-- registering its aliases (see lib.lua's resolve).
--
-- KEYS[1..n] the alias key of each identity key, strongest first
-- ARGV[1] window (ms; 0: forever)   ARGV[2..1+n] the identity keys ("scheme:hash")
-- Returns the supplier id.
local ids = {}
for i = 2, #ARGV do ids[i - 1] = ARGV[i] end
return resolve(ids, tonumber(ARGV[1]))
