package jobs

// Accessors for the package's external tests (package jobs_test), which
// import outbox and so cannot live in package jobs.

// JobRecordKey returns the Redis key of k's job record.
func (s *Store) JobRecordKey(k Key) string { return s.keys.job(k) }
