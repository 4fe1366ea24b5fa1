-- republish.lua: the reconciler's repair. Appends a job.submitted row to the
-- job's outbox so the relay (the only enqueuer) publishes it again. Safe to
-- repeat: the Asynq TaskID and the handler's terminal check absorb extras.
--
-- KEYS[1] job record   KEYS[2] outbox stream
-- ARGV[1] job key      ARGV[2] now ms
-- Returns: 1 when a row was appended, 0 when the job is missing or terminal.
local st = redis.call('HGET', KEYS[1], F.state)
if not st or TERMINAL[st] then
  return 0
end
redis.call('XADD', KEYS[2], '*', EV.type, 'job.submitted', EV.key, ARGV[1], EV.at, ARGV[2], EV.reason, 'reconcile')
return 1
