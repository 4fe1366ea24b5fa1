package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func (x *bundle) deadLetter(t *testing.T, k Key, content string) {
	t.Helper()
	x.submit(t, k, content)
	c := x.claim(t, k)
	require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodePermanent))
}

func strp(s string) *string { return &s }

func TestReprocess_WithoutContent_CreatesNextVersionAndAudits(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.deadLetter(t, k, "broken")
		x.clock.Advance(time.Hour)
		r, err := x.store.Reprocess(x.ctx, ReprocessRequest{Key: k, Operator: "alice", Reason: "extractor fixed"})
		require.NoError(t, err)
		require.False(t, r.Repeat)
		nk := r.Job.Key
		require.Equal(t, int64(2), nk.Version)
		require.Equal(t, StateQueued, r.Job.State)
		require.Equal(t, k.String(), r.Job.ReprocessedFrom)
		require.Equal(t, PayloadHash("broken"), r.Job.PayloadHash)
		require.Equal(t, 0, r.Job.Attempt, "fresh attempts")
		require.Equal(t, x.clock.Now().Add(24*time.Hour), r.Job.DeadlineAt, "deadline counted from the reprocess")
		in, err := x.store.Input(x.ctx, nk)
		require.NoError(t, err)
		require.Equal(t, "broken", in)

		old, _ := x.store.Get(x.ctx, k)
		require.Equal(t, StateDeadLettered, old.State, "the dead job stays as it was")
		require.Equal(t, nk.String(), old.ReprocessedAs)
		require.Len(t, x.outboxRows(t, nk, EventJobSubmitted), 1)

		audit, err := x.store.ListAudit(x.ctx, AuditOptions{Operator: "alice"})
		require.NoError(t, err)
		require.Len(t, audit.Entries, 1)
		e := audit.Entries[0]
		require.Equal(t, AuditReprocessed, e.Action)
		require.Equal(t, k.String(), e.JobKey)
		require.Equal(t, nk.String(), e.NewJobKey)
		require.Equal(t, "extractor fixed", e.Reason)
		require.Equal(t, PayloadHash("broken"), e.OldPayloadHash)
		require.Equal(t, PayloadHash("broken"), e.NewPayloadHash)
		require.Equal(t, x.clock.Now(), e.At)

		dlq, err := x.store.ListDLQ(x.ctx, DLQOptions{})
		require.NoError(t, err)
		require.Empty(t, dlq.Jobs, "a reprocessed job leaves the DLQ view")
		dlq, err = x.store.ListDLQ(x.ctx, DLQOptions{IncludeReprocessed: true})
		require.NoError(t, err)
		require.Len(t, dlq.Jobs, 1)
	})
}

func TestReprocess_Repeat_ReturnsSameJob_DifferentContentConflicts(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.deadLetter(t, k, "broken")
		req := ReprocessRequest{Key: k, Operator: "alice", Reason: "fixed", Content: strp("corrected")}
		r1, err := x.store.Reprocess(x.ctx, req)
		require.NoError(t, err)
		require.Equal(t, PayloadHash("corrected"), r1.Job.PayloadHash)
		before := x.snapshot(t)
		r2, err := x.store.Reprocess(x.ctx, req)
		require.NoError(t, err)
		require.True(t, r2.Repeat)
		require.Equal(t, r1.Job.Key, r2.Job.Key)
		require.Equal(t, before, x.snapshot(t), "a repeat writes nothing")

		req.Content = strp("another correction")
		_, err = x.store.Reprocess(x.ctx, req)
		require.ErrorIs(t, err, ErrIdempotencyConflict)
	})
}

func TestReprocess_NextVersionIsDocumentsHighestPlusOne(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.deadLetter(t, k, "broken")
		x.submit(t, mustKey(t, "acme", "inv-1", 7), "a later version the client sent")
		r, err := x.store.Reprocess(x.ctx, ReprocessRequest{Key: k, Operator: "alice", Reason: "r"})
		require.NoError(t, err)
		require.Equal(t, int64(8), r.Job.Key.Version)
	})
}

func TestReprocess_RefusesWhatIsNotDeadLettered(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		req := func(k Key) ReprocessRequest { return ReprocessRequest{Key: k, Operator: "alice", Reason: "r"} }

		_, err := x.store.Reprocess(x.ctx, req(mustKey(t, "acme", "missing", 1)))
		require.ErrorIs(t, err, ErrNotFound)

		queued := mustKey(t, "acme", "queued", 1)
		x.submit(t, queued, "c")
		_, err = x.store.Reprocess(x.ctx, req(queued))
		require.ErrorIs(t, err, ErrNotDeadLettered)

		done := mustKey(t, "acme", "done", 1)
		x.submit(t, done, "c")
		c := x.claim(t, done)
		_, err = x.store.Commit(x.ctx, done, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		_, err = x.store.Reprocess(x.ctx, req(done))
		require.ErrorIs(t, err, ErrNotDeadLettered)

		cancelled := mustKey(t, "acme", "cancelled", 1)
		x.submit(t, cancelled, "c")
		c = x.claim(t, cancelled)
		require.NoError(t, x.store.Cancel(x.ctx, cancelled, c.Fence, CodeDeadlineExceeded))
		before := x.snapshot(t)
		_, err = x.store.Reprocess(x.ctx, req(cancelled))
		require.ErrorIs(t, err, ErrJobCancelled)
		require.Equal(t, before, x.snapshot(t))
	})
}

func TestReprocess_AfterInputExpired_NeedsContent(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.deadLetter(t, k, "broken")
		b.FastForward(DefaultRetention.Input + time.Second)
		_, err := x.store.Reprocess(x.ctx, ReprocessRequest{Key: k, Operator: "alice", Reason: "r"})
		require.ErrorIs(t, err, ErrInputExpired)
		r, err := x.store.Reprocess(x.ctx, ReprocessRequest{Key: k, Operator: "alice", Reason: "r", Content: strp("fixed")})
		require.NoError(t, err)
		require.Equal(t, int64(2), r.Job.Key.Version)
	})
}

func TestReprocess_WithCorrections_HashCoversThemAuditsChangesAndTheClaimCarriesThem(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.deadLetter(t, k, "broken")
		corr := []byte(`{"total":"10.00"}`)
		changes := []byte(`[{"field":"total","old":"9.00","new":"10.00"}]`)
		req := ReprocessRequest{Key: k, Operator: "alice", Reason: "total misread", Corrections: corr, Changes: changes, Overruled: "not_an_invoice"}

		r1, err := x.store.Reprocess(x.ctx, req)
		require.NoError(t, err)
		require.Equal(t, CorrectedPayloadHash(PayloadHash("broken"), corr), r1.Job.PayloadHash)
		in, err := x.store.Input(x.ctx, r1.Job.Key)
		require.NoError(t, err)
		require.Equal(t, "broken", in, "the input is the same file")

		r2, err := x.store.Reprocess(x.ctx, req)
		require.NoError(t, err)
		require.True(t, r2.Repeat, "the same corrections again return the same job")
		require.Equal(t, r1.Job.Key, r2.Job.Key)
		other := req
		other.Corrections = []byte(`{"total":"11.00"}`)
		_, err = x.store.Reprocess(x.ctx, other)
		require.ErrorIs(t, err, ErrIdempotencyConflict, "other corrections for the same version")
		plain := req
		plain.Corrections, plain.Changes = nil, nil
		_, err = x.store.Reprocess(x.ctx, plain)
		require.ErrorIs(t, err, ErrIdempotencyConflict, "no corrections is another payload too")

		audit, err := x.store.ListAudit(x.ctx, AuditOptions{Action: AuditReprocessed})
		require.NoError(t, err)
		require.Len(t, audit.Entries, 1)
		require.JSONEq(t, string(changes), string(audit.Entries[0].Changes))
		require.Equal(t, "not_an_invoice", audit.Entries[0].Overruled)

		c := x.claim(t, r1.Job.Key)
		require.JSONEq(t, string(corr), string(c.Corrections))
		require.Equal(t, "broken", c.Input)
	})
}

func TestClaim_OfAJobWithoutCorrections_HasNone(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		require.Nil(t, x.claim(t, k).Corrections)
	})
}
