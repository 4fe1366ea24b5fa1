package jobs

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// Tests for what a transition writes, and for what it may leave out: the
// drain path runs these scripts once per job, so a command that carries no
// guarantee is dropped, and these tests pin the guarantee it did not carry.

func (x *bundle) indexMembers(t *testing.T, k Key, st State) []string {
	t.Helper()
	m, err := x.rdb.ZRange(x.ctx, x.store.keys.tenantState(x.store.keys.shardOf(k), k.Tenant, st), 0, -1).Result()
	require.NoError(t, err)
	return m
}

// sameShard returns a key of a document named prefix-<n> in k's shard, so
// that writing it writes k's shard and tenant indexes.
func (x *bundle) sameShard(t *testing.T, k Key, prefix string) Key {
	t.Helper()
	for i := 0; ; i++ {
		if o := mustKey(t, k.Tenant, prefix+"-"+strconv.Itoa(i), 1); x.store.keys.shardOf(o) == x.store.keys.shardOf(k) {
			return o
		}
	}
}

func (x *bundle) listed(t *testing.T, st State) []string {
	t.Helper()
	p, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: st})
	require.NoError(t, err)
	var out []string
	for _, j := range p.Jobs {
		out = append(out, j.Key.String())
	}
	return out
}

// The open index is written without a trim: an open job's record has no
// TTL, so however long it stays open it stays listed (a trim by creation
// time, as the indexes of ended jobs take, would drop it while it waits).
func TestOpenIndex_ListsAJobOpenLongerThanTheResultRetention(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		old := mustKey(t, "acme", "old", 1)
		fresh := x.sameShard(t, old, "fresh")
		// Deadlines reach a year (the API's bound), past the result retention.
		long := Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: 365 * 24 * time.Hour}
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: old, Content: "c", Limits: long})
		require.NoError(t, err)
		x.clock.Advance(DefaultRetention.Result + time.Hour)
		x.submit(t, fresh, "c")
		require.ElementsMatch(t, []string{old.String(), fresh.String()}, x.listed(t, StateQueued))
		x.claim(t, old)
		require.Equal(t, []string{old.String()}, x.listed(t, StateRunning))
	})
}

// The index of ended jobs is trimmed when written, and a record that expired
// before the next write is never listed: the list drops members whose record
// is gone.
func TestSucceededIndex_NeverListsAnExpiredJob(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		gone := mustKey(t, "acme", "gone", 1)
		live := x.sameShard(t, gone, "live") // its commit writes gone's index
		x.succeed(t, gone)
		require.Equal(t, []string{gone.String()}, x.listed(t, StateSucceeded))
		require.Empty(t, x.indexMembers(t, gone, stateOpen), "the end of a job takes it out of the open index")

		b.FastForward(DefaultRetention.Result + time.Hour)
		x.clock.Advance(DefaultRetention.Result + time.Hour)
		require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.job(gone)).Val())
		require.Empty(t, x.listed(t, StateSucceeded), "an expired record is not listed, written since or not")

		x.succeed(t, live)
		require.Equal(t, []string{live.String()}, x.indexMembers(t, live, StateSucceeded), "the write trimmed the expired member")
		require.Equal(t, []string{live.String()}, x.listed(t, StateSucceeded))
	})
}
