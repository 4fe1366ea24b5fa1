package admission

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// slotsKey is the registry of the live worker processes and their slots:
// a sorted set of "<slots>:<process ID>" scored by when the registration
// expires. It carries the registry's hash tag, so slots.lua touches one
// slot.
const slotsKey = "ro:{adm}:slots"

// slotsExpiry is how many SlotsIntervals a registration lives without
// being renewed: a process killed without deregistering is forgotten that
// long after its last renewal.
const slotsExpiry = 5

// shares is what a step decided about the worker slots: the live slots
// and the in-flight cap of each tenant that had work. It is replaced whole
// by each step (an atomic pointer), so Publish and Release read it without
// a lock.
type shares struct {
	capacity int            // the jobs in flight shared (see capacity); 0: no slots known, the configured caps apply
	caps     map[string]int // each tenant with work waiting or in flight: its slot cap
	arrival  int            // the slot cap of a tenant that had no work at the step
}

// limit returns tenant's in-flight cap now: its configured cap, lowered to
// its share of the live worker slots (0: no cap).
func (a *Admitter) limit(tenant string) int {
	c := a.Cap(tenant)
	sh := a.share.Load()
	if c == 0 || sh == nil || sh.capacity == 0 {
		return c
	}
	s, ok := sh.caps[tenant]
	if !ok {
		s = sh.arrival
	}
	return min(c, s)
}

// fleet is what this process knows of the worker processes at a step.
type fleet struct {
	slots int     // their live slots; 0: none registered
	rate  float64 // jobs they end per second (an estimate, see maybeBeat)
}

// maybeBeat renews this process's slots in the registry and reads the live
// total when SlotsInterval is due (at once on the first step), and returns
// what it knows of the fleet. The fleet's rate is this process's: the jobs
// released here per second over the last interval, averaged with the
// interval before, and scaled by the live slots over this process's own
// (the workers run the same jobs from the same queue). A failure keeps what
// was last read.
func (a *Admitter) maybeBeat(ctx context.Context) (fleet, error) {
	now := a.cfg.Clock.Now()
	a.mu.Lock()
	due := a.beat.IsZero() || now.Sub(a.beat) >= a.cfg.SlotsInterval
	var elapsed time.Duration
	if due {
		elapsed = now.Sub(a.beat)
		a.beat = now
	}
	f := a.fleet
	a.mu.Unlock()
	if !due {
		return f, nil
	}
	ended := a.ended.Swap(0)
	expiry := int64(0)
	if a.cfg.Slots > 0 {
		expiry = now.Add(slotsExpiry * a.cfg.SlotsInterval).UnixMilli()
	}
	n, err := a.runSlots(ctx, now, expiry)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		a.fleet.slots = int(n)
	}
	if a.cfg.Slots > 0 && elapsed > 0 && elapsed < time.Hour {
		own := float64(ended) / elapsed.Seconds()
		a.fleet.rate = (a.fleet.rate + own*float64(a.fleet.slots)/float64(a.cfg.Slots)) / 2
	}
	return a.fleet, err
}

// deregister takes this process's slots out of the registry at once (Run
// ends), so the other admitters share only the slots still there.
func (a *Admitter) deregister(ctx context.Context) error {
	if a.cfg.Slots <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_, err := a.runSlots(ctx, a.cfg.Clock.Now(), 0)
	return err
}

// runSlots runs slots.lua: this process's registration until expiry (0:
// deregister), and the live total.
func (a *Admitter) runSlots(ctx context.Context, now time.Time, expiry int64) (int64, error) {
	member := strconv.Itoa(max(a.cfg.Slots, 0)) + ":" + a.id
	n, err := slotsScript.Run(ctx, a.rdb, []string{slotsKey}, now.UnixMilli(), member, expiry).Int64()
	if err != nil {
		return 0, fmt.Errorf("admission: worker slots: %w", err)
	}
	return n, nil
}

// capacity is how many jobs the tenants may have in flight together: every
// live slot, plus what waits in Asynq for the next slot that frees while a
// step refills the tenants. That queue is what a job of a tenant that
// arrives waits behind, so it is bounded in time: what the workers end in
// queueTime, but never under a quarter of the slots (at least one), which
// keeps the slots busy through a step. Short jobs (hundreds a second) then
// queue as deep as their configured caps let them, and the drain keeps its
// pace; long ones (OCR, a model) queue a quarter of the slots, not every
// job a configured cap would have let a lone tenant queue.
func capacity(f fleet, queueTime time.Duration) int {
	if f.slots <= 0 {
		return 0
	}
	queued := max((f.slots+3)/4, int(math.Ceil(f.rate*queueTime.Seconds())))
	return f.slots + min(queued, math.MaxInt32)
}

// load is one tenant's work at a step, for the slot share.
type load struct {
	tenant string
	cap    int   // configured cap; 0: none, the tenant is not held to a share
	work   int64 // jobs waiting and in flight
}

// shareSlots divides capacity c between the tenants with work, max-min
// fair: a tenant with less work than an equal share keeps all it has, and
// the rest is split evenly among the others, each at most its configured
// cap. A tenant's cap is its part, but never below an equal share of the
// capacity (so a tenant with little work may grow to an equal share at
// once; the next step lowers the others), nor below 1. Tenants without a
// configured cap take what they have in flight off the capacity and are
// not held to a share. A lone tenant's cap is the whole capacity: with
// nobody else waiting, every live slot stays busy.
func shareSlots(c int, loads []load) *shares {
	sh := &shares{capacity: c, caps: map[string]int{}}
	if c <= 0 {
		return sh
	}
	var held []load
	for _, l := range loads {
		switch {
		case l.work <= 0:
		case l.cap == 0:
			c -= int(min(l.work, int64(c)))
		default:
			held = append(held, l)
		}
	}
	sh.arrival = max(1, c/(len(held)+1))
	if len(held) == 0 {
		return sh
	}
	equal := max(1, c/len(held))
	want := func(l load) int { return int(min(l.work, int64(l.cap))) }
	slices.SortFunc(held, func(x, y load) int { return want(x) - want(y) })
	rest := c
	for i, l := range held {
		part := min(want(l), rest/(len(held)-i))
		rest -= part
		sh.caps[l.tenant] = max(part, equal)
	}
	return sh
}

// shareSlots sets the caps of the step's tenants from their counts (after
// the sweep and the prune) and what is known of the fleet.
func (a *Admitter) shareSlots(f fleet, states []*tenantState) {
	loads := make([]load, len(states))
	for i, st := range states {
		loads[i] = load{tenant: st.name, cap: a.Cap(st.name), work: st.waiting + st.inFlight}
	}
	a.share.Store(shareSlots(capacity(f, a.cfg.QueueTime), loads))
}

// prime shares the slots before the first step of a process that runs
// jobs, so that a relay publishing before that step (the worker starts
// both at once) is held to the shares too: one more round trip or two,
// once. On an error the configured caps apply until the first step.
func (a *Admitter) prime(ctx context.Context) {
	f, err := a.maybeBeat(ctx)
	if err != nil {
		return
	}
	states, err := a.read(ctx)
	if err != nil {
		return
	}
	if a.share.Load() == nil {
		a.shareSlots(f, states)
	}
}
