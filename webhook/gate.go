package webhook

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Isolation keeps one tenant's slow or hanging receivers from delaying the
// others' deliveries. All tenants share the webhook server's slots (its
// Asynq concurrency) and its one FIFO queue; a delivery the gate does not
// admit is deferred: handed back to Asynq with a short delay, at once,
// holding no slot and costing no attempt (Asynq's retry count stays). Its
// state lives in each worker's memory: with several workers, each applies
// the caps to its own slots and opens its own circuits.
type Isolation struct {
	// Slots is the concurrency of the server running the deliveries, the
	// basis of the tenant share. Default 10 (the worker sets its own).
	Slots int
	// Reserve is how many slots no tenant may take while others are idle,
	// so that a delivery of another tenant finds a free slot at once.
	// Default max(1, Slots/5).
	Reserve int
	// EndpointMaxInFlight is how many deliveries one endpoint may have in
	// flight in this worker. Default 2.
	EndpointMaxInFlight int
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
	return c
}

// Why a delivery was deferred: the reason label of
// relayops_webhook_deferred_total and, for circuit_open, the error of the
// recorded attempt.
const (
	DeferCircuitOpen  = "circuit_open"  // the endpoint kept timing out: its circuit is open
	DeferEndpointBusy = "endpoint_busy" // the endpoint has EndpointMaxInFlight deliveries in flight
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
}

// gate admits deliveries: per-endpoint in-flight cap and circuit, and a
// fair share of the slots per tenant.
type gate struct {
	cfg Isolation

	mu        sync.Mutex
	tenants   map[string]int // tenant → deliveries in flight
	total     int            // deliveries in flight
	endpoints map[string]*circuit
}

// circuit is one endpoint's deliveries in flight and its breaker.
type circuit struct {
	inFlight  int
	timeouts  int       // attempts in a row that timed out
	openUntil time.Time // zero: closed
	cooldown  time.Duration
	probing   bool // half-open: one delivery is testing the endpoint
	announced bool // the current opening was recorded
}

func newGate(cfg Isolation) *gate {
	return &gate{cfg: cfg.withDefaults(), tenants: map[string]int{}, endpoints: map[string]*circuit{}}
}

// share is how many slots a tenant may hold: the slots less the reserve,
// split evenly between the tenants with deliveries in flight, itself
// included. A tenant already above it (others arrived since) is admitted
// again only once it is back under.
func (g *gate) share(tenant string) int {
	active := len(g.tenants)
	if g.tenants[tenant] == 0 {
		active++
	}
	return max(1, (g.cfg.Slots-g.cfg.Reserve)/active)
}

// ticket is an admitted delivery, to be released with its outcome.
type ticket struct {
	tenant, endpoint string
	probe            bool // the one delivery testing a half-open circuit
}

// admit lets a delivery of tenant to endpoint through, or says why not.
func (g *gate) admit(tenant, endpoint string, now time.Time) (ticket, *deferral) {
	g.mu.Lock()
	defer g.mu.Unlock()
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
	} else if c.inFlight >= g.cfg.EndpointMaxInFlight {
		return ticket{}, &deferral{reason: DeferEndpointBusy, delay: g.jitter(g.cfg.DeferDelay)}
	}
	if g.total >= g.cfg.Slots || g.tenants[tenant] >= g.share(tenant) {
		g.forget(endpoint, c)
		return ticket{}, &deferral{reason: DeferTenantShare, delay: g.jitter(g.cfg.DeferDelay)}
	}
	t := ticket{tenant: tenant, endpoint: endpoint, probe: !c.openUntil.IsZero()}
	c.probing = t.probe // half-open: this one tests the endpoint
	c.inFlight++
	g.tenants[tenant]++
	g.total++
	return t, nil
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
	g.total--
	if g.tenants[t.tenant]--; g.tenants[t.tenant] <= 0 {
		delete(g.tenants, t.tenant)
	}
	endpoint := t.endpoint
	c := g.endpoints[endpoint]
	if c == nil {
		return false, time.Time{}
	}
	c.inFlight--
	if t.probe {
		c.probing = false
	}
	switch {
	case !sent:
		g.forget(endpoint, c)
		return false, time.Time{}
	case !timedOut:
		*c = circuit{inFlight: c.inFlight}
		g.forget(endpoint, c)
		return false, time.Time{}
	}
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
// closed circuit, so the map holds only endpoints that matter now. The
// caller holds g.mu.
func (g *gate) forget(endpoint string, c *circuit) {
	if c.inFlight == 0 && c.timeouts == 0 && c.openUntil.IsZero() {
		delete(g.endpoints, endpoint)
	}
}

// inFlight is what the gate holds: deliveries in flight per tenant (for
// tests and the benchmark).
func (g *gate) inFlight(tenant string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tenants[tenant]
}
