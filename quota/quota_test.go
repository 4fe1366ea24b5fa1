package quota

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type bundle struct {
	ctx   context.Context
	rdb   *redis.Client
	store *jobs.Store
	clock *clock.Stub
	lim   *Limiter
}

func setup(t *testing.T, cfg Config) *bundle {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4})
	require.NoError(t, err)
	cfg.Store, cfg.Clock = store, clk
	lim, err := New(cfg)
	require.NoError(t, err)
	return &bundle{ctx: context.Background(), rdb: rdb, store: store, clock: clk, lim: lim}
}

func key(t *testing.T, tenant string, i int) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, fmt.Sprintf("doc-%d", i), 1)
	require.NoError(t, err)
	return k
}

// submit reserves and submits k as the API does, and settles.
func (x *bundle) submit(t *testing.T, k jobs.Key, content string) error {
	t.Helper()
	r, err := x.lim.Reserve(x.ctx, k, len(content), 0)
	if err != nil {
		return err
	}
	res, err := x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: content})
	require.NoError(t, x.lim.Settle(x.ctx, r, err == nil && !res.Deduped, err))
	return err
}

func (x *bundle) end(t *testing.T, k jobs.Key) {
	t.Helper()
	c, err := x.store.Claim(x.ctx, k, "tok")
	require.NoError(t, err)
	require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, jobs.CodePermanent))
}

func (x *bundle) usage(t *testing.T, tenant string) Usage {
	t.Helper()
	u, err := ReadUsage(x.ctx, x.rdb, tenant)
	require.NoError(t, err)
	return u
}

func requireExceeded(t *testing.T, err error, limit string) *ExceededError {
	t.Helper()
	var ex *ExceededError
	require.True(t, errors.As(err, &ex), "want ExceededError, got %v", err)
	require.Equal(t, limit, ex.Limit)
	require.Positive(t, ex.RetryAfter)
	return ex
}

func TestReserve_OverRate_RefusedWithRetryAfterAndNothingReserved(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{Rate: 2, Per: time.Second})
	require.NoError(t, x.submit(t, key(t, "acme", 1), "a"))
	require.NoError(t, x.submit(t, key(t, "acme", 2), "b"))
	ex := requireExceeded(t, x.submit(t, key(t, "acme", 3), "c"), LimitRate)
	require.LessOrEqual(t, ex.RetryAfter, 500*time.Millisecond)
	require.Equal(t, Usage{Jobs: 2, Bytes: 2}, x.usage(t, "acme"))
	// Another tenant has its own budget.
	require.NoError(t, x.submit(t, key(t, "globex", 1), "a"))
	x.clock.Advance(ex.RetryAfter)
	require.NoError(t, x.submit(t, key(t, "acme", 3), "c"))
}

func TestReserve_BacklogJobsFull_RefusedUntilAJobEnds(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{MaxJobs: 2})
	first := key(t, "acme", 1)
	require.NoError(t, x.submit(t, first, "a"))
	require.NoError(t, x.submit(t, key(t, "acme", 2), "b"))
	requireExceeded(t, x.submit(t, key(t, "acme", 3), "c"), LimitJobs)
	x.end(t, first)
	// The prune ran with the refusal a moment ago; it is due again after
	// PruneEvery.
	x.clock.Advance(time.Second)
	require.NoError(t, x.submit(t, key(t, "acme", 3), "c"))
	require.Equal(t, int64(2), x.usage(t, "acme").Jobs)
}

func TestReserve_BacklogBytesFull_Refused(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{MaxBytes: 10})
	require.NoError(t, x.submit(t, key(t, "acme", 1), "123456"))
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitBytes)
	require.NoError(t, x.submit(t, key(t, "acme", 2), "1234"))
	require.Equal(t, Usage{Jobs: 2, Bytes: 10}, x.usage(t, "acme"))
}

func TestReserve_ResubmitOpenJob_CountsNothing(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{Rate: 1, Per: time.Hour, MaxJobs: 1})
	k := key(t, "acme", 1)
	require.NoError(t, x.submit(t, k, "a"))
	// Over every limit, yet the resubmission is answered (a dedupe).
	for range 3 {
		require.NoError(t, x.submit(t, k, "a"))
	}
	require.Equal(t, Usage{Jobs: 1, Bytes: 1}, x.usage(t, "acme"))
}

func TestSettle_DedupeOfEndedJob_GivesEverythingBack(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{Rate: 1, Per: time.Hour, MaxJobs: 5})
	k := key(t, "acme", 1)
	require.NoError(t, x.submit(t, k, "a"))
	x.end(t, k)
	n, err := x.lim.Prune(x.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, Usage{}, x.usage(t, "acme"))
	// The rate token is spent; a dedupe of the ended job is not a new job:
	// its reservation (and token) is given back.
	x.clock.Advance(time.Hour)
	require.NoError(t, x.submit(t, k, "a"))
	require.Equal(t, Usage{}, x.usage(t, "acme"))
	require.NoError(t, x.submit(t, key(t, "acme", 2), "b"), "the token came back")
}

func TestSettle_Conflict_GivesBack(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{MaxJobs: 5})
	k := key(t, "acme", 1)
	require.NoError(t, x.submit(t, k, "a"))
	x.end(t, k)
	_, err := x.lim.Prune(x.ctx, "acme")
	require.NoError(t, err)
	require.ErrorIs(t, x.submit(t, k, "different"), jobs.ErrIdempotencyConflict)
	require.Equal(t, Usage{}, x.usage(t, "acme"))
}

func TestPrune_ReservationWhoseSubmitNeverRan_HealsAfterGrace(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{MaxJobs: 1, Grace: time.Minute})
	// The API dies between the reservation and the submission.
	_, err := x.lim.Reserve(x.ctx, key(t, "acme", 1), 7, 0)
	require.NoError(t, err)
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "b"), LimitJobs)
	x.clock.Advance(30 * time.Second)
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "b"), LimitJobs)
	x.clock.Advance(31 * time.Second)
	require.NoError(t, x.submit(t, key(t, "acme", 2), "b"))
	require.Equal(t, Usage{Jobs: 1, Bytes: 1}, x.usage(t, "acme"))
}

func TestPrune_OpenJobs_Kept(t *testing.T) {
	t.Parallel()
	x := setup(t, Config{MaxJobs: 10})
	for i := range 3 {
		require.NoError(t, x.submit(t, key(t, "acme", i), "abc"))
	}
	x.end(t, key(t, "acme", 1))
	x.clock.Advance(time.Hour)
	u, err := x.lim.Usage(x.ctx, "acme", true)
	require.NoError(t, err)
	require.Equal(t, Usage{Jobs: 2, Bytes: 6}, u)
}

func TestNew_BadConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Rate: 5, MaxJobs: -1, MaxBytes: -1})
	require.Error(t, err)
	for _, want := range []string{"Config.Store", "Config.Rate", "Config.MaxJobs", "Config.MaxBytes"} {
		require.ErrorContains(t, err, want)
	}
	require.False(t, Config{}.Enabled())
	require.True(t, Config{MaxBytes: 1}.Enabled())
}
