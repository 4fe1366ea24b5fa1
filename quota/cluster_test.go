package quota

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// On a real 3-master Redis Cluster, through the store's cluster client,
// the quota script (one tenant slot) and the prune (job records in other
// slots) work for tenants spread over the masters.
func TestLimiter_OnRedisCluster_ReservesRefusesAndHeals(t *testing.T) {
	t.Parallel()
	c := redistest.Cluster(t)
	rdb, err := jobs.NewRedisClusterClient(c.Addrs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(time.Now().UTC().Truncate(time.Millisecond))
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk})
	require.NoError(t, err)
	lim, err := New(Config{Store: store, Clock: clk, Rate: 100, Per: time.Second, MaxJobs: 2, MaxBytes: 1000, MaxStoredBytes: 7})
	require.NoError(t, err)
	x := &bundle{ctx: context.Background(), store: store, clock: clk, lim: lim}

	masters := map[string]bool{}
	for _, tn := range []string{"acme", "globex", "initech", "umbrella", "hooli", "stark"} {
		masters[c.MasterOf(t, keys(tn)[1])] = true
		first := key(t, tn, 1)
		require.NoError(t, x.submit(t, first, "abc"))
		require.NoError(t, x.submit(t, key(t, tn, 2), "de"))
		requireExceeded(t, x.submit(t, key(t, tn, 3), "f"), LimitJobs)
		x.end(t, first)
		clk.Advance(time.Second)
		require.NoError(t, x.submit(t, key(t, tn, 3), "f"))
		u, err := ReadUsage(x.ctx, rdb, tn)
		require.NoError(t, err)
		require.Equal(t, Usage{Jobs: 2, Bytes: 3, StoredInputs: 3, StoredBytes: 6}, u, "the ended job's input is still stored")
		// The stored cap: its heal reads the inputs' TTLs in their own slots.
		x.end(t, key(t, tn, 2))
		x.end(t, key(t, tn, 3))
		clk.Advance(time.Second)
		requireExceeded(t, x.submit(t, key(t, tn, 4), "gh"), LimitStored)
		healed, err := lim.HealStored(x.ctx, tn)
		require.NoError(t, err)
		require.Positive(t, healed)
	}
	require.Greater(t, len(masters), 1, "the tenants' slots are on more than one master")
}

// On a real Redis Cluster the recount walks the tenant's job indexes and
// inputs in their own slots, and keeps its state and count in the
// tenant's.
func TestRecount_OnRedisCluster_CountsInputsStoredBeforeTheCap(t *testing.T) {
	t.Parallel()
	c := redistest.Cluster(t)
	rdb, err := jobs.NewRedisClusterClient(c.Addrs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(time.Now().UTC().Truncate(time.Millisecond))
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk})
	require.NoError(t, err)
	ctx := context.Background()
	var ks []jobs.Key
	for i := range 20 {
		k := key(t, "acme", i)
		_, err := store.Submit(ctx, jobs.SubmitRequest{Key: k, Content: "123456"})
		require.NoError(t, err)
		ks = append(ks, k)
	}
	sizes, err := store.PeekInputSizes(ctx, ks)
	require.NoError(t, err)
	var stored int64
	for _, s := range sizes {
		stored += s.Bytes
	}
	lim, err := New(Config{Store: store, Clock: clk, MaxStoredBytes: stored + 4, RecountBatch: 7})
	require.NoError(t, err)
	x := &bundle{ctx: ctx, store: store, clock: clk, lim: lim}
	for range 3 { // three steps of seven jobs, one before each reservation
		require.NoError(t, x.submit(t, key(t, "acme", 100+len(ks)), "1"))
		ks = append(ks, key(t, "acme", 100+len(ks)))
	}
	u, err := ReadUsage(ctx, rdb, "acme")
	require.NoError(t, err)
	require.Equal(t, Usage{StoredInputs: 23, StoredBytes: stored + 3}, u)
	requireExceeded(t, x.submit(t, key(t, "acme", 200), "12"), LimitStored)
}
