package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func (x *bundle) backlog(t *testing.T) *Backlog {
	t.Helper()
	b, err := x.store.Backlog(x.ctx)
	require.NoError(t, err)
	require.Len(t, b.Shards, x.store.Shards())
	return b
}

// totals sums pending and undelivered over shards; undelivered is -1 when
// some shard could not tell.
func (b *Backlog) totals() (pending, undelivered int64) {
	for _, s := range b.Shards {
		pending += s.Pending
		if s.Undelivered < 0 || undelivered < 0 {
			undelivered = -1
			continue
		}
		undelivered += s.Undelivered
	}
	return pending, undelivered
}

func TestBacklog_FollowsTheRelay(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		t.Parallel()
		x := setup(t, b, nil)
		start := time.Now().UTC().Truncate(time.Millisecond)
		if b.Mini != nil {
			b.Mini.SetTime(start) // stream IDs and TIME follow it: ages are exact
		}

		bl := x.backlog(t)
		require.Zero(t, bl.Lag(), "an empty outbox has no lag")
		p, u := bl.totals()
		require.Zero(t, p)
		require.Zero(t, u)

		keys := []Key{mustKey(t, "acme", "inv-1", 1), mustKey(t, "acme", "inv-2", 1), mustKey(t, "globex", "inv-1", 1)}
		for _, k := range keys {
			x.submit(t, k, "c")
		}
		if b.Mini != nil {
			b.Mini.SetTime(start.Add(90 * time.Second))
		}
		bl = x.backlog(t)
		p, u = bl.totals()
		require.Zero(t, p, "no relay has read anything")
		require.EqualValues(t, 3, u, "without a consumer group every entry is undelivered")
		requireLag(t, b, bl, 90*time.Second)

		// A relay whose publisher fails reads the entries and leaves them
		// pending: its reads, as the relay makes them.
		for sh := range x.store.Shards() {
			stream := x.store.keys.outbox(sh)
			require.NoError(t, x.rdb.XGroupCreateMkStream(x.ctx, stream, RelayGroup, "0").Err())
			err := x.rdb.XReadGroup(x.ctx, &redis.XReadGroupArgs{Group: RelayGroup, Consumer: "r1", Streams: []string{stream, ">"}, Count: 10, Block: -1}).Err()
			if !errors.Is(err, redis.Nil) {
				require.NoError(t, err)
			}
		}
		bl = x.backlog(t)
		p, u = bl.totals()
		require.EqualValues(t, 3, p, "delivered, not acked")
		require.Zero(t, u)
		requireLag(t, b, bl, 90*time.Second)

		for sh := range x.store.Shards() {
			stream := x.store.keys.outbox(sh)
			ps, err := x.rdb.XPendingExt(x.ctx, &redis.XPendingExtArgs{Stream: stream, Group: RelayGroup, Start: "-", End: "+", Count: 10}).Result()
			require.NoError(t, err)
			for _, e := range ps {
				require.NoError(t, x.rdb.XAck(x.ctx, stream, RelayGroup, e.ID).Err())
			}
		}
		bl = x.backlog(t)
		p, u = bl.totals()
		require.Zero(t, p)
		require.Zero(t, u)
		require.Zero(t, bl.Lag(), "everything acked")

		// Once the group exists, a new entry is undelivered: counted by
		// Redis 7's XINFO GROUPS lag, aged in any case.
		x.submit(t, mustKey(t, "acme", "inv-3", 1), "c")
		if b.Mini != nil {
			b.Mini.SetTime(start.Add(100 * time.Second))
		}
		bl = x.backlog(t)
		p, u = bl.totals()
		require.Zero(t, p)
		if b.Mini == nil { // miniredis's XINFO GROUPS lag counts acked entries too
			require.EqualValues(t, 1, u)
		}
		requireLag(t, b, bl, 10*time.Second)
	})
}

// requireLag checks the backlog's lag: exactly want on miniredis (its clock
// is set by the test), within the test's run on a real server.
func requireLag(t *testing.T, b *redistest.Backend, bl *Backlog, want time.Duration) {
	t.Helper()
	if b.Mini != nil {
		require.Equal(t, want, bl.Lag())
		return
	}
	require.Positive(t, bl.Lag()+time.Millisecond, "an unacked entry has an age")
	require.Less(t, bl.Lag(), time.Minute)
}

func TestDLQSize_CountsDeadLetteredJobs(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		t.Parallel()
		x := setup(t, b, nil)
		n, err := x.store.DLQSize(x.ctx)
		require.NoError(t, err)
		require.Zero(t, n)

		for _, doc := range []string{"dead-1", "dead-2", "alive"} {
			k := mustKey(t, "acme", doc, 1)
			x.submit(t, k, "c")
			c := x.claim(t, k)
			if doc != "alive" {
				require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodePermanent))
			}
		}
		n, err = x.store.DLQSize(x.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	})
}
