package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestPeekInputs_OpenEndedAndMissing(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Retention.Input = time.Hour })
		open, ended, missing := mustKey(t, "acme", "open", 1), mustKey(t, "acme", "ended", 1), mustKey(t, "acme", "missing", 1)
		x.submit(t, open, "a")
		x.submit(t, ended, "b")
		require.NoError(t, x.store.DeadLetter(x.ctx, ended, x.claim(t, ended).Fence, CodePermanent))

		got, err := x.store.PeekInputs(x.ctx, []Key{open, ended, missing})
		require.NoError(t, err)
		require.Len(t, got, 3)
		require.Equal(t, InputTTL{Stored: true}, got[0], "an open job's input has no expiry yet")
		require.True(t, got[1].Stored)
		require.Greater(t, got[1].TTL, 59*time.Minute, "an ended job's input expires after the retention")
		require.LessOrEqual(t, got[1].TTL, time.Hour)
		require.Equal(t, InputTTL{}, got[2])

		none, err := x.store.PeekInputs(x.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, none)
	})
}

func TestPeekInputSizes_SizesOfStoredInputs(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k, missing := mustKey(t, "acme", "a", 1), mustKey(t, "acme", "gone", 1)
		x.submit(t, k, "hello")
		stored, err := x.rdb.StrLen(x.ctx, x.store.keys.input(k)).Result()
		require.NoError(t, err)
		got, err := x.store.PeekInputSizes(x.ctx, []Key{k, missing})
		require.NoError(t, err)
		require.Equal(t, []InputSize{{InputTTL: InputTTL{Stored: true}, Bytes: stored}, {}}, got)
	})
}

// A walk of a tenant's open jobs, then of its ended ones, pages oldest
// first through every shard, each job once, from Since on, never another
// tenant's.
func TestTenantJobs_WalksOpenThenEnded_OldestFirst_FromSince(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		var open, ended []string
		for i := range 14 {
			k := mustKey(t, "acme", fmt.Sprintf("doc-%02d", i), 1)
			x.submit(t, k, "c")
			x.submit(t, mustKey(t, "globex", fmt.Sprintf("doc-%02d", i), 1), "c")
			if i%3 == 0 {
				require.NoError(t, x.store.DeadLetter(x.ctx, k, x.claim(t, k).Fence, CodePermanent))
				ended = append(ended, k.String())
			} else {
				open = append(open, k.String())
			}
			x.clock.Advance(time.Millisecond)
		}
		walk := func(o TenantJobsOptions) []string {
			t.Helper()
			var got []string
			for pages := 0; ; pages++ {
				require.Less(t, pages, 20)
				keys, next, err := x.store.TenantJobs(x.ctx, o)
				require.NoError(t, err)
				for _, k := range keys {
					got = append(got, k.String())
				}
				if next == "" {
					return got
				}
				o.Cursor = next
			}
		}
		require.Equal(t, open, walk(TenantJobsOptions{Tenant: "acme", Open: true, Limit: 3}))
		require.Equal(t, ended, walk(TenantJobsOptions{Tenant: "acme", Limit: 2}))
		require.Equal(t, ended[2:], walk(TenantJobsOptions{Tenant: "acme", Since: t0.Add(6 * time.Millisecond), Limit: 2}),
			"from the job created at t0+6ms on")
		_, _, err := x.store.TenantJobs(x.ctx, TenantJobsOptions{Tenant: "Not A Tenant"})
		require.ErrorIs(t, err, ErrInvalidKey)
	})
}
