package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestReprocessTokens_BucketSharedThroughRedis(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		other, err := NewStore(Config{Redis: b.Client, Clock: x.clock, Shards: 4}) // a second API process
		require.NoError(t, err)
		r := Rate{Count: 2, Per: time.Minute}
		n := 0
		take := func(s *Store, tenant string) TokenGrant {
			n++ // a job of its own each time
			g, err := s.TakeReprocessToken(x.ctx, mustKey(t, tenant, fmt.Sprintf("doc-%d", n), 1), r)
			require.NoError(t, err)
			return g
		}
		require.True(t, take(x.store, "acme").Taken)
		require.True(t, take(other, "acme").Taken, "the burst is shared, not per process")
		require.Equal(t, TokenGrant{Wait: 30 * time.Second}, take(x.store, "acme"))
		require.True(t, take(other, "globex").Taken, "buckets are per tenant")

		require.NoError(t, other.ReturnReprocessToken(x.ctx, mustKey(t, "acme", "doc-1", 1), r))
		require.True(t, take(x.store, "acme").Taken, "a returned token can be taken again")
		require.Equal(t, TokenGrant{Wait: 30 * time.Second}, take(x.store, "acme"))

		x.clock.Advance(30 * time.Second)
		require.True(t, take(x.store, "acme").Taken, "one token regained per Per/Count")
		require.Equal(t, TokenGrant{Wait: 30 * time.Second}, take(other, "acme"))
	})
}

// A token taken for one job admits every call for that job while held,
// even with the bucket empty; it is given back once, by its taker.
func TestReprocessTokens_HeldPerJob(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		r := Rate{Count: 1, Per: time.Minute}
		job, other := mustKey(t, "acme", "inv-1", 1), mustKey(t, "acme", "inv-2", 1)
		take := func(k Key) TokenGrant {
			g, err := x.store.TakeReprocessToken(x.ctx, k, r)
			require.NoError(t, err)
			return g
		}
		require.Equal(t, TokenGrant{Taken: true}, take(job))
		require.Equal(t, TokenGrant{}, take(job), "admitted on the job's token")
		require.Equal(t, TokenGrant{Wait: time.Minute}, take(other), "the bucket is empty")

		require.NoError(t, x.store.ReturnReprocessToken(x.ctx, job, r))
		require.NoError(t, x.store.ReturnReprocessToken(x.ctx, job, r), "a second return gives nothing")
		require.Equal(t, TokenGrant{Taken: true}, take(other), "the one token is back")
		require.Equal(t, TokenGrant{Wait: time.Minute}, take(job), "and only one: the job's hold is gone")

		b.FastForward(time.Minute) // the rest needs miniredis's clock
		x.clock.Advance(time.Minute)
		require.Equal(t, TokenGrant{Taken: true}, take(job))
		b.FastForward(reprocessHold)
		x.clock.Advance(time.Minute)
		require.Equal(t, TokenGrant{Taken: true}, take(job), "a hold lasts reprocessHold")
	})
}
