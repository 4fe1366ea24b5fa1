// Package outbox is the relay: it reads the per-shard outbox streams the job
// store (package jobs) writes, through one consumer group, and hands each
// entry to its consumer — job.submitted to a Publisher (the worker enqueues
// it on Asynq), extraction.committed to the store's review consumer
// (jobs.Store.ApplyCommitted). It only ever re-sends, never loses: an entry
// is acked once its consumer succeeded, and trimmed once acked and old.
package outbox
