package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestSubmit_New_WritesJobInputOutboxAndAudit(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		r := x.submit(t, k, "invoice text")
		require.False(t, r.Deduped)
		j := r.Job
		require.Equal(t, StateQueued, j.State)
		require.Equal(t, PayloadHash("invoice text"), j.PayloadHash)
		require.Equal(t, 3, j.MaxAttempts)
		require.Equal(t, 5, j.MaxRecoveries)
		require.Equal(t, int64(86400), j.DeadlineSeconds)
		require.Equal(t, t0.Add(24*time.Hour), j.DeadlineAt)
		require.Equal(t, t0, j.CreatedAt)
		require.False(t, j.InputExpired)

		in, err := x.store.Input(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "invoice text", in)
		require.Len(t, x.outboxRows(t, k, EventJobSubmitted), 1)
		audit, err := x.store.ListAudit(x.ctx, AuditOptions{JobKey: k.String()})
		require.NoError(t, err)
		require.Len(t, audit.Entries, 1)
		require.Equal(t, AuditSubmitted, audit.Entries[0].Action)
		require.Equal(t, "acme", audit.Entries[0].Tenant)
	})
}

// Submit answers a new job without reading it back: the answer must be
// exactly the record the script wrote.
func TestSubmit_CreatedAnswer_IsTheStoredRecord(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		r, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "c", Limits: Limits{MaxAttempts: 2, MaxRecoveries: 0, Deadline: time.Hour}})
		require.NoError(t, err)
		stored, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, stored, r.Job)
	})
}

func TestSubmit_SameKeySamePayload_Dedupes(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "same")
		before := x.snapshot(t)
		r := x.submit(t, k, "same")
		require.True(t, r.Deduped)
		require.Equal(t, StateQueued, r.Job.State)
		require.Equal(t, before, x.snapshot(t), "a dedupe writes nothing")
	})
}

func TestSubmit_SameKeyDifferentPayload_Conflicts(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "original")
		before := x.snapshot(t)
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "changed", Limits: DefaultLimits})
		require.ErrorIs(t, err, ErrIdempotencyConflict)
		require.Equal(t, before, x.snapshot(t), "a conflict writes nothing")
	})
}

func TestSubmit_RequestReplay_AnswersAsTheOriginal(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		req := SubmitRequest{Key: k, Content: "c", Limits: DefaultLimits, RequestID: "req-1"}
		r1, err := x.store.Submit(x.ctx, req)
		require.NoError(t, err)
		require.False(t, r1.Deduped)
		r2, err := x.store.Submit(x.ctx, req)
		require.NoError(t, err)
		require.False(t, r2.Deduped, "the replay of a creating request answers 'created' again")
		require.Len(t, x.outboxRows(t, k, EventJobSubmitted), 1)

		req.RequestID = "req-2"
		r3, err := x.store.Submit(x.ctx, req)
		require.NoError(t, err)
		require.True(t, r3.Deduped, "a new request for the same payload is a dedupe")

		req.Content = "other"
		_, err = x.store.Submit(x.ctx, req)
		require.ErrorIs(t, err, ErrIdempotencyConflict, "a request ID replayed with another payload conflicts")
	})
}

// A dedupe answers from the job that stands and stores nothing, whatever
// request ID it carries: a client resubmitting with fresh request IDs cannot
// grow Redis.
func TestSubmit_DedupeWithFreshRequestIDs_StoresNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		req := SubmitRequest{Key: k, Content: "c", Limits: DefaultLimits, RequestID: "req-0"}
		_, err := x.store.Submit(x.ctx, req)
		require.NoError(t, err)
		before := x.snapshot(t)
		for i := range 5 {
			req.RequestID = fmt.Sprintf("fresh-%d", i)
			r, err := x.store.Submit(x.ctx, req)
			require.NoError(t, err)
			require.True(t, r.Deduped)
		}
		require.Equal(t, before, x.snapshot(t), "a dedupe writes nothing")
	})
}

func TestSubmit_TwoTenantsSameDocument_NeverCollide(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		ka, kg := mustKey(t, "acme", "inv-1", 1), mustKey(t, "globex", "inv-1", 1)
		x.submit(t, ka, "acme's")
		r := x.submit(t, kg, "globex's")
		require.False(t, r.Deduped)
		for _, k := range []Key{ka, kg} {
			c := x.claim(t, k)
			_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{"tenant":"`+k.Tenant+`"}`))
			require.NoError(t, err)
		}
		ra, err := x.store.Result(x.ctx, ka)
		require.NoError(t, err)
		rg, err := x.store.Result(x.ctx, kg)
		require.NoError(t, err)
		require.JSONEq(t, `{"tenant":"acme"}`, string(ra))
		require.JSONEq(t, `{"tenant":"globex"}`, string(rg))
		in, _ := x.store.Input(x.ctx, ka)
		require.Equal(t, "acme's", in)
	})
}

func TestSubmit_InvalidKeyOrLimits_WritesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: Key{DocumentID: "inv", Version: 1}, Content: "c"})
		require.ErrorIs(t, err, ErrInvalidKey, "a key without a tenant is refused")
		_, err = x.store.Submit(x.ctx, SubmitRequest{Key: mustKey(t, "acme", "i", 1), Content: "c",
			Limits: Limits{MaxAttempts: 1, Deadline: 1500 * time.Millisecond}})
		require.Error(t, err)
		require.Zero(t, x.dbsize(t))
	})
}

func TestClaim_FencesAreMonotonicAndTokensIdempotent(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c1, err := x.store.Claim(x.ctx, k, "a")
		require.NoError(t, err)
		require.Equal(t, StateRunning, c1.State)
		require.Equal(t, int64(1), c1.Fence)
		require.Equal(t, 1, c1.Attempt)
		require.False(t, c1.Recovered)

		again, err := x.store.Claim(x.ctx, k, "a")
		require.NoError(t, err)
		require.Equal(t, c1.Fence, again.Fence, "re-running the same claim returns the same fence")
		require.Equal(t, 1, again.Attempt)

		c2, err := x.store.Claim(x.ctx, k, "b")
		require.NoError(t, err)
		require.Equal(t, int64(2), c2.Fence)
		require.True(t, c2.Recovered, "a claim of a running job is a crash recovery")
		require.Equal(t, 1, c2.Attempt, "a recovery does not burn a business attempt")
		require.Equal(t, 1, c2.Recoveries)

		c3, err := x.store.Claim(x.ctx, k, "a")
		require.NoError(t, err)
		require.Equal(t, int64(3), c3.Fence, "a superseded invocation never gets its old fence back: its re-run is a new claim")
		require.True(t, c3.Recovered)
	})
}

func TestClaim_OverRecoveryCap_DeadLettersCrashLoop(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "c", Limits: Limits{MaxAttempts: 3, MaxRecoveries: 2, Deadline: time.Hour}})
		require.NoError(t, err)
		for i := range 3 {
			c := x.claim(t, k)
			require.Equal(t, StateRunning, c.State, "claim %d", i)
		}
		c := x.claim(t, k)
		require.Equal(t, StateDeadLettered, c.State)
		require.Equal(t, CodeCrashLoop, c.ErrorCode)
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateDeadLettered, j.State)
		require.Equal(t, 3, j.Recoveries)
		page, err := x.store.ListDLQ(x.ctx, DLQOptions{})
		require.NoError(t, err)
		require.Len(t, page.Jobs, 1)
		rows := x.outboxRows(t, k, EventJobDeadLettered)
		require.Len(t, rows, 1, "the claim's end is an outbox event, for webhooks")
		require.Equal(t, CodeCrashLoop, rows[0][evCode])
		x.claim(t, k)
		require.Len(t, x.outboxRows(t, k, EventJobDeadLettered), 1, "a claim of the ended job appends nothing")
	})
}

func TestClaim_PastDeadline_CancelsTerminally(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		_, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "c", Limits: Limits{MaxAttempts: 3, Deadline: time.Minute}})
		require.NoError(t, err)
		x.clock.Advance(time.Minute)
		c := x.claim(t, k)
		require.Equal(t, StateCancelled, c.State)
		require.Equal(t, CodeDeadlineExceeded, c.ErrorCode)
		c = x.claim(t, k)
		require.Equal(t, StateCancelled, c.State, "terminal states are sticky")
		page, err := x.store.ListDLQ(x.ctx, DLQOptions{})
		require.NoError(t, err)
		require.Empty(t, page.Jobs, "cancelled jobs are not dead letters")
		rows := x.outboxRows(t, k, EventJobCancelled)
		require.Len(t, rows, 1, "the claim's end is an outbox event, once, for webhooks")
		require.Equal(t, CodeDeadlineExceeded, rows[0][evCode])
	})
}

func TestCheckpoint_StaleFence_IsRejected(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		old := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, old.Fence, "classify", []byte(`"invoice"`)))
		cur := x.claim(t, k)
		require.ErrorIs(t, x.store.Checkpoint(x.ctx, k, old.Fence, "extract", []byte(`"zombie"`)), ErrStaleFence)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, cur.Fence, "extract", []byte(`"fresh"`)))
		cps, err := x.store.Checkpoints(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, map[string][]byte{"classify": []byte(`"invoice"`), "extract": []byte(`"fresh"`)}, cps)
	})
}

// A stage stored in parts (the read stage's pages) is replaced by its
// whole output in one step: the parts are gone, the claim hands back the
// whole, and a stale fence changes nothing.
func TestReplaceCheckpoints_StoresTheWholeAndDropsItsParts(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "scan-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		for _, p := range []string{"read:page:1", "read:page:2"} {
			require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, p, []byte(`{"text":"`+p+`"}`)))
		}
		require.ErrorIs(t, x.store.ReplaceCheckpoints(x.ctx, k, c.Fence-1, "read", []byte(`{}`), []string{"read:page:1"}), ErrStaleFence)
		require.NoError(t, x.store.ReplaceCheckpoints(x.ctx, k, c.Fence, "read", []byte(`{"pages":2}`), []string{"read:page:1", "read:page:2"}))
		cps, err := x.store.Checkpoints(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, map[string][]byte{"read": []byte(`{"pages":2}`)}, cps)
	})
}

func TestCommit_WritesResultEventAndLedgerOnce(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{"total":"1.00"}`))
		require.NoError(t, err)
		require.False(t, r.Deduped)
		require.Len(t, r.EventID, 32)

		again, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{"total":"1.00"}`))
		require.NoError(t, err)
		require.True(t, again.Deduped)
		require.Equal(t, r.EventID, again.EventID)

		rows := x.outboxRows(t, k, EventExtractionCommitted)
		require.Len(t, rows, 1)
		require.Equal(t, r.EventID, rows[0]["e"])
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateSucceeded, j.State)
		require.Equal(t, r.EventID, j.EventID)
		require.Equal(t, t0, j.FinishedAt)
		raw, err := x.rdb.Get(x.ctx, x.store.keys.ledger(k)).Result()
		require.NoError(t, err)
		led, err := parseLedger(raw)
		require.NoError(t, err)
		require.Equal(t, ledgerEntry{state: StateSucceeded, hash: c.PayloadHash, eventID: r.EventID, finished: t0}, led)
		require.Less(t, len(raw), 80, "the ledger entry is packed")
	})
}

func TestCommit_DifferentPayload_Conflicts(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		before := x.snapshot(t)
		_, err := x.store.Commit(x.ctx, k, c.Fence, PayloadHash("something else"), []byte(`{}`))
		require.ErrorIs(t, err, ErrIdempotencyConflict)
		require.Equal(t, before, x.snapshot(t))
		_, err = x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		_, err = x.store.Commit(x.ctx, k, c.Fence, PayloadHash("something else"), []byte(`{}`))
		require.ErrorIs(t, err, ErrIdempotencyConflict, "after success too")
	})
}

func TestCommit_StaleFence_WritesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		zombie := x.claim(t, k)
		x.claim(t, k) // the lease moved on
		before := x.snapshot(t)
		_, err := x.store.Commit(x.ctx, k, zombie.Fence, zombie.PayloadHash, []byte(`{"zombie":true}`))
		require.ErrorIs(t, err, ErrStaleFence)
		require.ErrorIs(t, x.store.DeadLetter(x.ctx, k, zombie.Fence, CodePermanent), ErrStaleFence)
		require.ErrorIs(t, x.store.Cancel(x.ctx, k, zombie.Fence, CodeDeadlineExceeded), ErrStaleFence)
		_, err = x.store.Fail(x.ctx, k, zombie.Fence, CodeTransient)
		require.ErrorIs(t, err, ErrStaleFence)
		require.Equal(t, before, x.snapshot(t))
	})
}

// The reference scenario: a worker commits, dies before acking, and the
// queue redelivers. The redelivery finds the job terminal (or, racing, gets
// a dedupe): one result, one outbox event.
func TestCrashBetweenCommitAndAck_RedeliveryDedupes_OneEvent(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		// crash: no ack. The redelivery claims:
		again := x.claim(t, k)
		require.Equal(t, StateSucceeded, again.State, "the redelivery sees the job done and acks")
		// A retried commit of the original attempt (lost reply) dedupes.
		r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		require.True(t, r.Deduped)
		require.Len(t, x.outboxRows(t, k, EventExtractionCommitted), 1)
	})
}

// The failure this design prevents: a worker writes its result, then crashes
// before it publishes the event in a second, separate write. The event is
// lost for good; with commit.lua the two are one write.
func TestNaiveDualWrite_CrashBeforePublish_LosesTheEvent(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		naive := func(crashBeforePublish bool) {
			require.NoError(t, x.rdb.Set(x.ctx, x.store.keys.result(k), `{}`, 0).Err())
			if crashBeforePublish {
				return
			}
			require.NoError(t, x.rdb.XAdd(x.ctx, &redis.XAddArgs{
				Stream: x.store.keys.outbox(x.store.keys.shardOf(k)),
				Values: []any{evType, EventExtractionCommitted, evKey, k.String(), evEventID, "evt"},
			}).Err())
		}
		naive(true)
		require.Empty(t, x.outboxRows(t, k, EventExtractionCommitted), "result written, event lost: the naive dual write")

		c := x.claim(t, k)
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		require.Len(t, x.outboxRows(t, k, EventExtractionCommitted), 1, "commit.lua writes both or neither")
	})
}

func TestFail_ThirdTransientFailure_DeadLetters(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		for attempt := 1; attempt <= 3; attempt++ {
			c := x.claim(t, k)
			require.Equal(t, StateRunning, c.State)
			require.Equal(t, attempt, c.Attempt)
			st, err := x.store.Fail(x.ctx, k, c.Fence, CodeTransient)
			require.NoError(t, err)
			if attempt < 3 {
				require.Equal(t, StateRetrying, st)
				again, err := x.store.Fail(x.ctx, k, c.Fence, CodeTransient)
				require.NoError(t, err)
				require.Equal(t, StateRetrying, again, "a repeated fail answers the same")
			} else {
				require.Equal(t, StateDeadLettered, st)
			}
		}
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, CodeMaxAttemptsExceeded, j.ErrorCode)
		require.Equal(t, 3, j.Attempt)
		c := x.claim(t, k)
		require.Equal(t, StateDeadLettered, c.State, "there is never a fourth attempt")
	})
}

func TestTerminalStates_AreSticky(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodePermanent))
		require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodePermanent), "the same call again is answered")
		require.ErrorIs(t, x.store.Cancel(x.ctx, k, c.Fence, CodeDeadlineExceeded), ErrStaleFence)
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.ErrorIs(t, err, ErrStaleFence)
		_, err = x.store.Fail(x.ctx, k, c.Fence, CodeTransient)
		require.ErrorIs(t, err, ErrStaleFence)
		j, _ := x.store.Get(x.ctx, k)
		require.Equal(t, StateDeadLettered, j.State)
		require.Equal(t, CodePermanent, j.ErrorCode)
	})
}

func TestEncryption_StoresCiphertext_BoundToDocument(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "SECRET-IBAN-123")
		raw, err := x.rdb.Get(x.ctx, x.store.keys.input(k)).Result()
		require.NoError(t, err)
		require.NotContains(t, raw, "SECRET")
		in, err := x.store.Input(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "SECRET-IBAN-123", in)

		other := mustKey(t, "acme", "inv-2", 1)
		require.NoError(t, x.rdb.Set(x.ctx, x.store.keys.input(other), raw, 0).Err())
		_, err = x.store.Input(x.ctx, other)
		require.Error(t, err, "a ciphertext moved to another document does not open")
	})
}

func TestSubmit_RequestIDReusedForAnotherVersion_IsNotAConflict(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		for v, content := range map[int64]string{1: "A", 2: "B"} {
			r, err := x.store.Submit(x.ctx, SubmitRequest{Key: mustKey(t, "acme", "inv-1", v), Content: content, Limits: DefaultLimits, RequestID: "same"})
			require.NoError(t, err)
			require.False(t, r.Deduped)
		}
	})
}
