-- checkpoint.lua: store one stage's output for the current attempt. It
-- touches two keys only and does not load lib.lua's prelude: it runs
-- several times per job.
--
-- The first checkpoint of a job also marks its record (F.checkpointed), so
-- the commit of a job that never checkpointed skips deleting a checkpoint
-- hash that cannot exist (commit.lua).
--
-- KEYS[1] job record   KEYS[2] checkpoints (hash)
-- ARGV[1] fence   ARGV[2] stage name   ARGV[3] stage output (sealed by the caller
-- when a data key is set; stored as given)   ARGV[4..] stages whose outputs this
-- one replaces, deleted in the same step (the read stage's pages once the whole
-- read is stored)
-- Returns: "ok", or "stale" when the fence is not current or the job is not
-- running (nothing is written).
local f = redis.call('HMGET', KEYS[1], F.state, F.fence, F.checkpointed)
if f[1] ~= STATE.running or f[2] ~= ARGV[1] then
  return 'stale'
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if #ARGV > 3 then
  redis.call('HDEL', KEYS[2], unpack(ARGV, 4))
end
if not f[3] then
  redis.call('HSET', KEYS[1], F.checkpointed, 1)
end
return 'ok'
