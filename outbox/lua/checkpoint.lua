-- checkpoint.lua: store one stage's output for the current attempt.
--
-- KEYS: the common layout (lib.lua)
-- ARGV: the common layout (lib.lua), plus
--   ARGV[7] fence   ARGV[8] stage name   ARGV[9] stage output
-- Returns: "ok", or "stale" when the fence is not current or the job is not
-- running (nothing is written).
local f = redis.call('HMGET', K.job, 'st', 'fen')
if f[1] ~= 'running' or f[2] ~= ARGV[7] then
  return 'stale'
end
redis.call('HSET', K.ckpt, ARGV[8], ARGV[9])
return 'ok'
