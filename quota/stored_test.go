package quota

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

// storedBundle is a Limiter with the stored-bytes cap over a store that
// keeps inputs an hour after their jobs end and results two, on miniredis
// whose TTLs follow the stub clock (advance moves both).
type storedBundle struct {
	*bundle
	mr *miniredis.Miniredis
}

func setupStored(t *testing.T, cfg Config) *storedBundle {
	t.Helper()
	mr := miniredis.RunT(t)
	mr.SetTime(t0)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4,
		Retention: jobs.Retention{Input: time.Hour, Result: 2 * time.Hour}})
	require.NoError(t, err)
	cfg.Store, cfg.Clock, cfg.InputRetention = store, clk, time.Hour
	if cfg.EndSlack == 0 {
		cfg.EndSlack = time.Minute
	}
	lim, err := New(cfg)
	require.NoError(t, err)
	return &storedBundle{bundle: &bundle{ctx: context.Background(), rdb: rdb, store: store, clock: clk, lim: lim}, mr: mr}
}

func (x *storedBundle) advance(d time.Duration) {
	x.clock.Advance(d)
	x.mr.FastForward(d)
	x.mr.SetTime(x.clock.Now())
}

// submitWithDeadline is submit with the job's own deadline.
func (x *storedBundle) submitWithDeadline(t *testing.T, k jobs.Key, content string, deadline time.Duration) error {
	t.Helper()
	r, err := x.lim.Reserve(x.ctx, k, len(content), deadline)
	if err != nil {
		return err
	}
	res, err := x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: jobs.Limits{Deadline: deadline}})
	require.NoError(t, x.lim.Settle(x.ctx, r, err == nil && !res.Deduped, err))
	return err
}

func TestStored_OverTheCap_RefusedUntilTheOldestInputExpires(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 10})
	first := key(t, "acme", 1)
	require.NoError(t, x.submit(t, first, "123456"))
	x.end(t, first) // its input is kept an hour from now, though no longer open

	ex := requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	// The refusal healed the first input's bound (24h deadline + slack +
	// 1h) into its real expiry: retry in an hour, not in a day.
	require.Greater(t, ex.RetryAfter, 59*time.Minute)
	require.LessOrEqual(t, ex.RetryAfter, time.Hour)
	require.Equal(t, Usage{StoredInputs: 1, StoredBytes: 6}, x.usage(t, "acme"), "with the stored cap alone, no open reservation is kept")
	require.NoError(t, x.submit(t, key(t, "acme", 3), "1234"), "what fits is admitted")

	x.advance(time.Hour + time.Second) // the first input expires
	require.NoError(t, x.submit(t, key(t, "acme", 2), "12345"))
	u := x.usage(t, "acme")
	require.Equal(t, int64(9), u.StoredBytes)
	require.Equal(t, int64(2), u.StoredInputs)
	// Another tenant has a cap of its own.
	require.NoError(t, x.submit(t, key(t, "globex", 1), "1234567890"))
}

func TestStored_BacklogQuotasDoNotCapEndedJobs_TheStoredCapDoes(t *testing.T) {
	t.Parallel()
	// The finding: with a backlog byte quota alone, ended jobs free their
	// budget while their inputs stay stored for the retention.
	x := setupStored(t, Config{MaxBytes: 10, MaxStoredBytes: 20})
	for i := range 4 {
		k := key(t, "acme", i)
		require.NoError(t, x.submit(t, k, "12345"))
		x.end(t, k)
		x.advance(time.Second)
	}
	requireExceeded(t, x.submit(t, key(t, "acme", 9), "12345"), LimitStored)
	u, err := x.lim.Usage(x.ctx, "acme", true)
	require.NoError(t, err)
	require.Equal(t, Usage{StoredInputs: 4, StoredBytes: 20}, u, "no job open, 20 bytes stored")
}

func TestStored_OpenJob_CountedUntilItsBoundPasses(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 10})
	// A job that never ends (no worker): its input stays counted until its
	// deadline (1h) + slack (1m) + retention (1h), however often the
	// tenant hits the cap meanwhile (the heal finds it open).
	require.NoError(t, x.submitWithDeadline(t, key(t, "acme", 1), "123456", time.Hour))
	for range 4 {
		x.advance(30 * time.Minute)
		requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	}
	x.advance(2 * time.Minute) // 2h02m
	require.NoError(t, x.submit(t, key(t, "acme", 2), "12345"))
	require.Equal(t, int64(5), x.usage(t, "acme").StoredBytes)
}

func TestStored_ResubmissionOfAKeptInput_NeverRefusedNorCountedTwice(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 10})
	first := key(t, "acme", 1)
	require.NoError(t, x.submit(t, first, "123456"))
	x.end(t, first)
	require.NoError(t, x.submit(t, key(t, "acme", 2), "1234"))
	for range 3 {
		require.NoError(t, x.submit(t, first, "123456"), "a dedupe at the cap")
	}
	require.Equal(t, Usage{StoredInputs: 2, StoredBytes: 10}, x.usage(t, "acme"), "each input counted once")
}

func TestStored_DedupeFromTheLedger_GivesTheStoredBytesBack(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 10})
	k := key(t, "acme", 1)
	require.NoError(t, x.submit(t, k, "123456"))
	x.end(t, k)
	x.advance(3 * time.Hour) // input and record expired; the ledger remains
	u, err := x.lim.Usage(x.ctx, "acme", true)
	require.NoError(t, err)
	require.Equal(t, Usage{}, u, "the heal found the input gone")
	// The resubmission is counted while it is decided, and given back: the
	// store answered from the ledger and stored nothing.
	require.NoError(t, x.submit(t, k, "123456"))
	u = x.usage(t, "acme")
	require.Zero(t, u.StoredBytes, "the dedupe stored nothing: %+v", u)
	require.Zero(t, u.StoredInputs)
	require.NoError(t, x.submit(t, key(t, "acme", 2), "1234567890"))
}

func TestStored_ReservationWhoseSubmitNeverRan_HealsAfterGrace(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 10, Grace: time.Minute})
	// The API dies between the reservation and the submission.
	_, err := x.lim.Reserve(x.ctx, key(t, "acme", 1), 8, 0)
	require.NoError(t, err)
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	x.advance(30 * time.Second)
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	x.advance(31 * time.Second)
	require.NoError(t, x.submit(t, key(t, "acme", 2), "12345"))
	require.Equal(t, int64(5), x.usage(t, "acme").StoredBytes)
}

func TestStored_CapOff_KeepsNoBookkeeping(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxBytes: 100})
	k := key(t, "acme", 1)
	require.NoError(t, x.submit(t, k, "123456"))
	x.end(t, k)
	ks := keys("acme")
	n, err := x.rdb.Exists(x.ctx, ks[4], ks[5], ks[6], ks[7]).Result()
	require.NoError(t, err)
	require.Zero(t, n)
	healed, err := x.lim.HealStored(x.ctx, "acme")
	require.NoError(t, err)
	require.Zero(t, healed)
}

func TestStored_NegativeCap_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{MaxStoredBytes: -1})
	require.ErrorContains(t, err, "Config.MaxStoredBytes")
	require.True(t, Config{MaxStoredBytes: 1}.Enabled())
}

func TestStored_CapAlone_KeepsNoOpenReservations(t *testing.T) {
	t.Parallel()
	// Only a backlog prune releases open reservations, and it runs at a
	// backlog limit: with the stored cap alone they would pile up.
	x := setupStored(t, Config{MaxStoredBytes: 100})
	for i := range 3 {
		require.NoError(t, x.submit(t, key(t, "acme", i), "12345"))
	}
	ks := keys("acme")
	n, err := x.rdb.Exists(x.ctx, ks[1], ks[2], ks[3]).Result()
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, Usage{StoredInputs: 3, StoredBytes: 15}, x.usage(t, "acme"))
}
