package outbox

import (
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
		take := func(s *Store, tenant string) time.Duration {
			wait, err := s.TakeReprocessToken(x.ctx, tenant, r)
			require.NoError(t, err)
			return wait
		}
		require.Zero(t, take(x.store, "acme"))
		require.Zero(t, take(other, "acme"), "the burst is shared, not per process")
		require.Equal(t, 30*time.Second, take(x.store, "acme"))
		require.Zero(t, take(other, "globex"), "buckets are per tenant")

		require.NoError(t, other.ReturnReprocessToken(x.ctx, "acme", r))
		require.Zero(t, take(x.store, "acme"), "a returned token can be taken again")
		require.Equal(t, 30*time.Second, take(x.store, "acme"))

		x.clock.Advance(30 * time.Second)
		require.Zero(t, take(x.store, "acme"), "one token regained per Per/Count")
		require.Equal(t, 30*time.Second, take(other, "acme"))
	})
}
