package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Backlog is what the outbox streams hold that the relay has not finished:
// the numbers behind the outbox gauges of the API's metrics.
type Backlog struct {
	// Now is Redis's own time (TIME): stream IDs carry Redis time, so ages
	// are measured against it rather than against a process clock.
	Now    time.Time
	Shards []ShardBacklog // one per shard, in shard order
}

// ShardBacklog is one shard's outbox stream as the relay's consumer group
// sees it.
type ShardBacklog struct {
	Shard int
	// Pending entries were delivered to a relay and not yet acked (XPENDING).
	Pending int64
	// Undelivered entries were never delivered to a relay: the group's lag
	// (XINFO GROUPS, Redis 7+), or every entry while no relay has created
	// the group yet. -1 when Redis cannot tell.
	Undelivered int64
	// Oldest is the time in the ID of the oldest entry not yet acked,
	// pending or undelivered; zero when there is none.
	Oldest time.Time
}

// Lag is the age of the oldest entry not yet acked on any shard, 0 when
// every entry is acked.
func (b *Backlog) Lag() time.Duration {
	var oldest time.Time
	for _, s := range b.Shards {
		if !s.Oldest.IsZero() && (oldest.IsZero() || s.Oldest.Before(oldest)) {
			oldest = s.Oldest
		}
	}
	if oldest.IsZero() || !oldest.Before(b.Now) {
		return 0
	}
	return b.Now.Sub(oldest)
}

// Backlog reads every shard's outbox backlog in two pipelined round trips:
// TIME, and per shard XINFO GROUPS, XPENDING (summary) and XLEN; then, for
// shards that may hold undelivered entries, the first entry after the
// group's last-delivered ID.
func (s *Store) Backlog(ctx context.Context) (*Backlog, error) {
	pipe := s.rdb.Pipeline()
	now := pipe.Time(ctx)
	groups := make([]*redis.Cmd, s.shards)
	pending := make([]*redis.XPendingCmd, s.shards)
	lens := make([]*redis.IntCmd, s.shards)
	for sh := range s.shards {
		stream := s.keys.outbox(sh)
		// Raw, because the typed reply cannot tell a null entries-read or
		// lag (Redis cannot count) from zero.
		groups[sh] = pipe.Do(ctx, "XINFO", "GROUPS", stream)
		pending[sh] = pipe.XPending(ctx, stream, RelayGroup)
		lens[sh] = pipe.XLen(ctx, stream)
	}
	_, _ = pipe.Exec(ctx) // errors are judged per command below
	if err := now.Err(); err != nil {
		return nil, fmt.Errorf("jobs: backlog: %w", err)
	}
	b := &Backlog{Now: now.Val(), Shards: make([]ShardBacklog, s.shards)}
	after := make([]string, s.shards) // XRANGE start of each shard's undelivered entries; "" = none
	for sh := range s.shards {
		sb, start, err := shardBacklog(sh, groups[sh], pending[sh], lens[sh])
		if err != nil {
			return nil, fmt.Errorf("jobs: backlog shard %d: %w", sh, err)
		}
		b.Shards[sh], after[sh] = sb, start
	}
	if err := s.firstUndelivered(ctx, b, after); err != nil {
		return nil, fmt.Errorf("jobs: backlog: %w", err)
	}
	return b, nil
}

// shardBacklog reads one shard's first-round replies. start is where its
// undelivered entries begin, for XRANGE ("" when there are none).
func shardBacklog(shard int, groups *redis.Cmd, pending *redis.XPendingCmd, xlen *redis.IntCmd) (ShardBacklog, string, error) {
	sb := ShardBacklog{Shard: shard}
	if err := xlen.Err(); err != nil {
		return sb, "", err
	}
	if xlen.Val() == 0 {
		return sb, "", nil // no stream (or an empty one): nothing waits
	}
	g, found, err := RelayGroupInfo(groups)
	if err != nil {
		return sb, "", err
	}
	if !found {
		// No relay has read this shard yet: every entry is undelivered.
		sb.Undelivered = xlen.Val()
		return sb, "-", nil
	}
	if err := pending.Err(); err != nil && !errors.Is(err, redis.Nil) {
		return sb, "", err
	}
	if p := pending.Val(); p != nil && p.Count > 0 {
		sb.Pending = p.Count
		sb.Oldest = idTime(p.Lower)
	}
	sb.Undelivered = g.lag
	if g.lag == 0 {
		return sb, "", nil
	}
	return sb, "(" + g.lastDelivered, nil
}

// groupInfo is the part of XINFO GROUPS the backlog needs.
type groupInfo struct {
	lastDelivered string
	lag           int64 // -1: unknown
}

// RelayGroupInfo finds the relay group in a raw XINFO GROUPS reply (RESP2
// flat arrays or RESP3 maps). A missing stream is no group.
func RelayGroupInfo(cmd *redis.Cmd) (groupInfo, bool, error) {
	v, err := cmd.Result()
	if err != nil {
		if strings.Contains(err.Error(), "no such key") {
			return groupInfo{}, false, nil
		}
		return groupInfo{}, false, err
	}
	list, _ := v.([]any)
	for _, item := range list {
		f := replyFields(item)
		if f["name"] != RelayGroup {
			continue
		}
		g := groupInfo{lastDelivered: fmt.Sprint(f["last-delivered-id"]), lag: -1}
		// Redis 7 answers lag, or null when it cannot count (after some
		// deletions); older versions omit it. (miniredis answers the stream's
		// length, acked entries included: on cmd/dev's embedded Redis the
		// count is only right when it is 0, which firstUndelivered checks.)
		if lag, ok := f["lag"].(int64); ok {
			g.lag = lag
		}
		return g, true, nil
	}
	return groupInfo{}, false, nil
}

// replyFields turns one XINFO record (a RESP2 array of name, value pairs or
// a RESP3 map) into a map.
func replyFields(v any) map[string]any {
	out := map[string]any{}
	switch r := v.(type) {
	case []any:
		for i := 0; i+1 < len(r); i += 2 {
			out[fmt.Sprint(r[i])] = r[i+1]
		}
	case map[any]any:
		for k, val := range r {
			out[fmt.Sprint(k)] = val
		}
	case map[string]any:
		return r
	}
	return out
}

// firstUndelivered reads the first undelivered entry of every shard that may
// have one, and moves the shard's Oldest back to it. An answer of no entry
// means none is undelivered after all.
func (s *Store) firstUndelivered(ctx context.Context, b *Backlog, after []string) error {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.XMessageSliceCmd, len(after))
	n := 0
	for sh, start := range after {
		if start != "" {
			cmds[sh] = pipe.XRangeN(ctx, s.keys.outbox(sh), start, "+", 1)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for sh, c := range cmds {
		if c == nil {
			continue
		}
		msgs := c.Val()
		if len(msgs) == 0 {
			b.Shards[sh].Undelivered = 0
			continue
		}
		if t := idTime(msgs[0].ID); b.Shards[sh].Oldest.IsZero() || t.Before(b.Shards[sh].Oldest) {
			b.Shards[sh].Oldest = t
		}
	}
	return nil
}

// idTime is the time in a stream ID's milliseconds part.
func idTime(id string) time.Time {
	ms, _ := splitID(id)
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// DLQSize is the number of entries of the per-shard dead-letter indexes:
// jobs dead-lettered within the result retention, including those already
// reprocessed (telling those apart would mean reading every record).
func (s *Store) DLQSize(ctx context.Context) (int64, error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, s.shards)
	for sh := range s.shards {
		cmds[sh] = pipe.ZCard(ctx, s.keys.dlq(sh))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("jobs: dlq size: %w", err)
	}
	var n int64
	for _, c := range cmds {
		n += c.Val()
	}
	return n, nil
}
