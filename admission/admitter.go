// Package admission is relayops' per-tenant fair admission: it sits between
// the outbox relay and the Asynq publisher, so that no tenant has more than
// its cap of jobs enqueued or running. A job of a tenant under its cap with
// nothing waiting is admitted and published at once (one script, in the
// relay's publish); past the cap, jobs wait in Redis and are admitted
// round-robin across the tenants with work waiting, in submission order
// within each. One tenant's flood then fills its own waiting list, not the
// shared Asynq queue, and another tenant's job waits behind at most the
// caps of the busy tenants. The caps are also held to the worker slots
// that are there: every worker registers its slots, and each tenant with
// work is held to its max-min fair share of the live slots plus a short
// queue (slots.go), so a tenant alone keeps every slot busy but never
// queues in Asynq more than the workers end in a moment.
//
// State lives in Redis, per tenant, under the tenant's own hash tag (one
// Redis Cluster slot per tenant): a sorted set of waiting job keys (scored
// by submission time) and a sorted set of job keys in flight (scored by admission
// time). Every change to one tenant's sets is one command or one script, so
// any number of admitters (one per worker process) may run at once. The
// in-flight set is self-healing: a job leaves it when a worker ends it
// (Release), and an admitter that finds a member whose job has ended (its
// worker died before releasing) removes it, and republishes a member still
// queued long after its admission (its admitter died before publishing).
// No crash can hold a slot forever.
package admission

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/scriptpipe"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

var (
	//go:embed lua/admit.lua
	admitLua string
	//go:embed lua/unadmit.lua
	unadmitLua string
	//go:embed lua/publish.lua
	publishLua string
	//go:embed lua/slots.lua
	slotsLua string

	admitScript   = redis.NewScript(admitLua)
	unadmitScript = redis.NewScript(unadmitLua)
	publishScript = redis.NewScript(publishLua)
	slotsScript   = redis.NewScript(slotsLua)
)

// Config configures an Admitter.
type Config struct {
	// Store is the job store. Required.
	Store *jobs.Store
	// Publisher receives admitted jobs (the worker's Asynq publisher).
	// Required.
	Publisher outbox.Publisher
	// MaxInFlight is each tenant's cap on jobs enqueued or running; 0 means
	// no cap (the tenant still takes its round-robin turns). The worker
	// builds no Admitter at all when every cap is 0.
	MaxInFlight int
	// Limits overrides MaxInFlight per tenant (0: no cap for that tenant).
	Limits map[string]int
	// Slots is how many jobs this process runs at once (the worker's
	// concurrency). Every admitter registers its process's slots in Redis
	// and reads the sum over the live processes; a tenant's cap is then
	// lowered to its share of those slots (see shareSlots). 0: this
	// process runs no jobs and registers none. While no process has
	// registered slots, the configured caps apply as they are.
	Slots int
	// SlotsInterval is how often this process renews its registration and
	// reads the live slots. A process that stops renewing (killed) is
	// forgotten after five intervals. Default 1s.
	SlotsInterval time.Duration
	// QueueTime bounds, in the workers' time, the jobs queued in Asynq
	// beyond the live slots: what the workers end in QueueTime, at least a
	// quarter of the slots (see capacity). A job of a tenant that arrives
	// waits behind that queue. Default 200ms.
	QueueTime time.Duration
	// Interval is the pause between admission steps while any tenant has a
	// job waiting or in flight. Default 20ms.
	Interval time.Duration
	// IdleInterval is the pause while no tenant has; a Publish in this
	// process ends it at once. Default 250ms.
	IdleInterval time.Duration
	// Batch is the most jobs admitted for one tenant in one step. Default 64.
	Batch int
	// PublishConcurrency is how many admitted jobs are published at once.
	// Default 8.
	PublishConcurrency int
	// PruneInterval is how often each tenant's in-flight set is checked
	// against the job records (the self-healing pass). Default 2s.
	PruneInterval time.Duration
	// SweepInterval is how often each tenant's waiting set is checked, a
	// window of SweepBatch jobs at a time, for jobs past their deadline
	// (cancelled) or ended. Defaults 2s and 1000.
	SweepInterval time.Duration
	SweepBatch    int
	// RepublishAfter is how long an admitted job may stay queued before the
	// prune publishes it again (its admitter may have died before
	// publishing it; a republish of a task that exists is absorbed by its
	// TaskID). Default 10s.
	RepublishAfter time.Duration
	// ForgetAfter is how long a tenant with nothing waiting or in flight
	// stays in the tenant registry after its last submission. Default 1h.
	ForgetAfter time.Duration
	// OnStep, if set, is told what each step of Run did (for metrics).
	OnStep func(StepReport)
	Clock  clock.Clock  // default clock.Real{}
	Logger *slog.Logger // default: discard
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.Interval, 20*time.Millisecond)
	def(&c.IdleInterval, 250*time.Millisecond)
	def(&c.PruneInterval, 2*time.Second)
	def(&c.SweepInterval, 2*time.Second)
	if c.SweepBatch == 0 {
		c.SweepBatch = 1000
	}
	def(&c.RepublishAfter, 10*time.Second)
	def(&c.ForgetAfter, time.Hour)
	def(&c.SlotsInterval, time.Second)
	def(&c.QueueTime, 200*time.Millisecond)
	if c.Batch == 0 {
		c.Batch = 64
	}
	if c.PublishConcurrency == 0 {
		c.PublishConcurrency = 8
	}
	if c.OnStep == nil {
		c.OnStep = func(StepReport) {}
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("admission: Config.Store is required"))
	}
	if c.Publisher == nil {
		errs = append(errs, errors.New("admission: Config.Publisher is required"))
	}
	if c.MaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("admission: Config.MaxInFlight must not be negative, got %d", c.MaxInFlight))
	}
	if c.Slots < 0 {
		errs = append(errs, fmt.Errorf("admission: Config.Slots must not be negative, got %d", c.Slots))
	}
	for t, n := range c.Limits {
		if f := jobs.ValidateTenant(t); f != nil {
			errs = append(errs, fmt.Errorf("admission: Config.Limits: tenant %q %s", t, f.Problem))
		}
		if n < 0 {
			errs = append(errs, fmt.Errorf("admission: Config.Limits: tenant %s: cap must not be negative, got %d", t, n))
		}
	}
	if c.SweepBatch < 1 {
		errs = append(errs, fmt.Errorf("admission: Config.SweepBatch must be positive, got %d", c.SweepBatch))
	}
	if c.Batch < 1 {
		errs = append(errs, fmt.Errorf("admission: Config.Batch must be positive, got %d", c.Batch))
	}
	if c.PublishConcurrency < 1 {
		errs = append(errs, fmt.Errorf("admission: Config.PublishConcurrency must be positive, got %d", c.PublishConcurrency))
	}
	if c.Interval < 0 || c.IdleInterval < 0 || c.PruneInterval < 0 || c.SweepInterval < 0 || c.RepublishAfter < 0 || c.ForgetAfter < 0 || c.SlotsInterval < 0 || c.QueueTime < 0 {
		errs = append(errs, errors.New("admission: Config.Interval, PruneInterval, SweepInterval, RepublishAfter, ForgetAfter, SlotsInterval and QueueTime must not be negative"))
	}
	return errors.Join(errs...)
}

// Enabled reports whether a deployment with these caps needs admission at
// all: with every cap 0 the relay publishes straight to Asynq, as before.
func Enabled(maxInFlight int, limits map[string]int) bool {
	if maxInFlight > 0 {
		return true
	}
	for _, n := range limits {
		if n > 0 {
			return true
		}
	}
	return false
}

// Admitter is the fair admission of one process. As an outbox.Publisher it
// takes the relay's job.submitted events and publishes each job at once
// while its tenant has room and nothing waiting, else puts it in its
// tenant's waiting set; its Run loop admits waiting jobs and publishes them
// to the wrapped Publisher; Release frees a job's slot when a worker ended
// it.
type Admitter struct {
	cfg   Config
	store *jobs.Store
	rdb   redis.UniversalClient
	log   *slog.Logger
	wake  chan struct{}
	id    string // this process's ID in the slot registry

	// share is the last step's division of the worker slots; ended
	// counts the jobs released since the last renewal of the slots.
	share atomic.Pointer[shares]
	ended atomic.Int64

	mu sync.Mutex
	// pruned is when this process last pruned a tenant's in-flight set.
	pruned map[string]time.Time
	// sweeps is where each tenant's deadline sweep stands in this process.
	sweeps map[string]sweepState
	// turn rotates the tenant that is served first in a step.
	turn int
	// beat is when this process last renewed its slots; fleet what it
	// then knew of the worker processes.
	beat  time.Time
	fleet fleet
	// releases are the jobs released since the last step; freed counts
	// them per tenant.
	releases []jobs.Key
	freed    map[string]int
	// idle: Run waits for IdleInterval, and a Publish wakes it.
	idle atomic.Bool
	// published counts the jobs Publish admitted and published itself
	// since the last step (the step reports them).
	published atomic.Int64
}

var _ outbox.BatchPublisher = (*Admitter)(nil)

// New checks cfg and returns an Admitter.
func New(cfg Config) (*Admitter, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Admitter{
		cfg: cfg, store: cfg.Store, rdb: cfg.Store.Redis(),
		log: cfg.Logger.With("component", "admission"), id: uuid.NewString(),
		wake: make(chan struct{}, 1), pruned: map[string]time.Time{},
		sweeps: map[string]sweepState{}, freed: map[string]int{},
	}, nil
}

// Cap returns tenant's configured in-flight cap (0: none). The cap a
// tenant is held to may be lower: its share of the live worker slots while
// other tenants have work (Config.Slots).
func (a *Admitter) Cap(tenant string) int {
	if n, ok := a.cfg.Limits[tenant]; ok {
		return n
	}
	return a.cfg.MaxInFlight
}

// Publish takes the job of a job.submitted event in, in one pipelined
// round trip with no read (publish.lua in the tenant's slot, beside the
// registry stamp). While the tenant is under its cap with nothing waiting,
// the job is admitted there and then and published at once to the wrapped
// Publisher, without a step; a job already in flight (published again after
// its admission) is published again, without a second slot. Otherwise it
// joins its tenant's waiting set, scored by the event's time (within a
// tenant, jobs are admitted in submission order, and a job never overtakes
// one that waits), for a step to admit. Whether a waiting job still needs a
// worker is checked when it is admitted; one published at once is judged
// by its handler's claim, as without admission (a job past its deadline is
// cancelled there). Publishing the same job again is harmless: it is one
// member of a set, and Asynq absorbs a second enqueue by its TaskID.
//
// When the wrapped publish fails, the job stays in flight and the error is
// returned: the relay keeps its outbox row and publishes it again, which
// finds it in flight and publishes it again (and should this process die
// first, the prune republishes a member still queued RepublishAfter after
// its admission).
func (a *Admitter) Publish(ctx context.Context, ev jobs.Event) error {
	return a.PublishBatch(ctx, []jobs.Event{ev})[0]
}

// PublishBatch takes the jobs of many job.submitted events in, as Publish
// does each, in one pipelined round trip (their publish.lua calls, in
// order, and one registry stamp per tenant), then publishes those admitted
// or already in flight together when the wrapped Publisher is a
// BatchPublisher. It returns one error per event.
func (a *Admitter) PublishBatch(ctx context.Context, evs []jobs.Event) []error {
	errs := make([]error, len(evs))
	if a.cfg.Slots > 0 && a.share.Load() == nil {
		a.prime(ctx)
	}
	now := a.cfg.Clock.Now()
	took := make([]int64, len(evs))
	var keys []jobs.Key
	at := make([]int, 0, len(evs)) // keys[j] is evs[at[j]]
	for i, ev := range evs {
		if ev.Type != jobs.EventJobSubmitted {
			errs[i] = fmt.Errorf("admission: publish: unexpected event type %q", ev.Type)
			continue
		}
		keys, at = append(keys, ev.Key), append(at, i)
	}
	scores := make([]time.Time, len(keys))
	for j, i := range at {
		scores[j] = evs[i].At
		if scores[j].IsZero() {
			scores[j] = now
		}
	}
	for j, r := range a.takeAll(ctx, keys, scores, now) {
		i := at[j]
		took[i], errs[i] = r.took, r.err
	}
	var publish []jobs.Event
	var publishAt []int
	waited := false
	for _, i := range at {
		switch {
		case errs[i] != nil:
		case took[i] == tookWaiting:
			waited = true
		default:
			publish, publishAt = append(publish, evs[i]), append(publishAt, i)
		}
	}
	if waited {
		a.poke()
	}
	var perr []error
	if bp, ok := a.cfg.Publisher.(outbox.BatchPublisher); ok && len(publish) > 0 {
		perr = bp.PublishBatch(ctx, publish)
	} else {
		perr = make([]error, len(publish))
		for k, ev := range publish {
			perr[k] = a.cfg.Publisher.Publish(ctx, ev)
		}
	}
	for k, err := range perr {
		i := publishAt[k]
		if err != nil {
			errs[i] = fmt.Errorf("admission: publish %s: %w", evs[i].Key, err)
			continue
		}
		a.published.Add(1)
	}
	return errs
}

// takeResult is what publish.lua did with one job, or why it could not say.
type takeResult struct {
	took int64
	err  error
}

// takeAll runs publish.lua for each job, in order, in one pipeline with one
// registry stamp per tenant. The registry is stamped on every publish: a
// stamp skipped because an earlier one was recent would leave the tenant
// unregistered, its waiting jobs never admitted, if Redis lost the registry
// in between. Calls Redis refuses for not having the script cached go
// again in one more pipeline (scriptpipe.Retry).
func (a *Admitter) takeAll(ctx context.Context, ks []jobs.Key, scores []time.Time, now time.Time) []takeResult {
	out := make([]takeResult, len(ks))
	if len(ks) == 0 {
		return out
	}
	calls := make([]scriptpipe.Call, len(ks))
	for j, k := range ks {
		calls[j] = scriptpipe.Call{
			Keys: []string{waitingKey(k.Tenant), inFlightKey(k.Tenant)},
			Args: []any{k.String(), scores[j].UnixMilli(), now.UnixMilli(), a.limit(k.Tenant)},
		}
	}
	pipe := a.rdb.Pipeline()
	stamps := map[string]*redis.IntCmd{}
	for _, k := range ks {
		if _, ok := stamps[k.Tenant]; !ok {
			stamps[k.Tenant] = pipe.ZAddGT(ctx, registryKey, redis.Z{Score: float64(now.UnixMilli()), Member: k.Tenant})
		}
	}
	cmds := scriptpipe.Queue(ctx, pipe, publishScript, calls)
	_, _ = pipe.Exec(ctx) // each command's error is read below
	scriptpipe.Retry(ctx, a.rdb, publishScript, calls, cmds)
	for j, cmd := range cmds {
		k := ks[j]
		if err := stamps[k.Tenant].Err(); err != nil {
			out[j].err = fmt.Errorf("admission: publish %s: stamp tenant: %w", k, err)
			continue
		}
		n, err := cmd.Int64()
		switch {
		case err != nil:
			out[j].err = fmt.Errorf("admission: publish %s: %w", k, err)
		case n != tookWaiting && n != tookAdmitted && n != tookInFlight:
			out[j].err = fmt.Errorf("admission: publish %s: publish.lua replied %d", k, n)
		default:
			out[j].took = n
		}
	}
	return out
}

// What publish.lua did with a job.
const (
	tookWaiting  = 0 // it waits
	tookAdmitted = 1 // admitted now: publish it
	tookInFlight = 2 // already in flight: publish it again
)

// Release frees the slot of job k: a worker ended it (or found it ended).
// The release is written by the next step, with every other release since
// the last one, in one pipeline; a release lost with its process (or to a
// Redis error) is the prune's to make. Releasing a job that holds no slot
// does nothing.
func (a *Admitter) Release(_ context.Context, k jobs.Key) error {
	a.ended.Add(1)
	a.mu.Lock()
	a.releases = append(a.releases, k)
	a.freed[k.Tenant]++
	wake := a.freed[k.Tenant] == refillAt(a.limit(k.Tenant))
	a.mu.Unlock()
	// Freed slots are refilled by the next step: wake a Run that waits once
	// enough of them are free to make the step worth its round trips.
	if wake {
		select {
		case a.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// refillAt is how many of a tenant's slots must be freed (since the last
// step) before a release wakes Run: a quarter of the cap, between 1 and 16.
// Waking on every release made a flooding tenant's steps admit a few jobs
// each, at four round trips per step; a step woken after a quarter of the
// cap admits that many at once, while the jobs still in flight (three
// quarters of the cap) keep the workers busy. The Interval bounds the wait
// of slots freed below the threshold. A tenant without a cap (0) never
// waits for a slot, so its releases wake nothing.
func refillAt(cap int) int {
	if cap <= 0 {
		return -1
	}
	return min(16, max(1, (cap+3)/4))
}

// flushReleases writes the releases collected since the last step.
func (a *Admitter) flushReleases(ctx context.Context) error {
	a.mu.Lock()
	ks := a.releases
	a.releases = nil
	clear(a.freed)
	a.mu.Unlock()
	if len(ks) == 0 {
		return nil
	}
	pipe := a.rdb.Pipeline()
	for _, k := range ks {
		pipe.ZRem(ctx, inFlightKey(k.Tenant), k.String())
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("admission: release %d jobs: %w", len(ks), err)
	}
	return nil
}

// poke wakes an idle Run at once (a submission arrived).
func (a *Admitter) poke() {
	if !a.idle.Load() {
		return
	}
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Run admits until ctx is done: at once after a step that admitted a
// tenant a whole Batch,
// every Interval while any tenant has work waiting or in flight, else every
// IdleInterval or as soon as a job is published in this process. A failed
// step is logged and retried.
func (a *Admitter) Run(ctx context.Context) error {
	failing := false
	for ctx.Err() == nil {
		rep, err := a.Step(ctx)
		a.cfg.OnStep(rep)
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			failing = true
			a.log.Warn("admission step failed; retrying", "error_kind", "redis")
			a.log.Debug("admission step failed", "error", err.Error())
		case err == nil && failing:
			failing = false
			a.log.Info("admission steps succeed again")
		}
		wait := a.cfg.Interval
		if rep.Full {
			// A tenant was admitted a whole Batch: it may have room for
			// more now, so step again without waiting.
			wait = 0
		}
		if err == nil && rep.Idle {
			wait = a.cfg.IdleInterval
			a.idle.Store(true)
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
			case <-a.wake:
			case <-time.After(wait):
			}
		}
		a.idle.Store(false)
	}
	if err := a.deregister(ctx); err != nil {
		a.log.Debug("deregistering this worker's slots failed; they expire in five intervals", "error", err.Error())
	}
	return nil
}

// sweepState is one tenant's deadline sweep: when it last ran and the rank
// its next window starts at.
type sweepState struct {
	at     time.Time
	offset int64
}

// StepReport is what one step did.
type StepReport struct {
	Admitted    int  // jobs admitted and published (by this step, or by Publish since the last one)
	Cancelled   int  // waiting (or just admitted) jobs past their deadline, cancelled
	Released    int  // in-flight members found ended (their release was lost) and removed
	Republished int  // in-flight members still queued long after admission, published again
	Idle        bool // no tenant had a job waiting or in flight
	Full        bool // some tenant was admitted a whole Batch
	// Slots is the live worker slots the step shared between the tenants
	// (0: none registered, the configured caps applied).
	Slots int
}

// tenantState is one tenant's counts in a step.
type tenantState struct {
	name              string
	waiting, inFlight int64
}

// Step runs one admission step (jobs Publish admitted at once are counted
// in its report): read every registered tenant's counts,
// sweep waiting sets and prune in-flight sets where due, then admit
// round-robin: each tenant with work waiting and room under its cap is
// admitted (atomically, per tenant), the admitted jobs are checked against
// their records in one pipeline (an ended job is dropped, one past its
// deadline cancelled), and the rest are published interleaved, one of each
// tenant in turn.
func (a *Admitter) Step(ctx context.Context) (StepReport, error) {
	rep := StepReport{Admitted: int(a.published.Swap(0))}
	var errs []error
	if err := a.flushReleases(ctx); err != nil {
		errs = append(errs, err)
	}
	f, err := a.maybeBeat(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	rep.Slots = f.slots
	states, err := a.read(ctx)
	if err != nil {
		return rep, errors.Join(append(errs, err)...)
	}
	rep.Idle = true
	for _, st := range states {
		if st.waiting > 0 || st.inFlight > 0 {
			rep.Idle = false
		}
	}
	for _, st := range states {
		if err := a.maybeSweep(ctx, st, &rep); err != nil {
			errs = append(errs, err)
		}
		if err := a.maybePrune(ctx, st, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	a.shareSlots(f, states)
	admitted, err := a.admit(ctx, states)
	if err != nil {
		errs = append(errs, err)
	}
	for _, js := range admitted {
		rep.Full = rep.Full || len(js) == a.cfg.Batch
	}
	admitted, err = a.screen(ctx, admitted, &rep)
	if err != nil {
		errs = append(errs, err)
	}
	n, err := a.publishRoundRobin(ctx, admitted)
	rep.Admitted += n
	if err != nil {
		errs = append(errs, err)
	}
	if err := a.forget(ctx, states); err != nil {
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// read returns every registered tenant's counts, in registry order rotated
// by one each step (so no tenant is always served first).
func (a *Admitter) read(ctx context.Context) ([]*tenantState, error) {
	names, err := a.rdb.ZRange(ctx, registryKey, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("admission: read tenants: %w", err)
	}
	if len(names) == 0 {
		return nil, nil
	}
	a.mu.Lock()
	a.turn++
	off := a.turn % len(names)
	a.mu.Unlock()
	names = append(names[off:], names[:off]...)
	pipe := a.rdb.Pipeline()
	waiting := make([]*redis.IntCmd, len(names))
	inFlight := make([]*redis.IntCmd, len(names))
	for i, t := range names {
		waiting[i], inFlight[i] = pipe.ZCard(ctx, waitingKey(t)), pipe.ZCard(ctx, inFlightKey(t))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("admission: read tenant counts: %w", err)
	}
	out := make([]*tenantState, len(names))
	for i, t := range names {
		out[i] = &tenantState{name: t, waiting: waiting[i].Val(), inFlight: inFlight[i].Val()}
	}
	return out, nil
}

// retire ends what a job found past its deadline needs, without a worker:
// the claim, the store's one path that cancels a job past its deadline
// (deadline_exceeded). It reports whether the job is done with; false when
// the claim found it still runnable (a clock set back) and started an
// attempt: the caller then publishes it like an admitted job, and its
// handler takes the attempt over as a crash recovery.
func (a *Admitter) retire(ctx context.Context, k jobs.Key, rep *StepReport) (bool, error) {
	c, err := a.store.Claim(ctx, k, "admission-"+uuid.NewString())
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("admission: cancel %s past its deadline: %w", k, err)
	case c.State == jobs.StateRunning:
		return false, nil
	case c.EndedNow:
		rep.Cancelled++
	}
	return true, nil
}
