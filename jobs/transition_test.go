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

// The index of ended jobs is trimmed when written (a commit trims its
// succeeded index on one commit in succeededTrimEvery), and a member whose
// record expired is never listed, trimmed yet or not: the list drops
// members whose record is gone.
func TestSucceededIndex_NeverListsAnExpiredJob_AndIsTrimmedWithinTheTrimPeriod(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		gone := mustKey(t, "acme", "gone", 1)
		x.succeed(t, gone) // the index's first commit through this store: it trims
		require.Equal(t, []string{gone.String()}, x.listed(t, StateSucceeded))
		require.Empty(t, x.indexMembers(t, gone, stateOpen), "the end of a job takes it out of the open index")

		b.FastForward(DefaultRetention.Result + time.Hour)
		x.clock.Advance(DefaultRetention.Result + time.Hour)
		require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.job(gone)).Val())
		require.Empty(t, x.listed(t, StateSucceeded), "an expired record is not listed")

		// Commits 2 .. succeededTrimEvery into gone's index do not trim it: the
		// expired member stays in the index, and is never listed.
		var live []string
		for i := 2; i <= succeededTrimEvery; i++ {
			k := x.sameShard(t, gone, "live"+strconv.Itoa(i))
			x.succeed(t, k)
			live = append(live, k.String())
			require.ElementsMatch(t, live, x.listed(t, StateSucceeded))
		}
		require.Contains(t, x.indexMembers(t, gone, StateSucceeded), gone.String())

		// The next one trims.
		k := x.sameShard(t, gone, "trimming")
		x.succeed(t, k)
		live = append(live, k.String())
		require.ElementsMatch(t, live, x.indexMembers(t, gone, StateSucceeded), "the trim dropped the expired member")
		require.ElementsMatch(t, live, x.listed(t, StateSucceeded))
	})
}

// A commit deletes the checkpoints of a job that has them, whether this
// attempt wrote them (the record is marked) or an earlier attempt did.
func TestCommit_DeletesCheckpoints_OfThisAttemptAndOfEarlierOnes(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		first, retried := mustKey(t, "acme", "first", 1), mustKey(t, "acme", "retried", 1)

		x.submit(t, first, "c")
		c := x.claim(t, first)
		require.Equal(t, int64(1), c.Fence)
		require.NoError(t, x.store.Checkpoint(x.ctx, first, c.Fence, "extract", []byte(`{}`)))
		require.Equal(t, "1", x.rdb.HGet(x.ctx, x.store.keys.job(first), fCheckpointed).Val(), "the first checkpoint marks the record")
		_, err := x.store.Commit(x.ctx, first, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.checkpoints(first)).Val())

		// An earlier attempt's checkpoint written without the mark (as a
		// checkpoint script older than the mark writes it): after a second
		// claim the commit does not trust the missing mark.
		x.submit(t, retried, "c")
		c = x.claim(t, retried)
		require.NoError(t, x.rdb.HSet(x.ctx, x.store.keys.checkpoints(retried), "extract", "{}").Err())
		st, err := x.store.Fail(x.ctx, retried, c.Fence, CodeTransient)
		require.NoError(t, err)
		require.Equal(t, StateRetrying, st)
		c = x.claim(t, retried)
		require.Equal(t, int64(2), c.Fence)
		require.Contains(t, c.Checkpoints, "extract", "the retry resumes from the earlier checkpoint")
		_, err = x.store.Commit(x.ctx, retried, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.checkpoints(retried)).Val())
	})
}

// The drain path's commit: a job claimed once that never checkpointed has
// no checkpoint hash, and its commit spends no command on one.
func TestCommit_OfAJobThatNeverCheckpointed_DeletesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		if b.Real == nil {
			t.Skip("counts commands with INFO commandstats, which miniredis lacks")
		}
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		dels := commandCalls(t, x.rdb, "del")
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		require.Equal(t, dels, commandCalls(t, x.rdb, "del"))
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateSucceeded, j.State)
	})
}

// A new job's submission checks for an existing record or ledger entry with
// one EXISTS and reads neither; a known key still dedupes or conflicts, with
// the record or with the ledger entry alone (TestSubmit_SameKey*,
// TestDedupeAndConflict_HoldAcrossExpiry).
func TestSubmit_OfANewJob_ChecksRecordAndLedgerWithOneExists(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		if b.Real == nil {
			t.Skip("counts commands with INFO commandstats, which miniredis lacks")
		}
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		calls := func() [3]int {
			return [3]int{commandCalls(t, x.rdb, "exists"), commandCalls(t, x.rdb, "hget"), commandCalls(t, x.rdb, "get")}
		}
		before := calls()
		r := x.submit(t, k, "c")
		require.False(t, r.Deduped)
		require.Equal(t, [3]int{before[0] + 1, before[1], before[2]}, calls())

		r = x.submit(t, k, "c")
		require.True(t, r.Deduped)
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "other", Limits: DefaultLimits})
		require.ErrorIs(t, err, ErrIdempotencyConflict)
	})
}
