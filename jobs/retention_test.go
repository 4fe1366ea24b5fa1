package jobs

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
)

func ttl(t *testing.T, x *bundle, key string) time.Duration {
	t.Helper()
	d, err := x.rdb.PTTL(x.ctx, key).Result()
	require.NoError(t, err)
	return d
}

// Expiry is set by the scripts that end a job: nothing expires while the job
// runs; at the end each class of data gets its own TTL, and the ledger the
// longest.
func TestFinish_SetsTTLsByClass(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, "classify", []byte(`{}`)))
		for _, key := range []string{x.store.keys.job(k), x.store.keys.input(k), x.store.keys.checkpoints(k)} {
			require.Equal(t, time.Duration(-1), ttl(t, x, key), "no TTL while the job is live: %s", key)
		}
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		near := func(want, got time.Duration) {
			require.InDelta(t, want.Seconds(), got.Seconds(), 5)
		}
		r := DefaultRetention
		near(r.Input, ttl(t, x, x.store.keys.input(k)))
		near(r.Result, ttl(t, x, x.store.keys.result(k)))
		require.Zero(t, x.rdb.Exists(x.ctx, x.store.keys.checkpoints(k)).Val(), "a succeeded job's checkpoints are superseded by its result")
		near(r.Result, ttl(t, x, x.store.keys.job(k)))
		near(r.Ledger, ttl(t, x, x.store.keys.ledger(k)))
	})
}

func TestDeadLetteredJob_KeepsCheckpointsAsLongAsAResult(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		c := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, "classify", []byte(`{}`)))
		require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, CodePermanent))
		require.InDelta(t, DefaultRetention.Result.Seconds(), ttl(t, x, x.store.keys.checkpoints(k)).Seconds(), 5)
	})
}

func TestLedger_Forever_HasNoTTL(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.LedgerForever = true })
		k := mustKey(t, "acme", "inv-1", 1)
		x.succeed(t, k)
		require.Equal(t, time.Duration(-1), ttl(t, x, x.store.keys.ledger(k)))
	})
}

// After the input, result and job record expired, the ledger still answers:
// an identical resubmission dedupes with the final state, a different one
// conflicts, and the job is never created (or run) again.
func TestDedupeAndConflict_HoldAcrossExpiry(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.succeed(t, k)
		b.FastForward(DefaultRetention.Result + time.Hour)
		x.clock.Advance(DefaultRetention.Result + time.Hour)
		for _, key := range []string{x.store.keys.job(k), x.store.keys.input(k), x.store.keys.result(k)} {
			require.Zero(t, x.rdb.Exists(x.ctx, key).Val(), key)
		}
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateSucceeded, j.State)
		require.True(t, j.RecordExpired)
		require.True(t, j.ResultExpired)

		r := x.submit(t, k, "c-"+k.String())
		require.True(t, r.Deduped)
		require.Equal(t, StateSucceeded, r.Job.State)
		require.True(t, r.Job.ResultExpired)
		_, err = x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "different", Limits: DefaultLimits})
		require.ErrorIs(t, err, ErrIdempotencyConflict)
		c := x.claim(t, k)
		require.Equal(t, StateSucceeded, c.State, "a stray redelivery finds the job terminal via the ledger")
		require.Empty(t, x.outboxRows(t, k, EventJobSubmitted)[1:], "no new submission row")

		b.FastForward(DefaultRetention.Ledger)
		_, err = x.store.Get(x.ctx, k)
		require.ErrorIs(t, err, ErrNotFound, "past the ledger retention the key is forgotten")
	})
}

func TestAudit_SurvivesInputExpiry(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.succeed(t, k)
		b.FastForward(DefaultRetention.Input + time.Hour)
		_, err := x.store.Input(x.ctx, k)
		require.ErrorIs(t, err, ErrInputExpired)
		a, err := x.store.ListAudit(x.ctx, AuditOptions{JobKey: k.String()})
		require.NoError(t, err)
		require.Len(t, a.Entries, 1)
		j, err := x.store.Get(x.ctx, k)
		require.NoError(t, err)
		require.True(t, j.InputExpired)
		require.False(t, j.ResultExpired)
	})
}

// The same guarantees on a real redis-server with real (short) TTLs: each
// class of data is there until its retention passes, then gone; the ledger
// outlives them and keeps dedupe and conflict answering.
func TestRetention_RealRedis_ShortTTLs(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	c := srv.Client(t)
	x := setup(t, &redistest.Backend{Client: c, Real: srv}, func(cfg *Config) {
		cfg.Clock = clock.Real{} // Redis expires by its own clock
		cfg.Retention = Retention{Input: 300 * time.Millisecond, Result: 900 * time.Millisecond,
			Outbox: time.Hour, Audit: time.Hour, Ledger: time.Hour}
	})
	k := mustKey(t, "acme", "inv-1", 1)
	x.succeed(t, k)
	exists := func(key string) bool { return c.Exists(x.ctx, key).Val() == 1 }
	require.True(t, exists(x.store.keys.input(k)), "input kept until its retention passes")
	require.True(t, exists(x.store.keys.result(k)))
	redistest.Eventually(t, 5*time.Second, func() bool { return !exists(x.store.keys.input(k)) }, "input expires")
	require.True(t, exists(x.store.keys.result(k)), "the result outlives the input")
	j, err := x.store.Get(x.ctx, k)
	require.NoError(t, err)
	require.True(t, j.InputExpired)
	require.False(t, j.ResultExpired)

	redistest.Eventually(t, 5*time.Second, func() bool { return !exists(x.store.keys.job(k)) }, "job record expires with the result")
	require.False(t, exists(x.store.keys.result(k)))
	require.True(t, exists(x.store.keys.ledger(k)), "the ledger outlives everything")

	r, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "c-" + k.String(), Limits: DefaultLimits})
	require.NoError(t, err)
	require.True(t, r.Deduped)
	require.Equal(t, StateSucceeded, r.Job.State)
	require.True(t, r.Job.ResultExpired)
	_, err = x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "different", Limits: DefaultLimits})
	require.ErrorIs(t, err, ErrIdempotencyConflict)
	require.False(t, exists(x.store.keys.job(k)), "a dedupe after expiry creates nothing")
	a, err := x.store.ListAudit(x.ctx, AuditOptions{JobKey: k.String()})
	require.NoError(t, err)
	require.Len(t, a.Entries, 1, "the audit trail survives the input")
}

// The document's version counter holds its highest version whichever order
// the versions arrive in, and lives as long as the ledger (forever when the
// ledger does).
func TestSubmit_DocumentCounter_HoldsTheHighestVersionWithTheLedgerTTL(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		for name, forever := range map[string]bool{"ledger-ttl": false, "ledger-forever": true} {
			t.Run(name, func(t *testing.T) {
				x := setup(t, b, func(c *Config) { c.LedgerForever = forever })
				doc := x.store.keys.document(mustKey(t, "acme", "counter-"+name, 1))
				for _, tc := range []struct{ version, want int64 }{{1, 1}, {3, 3}, {2, 3}, {4, 4}} {
					x.submit(t, mustKey(t, "acme", "counter-"+name, tc.version), "x")
					require.Equal(t, strconv.FormatInt(tc.want, 10), x.rdb.Get(x.ctx, doc).Val(), "after v%d", tc.version)
					if forever {
						require.Equal(t, time.Duration(-1), ttl(t, x, doc))
					} else {
						require.InDelta(t, DefaultRetention.Ledger.Seconds(), ttl(t, x, doc).Seconds(), 5)
					}
				}
			})
		}
	})
}
