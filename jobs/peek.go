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

// TenantJobsOptions selects a walk of one tenant's jobs (TenantJobs).
type TenantJobsOptions struct {
	Tenant string
	// Open walks the open jobs (queued, running, retrying); else the ended
	// ones (succeeded, dead-lettered, cancelled).
	Open bool
	// Since skips jobs created before it (zero: none).
	Since time.Time
	// Cursor continues a walk where the previous call stopped ("" starts).
	Cursor string
	// Limit is how many keys one call returns at most (1..MaxLimit).
	Limit int
}

// TenantJobs walks a tenant's jobs oldest first by creation time, merging
// its per-shard state indexes, and returns up to o.Limit keys and the
// cursor after the last one ("" when the walk is done). A job that ends
// during a walk moves from the open indexes to an ended one: a walk of the
// open jobs followed by one of the ended jobs sees every job at least once.
// The quotas count a tenant's stored inputs with it.
func (s *Store) TenantJobs(ctx context.Context, o TenantJobsOptions) ([]Key, string, error) {
	limit, from, err := pageArgs(o.Tenant, true, o.Limit, o.Cursor)
	if err != nil {
		return nil, "", err
	}
	if from == nil && !o.Since.IsZero() {
		// Strictly above (since-1 ms, the highest member): from since on.
		from = &pos{score: o.Since.UnixMilli() - 1, member: "\xff"}
	}
	states := indexStates[1:]
	if o.Open {
		states = indexStates[:1]
	}
	index := func(src int) string {
		return s.keys.tenantState(src/len(states), o.Tenant, states[src%len(states)])
	}
	m := newMerger(s.shards*len(states), limit, s.zsetWalk(index, true), from)
	m.asc = true
	var out []Key
	var last pos
	for len(out) < limit {
		p, ok, err := m.next(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("jobs: jobs of %s: %w", o.Tenant, err)
		}
		if !ok {
			return out, "", nil
		}
		k, err := ParseKey(p.member)
		if err != nil {
			return nil, "", fmt.Errorf("jobs: index holds a bad key %q", p.member)
		}
		out, last = append(out, k), p
	}
	if best, err := m.head(ctx); err != nil {
		return nil, "", fmt.Errorf("jobs: jobs of %s: %w", o.Tenant, err)
	} else if best < 0 {
		return out, "", nil
	}
	return out, encodeCursor(last), nil
}

// InputSize is what PeekInputSizes found of one job's stored input.
type InputSize struct {
	InputTTL
	Bytes int64 // its stored size: compressed, and encrypted when a data key is set
}

// PeekInputSizes is PeekInputs with each stored input's size (STRLEN), in
// one pipeline.
func (s *Store) PeekInputSizes(ctx context.Context, keys []Key) ([]InputSize, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	ttls := make([]*redis.DurationCmd, len(keys))
	lens := make([]*redis.IntCmd, len(keys))
	for i, k := range keys {
		if err := checkKey(k); err != nil {
			return nil, err
		}
		ttls[i], lens[i] = pipe.PTTL(ctx, s.keys.input(k)), pipe.StrLen(ctx, s.keys.input(k))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("jobs: peek %d inputs: %w", len(keys), err)
	}
	out := make([]InputSize, len(keys))
	for i := range keys {
		switch d := ttls[i].Val(); {
		case d == -1:
			out[i] = InputSize{InputTTL: InputTTL{Stored: true}, Bytes: lens[i].Val()}
		case d > 0:
			out[i] = InputSize{InputTTL: InputTTL{Stored: true, TTL: d}, Bytes: lens[i].Val()}
		}
	}
	return out, nil
}
