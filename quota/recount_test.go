package quota

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// storeWithoutCap submits k's content as an api process without the
// stored cap does: straight to the store, no reservation.
func (x *storedBundle) storeWithoutCap(t *testing.T, k jobs.Key, content string) {
	t.Helper()
	_, err := x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: content})
	require.NoError(t, err)
}

// storedSize is the bytes Redis holds for k's input.
func (x *storedBundle) storedSize(t *testing.T, keys ...jobs.Key) int64 {
	t.Helper()
	in, err := x.store.PeekInputSizes(x.ctx, keys)
	require.NoError(t, err)
	var n int64
	for _, s := range in {
		n += s.Bytes
	}
	return n
}

// withLimiter replaces x's limiter by one of cfg, on the same store and
// clock (another process, or the same one restarted with other settings).
func (x *storedBundle) withLimiter(t *testing.T, cfg Config) *Limiter {
	t.Helper()
	cfg.Store, cfg.Clock, cfg.InputRetention = x.store, x.clock, time.Hour
	if cfg.EndSlack == 0 {
		cfg.EndSlack = time.Minute
	}
	lim, err := New(cfg)
	require.NoError(t, err)
	x.lim = lim
	return lim
}

// The finding: 144 MB stored, then the cap turned on at 50 MiB, and 45 MB
// more were taken. Inputs stored before the cap are counted by the recount
// the first reservation runs, so the next one is refused.
func TestRecount_InputsStoredBeforeTheCap_CountedAtTheFirstReservation(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxBytes: 1 << 20}) // quotas on, the stored cap off
	var before []jobs.Key
	for i := range 3 {
		k := key(t, "acme", i)
		require.NoError(t, x.submit(t, k, "123456"))
		before = append(before, k)
	}
	x.end(t, before[0])
	x.storeWithoutCap(t, key(t, "globex", 1), "1234567890") // another tenant's
	stored := x.storedSize(t, before...)
	require.EqualValues(t, 21, stored, "three 6-byte inputs as stored")

	x.withLimiter(t, Config{MaxStoredBytes: 25})
	requireExceeded(t, x.submit(t, key(t, "acme", 9), "12345"), LimitStored)
	u := x.usage(t, "acme")
	require.Equal(t, [2]int64{3, stored}, [2]int64{u.StoredInputs, u.StoredBytes})
	require.NoError(t, x.submit(t, key(t, "acme", 9), "1234"), "what fits still does")
	require.Equal(t, Usage{}, x.usage(t, "globex"), "each tenant's recount runs at its own first reservation")
}

// A recount run again, by the same process or another, counts nothing
// twice; a later pass looks only at jobs created since the last one, and
// counts an input a process without the cap stored meanwhile (a rollout).
func TestRecount_Idempotent_AndLaterPassesCountWhatProcessesWithoutTheCapStored(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{})
	old := key(t, "acme", 1)
	x.storeWithoutCap(t, old, "123456")
	lim := x.withLimiter(t, Config{MaxStoredBytes: 100})
	other, err := New(lim.cfg) // a second api process
	require.NoError(t, err)

	st, err := lim.Recount(x.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, RecountStep{Checked: 1, Adopted: 1, AdoptedBytes: 7, PassDone: true, Next: t0.Add(time.Minute)}, st)
	for _, l := range []*Limiter{lim, other} {
		st, err := l.Recount(x.ctx, "acme")
		require.NoError(t, err)
		require.Zero(t, st.Checked, "no pass due before RecountEvery")
	}
	x.advance(2 * time.Minute)
	st, err = other.Recount(x.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, 1, st.Checked, "the second pass walks from the first one's start, less the overlap")
	require.Zero(t, st.Adopted, "counted once")
	require.Equal(t, Usage{StoredInputs: 1, StoredBytes: 7}, x.usage(t, "acme"))

	x.advance(2 * time.Minute)
	x.storeWithoutCap(t, key(t, "acme", 2), "12345678") // an old process, still without the cap
	x.advance(time.Minute)
	st, err = lim.Recount(x.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, 1, st.Checked, "jobs created before the last pass's start, less the overlap, are not walked again")
	require.Equal(t, 1, st.Adopted)
	require.Equal(t, Usage{StoredInputs: 2, StoredBytes: 16}, x.usage(t, "acme"))
}

// A pass is bounded: each step looks at RecountBatch jobs, one step runs
// before each reservation while the pass is under way, and the pass ends
// with every stored input counted once.
func TestRecount_BoundedSteps_OneBeforeEachReservation(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{})
	var all []jobs.Key
	for i := range 5 {
		k := key(t, "acme", i)
		x.storeWithoutCap(t, k, "123456")
		all = append(all, k)
		if i%2 == 0 {
			x.end(t, k)
		}
	}
	lim := x.withLimiter(t, Config{MaxStoredBytes: 1000, RecountBatch: 2})
	var checked []int
	for range 4 {
		st, err := lim.Recount(x.ctx, "acme")
		require.NoError(t, err)
		require.LessOrEqual(t, st.Checked, 2)
		checked = append(checked, st.Checked)
		if st.PassDone {
			break
		}
	}
	require.Equal(t, []int{2, 2, 1}, checked, "two open jobs, then three ended ones")
	require.Equal(t, Usage{StoredInputs: 5, StoredBytes: x.storedSize(t, all...)}, x.usage(t, "acme"))

	// Through reservations: a fresh tenant's first ones step its pass.
	for i := range 3 {
		x.storeWithoutCap(t, key(t, "globex", i), "123456")
	}
	require.NoError(t, x.submit(t, key(t, "globex", 10), "1"))
	require.EqualValues(t, 2, x.usage(t, "globex").StoredInputs-1, "one step of two before the first reservation")
	require.NoError(t, x.submit(t, key(t, "globex", 11), "1"))
	require.EqualValues(t, 5, x.usage(t, "globex").StoredInputs, "the rest before the second")
}

// One process steps a tenant's recount at a time.
func TestRecount_AnotherProcessHoldsIt_Busy(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxStoredBytes: 100})
	_, lease := recountKeys("acme")
	require.NoError(t, x.rdb.Set(x.ctx, lease, "1", recountLease).Err())
	st, err := x.lim.Recount(x.ctx, "acme")
	require.NoError(t, err)
	require.True(t, st.Busy)
	require.Equal(t, t0.Add(time.Second), st.Next, "tried again after PruneEvery")
	x.advance(recountLease)
	st, err = x.lim.Recount(x.ctx, "acme")
	require.NoError(t, err)
	require.False(t, st.Busy, "a lease left by a dead process expires")
	require.True(t, st.PassDone)
}

// An open job's input is counted until the bound a reservation would give
// it, and heals to its real expiry once the job ended.
func TestRecount_OpenJob_CountedToItsBound_ThenHealed(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{})
	k := key(t, "acme", 1)
	_, err := x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "123456", Limits: jobs.Limits{Deadline: time.Hour}})
	require.NoError(t, err)
	x.withLimiter(t, Config{MaxStoredBytes: 10})
	requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	bound, err := x.rdb.ZScore(x.ctx, keys("acme")[4], k.String()).Result()
	require.NoError(t, err)
	require.Equal(t, float64(t0.Add(time.Hour+time.Minute+time.Hour).UnixMilli()), bound, "deadline + slack + retention")

	x.end(t, k)
	x.advance(time.Second)
	ex := requireExceeded(t, x.submit(t, key(t, "acme", 2), "12345"), LimitStored)
	require.LessOrEqual(t, ex.RetryAfter, time.Hour, "the heal found its real expiry: the retention from its end")
}

func TestRecount_CapOff_DoesNothing(t *testing.T) {
	t.Parallel()
	x := setupStored(t, Config{MaxBytes: 100})
	x.storeWithoutCap(t, key(t, "acme", 1), "123456")
	st, err := x.lim.Recount(context.Background(), "acme")
	require.NoError(t, err)
	require.Zero(t, st.Checked)
	state, _ := recountKeys("acme")
	n, err := x.rdb.Exists(x.ctx, state).Result()
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestRecount_BadSettings_NameTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{MaxStoredBytes: 1, RecountBatch: -1})
	require.ErrorContains(t, err, "Config.RecountBatch")
	_, err = New(Config{MaxStoredBytes: 1, RecountEvery: -time.Second})
	require.ErrorContains(t, err, "Config.RecountEvery")
}
