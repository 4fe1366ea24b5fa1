package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestReject_DeadLettersWithThePermanentCodeAndTheReason(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)

		require.NoError(t, x.store.Reject(x.ctx, k, c.Fence, "total_mismatch", nil))
		require.NoError(t, x.store.Reject(x.ctx, k, c.Fence, "total_mismatch", nil), "the same call again is answered")

		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateDeadLettered, j.State)
		require.Equal(t, CodePermanent, j.ErrorCode, "the class stays the error code")
		require.Equal(t, "total_mismatch", j.ErrorReason)
		dlq, err := x.store.ListDLQ(x.ctx, DLQOptions{})
		require.NoError(t, err)
		require.Len(t, dlq.Jobs, 1)
		require.Equal(t, "total_mismatch", dlq.Jobs[0].ErrorReason, "the DLQ list tells what to correct")
	})
}

func TestReject_EmptyReason_IsRefusedAndChangesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		before := x.snapshot(t)

		require.Error(t, x.store.Reject(x.ctx, k, c.Fence, "", nil))
		require.Equal(t, before, x.snapshot(t))
	})
}

func TestDeadLetter_WithoutReason_LeavesErrorReasonEmpty(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodeInternal))

		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, CodeInternal, j.ErrorCode)
		require.Empty(t, j.ErrorReason)
	})
}

// The reason lives in the job record, not in the ledger: once the record has
// expired the job still answers, with its final state and code.
func TestReject_AfterRecordExpiry_GetAnswersFromTheLedgerWithoutReason(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.Reject(x.ctx, k, c.Fence, "missing_field:total", nil))
		b.FastForward(DefaultRetention.Result + time.Hour)
		x.clock.Advance(DefaultRetention.Result + time.Hour)

		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.True(t, j.RecordExpired)
		require.Equal(t, StateDeadLettered, j.State)
		require.Equal(t, CodePermanent, j.ErrorCode)
		require.Empty(t, j.ErrorReason)
	})
}

func TestRelease_RetriesWithoutCountingTheAttempt(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		// Far more releases than maxAttempts (3): none of them counts.
		for range 5 {
			c := x.claim(t, k)
			require.Equal(t, StateRunning, c.State)
			require.Equal(t, 1, c.Attempt, "the released attempt was taken back")
			require.NoError(t, x.store.Release(x.ctx, k, c.Fence, "model_unauthorized"))
			require.NoError(t, x.store.Release(x.ctx, k, c.Fence, "model_unauthorized"), "the same call again is answered")
			j, err := x.store.Get(x.ctx, k)
			require.NoError(t, err)
			require.Equal(t, StateRetrying, j.State)
			require.Equal(t, 0, j.Attempt)
			require.Equal(t, "model_unauthorized", j.ErrorCode)
			require.Zero(t, j.Recoveries)
		}
		c := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, "extract", []byte(`{}`)))
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateSucceeded, j.State)
		require.Equal(t, 1, j.Attempt)
	})
}

func TestRelease_DeadlineStillCancelsTheJob(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.Release(x.ctx, k, c.Fence, "model_unauthorized"))
		x.clock.Advance(DefaultLimits.Deadline + time.Second)

		c = x.claim(t, k)
		require.Equal(t, StateCancelled, c.State)
		require.Equal(t, CodeDeadlineExceeded, c.ErrorCode)
	})
}

func TestRelease_StaleFenceOrTerminalJob_ChangesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		old := x.claim(t, k)
		cur := x.claim(t, k) // a recovery: new fence
		before := x.snapshot(t)
		require.ErrorIs(t, x.store.Release(x.ctx, k, old.Fence, "model_unauthorized"), ErrStaleFence)
		require.Equal(t, before, x.snapshot(t))

		require.NoError(t, x.store.DeadLetter(x.ctx, k, cur.Fence, CodePermanent))
		require.ErrorIs(t, x.store.Release(x.ctx, k, cur.Fence, "model_unauthorized"), ErrStaleFence)
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateDeadLettered, j.State)
	})
}

// A rejection keeps what was read, sealed like the input, for as long as a
// result would live; nothing of it reaches the record or the outbox.
func TestReject_WithDetail_KeepsItBesideTheReasonUntilTheResultExpires(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		detail := []byte(`{"fields":{"vendor":"Acme Ltd"},"failed":[{"field":"total","check":"total_mismatch"}]}`)
		require.NoError(t, x.store.Reject(x.ctx, k, c.Fence, "total_mismatch", detail))

		got, err := x.store.Rejection(x.ctx, k)
		require.NoError(t, err)
		require.JSONEq(t, string(detail), string(got))
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.False(t, j.ResultExpired)

		b.FastForward(DefaultRetention.Result + time.Hour)
		x.clock.Advance(DefaultRetention.Result + time.Hour)
		_, err = x.store.Rejection(x.ctx, k)
		require.Error(t, err, "it expires with the job's result")
	})
}

func TestRejection_OfAJobThatWasNotRejected_IsNotDeadLettered(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		_, err := x.store.Rejection(x.ctx, k)
		require.ErrorIs(t, err, ErrNotDeadLettered)
	})
}
