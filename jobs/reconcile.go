package jobs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The reconciler and the oldest-job gauge read a shard's open jobs from the
// open indexes of its tenants (the tenants set names them): the same
// members, scored by creation time, that a separate per-shard index of open
// jobs would hold, without a second index write at submission and at the end
// of every job.

// openIndexes returns the open index of every tenant of every shard.
func (s *Store) openIndexes(ctx context.Context) ([]string, error) {
	if err := s.migrateActive(ctx); err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringSliceCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.SMembers(ctx, s.keys.tenants(sh))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("jobs: tenants: %w", err)
	}
	var out []string
	for sh, c := range cmds {
		for _, t := range c.Val() {
			if !tenantRe.MatchString(t) {
				return nil, fmt.Errorf("jobs: tenants set of shard %d holds a bad tenant %q", sh, t)
			}
			out = append(out, s.keys.tenantState(sh, t, stateOpen))
		}
	}
	return out, nil
}

// migrateActive moves what the per-shard active index of older scripts
// still lists into the tenants sets: it registers the tenants of up to
// 1000 members per shard and removes those members (their jobs are in their
// tenant's open index, which the same scripts kept). While scripts that
// write the active index still run (a rolling upgrade), every pass moves
// what they added; afterwards a pass finds the index gone, one read per
// shard.
func (s *Store) migrateActive(ctx context.Context) error {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringSliceCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.ZRange(ctx, s.keys.legacyActive(sh), 0, 999)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("jobs: read active index: %w", err)
	}
	pipe = s.rdb.Pipeline()
	moved := false
	for sh, c := range cmds {
		for _, m := range c.Val() {
			tenant, _, _ := strings.Cut(m, ":")
			if tenantRe.MatchString(tenant) {
				pipe.SAdd(ctx, s.keys.tenants(sh), tenant)
			}
			pipe.ZRem(ctx, s.keys.legacyActive(sh), m)
			moved = true
		}
	}
	if !moved {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("jobs: migrate active index: %w", err)
	}
	return nil
}

// StaleJobs returns up to limit non-terminal jobs created before `before`,
// oldest first, across shards. The reconciler checks each against Asynq.
func (s *Store) StaleJobs(ctx context.Context, before time.Time, limit int) ([]Key, error) {
	idx, err := s.openIndexes(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: stale jobs: %w", err)
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, len(idx))
	for i, key := range idx {
		cmds[i] = pipe.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
			Min: "-inf", Max: "(" + strconv.FormatInt(before.UnixMilli(), 10), Count: int64(limit),
		})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("jobs: stale jobs: %w", err)
	}
	var all []redis.Z
	for _, c := range cmds {
		all = append(all, c.Val()...)
	}
	slices.SortFunc(all, func(a, b redis.Z) int { return cmp.Compare(a.Score, b.Score) })
	out := make([]Key, 0, min(limit, len(all)))
	for _, z := range all[:min(limit, len(all))] {
		k, err := ParseKey(z.Member.(string))
		if err != nil {
			return nil, fmt.Errorf("jobs: open index holds a bad key %q", z.Member)
		}
		out = append(out, k)
	}
	return out, nil
}

// Republish appends a job.submitted row to k's outbox if the job is still
// non-terminal, so the relay (the only enqueuer) publishes it again.
func (s *Store) Republish(ctx context.Context, k Key) (bool, error) {
	if err := checkKey(k); err != nil {
		return false, err
	}
	v, err := s.run(ctx, republishScript, []string{s.keys.job(k), s.keys.outbox(s.keys.shardOf(k))}, k.String(), s.nowMs())
	n, _ := v.(int64)
	if err != nil {
		return false, fmt.Errorf("jobs: republish %s: %w", k, err)
	}
	return n == 1, nil
}

// OldestActive returns the creation time of the oldest non-terminal job.
func (s *Store) OldestActive(ctx context.Context) (time.Time, bool, error) {
	idx, err := s.openIndexes(ctx)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("jobs: oldest active: %w", err)
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, len(idx))
	for i, key := range idx {
		cmds[i] = pipe.ZRangeWithScores(ctx, key, 0, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return time.Time{}, false, fmt.Errorf("jobs: oldest active: %w", err)
	}
	var oldest int64
	found := false
	for _, c := range cmds {
		for _, z := range c.Val() {
			if !found || int64(z.Score) < oldest {
				oldest, found = int64(z.Score), true
			}
		}
	}
	if !found {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(oldest).UTC(), true, nil
}
