package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestStaleJobs_OldestFirst_AndRepublishOnlyLiveJobs(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		var keys []Key
		for i := range 6 {
			k := mustKey(t, "acme", fmt.Sprintf("doc-%d", i), 1)
			x.submit(t, k, "c")
			keys = append(keys, k)
			x.clock.Advance(time.Second)
		}
		c := x.claim(t, keys[0])
		_, err := x.store.Commit(x.ctx, keys[0], c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		stale, err := x.store.StaleJobs(x.ctx, t0.Add(4*time.Second), 2)
		require.NoError(t, err)
		require.Equal(t, []Key{keys[1], keys[2]}, stale, "oldest first, terminal jobs excluded")
		oldest, ok, err := x.store.OldestActive(x.ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, t0.Add(time.Second), oldest)

		ok, err = x.store.Republish(x.ctx, keys[1])
		require.NoError(t, err)
		require.True(t, ok)
		require.Len(t, x.outboxRows(t, keys[1], EventJobSubmitted), 2)
		ok, err = x.store.Republish(x.ctx, keys[0])
		require.NoError(t, err)
		require.False(t, ok, "a terminal job is not republished")
	})
}
