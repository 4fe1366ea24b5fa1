package webhook

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Isolation keeps one tenant's slow or hanging receivers from delaying the
// others' deliveries. All tenants share the webhook server's slots (its
// Asynq concurrency) and its one FIFO queue; a delivery the gate does not
// admit within AdmitWait is deferred: handed back to Asynq with a short
// delay, holding no slot and costing no attempt (Asynq's retry count
// stays). Its state lives in each worker's memory: with several workers,
// each applies the caps to its own slots and opens its own circuits.
type Isolation struct {
	// Slots is the concurrency of the server running the deliveries, the
	// basis of the tenant share. Default 10 (the worker sets its own).
	Slots int
	// Reserve is how many slots no tenant may take while others are idle,
	// so that a delivery of another tenant finds a free slot at once.
	// Default max(1, Slots/5).
	Reserve int
	// EndpointMaxInFlight is how many deliveries one endpoint may have in
	// flight in this worker before its next ones are deferred. Once the
	// endpoint answered its last request within SlowAfter, only its slow
	// deliveries (in flight for SlowAfter or longer) count, so a burst to a
	// healthy endpoint is not held back. Default 2.
	EndpointMaxInFlight int
	// SlowAfter is when a delivery in flight counts as slow. Default 1s.
	SlowAfter time.Duration
	// AdmitWait is how long a delivery held back by its endpoint's cap or
	// its tenant's share, while their deliveries in flight are all quick,
	// waits (in wall-clock time, holding its Asynq slot) for one of them to
	// end before it is deferred: a burst of quick deliveries goes through
	// without a deferral's second. Default 100ms.
	AdmitWait time.Duration
	// BreakerThreshold is how many attempts in a row that timed out open an
	// endpoint's circuit. Default 3; negative: never.
	BreakerThreshold int
	// BreakerCooldown is how long an open circuit defers the endpoint's
	// deliveries before one probe is sent; each failed probe doubles it, up
	// to BreakerCooldownMax. Defaults 30s and 10m.
	BreakerCooldown, BreakerCooldownMax time.Duration
	// DeferDelay is how long a delivery waits when its endpoint is busy or
	// its tenant holds its share, less than half again as much by jitter.
	// Default 1s.
	DeferDelay time.Duration
}

func (c Isolation) withDefaults() Isolation {
	if c.Slots <= 0 {
		c.Slots = 10
	}
	if c.Reserve <= 0 {
		c.Reserve = max(1, c.Slots/5)
	}
	c.Reserve = min(c.Reserve, c.Slots-1)
	if c.EndpointMaxInFlight <= 0 {
		c.EndpointMaxInFlight = 2
	}
	if c.BreakerThreshold == 0 {
		c.BreakerThreshold = 3
	}
	if c.BreakerCooldown <= 0 {
		c.BreakerCooldown = 30 * time.Second
	}
	if c.BreakerCooldownMax < c.BreakerCooldown {
		c.BreakerCooldownMax = max(10*time.Minute, c.BreakerCooldown)
	}
	if c.DeferDelay <= 0 {
		c.DeferDelay = time.Second
	}
	if c.SlowAfter <= 0 {
		c.SlowAfter = time.Second
	}
	if c.AdmitWait <= 0 {
		c.AdmitWait = 100 * time.Millisecond
	}
	return c
}

// Why a delivery was deferred: the reason label of
// relayops_webhook_deferred_total and, for circuit_open, the error of the
// recorded attempt.
const (
	DeferCircuitOpen  = "circuit_open"  // the endpoint kept timing out: its circuit is open
	DeferEndpointBusy = "endpoint_busy" // the endpoint has EndpointMaxInFlight slow deliveries in flight
	DeferTenantShare  = "tenant_share"  // the tenant holds its share of the slots
)

// deferral is the gate's refusal: why, and for how long.
type deferral struct {
	reason string
	delay  time.Duration
	// announce: the first deferral since the circuit opened, recorded in
	// the endpoint's attempts (the later ones are counted only, so they do
	// not push real attempts out of the kept list).
	announce bool
	until    time.Time // circuit_open: when the circuit lets a probe through
	// wait: the delivery may wait for room (AdmitWait) before it is
	// deferred.
	wait bool
}

// gate admits deliveries: per-endpoint in-flight cap and circuit, and a
// fair share of the slots per tenant.
type gate struct {
	cfg Isolation

	mu        sync.Mutex
	tenants   map[string]*load // tenants with deliveries in flight
	endpoints map[string]*circuit
	total     int           // deliveries in flight
	released  chan struct{} // closed (and replaced) by every release
	waiting   int           // deliveries waiting in wait
}

// maxCircuits bounds the endpoints the gate remembers while idle (to know
// them quick); past it, idle ones are forgotten as they go idle.
const maxCircuits = 10000

// load is the start times of deliveries in flight.
type load struct{ started []time.Time }

// slow counts those in flight for at least after.
func (l *load) slow(now time.Time, after time.Duration) int {
	n := 0
	for _, s := range l.started {
		if now.Sub(s) >= after {
			n++
		}
	}
	return n
}

func (l *load) remove(start time.Time) {
	if i := slices.Index(l.started, start); i >= 0 {
		l.started = slices.Delete(l.started, i, i+1)
	}
}

// circuit is one endpoint's deliveries in flight and its breaker.
type circuit struct {
	load
	// quick: the endpoint's last answer came within SlowAfter. Only then
	// are its quick deliveries left out of the cap (a burst to a healthy
	// endpoint goes through); an endpoint not known quick, new or slow,
	// is held to EndpointMaxInFlight deliveries in flight, whatever their
	// age, so a receiver that starts hanging cannot fill the slots before
	// its deliveries look slow.
	quick     bool
	timeouts  int       // attempts in a row that timed out
	openUntil time.Time // zero: closed
	cooldown  time.Duration
	probing   bool // half-open: one delivery is testing the endpoint
	announced bool // the current opening was recorded
}

func newGate(cfg Isolation) *gate {
	return &gate{cfg: cfg.withDefaults(), tenants: map[string]*load{}, endpoints: map[string]*circuit{}, released: make(chan struct{})}
}

// share is how many slots a tenant may hold: the slots less the reserve,
// split evenly between the tenants with deliveries in flight, itself
// included. A tenant already above it (others arrived since) is admitted
// again only once it is back under.
func (g *gate) share(tenant string) int {
	active := len(g.tenants)
	if g.tenants[tenant] == nil {
		active++
	}
	return max(1, (g.cfg.Slots-g.cfg.Reserve)/active)
}

// ticket is an admitted delivery, to be released with its outcome.
type ticket struct {
	tenant, endpoint string
	start            time.Time
	probe            bool // the one delivery testing a half-open circuit
}

// wait admits a delivery of tenant to endpoint. A delivery whose endpoint
// is at its cap, or whose tenant is at its share, while their deliveries
// in flight are all quick (younger than SlowAfter) waits up to AdmitWait
// for one to end (it likely will soon); anything else is deferred at once:
// a slot held waiting for a slow tenant or endpoint would be one more slot
// it holds.
// now is asked again after each wait.
func (g *gate) wait(ctx context.Context, tenant, endpoint string, now func() time.Time) (ticket, *deferral) {
	var timeout <-chan time.Time
	for {
		t, def, released := g.admit(tenant, endpoint, now())
		if def == nil || !def.wait {
			return t, def
		}
		if timeout == nil {
			timer := time.NewTimer(g.cfg.AdmitWait)
			defer timer.Stop()
			timeout = timer.C
			g.addWaiting(1)
			defer g.addWaiting(-1)
		}
		select {
		case <-released:
		case <-timeout:
			return t, def
		case <-ctx.Done():
			return t, def
		}
	}
}

func (g *gate) addWaiting(n int) {
	g.mu.Lock()
	g.waiting += n
	g.mu.Unlock()
}

// waiters is how many deliveries wait for room (for tests).
func (g *gate) waiters() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// admit lets a delivery of tenant to endpoint through, or says why not,
// and returns the channel the next release closes.
func (g *gate) admit(tenant, endpoint string, now time.Time) (ticket, *deferral, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, def := g.admitLocked(tenant, endpoint, now)
	return t, def, g.released
}

// admitLocked is admit; the caller holds g.mu.
func (g *gate) admitLocked(tenant, endpoint string, now time.Time) (ticket, *deferral) {
	c := g.endpoints[endpoint]
	if c == nil {
		c = &circuit{}
		g.endpoints[endpoint] = c
	}
	if !c.openUntil.IsZero() {
		if now.Before(c.openUntil) || c.probing {
			until := c.openUntil
			if !now.Before(until) { // a probe is out: wait for its answer
				until = now.Add(g.cfg.DeferDelay)
			}
			d := &deferral{reason: DeferCircuitOpen, delay: g.jitter(until.Sub(now)), announce: !c.announced, until: until}
			c.announced = true
			return ticket{}, d
		}
	} else if g.busy(c, now) {
		wait := c.slow(now, g.cfg.SlowAfter) == 0
		return ticket{}, &deferral{reason: DeferEndpointBusy, delay: g.jitter(g.cfg.DeferDelay), wait: wait}
	}
	tl := g.tenants[tenant]
	if g.total >= g.cfg.Slots || tl != nil && len(tl.started) >= g.share(tenant) {
		g.forget(endpoint, c)
		wait := tl == nil || tl.slow(now, g.cfg.SlowAfter) == 0
		return ticket{}, &deferral{reason: DeferTenantShare, delay: g.jitter(g.cfg.DeferDelay), wait: wait}
	}
	if tl == nil {
		tl = &load{}
		g.tenants[tenant] = tl
	}
	t := ticket{tenant: tenant, endpoint: endpoint, start: now, probe: !c.openUntil.IsZero()}
	c.probing = t.probe // half-open: this one tests the endpoint
	c.started = append(c.started, now)
	tl.started = append(tl.started, now)
	g.total++
	return t, nil
}

// busy reports whether endpoint c is at its in-flight cap: counting its
// slow deliveries when it is known quick, all of them otherwise.
func (g *gate) busy(c *circuit, now time.Time) bool {
	n := len(c.started)
	if c.quick {
		n = c.slow(now, g.cfg.SlowAfter)
	}
	return n >= g.cfg.EndpointMaxInFlight
}

// jitter adds up to half of d, so that deliveries deferred together come
// back spread out.
func (g *gate) jitter(d time.Duration) time.Duration {
	d = max(d, time.Millisecond)
	return d + rand.N(d/2+1)
}

// release ends an admitted delivery. sent says a request went out (a
// delivery that ended before, its endpoint deleted or disabled, leaves the
// circuit as it was, and frees the probe); timedOut that the receiver did
// not answer in time. Any other outcome of a request (an answer, a refused
// connection) closes the circuit. It reports whether this outcome opened
// the circuit, and until when.
func (g *gate) release(t ticket, sent, timedOut bool, now time.Time) (opened bool, until time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.released)
	g.released = make(chan struct{})
	g.total--
	if tl := g.tenants[t.tenant]; tl != nil {
		if tl.remove(t.start); len(tl.started) == 0 {
			delete(g.tenants, t.tenant)
		}
	}
	c := g.endpoints[t.endpoint]
	if c == nil {
		return false, time.Time{}
	}
	c.remove(t.start)
	if t.probe {
		c.probing = false
	}
	switch {
	case !sent:
		g.forget(t.endpoint, c)
		return false, time.Time{}
	case !timedOut:
		*c = circuit{load: c.load, quick: now.Sub(t.start) < g.cfg.SlowAfter}
		g.forget(t.endpoint, c)
		return false, time.Time{}
	}
	c.quick = false
	c.timeouts++
	reopen := t.probe && !c.openUntil.IsZero() // the probe failed (and nothing closed the circuit meanwhile)
	if !reopen && (g.cfg.BreakerThreshold < 0 || c.timeouts < g.cfg.BreakerThreshold || !c.openUntil.IsZero()) {
		return false, time.Time{}
	}
	if reopen {
		c.cooldown = min(2*c.cooldown, g.cfg.BreakerCooldownMax)
	} else {
		c.cooldown = g.cfg.BreakerCooldown
	}
	c.openUntil, c.announced = now.Add(c.cooldown), false
	return true, c.openUntil
}

// forget drops the state of an endpoint with nothing in flight and a
// closed circuit, unless it is known quick (and the gate not full), so the
// map holds only endpoints that matter. The caller holds g.mu.
func (g *gate) forget(endpoint string, c *circuit) {
	if len(c.started) == 0 && c.timeouts == 0 && c.openUntil.IsZero() && (!c.quick || len(g.endpoints) > maxCircuits) {
		delete(g.endpoints, endpoint)
	}
}

// inFlight is what the gate holds: deliveries in flight per tenant (for
// tests and the benchmark).
func (g *gate) inFlight(tenant string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if tl := g.tenants[tenant]; tl != nil {
		return len(tl.started)
	}
	return 0
}
