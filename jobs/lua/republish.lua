-- republish.lua: the reconciler's repair. Appends a job.submitted row to the
-- job's outbox so the relay (the only enqueuer) publishes it again. Safe to
-- repeat: the Asynq TaskID and the handler's terminal check absorb extras.
--
-- KEYS[1] job record   KEYS[2] outbox stream
-- ARGV[1] job key      ARGV[2] now ms
-- Returns: 1 when a row was appended, 0 when the job is missing or terminal.
local st = redis.call('HGET', KEYS[1], 'st')
if not st or st == 'succeeded' or st == 'dead_lettered' or st == 'cancelled' then
  return 0
end
redis.call('XADD', KEYS[2], '*', 't', 'job.submitted', 'k', ARGV[1], 'at', ARGV[2], 'r', 'reconcile')
return 1
