package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// hangingReceiver takes requests and answers none until answer is called
// (then 200 to the waiting ones and every later one).
type hangingReceiver struct {
	srv         *httptest.Server
	arrived     atomic.Int64
	answerFirst int64 // requests answered at once, before it starts hanging
	once        sync.Once
	open        chan struct{}
}

func newHangingReceiver(t *testing.T) *hangingReceiver {
	t.Helper()
	h := &hangingReceiver{open: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if h.arrived.Add(1) <= h.answerFirst {
			w.WriteHeader(http.StatusOK)
			return
		}
		select {
		case <-h.open:
			w.WriteHeader(http.StatusOK)
		case <-req.Context().Done():
		}
	}))
	t.Cleanup(h.srv.Close)
	t.Cleanup(h.answer) // before Close: Close waits for the handlers
	return h
}

func (h *hangingReceiver) answer() { h.once.Do(func() { close(h.open) }) }

// delivery is a delivery of a fresh event to ep.
func (b *bundle) delivery(ep *Endpoint, doc string) Delivery {
	ev := "0123456789abcdef0123456789abcdef"[:24] + doc
	return Delivery{Endpoint: ep.ID, Tenant: ep.Tenant, WebhookID: MessageID(ev, ep.ID), EventID: ev,
		EventType: EventJobSucceeded, JobID: ep.Tenant + ":" + doc + ":v1", Body: `{}`,
		FirstAt: b.clock.Now().UnixMilli(), CommittedAt: b.clock.Now().UnixMilli()}
}

func (b *bundle) registerFor(t *testing.T, tenant, url string) *Endpoint {
	t.Helper()
	ep, _, err := b.reg.Create(b.ctx, Registration{Tenant: tenant, URL: url, Events: []string{EventJobSucceeded}})
	require.NoError(t, err)
	return ep
}

// deliverAsync delivers in the background; the returned channel gets the
// result.
func (b *bundle) deliverAsync(d Delivery) <-chan error {
	done := make(chan error, 1)
	go func() { done <- b.del.Deliver(b.ctx, d, 1) }()
	return done
}

// counters gathers reg's counters by name and label values.
func counters(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetValue()
			}
			if m.GetCounter() != nil {
				got[key] = m.GetCounter().GetValue()
			}
		}
	}
	return got
}

// safetyNet cancels ctx if the test hangs, so that a missing timeout shows
// as a "cancelled" attempt instead of a stuck test.
func safetyNet(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(30*time.Second, cancel)
	t.Cleanup(func() { timer.Stop(); cancel() })
	return ctx
}

func TestDeliver_ReceiverNeverAnswers_HeaderTimeoutEndsTheAttemptLongBeforeTheAttemptTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{AttemptTimeout: time.Hour, HeaderTimeout: 20 * time.Millisecond}})
	h := newHangingReceiver(t)
	ep := b.registerFor(t, "acme", h.srv.URL)

	ae := attemptError(t, b.del.Deliver(safetyNet(t), b.delivery(ep, "hang-1"), 1))
	require.Equal(t, "timeout", ae.Code, "the header timeout, not the test's safety net, ended it")
	require.False(t, ae.Deferred)
}

func TestDeliver_TLSHandshakeStalls_ConnectTimeoutEndsTheAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{AttemptTimeout: time.Hour, ConnectTimeout: 20 * time.Millisecond}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept() // and never speak TLS
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	ep := b.registerFor(t, "acme", "https://"+ln.Addr().String()+"/hook")

	ae := attemptError(t, b.del.Deliver(safetyNet(t), b.delivery(ep, "tls-1"), 1))
	require.Equal(t, "timeout", ae.Code)
}

func TestDeliver_EndpointAtItsInFlightCap_DeferredWithoutRequestOrSlot_OtherEndpointsServed(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Metrics: NewMetrics(reg), Isolation: Isolation{EndpointMaxInFlight: 1}}})
	h := newHangingReceiver(t)
	slow := b.registerFor(t, "acme", h.srv.URL)
	fast := b.registerFor(t, "acme", newReceiver(t).srv.URL)

	first := b.deliverAsync(b.delivery(slow, "slow-1"))
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 1 }, "the first delivery to reach the receiver")
	// A new endpoint is held to its cap whatever the age of what it has in
	// flight: it is not known quick.

	err := b.del.Deliver(b.ctx, b.delivery(slow, "slow-2"), 1)
	ae := attemptError(t, err)
	require.True(t, IsDeferral(err))
	require.Equal(t, DeferEndpointBusy, ae.Code)
	require.Positive(t, ae.Delay)
	require.False(t, ae.Final)
	require.EqualValues(t, 1, h.arrived.Load(), "a deferred delivery sends nothing")
	require.Equal(t, 1, b.del.gate.inFlight("acme"), "and holds no slot")

	require.NoError(t, b.del.Deliver(b.ctx, b.delivery(fast, "fast-1"), 1), "another endpoint of the tenant is served")

	h.answer()
	require.NoError(t, <-first)
	require.NoError(t, b.del.Deliver(b.ctx, b.delivery(slow, "slow-2"), 1), "once the slot is free, the deferred one goes")
	require.Equal(t, 1.0, counters(t, reg)["relayops_webhook_deferred_total,endpoint_busy"])
}

func TestDeliver_QuickDeliveriesInFlight_DoNotCountTowardTheEndpointCap(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Isolation: Isolation{EndpointMaxInFlight: 1}}})
	h := newHangingReceiver(t)
	h.answerFirst = 1
	ep := b.registerFor(t, "acme", h.srv.URL)
	require.NoError(t, b.del.Deliver(b.ctx, b.delivery(ep, "quick"), 1), "answered at once: the endpoint is known quick")
	first := b.deliverAsync(b.delivery(ep, "burst-1"))
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 2 }, "the first delivery to reach the receiver")
	second := b.deliverAsync(b.delivery(ep, "burst-2"))
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 3 }, "the second delivery of the burst to be sent too")
	h.answer()
	require.NoError(t, <-first)
	require.NoError(t, <-second)
}

func TestDeliver_QuickEndpointTurnedSlow_HeldToItsCapOnceItsDeliveriesAreSlow(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Isolation: Isolation{EndpointMaxInFlight: 1}}})
	h := newHangingReceiver(t)
	h.answerFirst = 1
	ep := b.registerFor(t, "acme", h.srv.URL)
	require.NoError(t, b.del.Deliver(b.ctx, b.delivery(ep, "quick"), 1))
	first := b.deliverAsync(b.delivery(ep, "hangs"))
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 2 }, "the hanging delivery to reach the receiver")
	b.clock.Advance(time.Second) // SlowAfter: the one in flight is slow now

	err := b.del.Deliver(b.ctx, b.delivery(ep, "next"), 1)
	require.True(t, IsDeferral(err))
	require.Equal(t, DeferEndpointBusy, attemptError(t, err).Code)
	require.EqualValues(t, 2, h.arrived.Load())
	h.answer()
	require.NoError(t, <-first)
}

func TestDeliver_TenantAtItsShare_WaitsForASlotFreedWithinAdmitWait(t *testing.T) {
	t.Parallel()
	// 2 slots, 1 reserved: a tenant alone may hold 1.
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Isolation: Isolation{Slots: 2, Reserve: 1, AdmitWait: time.Hour}}})
	h := newHangingReceiver(t)
	ep := b.registerFor(t, "acme", h.srv.URL)
	first := b.deliverAsync(b.delivery(ep, "w-1"))
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 1 }, "the first delivery to reach the receiver")
	second := b.deliverAsync(b.delivery(ep, "w-2"))
	redistest.Eventually(t, 20*time.Second, func() bool { return b.del.gate.waiters() == 1 }, "the second delivery to wait for a slot")
	require.EqualValues(t, 1, h.arrived.Load(), "the waiting one sent nothing yet")
	h.answer()
	require.NoError(t, <-first)
	require.NoError(t, <-second, "admitted once the first released its slot, not deferred")
	require.EqualValues(t, 2, h.arrived.Load())
}

func TestDeliver_TenantHoldingItsShare_DeferredWhileAnotherTenantIsServed(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	// 4 slots, 1 reserved: a tenant alone may hold 3.
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Metrics: NewMetrics(reg),
		Isolation: Isolation{Slots: 4, Reserve: 1, EndpointMaxInFlight: 1}}})
	h := newHangingReceiver(t)
	var hanging []<-chan error
	for i := range 3 {
		ep := b.registerFor(t, "acme", h.srv.URL+"/"+string(rune('a'+i)))
		hanging = append(hanging, b.deliverAsync(b.delivery(ep, "acme-"+string(rune('a'+i)))))
	}
	redistest.Eventually(t, 20*time.Second, func() bool { return h.arrived.Load() == 3 }, "acme's three deliveries to reach the receiver")

	fourth := b.registerFor(t, "acme", h.srv.URL+"/d")
	err := b.del.Deliver(b.ctx, b.delivery(fourth, "acme-d"), 1)
	require.True(t, IsDeferral(err))
	require.Equal(t, DeferTenantShare, attemptError(t, err).Code)
	require.EqualValues(t, 3, h.arrived.Load())

	globex := b.registerFor(t, "globex", newReceiver(t).srv.URL)
	require.NoError(t, b.del.Deliver(b.ctx, b.delivery(globex, "globex-1"), 1), "the reserve serves another tenant at once")

	h.answer()
	for _, c := range hanging {
		require.NoError(t, <-c)
	}
	require.Equal(t, 1.0, counters(t, reg)["relayops_webhook_deferred_total,tenant_share"])
}

func TestGate_Share_SplitsTheUnreservedSlotsBetweenActiveTenants(t *testing.T) {
	t.Parallel()
	g := newGate(Isolation{Slots: 10, Reserve: 2, EndpointMaxInFlight: 100})
	now := time.Now()
	admitted := func(tenant string) int {
		n := 0
		for i := range 20 {
			if _, def, _ := g.admit(tenant, tenant+"-ep"+string(rune('a'+i)), now); def == nil {
				n++
			}
		}
		return n
	}
	require.Equal(t, 8, admitted("a"), "alone, a tenant takes all but the reserve")
	require.Equal(t, 2, admitted("b"), "a newcomer gets the reserve at once")
	require.Equal(t, 0, admitted("a"), "a tenant above its new share gets nothing more")
}

func TestDeliver_EndpointKeepsTimingOut_CircuitOpensDefersAndRecordsThenProbes(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	// The header timeout is short enough for a quick test, long enough
	// for the answered probes to be answered in time on a loaded machine.
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Metrics: NewMetrics(reg), HeaderTimeout: 500 * time.Millisecond,
		Isolation: Isolation{BreakerThreshold: 2, BreakerCooldown: time.Minute}}})
	h := newHangingReceiver(t)
	ep := b.registerFor(t, "acme", h.srv.URL)
	ctx := safetyNet(t)

	for i := range 2 {
		require.Equal(t, "timeout", attemptError(t, b.del.Deliver(ctx, b.delivery(ep, "t-"+string(rune('a'+i))), 1)).Code)
	}
	require.Equal(t, 1.0, counters(t, reg)["relayops_webhook_circuit_opened_total"])

	opened := b.clock.Now()
	for i := range 3 {
		err := b.del.Deliver(ctx, b.delivery(ep, "open-"+string(rune('a'+i))), 1)
		require.True(t, IsDeferral(err))
		ae := attemptError(t, err)
		require.Equal(t, DeferCircuitOpen, ae.Code)
		require.GreaterOrEqual(t, ae.Delay, time.Minute, "deferred until the cooldown ends")
	}
	require.EqualValues(t, 2, h.arrived.Load(), "an open circuit sends nothing")
	require.Equal(t, 3.0, counters(t, reg)["relayops_webhook_deferred_total,circuit_open"])
	as, err := b.reg.Attempts(b.ctx, ep.ID, 10)
	require.NoError(t, err)
	require.Len(t, as, 3, "two timeouts and one record of the opening, not one per deferral")
	require.Equal(t, StatusDeferred, as[0].Status)
	require.Equal(t, DeferCircuitOpen, as[0].Error)
	require.Equal(t, opened.Add(time.Minute).UTC().Truncate(time.Millisecond), as[0].NextAttemptAt.UTC())
	got, err := b.reg.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.ConsecutiveFailures, "a deferral is no failure")

	// After the cooldown one probe goes; it times out: open again, twice as long.
	b.clock.Advance(time.Minute)
	require.Equal(t, "timeout", attemptError(t, b.del.Deliver(ctx, b.delivery(ep, "probe-1"), 1)).Code)
	ae := attemptError(t, b.del.Deliver(ctx, b.delivery(ep, "open-d"), 1))
	require.Equal(t, DeferCircuitOpen, ae.Code)
	require.GreaterOrEqual(t, ae.Delay, 2*time.Minute)

	// The next probe is answered: the circuit closes.
	b.clock.Advance(2 * time.Minute)
	h.answer()
	require.NoError(t, b.del.Deliver(ctx, b.delivery(ep, "probe-2"), 1))
	require.NoError(t, b.del.Deliver(ctx, b.delivery(ep, "after"), 1))
	require.Equal(t, 2.0, counters(t, reg)["relayops_webhook_circuit_opened_total"])
}

func TestDeliver_DeferralPastTheRetryWindow_IsDead(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{HeaderTimeout: 20 * time.Millisecond, Window: 30 * time.Second,
		Isolation: Isolation{BreakerThreshold: 1, BreakerCooldown: time.Minute}}})
	h := newHangingReceiver(t)
	ep := b.registerFor(t, "acme", h.srv.URL)
	ctx := safetyNet(t)
	require.Equal(t, "timeout", attemptError(t, b.del.Deliver(ctx, b.delivery(ep, "a"), 1)).Code)

	ae := attemptError(t, b.del.Deliver(ctx, b.delivery(ep, "b"), 1))
	require.True(t, ae.Final, "the circuit stays open past the window")
	require.False(t, ae.Deferred)
	as, err := b.reg.Attempts(b.ctx, ep.ID, 1)
	require.NoError(t, err)
	require.Equal(t, StatusDead, as[0].Status)
	require.Equal(t, DeferCircuitOpen, as[0].Error)
}
