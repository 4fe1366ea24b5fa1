package admission

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

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
