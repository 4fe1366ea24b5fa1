package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// recorder is the wrapped Publisher: it records what was published, in
// order, and can be told to fail.
type recorder struct {
	mu        sync.Mutex
	published []jobs.Key
	fail      error
}

func (r *recorder) Publish(_ context.Context, ev jobs.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.published = append(r.published, ev.Key)
	return nil
}

func (r *recorder) take() []jobs.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.published
	r.published = nil
	return out
}

type bundle struct {
	ctx   context.Context
	mr    *miniredis.Miniredis
	rdb   *redis.Client
	store *jobs.Store
	clock *clock.Stub
	pub   *recorder
	adm   *Admitter
}

func setup(t *testing.T, mod func(*Config)) *bundle {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4})
	require.NoError(t, err)
	pub := &recorder{}
	// One publish at a time: the tests read the publish order.
	cfg := Config{Store: store, Publisher: pub, MaxInFlight: 2, Clock: clk, PublishConcurrency: 1}
	if mod != nil {
		mod(&cfg)
	}
	adm, err := New(cfg)
	require.NoError(t, err)
	return &bundle{ctx: context.Background(), mr: mr, rdb: rdb, store: store, clock: clk, pub: pub, adm: adm}
}

// submit creates job tenant/doc-i and hands its job.submitted event to the
// admitter, as the relay would.
func (x *bundle) submit(t *testing.T, tenant string, i int, lim jobs.Limits) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, fmt.Sprintf("doc-%03d", i), 1)
	require.NoError(t, err)
	_, err = x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "c", Limits: lim})
	require.NoError(t, err)
	require.NoError(t, x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()}))
	return k
}

// finish runs k to a terminal state (dead-lettered) as a worker would,
// without releasing its slot.
func (x *bundle) finish(t *testing.T, k jobs.Key) {
	t.Helper()
	c, err := x.store.Claim(x.ctx, k, "tok-"+k.String())
	require.NoError(t, err)
	require.Equal(t, jobs.StateRunning, c.State)
	require.NoError(t, x.store.DeadLetter(x.ctx, k, c.Fence, jobs.CodePermanent))
}

// holdCap fills tenant's cap with jobs published at once (Publish's fast
// path) that keep running, so that the tenant's next submissions wait for a
// step; the step run here reports them admitted. It returns them.
func (x *bundle) holdCap(t *testing.T, tenant string) []jobs.Key {
	t.Helper()
	var held []jobs.Key
	for i := range x.adm.Cap(tenant) {
		held = append(held, x.submit(t, tenant, 900+i, jobs.DefaultLimits))
	}
	require.Equal(t, held, x.pub.take(), "published at once, under the cap")
	require.Equal(t, len(held), x.step(t).Admitted)
	return held
}

// endAll ends each job and releases its slot, as its worker would.
func (x *bundle) endAll(t *testing.T, ks []jobs.Key) {
	t.Helper()
	for _, k := range ks {
		x.finish(t, k)
		require.NoError(t, x.adm.Release(x.ctx, k))
	}
}

func (x *bundle) waiting(t *testing.T, tenant string) []string {
	t.Helper()
	ids, err := x.rdb.ZRange(x.ctx, waitingKey(tenant), 0, -1).Result()
	require.NoError(t, err)
	return ids
}

func (x *bundle) inFlight(t *testing.T, tenant string) int64 {
	t.Helper()
	n, err := x.rdb.ZCard(x.ctx, inFlightKey(tenant)).Result()
	require.NoError(t, err)
	return n
}

func (x *bundle) step(t *testing.T) StepReport {
	t.Helper()
	rep, err := x.adm.Step(x.ctx)
	require.NoError(t, err)
	return rep
}

func TestStep_FloodThenQuietTenant_QuietAdmittedInFirstTurnsAndFloodCapped(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	for i := range 100 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	for i := range 3 {
		x.submit(t, "globex", i, jobs.DefaultLimits)
	}

	running := map[jobs.Key]bool{}
	done := map[jobs.Key]bool{}
	globexTurn := map[jobs.Key]int{}
	for turn := 1; len(done) < 103; turn++ {
		require.LessOrEqual(t, turn, 200, "admission stalled")
		x.step(t)
		for _, k := range x.pub.take() {
			require.False(t, running[k] || done[k], "job %s admitted twice", k)
			running[k] = true
			if k.Tenant == "globex" {
				globexTurn[k] = turn
			}
		}
		perTenant := map[string]int{}
		for k := range running {
			perTenant[k.Tenant]++
		}
		require.LessOrEqual(t, perTenant["acme"], 2, "turn %d: acme in flight", turn)
		require.LessOrEqual(t, perTenant["globex"], 2, "turn %d: globex in flight", turn)
		require.LessOrEqual(t, x.inFlight(t, "acme"), int64(2))
		// Each turn, every running job ends and its worker releases it.
		for k := range running {
			x.finish(t, k)
			require.NoError(t, x.adm.Release(x.ctx, k))
			delete(running, k)
			done[k] = true
		}
	}
	// globex's first two jobs go in the first turn beside acme's first
	// two, the third in the second turn: not behind acme's 100.
	require.Len(t, globexTurn, 3)
	for k, turn := range globexTurn {
		require.LessOrEqual(t, turn, 2, "%s admitted in turn %d", k, turn)
	}
	x.step(t) // writes the last releases
	require.Zero(t, x.inFlight(t, "acme"))
	require.Zero(t, x.inFlight(t, "globex"))
}

func TestStep_PublishesTenantsInterleaved(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	held := append(x.holdCap(t, "acme"), x.holdCap(t, "globex")...)
	for i := range 5 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	for i := range 2 {
		x.submit(t, "globex", i, jobs.DefaultLimits)
	}
	require.Empty(t, x.pub.take(), "both tenants at their caps: every job waits")
	x.endAll(t, held)
	x.step(t)
	got := x.pub.take()
	require.Len(t, got, 4)
	// One of each tenant in turn: never two of one tenant in a row.
	for i := 1; i < len(got); i++ {
		require.NotEqual(t, got[i-1].Tenant, got[i].Tenant, "published %v", got)
	}
}

func TestStep_JobEndedWithoutRelease_PruneFreesItsSlot(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.PruneInterval = time.Second })
	a := x.submit(t, "acme", 0, jobs.DefaultLimits)
	b := x.submit(t, "acme", 1, jobs.DefaultLimits)
	x.submit(t, "acme", 2, jobs.DefaultLimits)
	x.step(t)
	require.ElementsMatch(t, []jobs.Key{a, b}, x.pub.take())

	// The worker ended a but died before releasing it.
	x.finish(t, a)
	x.clock.Advance(500 * time.Millisecond)
	require.Zero(t, x.step(t).Released, "prune not due yet")
	require.Empty(t, x.pub.take())

	x.clock.Advance(time.Second)
	rep := x.step(t)
	require.Equal(t, 1, rep.Released)
	require.Equal(t, 1, rep.Admitted)
	require.Equal(t, int64(2), x.inFlight(t, "acme"))
}

func TestStep_AdmittedButNeverPublished_RepublishedAfterRepublishAfter(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.PruneInterval = time.Second; c.RepublishAfter = 10 * time.Second })
	k, err := jobs.BuildKey("acme", "doc-000", 1)
	require.NoError(t, err)
	_, err = x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "c", Limits: jobs.DefaultLimits})
	require.NoError(t, err)
	// The job is admitted at once, and its publish fails (as when the
	// process dies right there): it is in flight, still queued, and Asynq
	// never heard of it. Its relay never retries (say, it died too).
	x.pub.fail = errors.New("killed")
	require.ErrorContains(t, x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()}), "killed")
	x.pub.fail = nil
	require.Equal(t, int64(1), x.inFlight(t, "acme"))

	x.clock.Advance(5 * time.Second)
	require.Zero(t, x.step(t).Republished)
	x.clock.Advance(6 * time.Second)
	require.Equal(t, 1, x.step(t).Republished)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
	// Renewed: not republished again at once.
	x.clock.Advance(time.Second + time.Millisecond)
	require.Zero(t, x.step(t).Republished)
}

func TestStep_PublishFails_JobGoesBackToWaiting(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	held := x.holdCap(t, "acme")
	k := x.submit(t, "acme", 0, jobs.DefaultLimits)
	x.endAll(t, held)
	x.pub.fail = errors.New("asynq down")
	_, err := x.adm.Step(x.ctx)
	require.ErrorContains(t, err, "asynq down")
	require.Zero(t, x.inFlight(t, "acme"))
	require.Equal(t, []string{k.String()}, x.waiting(t, "acme"))
	x.pub.fail = nil
	require.Equal(t, 1, x.step(t).Admitted)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
}

func TestStep_DeadlinePassesWhileWaiting_SweepCancelsWithoutWorker(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1 })
	first := x.submit(t, "acme", 0, jobs.DefaultLimits)
	short := x.submit(t, "acme", 1, jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Minute})
	x.submit(t, "acme", 2, jobs.DefaultLimits)
	x.step(t)
	require.Equal(t, []jobs.Key{first}, x.pub.take(), "submission order")
	_, err := x.store.Claim(x.ctx, first, "tok-first") // a worker runs it, for long
	require.NoError(t, err)

	x.clock.Advance(2 * time.Minute)
	rep := x.step(t)
	require.Equal(t, 1, rep.Cancelled)
	require.Empty(t, x.pub.take(), "nothing admitted: first still holds the slot")
	j, err := x.store.Get(x.ctx, short)
	require.NoError(t, err)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Equal(t, jobs.CodeDeadlineExceeded, j.ErrorCode)
	require.Zero(t, j.Attempt, "no worker ran it")
	n, err := x.rdb.ZCard(x.ctx, waitingKey("acme")).Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "doc-002 still waits")
}

func TestStep_DeadlinePassedWhenAdmitted_CancelledNotPublished(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1; c.SweepInterval = time.Hour })
	first := x.submit(t, "acme", 0, jobs.DefaultLimits)
	short := x.submit(t, "acme", 1, jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Minute})
	x.step(t) // sweeps once (nothing past its deadline yet), admits first
	require.Equal(t, []jobs.Key{first}, x.pub.take())
	x.clock.Advance(2 * time.Minute)
	x.finish(t, first)
	require.NoError(t, x.adm.Release(x.ctx, first))
	rep := x.step(t)
	require.Equal(t, 1, rep.Cancelled)
	require.Zero(t, rep.Admitted)
	require.Empty(t, x.pub.take())
	require.Zero(t, x.inFlight(t, "acme"))
	j, err := x.store.Get(x.ctx, short)
	require.NoError(t, err)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Zero(t, j.Attempt)
}

func TestStep_EndedJobPublishedAgain_DroppedUnpublished(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.SweepInterval = time.Hour })
	k := x.submit(t, "acme", 0, jobs.DefaultLimits)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
	x.finish(t, k)
	require.NoError(t, x.adm.Release(x.ctx, k))
	x.step(t)
	x.holdCap(t, "acme")
	// A late republish (reconciler, relay redelivery) of an ended job, while
	// the tenant is at its cap: it waits, and the step drops it.
	require.NoError(t, x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()}))
	require.Equal(t, []string{k.String()}, x.waiting(t, "acme"))
	require.Zero(t, x.step(t).Admitted)
	require.Empty(t, x.pub.take())
	require.Equal(t, int64(2), x.inFlight(t, "acme"), "only the held jobs")
	require.Empty(t, x.waiting(t, "acme"))
}

func TestSweep_EndedWaitingJob_LeavesWaiting(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1 })
	first := x.submit(t, "acme", 0, jobs.DefaultLimits)
	second := x.submit(t, "acme", 1, jobs.DefaultLimits)
	x.step(t)
	require.Equal(t, []jobs.Key{first}, x.pub.take())
	// second ends while it waits (say, its first publication ran it).
	x.finish(t, second)
	x.clock.Advance(3 * time.Second)
	x.step(t)
	n, err := x.rdb.ZCard(x.ctx, waitingKey("acme")).Result()
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestPublish_SameJobTwice_WaitsOnce(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	x.holdCap(t, "acme")
	k := x.submit(t, "acme", 0, jobs.DefaultLimits)
	require.NoError(t, x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k}))
	require.Equal(t, []string{k.String()}, x.waiting(t, "acme"))
	require.Empty(t, x.pub.take())
}

func TestStep_PerTenantLimits_OverrideDefault(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1; c.Limits = map[string]int{"globex": 3, "initech": 0} })
	for i := range 5 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
		x.submit(t, "globex", i, jobs.DefaultLimits)
		x.submit(t, "initech", i, jobs.DefaultLimits)
	}
	x.step(t)
	count := map[string]int{}
	for _, k := range x.pub.take() {
		count[k.Tenant]++
	}
	require.Equal(t, map[string]int{"acme": 1, "globex": 3, "initech": 5}, count)
}

func TestTwoAdmitters_NeverExceedTheCapTogether(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 3 })
	other, err := New(Config{Store: x.store, Publisher: x.pub, MaxInFlight: 3, Clock: x.clock}) // publishes 8 at once
	require.NoError(t, err)
	for i := range 20 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	var wg sync.WaitGroup
	for _, a := range []*Admitter{x.adm, other} {
		wg.Go(func() {
			for range 5 {
				_, err := a.Step(x.ctx)
				require.NoError(t, err)
			}
		})
	}
	wg.Wait()
	require.Len(t, x.pub.take(), 3)
	require.Equal(t, int64(3), x.inFlight(t, "acme"))
}

func TestStep_IdleTenant_ForgottenAfterForgetAfter(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.ForgetAfter = time.Minute })
	for i := range 3 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	x.step(t)
	ts, err := Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Equal(t, []Tenant{{Tenant: "acme", Waiting: 1, InFlight: 2}}, ts)
	for range 2 {
		for _, j := range x.pub.take() {
			x.finish(t, j)
			require.NoError(t, x.adm.Release(x.ctx, j))
		}
		x.step(t)
	}
	ts, err = Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Equal(t, []Tenant{{Tenant: "acme"}}, ts, "idle but recent: still listed")

	x.clock.Advance(2 * time.Minute)
	x.step(t)
	ts, err = Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Empty(t, ts)
	// A new submission registers the tenant again (and, under the cap, is
	// published at once).
	k := x.submit(t, "acme", 9, jobs.DefaultLimits)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
	ts, err = Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Equal(t, []Tenant{{Tenant: "acme", InFlight: 1}}, ts)
}

func TestNew_BadConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{MaxInFlight: -1, Limits: map[string]int{"Bad Tenant": 1, "acme": -2}, Batch: -1})
	require.Error(t, err)
	for _, want := range []string{"Config.Store", "Config.Publisher", "Config.MaxInFlight", `tenant "Bad Tenant"`, "tenant acme", "Config.Batch"} {
		require.ErrorContains(t, err, want)
	}
}

func TestEnabled_OnlyWithSomeCap(t *testing.T) {
	t.Parallel()
	require.False(t, Enabled(0, nil))
	require.False(t, Enabled(0, map[string]int{"acme": 0}))
	require.True(t, Enabled(0, map[string]int{"acme": 5}))
	require.True(t, Enabled(100, nil))
}

func TestPublish_RedisLostTheRegistry_NextPublishRegistersAgain(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	held := x.holdCap(t, "acme")
	x.mr.Del(registryKey) // Redis lost the registry (and only it)
	k := x.submit(t, "acme", 1, jobs.DefaultLimits)
	require.Empty(t, x.pub.take(), "at the cap: it waits")
	x.endAll(t, held)
	x.step(t)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
}

// woken reports whether a wake-up is pending for Run, and consumes it.
func (x *bundle) woken() bool {
	select {
	case <-x.adm.wake:
		return true
	default:
		return false
	}
}

func TestRelease_WakesRunOnceAQuarterOfTheTenantsCapIsFree(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) {
		c.MaxInFlight = 100
		c.Limits = map[string]int{"small": 5, "free": 0}
	})
	release := func(tenant string, n int) {
		t.Helper()
		for i := range n {
			k, err := jobs.BuildKey(tenant, fmt.Sprintf("doc-%03d", i), 1)
			require.NoError(t, err)
			require.NoError(t, x.adm.Release(x.ctx, k))
		}
	}

	release("acme", 15)
	require.False(t, x.woken(), "15 of a cap of 100 freed: the step can wait for its interval")
	release("acme", 1)
	require.True(t, x.woken(), "16 freed (a quarter of 100, at most 16): refill now")

	release("small", 1)
	require.False(t, x.woken(), "1 of a cap of 5 freed")
	release("small", 1)
	require.True(t, x.woken(), "2 of a cap of 5 freed (a quarter, rounded up)")

	release("free", 50)
	require.False(t, x.woken(), "a tenant without a cap never waits for a slot")

	// A step writes the releases and starts the count again.
	x.step(t)
	release("small", 1)
	require.False(t, x.woken(), "counted from the last step")
	release("small", 1)
	require.True(t, x.woken())
}

func TestRefillAt_AQuarterOfTheCapBetweenOneAndSixteen(t *testing.T) {
	t.Parallel()
	for cap, want := range map[int]int{1: 1, 2: 1, 4: 1, 5: 2, 8: 2, 40: 10, 64: 16, 100: 16, 10000: 16} {
		require.Equal(t, want, refillAt(cap), "cap %d", cap)
	}
	require.Negative(t, refillAt(0), "no cap: never")
}
