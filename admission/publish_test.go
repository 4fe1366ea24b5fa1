package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// Publish's fast path: a tenant under its cap with nothing waiting.

func TestPublish_UnderCap_PublishedAtOnceAndCountedByTheNextStep(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	a := x.submit(t, "acme", 0, jobs.DefaultLimits)
	b := x.submit(t, "acme", 1, jobs.DefaultLimits)
	require.Equal(t, []jobs.Key{a, b}, x.pub.take(), "published without a step")
	require.Equal(t, int64(2), x.inFlight(t, "acme"))
	require.Empty(t, x.waiting(t, "acme"))

	c := x.submit(t, "acme", 2, jobs.DefaultLimits)
	require.Empty(t, x.pub.take(), "at the cap: it waits")
	require.Equal(t, []string{c.String()}, x.waiting(t, "acme"))
	require.Equal(t, StepReport{Admitted: 2}, x.step(t), "the step reports what Publish admitted; c stays behind the cap")
	ts, err := Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Equal(t, []Tenant{{Tenant: "acme", Waiting: 1, InFlight: 2}}, ts)
}

func TestPublish_ConcurrentFromTwoAdmitters_NeverExceedTheCap(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 3 })
	other, err := New(Config{Store: x.store, Publisher: x.pub, MaxInFlight: 3, Clock: x.clock})
	require.NoError(t, err)
	var keys []jobs.Key
	for i := range 40 {
		k, err := jobs.BuildKey("acme", fmt.Sprintf("doc-%03d", i), 1)
		require.NoError(t, err)
		_, err = x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "c", Limits: jobs.DefaultLimits})
		require.NoError(t, err)
		keys = append(keys, k)
	}
	var wg sync.WaitGroup
	for i, a := range []*Admitter{x.adm, other} {
		for g := range 2 { // two goroutines per admitter, as with two relays
			wg.Go(func() {
				for j := i*2 + g; j < len(keys); j += 4 {
					require.NoError(t, a.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: keys[j], At: x.clock.Now()}))
				}
			})
		}
	}
	wg.Wait()
	require.Len(t, x.pub.take(), 3)
	require.Equal(t, int64(3), x.inFlight(t, "acme"))
	require.Len(t, x.waiting(t, "acme"), 37)
}

// FIFO: while a job of the tenant waits, a new one waits behind it even
// when the tenant has room (here: a step's publish failed and put the
// admitted job back, freeing its slot).
func TestPublish_JobWaiting_NewJobWaitsBehindItEvenUnderTheCap(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1 })
	held := x.holdCap(t, "acme")
	b := x.submit(t, "acme", 1, jobs.DefaultLimits)
	x.endAll(t, held)
	x.pub.fail = errors.New("asynq down")
	_, err := x.adm.Step(x.ctx)
	require.ErrorContains(t, err, "asynq down")
	x.pub.fail = nil
	require.Zero(t, x.inFlight(t, "acme"), "room under the cap")
	require.Equal(t, []string{b.String()}, x.waiting(t, "acme"))

	c := x.submit(t, "acme", 2, jobs.DefaultLimits)
	require.Empty(t, x.pub.take(), "c does not overtake b")
	require.Equal(t, []string{b.String(), c.String()}, x.waiting(t, "acme"))
	require.Equal(t, 1, x.step(t).Admitted)
	require.Equal(t, []jobs.Key{b}, x.pub.take())
	x.endAll(t, []jobs.Key{b})
	require.Equal(t, 1, x.step(t).Admitted)
	require.Equal(t, []jobs.Key{c}, x.pub.take())
}

func TestPublish_JobAlreadyInFlight_PublishedAgainWithoutASecondSlot(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1 })
	k := x.submit(t, "acme", 0, jobs.DefaultLimits)
	require.Equal(t, []jobs.Key{k}, x.pub.take())
	// The relay publishes k again (a redelivered outbox row).
	require.NoError(t, x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()}))
	require.Equal(t, []jobs.Key{k}, x.pub.take(), "published again")
	require.Equal(t, int64(1), x.inFlight(t, "acme"))
	require.Empty(t, x.waiting(t, "acme"))
	// The tenant is at its cap all along: the next job waits.
	next := x.submit(t, "acme", 1, jobs.DefaultLimits)
	require.Empty(t, x.pub.take())
	require.Equal(t, []string{next.String()}, x.waiting(t, "acme"))
}

func TestPublish_InnerPublishFails_ErrorReturnedJobStaysInFlightRetryPublishes(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 1 })
	k, err := jobs.BuildKey("acme", "doc-000", 1)
	require.NoError(t, err)
	_, err = x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "c", Limits: jobs.DefaultLimits})
	require.NoError(t, err)
	ev := jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()}

	x.pub.fail = errors.New("asynq down")
	err = x.adm.Publish(x.ctx, ev)
	require.ErrorContains(t, err, "asynq down")
	require.ErrorIs(t, err, x.pub.fail)
	require.Equal(t, int64(1), x.inFlight(t, "acme"), "it holds its slot")
	require.Empty(t, x.waiting(t, "acme"))
	require.Zero(t, x.step(t).Admitted, "not counted: never published")

	x.pub.fail = nil
	require.NoError(t, x.adm.Publish(x.ctx, ev), "the relay retries its row")
	require.Equal(t, []jobs.Key{k}, x.pub.take())
	require.Equal(t, int64(1), x.inFlight(t, "acme"))
	require.Equal(t, 1, x.step(t).Admitted)
}

func TestPublish_RedisForgotTheScript_LoadsItAgain(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	a := x.submit(t, "acme", 0, jobs.DefaultLimits)
	require.NoError(t, x.rdb.ScriptFlush(x.ctx).Err())
	b := x.submit(t, "acme", 1, jobs.DefaultLimits)
	require.Equal(t, []jobs.Key{a, b}, x.pub.take())
	require.Equal(t, int64(2), x.inFlight(t, "acme"))
}

func TestPublish_RedisDown_ErrorNothingPublished(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	k, err := jobs.BuildKey("acme", "doc-000", 1)
	require.NoError(t, err)
	x.mr.Close()
	err = x.adm.Publish(x.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, At: x.clock.Now()})
	require.ErrorContains(t, err, "admission: publish acme")
	require.Empty(t, x.pub.take())
}

// batchRecorder is a wrapped BatchPublisher: it records each PublishBatch
// call and can be told to fail some jobs.
type batchRecorder struct {
	recorder
	calls [][]jobs.Key
	fails map[jobs.Key]bool
}

func (r *batchRecorder) PublishBatch(ctx context.Context, evs []jobs.Event) []error {
	r.mu.Lock()
	var call []jobs.Key
	errs := make([]error, len(evs))
	for i, ev := range evs {
		call = append(call, ev.Key)
		if r.fails[ev.Key] {
			errs[i] = errors.New("asynq down")
			continue
		}
		r.published = append(r.published, ev.Key)
	}
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	return errs
}

func (r *batchRecorder) takeCalls() [][]jobs.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

func setupBatch(t *testing.T, mod func(*Config)) (*bundle, *batchRecorder) {
	t.Helper()
	bp := &batchRecorder{fails: map[jobs.Key]bool{}}
	x := setup(t, func(c *Config) {
		c.Publisher = bp
		if mod != nil {
			mod(c)
		}
	})
	x.pub = &bp.recorder // what x.pub.take() reads
	return x, bp
}

func (x *bundle) created(t *testing.T, tenant string, i int) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, fmt.Sprintf("doc-%03d", i), 1)
	require.NoError(t, err)
	_, err = x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: "c", Limits: jobs.DefaultLimits})
	require.NoError(t, err)
	return k
}

func TestPublishBatch_OneRoundTrip_AdmitsUnderTheCapQueuesTheRest_PublishesTogether(t *testing.T) {
	t.Parallel()
	x, bp := setupBatch(t, nil) // cap 2
	var evs []jobs.Event
	for i := range 4 {
		evs = append(evs, jobs.Event{Type: jobs.EventJobSubmitted, Key: x.created(t, "acme", i), At: x.clock.Now()})
	}
	globex := x.created(t, "globex", 0)
	evs = append(evs, jobs.Event{Type: jobs.EventJobSubmitted, Key: globex, At: x.clock.Now()},
		jobs.Event{Type: jobs.EventReviewDecided, Key: globex})
	_, err := x.rdb.Pipelined(x.ctx, func(p redis.Pipeliner) error { return p.Ping(x.ctx).Err() })
	require.NoError(t, err)
	require.NoError(t, publishScript.Load(x.ctx, x.rdb).Err())
	trips := &redistest.Trips{}
	x.rdb.AddHook(trips)

	errs := x.adm.PublishBatch(x.ctx, evs)
	require.Equal(t, int64(1), trips.N(), "every take and the tenants' stamps in one round trip")
	require.Len(t, errs, len(evs))
	for _, err := range errs[:5] {
		require.NoError(t, err)
	}
	require.ErrorContains(t, errs[5], "unexpected event type", "an event of another type is refused, alone")
	require.Equal(t, [][]jobs.Key{{evs[0].Key, evs[1].Key, globex}}, bp.takeCalls(), "the admitted, in order, in one batch")
	require.Equal(t, []string{evs[2].Key.String(), evs[3].Key.String()}, x.waiting(t, "acme"), "over the cap: they wait, in order")
	require.Equal(t, int64(2), x.inFlight(t, "acme"))
	ts, err := Tenants(x.ctx, x.rdb)
	require.NoError(t, err)
	require.Len(t, ts, 2, "both tenants stamped")
	require.Equal(t, 3, x.step(t).Admitted, "the step reports what PublishBatch admitted")
}

func TestPublishBatch_PublishFails_ThatEventErrs_TheJobStaysInFlightForTheRetry(t *testing.T) {
	t.Parallel()
	x, bp := setupBatch(t, nil)
	a, b := x.created(t, "acme", 0), x.created(t, "acme", 1)
	bp.fails[b] = true
	evs := []jobs.Event{{Type: jobs.EventJobSubmitted, Key: a, At: x.clock.Now()}, {Type: jobs.EventJobSubmitted, Key: b, At: x.clock.Now()}}
	errs := x.adm.PublishBatch(x.ctx, evs)
	require.NoError(t, errs[0])
	require.ErrorContains(t, errs[1], "asynq down")
	require.Equal(t, int64(2), x.inFlight(t, "acme"), "b keeps its slot: the relay publishes it again")

	bp.fails[b] = false
	require.NoError(t, x.adm.PublishBatch(x.ctx, evs[1:])[0], "already in flight: published again")
	require.Equal(t, int64(2), x.inFlight(t, "acme"), "without a second slot")
	require.Equal(t, [][]jobs.Key{{a, b}, {b}}, bp.takeCalls())
}

func TestStep_BatchPublisher_AdmittedPublishedRoundRobinInOneCall_FailuresWaitAgain(t *testing.T) {
	t.Parallel()
	x, bp := setupBatch(t, func(c *Config) { c.MaxInFlight = 2 })
	held := append(x.holdCap(t, "acme"), x.holdCap(t, "globex")...)
	bp.takeCalls()
	var acme, globex []jobs.Key
	for i := range 2 {
		acme = append(acme, x.submit(t, "acme", 10+i, jobs.DefaultLimits))
		globex = append(globex, x.submit(t, "globex", 10+i, jobs.DefaultLimits))
	}
	require.Empty(t, bp.takeCalls(), "over the cap: all four wait")
	x.endAll(t, held)
	bp.fails[globex[1]] = true

	_, err := x.adm.Step(x.ctx)
	require.ErrorContains(t, err, "asynq down")
	calls := bp.takeCalls()
	require.Len(t, calls, 1, "one PublishBatch for the step")
	require.ElementsMatch(t, []jobs.Key{acme[0], globex[0], acme[1], globex[1]}, calls[0])
	require.NotEqual(t, calls[0][0].Tenant, calls[0][1].Tenant, "interleaved: one of each tenant in turn")
	require.NotEqual(t, calls[0][2].Tenant, calls[0][3].Tenant)
	require.Equal(t, []string{globex[1].String()}, x.waiting(t, "globex"), "its publish failed: back to waiting")
	require.Equal(t, int64(1), x.inFlight(t, "globex"))
}
