package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// The reconciler reads every tenant's open index, named by the shard's
// tenants set: open jobs of all tenants, oldest first, and no ended job.
func TestStaleJobs_ReadsTheOpenIndexOfEveryTenant(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		a1 := mustKey(t, "acme", "a1", 1)
		g1 := mustKey(t, "globex", "g1", 1)
		a2 := mustKey(t, "acme", "a2", 1)
		for _, k := range []Key{a1, g1, a2} {
			x.submit(t, k, "c")
			x.clock.Advance(time.Second)
		}
		x.succeed(t, mustKey(t, "globex", "done", 1))
		for sh := range x.store.Shards() {
			require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.legacyActive(sh)).Val(), "no per-shard index of open jobs is written")
		}
		stale, err := x.store.StaleJobs(x.ctx, x.clock.Now(), 10)
		require.NoError(t, err)
		require.Equal(t, []Key{a1, g1, a2}, stale)
		oldest, ok, err := x.store.OldestActive(x.ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, t0, oldest)

		c := x.claim(t, a1)
		_, err = x.store.Commit(x.ctx, a1, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		stale, err = x.store.StaleJobs(x.ctx, x.clock.Now(), 10)
		require.NoError(t, err)
		require.Equal(t, []Key{g1, a2}, stale, "an ended job leaves its open index")
	})
}

// A store upgraded from scripts that kept a per-shard active index: the
// first pass registers the tenants that index names and empties it, so the
// open jobs it listed stay found, and its members of ended jobs are not.
func TestStaleJobs_MigratesTheActiveIndexOfOlderScripts(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		open, ended := mustKey(t, "acme", "open", 1), mustKey(t, "globex", "ended", 1)
		x.submit(t, open, "c")
		x.succeed(t, ended)
		// As the older scripts left them: both in the active index (the ended
		// job's end did not remove it there), no tenant registered.
		for _, k := range []Key{open, ended} {
			sh := x.store.keys.shardOf(k)
			require.NoError(t, x.rdb.ZAdd(x.ctx, x.store.keys.legacyActive(sh), redis.Z{Score: float64(t0.UnixMilli()), Member: k.String()}).Err())
			require.NoError(t, x.rdb.Del(x.ctx, x.store.keys.tenants(sh)).Err())
		}
		stale, err := x.store.StaleJobs(x.ctx, x.clock.Now().Add(time.Second), 10)
		require.NoError(t, err)
		require.Equal(t, []Key{open}, stale)
		for _, k := range []Key{open, ended} {
			sh := x.store.keys.shardOf(k)
			require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.legacyActive(sh)).Val())
			require.True(t, x.rdb.SIsMember(x.ctx, x.store.keys.tenants(sh), k.Tenant).Val())
		}
		stale, err = x.store.StaleJobs(x.ctx, x.clock.Now().Add(time.Second), 10)
		require.NoError(t, err)
		require.Equal(t, []Key{open}, stale, "a second pass finds the same")
	})
}
