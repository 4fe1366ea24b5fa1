package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Peek is what a job's record says of its state and deadline, read without
// a script: enough for a component outside the store (tenant admission) to
// tell a job that still needs a worker from one that ended.
type Peek struct {
	// State is the job's state; "" when the record no longer exists (the
	// job ended long ago and only its ledger entry is left, or it never
	// existed): either way nothing remains to run.
	State      State
	DeadlineAt time.Time
}

// Done reports whether the job needs no worker any more: terminal, or gone.
func (p Peek) Done() bool { return p.State == "" || p.State.Terminal() }

// PeekJobs reads the state and deadline of every key in one pipeline (on
// Redis Cluster, one command per key, each in its own slot).
func (s *Store) PeekJobs(ctx context.Context, keys []Key) ([]Peek, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(keys))
	for i, k := range keys {
		if err := checkKey(k); err != nil {
			return nil, err
		}
		cmds[i] = pipe.HMGet(ctx, s.keys.job(k), fState, fDeadlineAt)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("jobs: peek %d jobs: %w", len(keys), err)
	}
	out := make([]Peek, len(keys))
	for i, c := range cmds {
		v := c.Val()
		if len(v) != 2 {
			continue
		}
		st, _ := v[0].(string)
		dl, _ := v[1].(string)
		out[i] = Peek{State: State(st), DeadlineAt: msTime(dl)}
	}
	return out, nil
}

// OpenJobs counts tenant's open jobs (queued, running or retrying) from the
// store's own per-shard indexes: one pipelined ZCARD per shard.
func (s *Store) OpenJobs(ctx context.Context, tenant string) (int64, error) {
	if f := ValidateTenant(tenant); f != nil {
		return 0, &ValidationError{Fields: []FieldError{*f}}
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.ZCard(ctx, s.keys.tenantState(sh, tenant, StateQueued))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("jobs: open jobs of %s: %w", tenant, err)
	}
	var n int64
	for _, c := range cmds {
		n += c.Val()
	}
	return n, nil
}

// InputTTL is what PeekInputs found of one job's stored input.
type InputTTL struct {
	Stored bool          // an input is stored under the key
	TTL    time.Duration // its time to live; 0 while it has none (the job is open)
}

// PeekInputs reads whether each job's input is stored and for how long
// (PTTL), in one pipeline (on Redis Cluster, one command per key, each in
// its own slot). The quotas heal their count of stored inputs with it.
func (s *Store) PeekInputs(ctx context.Context, keys []Key) ([]InputTTL, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.DurationCmd, len(keys))
	for i, k := range keys {
		if err := checkKey(k); err != nil {
			return nil, err
		}
		cmds[i] = pipe.PTTL(ctx, s.keys.input(k))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("jobs: peek %d inputs: %w", len(keys), err)
	}
	out := make([]InputTTL, len(keys))
	for i, c := range cmds {
		// go-redis reports PTTL's -1 (no expiry) and -2 (no key) as those
		// durations in nanoseconds, not milliseconds.
		switch d := c.Val(); {
		case d == -1:
			out[i] = InputTTL{Stored: true}
		case d > 0:
			out[i] = InputTTL{Stored: true, TTL: d}
		}
	}
	return out, nil
}
