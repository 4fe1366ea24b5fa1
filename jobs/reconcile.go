package jobs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// StaleJobs returns up to limit non-terminal jobs created before `before`,
// oldest first, across shards. The reconciler checks each against Asynq.
func (s *Store) StaleJobs(ctx context.Context, before time.Time, limit int) ([]Key, error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.ZRangeByScoreWithScores(ctx, s.keys.active(sh), &redis.ZRangeBy{
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
			return nil, fmt.Errorf("jobs: active index holds a bad key %q", z.Member)
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
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.ZRangeWithScores(ctx, s.keys.active(sh), 0, 0)
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
