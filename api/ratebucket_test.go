package api

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

func bucketKey(t *testing.T, tenant, doc string) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, doc, 1)
	require.NoError(t, err)
	return k
}

func TestReprocessTokens_BucketSharedThroughRedis(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		ctx, clk := context.Background(), clock.NewStub(t0)
		r := Rate{Count: 2, Per: time.Minute}
		one := &tokenBucket{rdb: b.Client, clock: clk, rate: r, kind: "reprocess"}
		other := &tokenBucket{rdb: b.Client, clock: clk, rate: r, kind: "reprocess"} // a second API process
		n := 0
		take := func(tb *tokenBucket, tenant string) tokenGrant {
			n++ // a job of its own each time
			g, err := tb.take(ctx, bucketKey(t, tenant, fmt.Sprintf("doc-%d", n)))
			require.NoError(t, err)
			return g
		}
		require.True(t, take(one, "acme").taken)
		require.True(t, take(other, "acme").taken, "the burst is shared, not per process")
		require.Equal(t, tokenGrant{wait: 30 * time.Second}, take(one, "acme"))
		require.True(t, take(other, "globex").taken, "buckets are per tenant")

		require.NoError(t, other.give(ctx, bucketKey(t, "acme", "doc-1")))
		require.True(t, take(one, "acme").taken, "a returned token can be taken again")
		require.Equal(t, tokenGrant{wait: 30 * time.Second}, take(one, "acme"))

		clk.Advance(30 * time.Second)
		require.True(t, take(one, "acme").taken, "one token regained per Per/Count")
		require.Equal(t, tokenGrant{wait: 30 * time.Second}, take(other, "acme"))
	})
}

// A token taken for one job admits every call for that job while held,
// even with the bucket empty; it is given back once, by its taker.
func TestReprocessTokens_HeldPerJob(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		ctx, clk := context.Background(), clock.NewStub(t0)
		tb := &tokenBucket{rdb: b.Client, clock: clk, rate: Rate{Count: 1, Per: time.Minute}, kind: "reprocess"}
		job, other := bucketKey(t, "acme", "inv-1"), bucketKey(t, "acme", "inv-2")
		take := func(k jobs.Key) tokenGrant {
			g, err := tb.take(ctx, k)
			require.NoError(t, err)
			return g
		}
		require.Equal(t, tokenGrant{taken: true}, take(job))
		require.Equal(t, tokenGrant{}, take(job), "admitted on the job's token")
		require.Equal(t, tokenGrant{wait: time.Minute}, take(other), "the bucket is empty")

		require.NoError(t, tb.give(ctx, job))
		require.NoError(t, tb.give(ctx, job), "a second return gives nothing")
		require.Equal(t, tokenGrant{taken: true}, take(other), "the one token is back")
		require.Equal(t, tokenGrant{wait: time.Minute}, take(job), "and only one: the job's hold is gone")

		b.FastForward(time.Minute) // the rest needs miniredis's clock
		clk.Advance(time.Minute)
		require.Equal(t, tokenGrant{taken: true}, take(job))
		b.FastForward(reprocessHold)
		clk.Advance(time.Minute)
		require.Equal(t, tokenGrant{taken: true}, take(job), "a hold lasts reprocessHold")
	})
}

func TestReprocessTokens_BadRate_IsAnError(t *testing.T) {
	t.Parallel()
	_, rdb := redistest.Mini(t)
	tb := &tokenBucket{rdb: rdb, clock: clock.NewStub(t0), rate: Rate{Count: 0, Per: time.Minute}, kind: "reprocess"}
	_, err := tb.take(context.Background(), bucketKey(t, "acme", "inv-1"))
	require.ErrorContains(t, err, "bad rate")
}

// The bucket and a job's hold share the tenant's hash tag, so the script runs
// on a cluster; tenants' buckets land on different masters.
func TestReprocessTokens_OnRedisCluster_TakeHoldWaitGive(t *testing.T) {
	t.Parallel()
	ctx, clk := context.Background(), clock.NewStub(t0)
	c := redistest.Cluster(t)
	rdb, err := jobs.NewRedisClusterClient(c.Addrs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	tb := &tokenBucket{rdb: rdb, clock: clk, rate: Rate{Count: 1, Per: time.Minute}, kind: "reprocess"}

	masters := map[string]bool{}
	for i := range 12 {
		tenant := fmt.Sprintf("tenant-%d", i)
		job, other := bucketKey(t, tenant, "inv-1"), bucketKey(t, tenant, "inv-2")
		masters[c.MasterOf(t, rateKey(tenant, "reprocess"))] = true
		g, err := tb.take(ctx, job)
		require.NoError(t, err)
		require.True(t, g.taken, tenant)
		g, err = tb.take(ctx, job)
		require.NoError(t, err)
		require.Equal(t, tokenGrant{}, g, "%s: the job's hold admits its repeat", tenant)
		g, err = tb.take(ctx, other)
		require.NoError(t, err)
		require.Equal(t, tokenGrant{wait: time.Minute}, g, "%s: the bucket is empty", tenant)
		require.NoError(t, tb.give(ctx, job))
		g, err = tb.take(ctx, other)
		require.NoError(t, err)
		require.True(t, g.taken, "%s: the given-back token is taken again", tenant)
	}
	require.Greater(t, len(masters), 1, "tenants' buckets on more than one master")
}
