// Package admission is relayops' per-tenant fair admission: it sits between
// the outbox relay and the Asynq publisher, keeps each tenant's submitted
// jobs waiting in Redis, and admits them round-robin across the tenants
// with work waiting, so that no tenant has more than its cap of jobs
// enqueued or running. One tenant's flood then fills its own waiting list,
// not the shared Asynq queue, and another tenant's job waits behind at most
// the caps of the busy tenants.
//
// State lives in Redis, per tenant, under the tenant's own hash tag (one
// Redis Cluster slot per tenant): a sorted set of waiting job keys (scored
// by deadline) and a sorted set of job keys in flight (scored by admission
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
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

var (
	//go:embed lua/admit.lua
	admitLua string
	//go:embed lua/unadmit.lua
	unadmitLua string

	admitScript   = redis.NewScript(admitLua)
	unadmitScript = redis.NewScript(unadmitLua)
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
	// Interval is the longest pause between admission steps; a Publish or a
	// Release in this process wakes the admitter at once. Default 20ms.
	Interval time.Duration
	// Batch is the most jobs admitted for one tenant in one step. Default 64.
	Batch int
	// PruneInterval is how often each tenant's in-flight set is checked
	// against the job records (the self-healing pass). Default 2s.
	PruneInterval time.Duration
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
	def(&c.PruneInterval, 2*time.Second)
	def(&c.RepublishAfter, 10*time.Second)
	def(&c.ForgetAfter, time.Hour)
	if c.Batch == 0 {
		c.Batch = 64
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
	for t, n := range c.Limits {
		if f := jobs.ValidateTenant(t); f != nil {
			errs = append(errs, fmt.Errorf("admission: Config.Limits: tenant %q %s", t, f.Problem))
		}
		if n < 0 {
			errs = append(errs, fmt.Errorf("admission: Config.Limits: tenant %s: cap must not be negative, got %d", t, n))
		}
	}
	if c.Batch < 1 {
		errs = append(errs, fmt.Errorf("admission: Config.Batch must be positive, got %d", c.Batch))
	}
	if c.Interval < 0 || c.PruneInterval < 0 || c.RepublishAfter < 0 || c.ForgetAfter < 0 {
		errs = append(errs, errors.New("admission: Config.Interval, PruneInterval, RepublishAfter and ForgetAfter must not be negative"))
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
// takes the relay's job.submitted events and puts each job in its tenant's
// waiting set; its Run loop admits waiting jobs and publishes them to the
// wrapped Publisher; Release frees a job's slot when a worker ended it.
type Admitter struct {
	cfg   Config
	store *jobs.Store
	rdb   redis.UniversalClient
	log   *slog.Logger
	wake  chan struct{}

	mu sync.Mutex
	// registered is when this process last stamped a tenant in the
	// registry: a stamp a second is plenty (ForgetAfter is far longer).
	registered map[string]time.Time
	// pruned is when this process last pruned a tenant's in-flight set.
	pruned map[string]time.Time
	// turn rotates the tenant that is served first in a step.
	turn int
}

var _ outbox.Publisher = (*Admitter)(nil)

// New checks cfg and returns an Admitter.
func New(cfg Config) (*Admitter, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Admitter{
		cfg: cfg, store: cfg.Store, rdb: cfg.Store.Redis(),
		log:  cfg.Logger.With("component", "admission"),
		wake: make(chan struct{}, 1), registered: map[string]time.Time{}, pruned: map[string]time.Time{},
	}, nil
}

// Cap returns tenant's in-flight cap (0: none).
func (a *Admitter) Cap(tenant string) int {
	if n, ok := a.cfg.Limits[tenant]; ok {
		return n
	}
	return a.cfg.MaxInFlight
}

// Publish puts the job of a job.submitted event in its tenant's waiting set
// (scored by its deadline: within a tenant, the earliest deadline is
// admitted first, which with the default deadline is submission order).
// A job that has ended, or whose record is gone, needs nothing. Publishing
// the same job again is harmless: it is one member of a set.
func (a *Admitter) Publish(ctx context.Context, ev jobs.Event) error {
	if ev.Type != jobs.EventJobSubmitted {
		return fmt.Errorf("admission: publish: unexpected event type %q", ev.Type)
	}
	peeks, err := a.store.PeekJobs(ctx, []jobs.Key{ev.Key})
	if err != nil {
		return fmt.Errorf("admission: publish %s: %w", ev.Key, err)
	}
	p := peeks[0]
	if p.Done() {
		return nil
	}
	now := a.cfg.Clock.Now()
	score := p.DeadlineAt
	if score.IsZero() {
		score = now
	}
	pipe := a.rdb.Pipeline()
	pipe.ZAddNX(ctx, waitingKey(ev.Key.Tenant), redis.Z{Score: float64(score.UnixMilli()), Member: ev.Key.String()})
	stamp := a.needsStamp(ev.Key.Tenant, now)
	if stamp {
		pipe.ZAddGT(ctx, registryKey, redis.Z{Score: float64(now.UnixMilli()), Member: ev.Key.Tenant})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		if stamp {
			a.unstamp(ev.Key.Tenant)
		}
		return fmt.Errorf("admission: publish %s: %w", ev.Key, err)
	}
	a.poke()
	return nil
}

// needsStamp says whether this process should stamp tenant in the registry
// now (at most once a second), and records that it does.
func (a *Admitter) needsStamp(tenant string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if last, ok := a.registered[tenant]; ok && now.Sub(last) < time.Second {
		return false
	}
	a.registered[tenant] = now
	return true
}

func (a *Admitter) unstamp(tenant string) {
	a.mu.Lock()
	delete(a.registered, tenant)
	a.mu.Unlock()
}

// Release frees the slot of job k: a worker ended it (or found it ended).
// Releasing a job that holds no slot does nothing.
func (a *Admitter) Release(ctx context.Context, k jobs.Key) error {
	if err := a.rdb.ZRem(ctx, inFlightKey(k.Tenant), k.String()).Err(); err != nil {
		return fmt.Errorf("admission: release %s: %w", k, err)
	}
	a.poke()
	return nil
}

func (a *Admitter) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Run admits until ctx is done. A failed step is logged and retried after
// Interval.
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
		select {
		case <-ctx.Done():
		case <-a.wake:
		case <-time.After(a.cfg.Interval):
		}
	}
	return nil
}

// StepReport is what one step did.
type StepReport struct {
	Admitted    int // jobs admitted and published
	Cancelled   int // waiting jobs whose deadline passed, cancelled
	Released    int // in-flight members found ended (their release was lost) and removed
	Republished int // in-flight members still queued long after admission, published again
}

// tenantState is one tenant's counts in a step.
type tenantState struct {
	name              string
	waiting, inFlight int64
	expired           []string
}

// Step runs one admission step: read every registered tenant's counts,
// cancel waiting jobs past their deadline, prune in-flight sets that are
// due, then admit round-robin: each tenant with work waiting and room under
// its cap is admitted (atomically, per tenant) and the admitted jobs are
// published interleaved, one of each tenant in turn.
func (a *Admitter) Step(ctx context.Context) (StepReport, error) {
	var rep StepReport
	states, err := a.read(ctx)
	if err != nil {
		return rep, err
	}
	var errs []error
	for _, st := range states {
		if err := a.expire(ctx, st, &rep); err != nil {
			errs = append(errs, err)
		}
		if err := a.maybePrune(ctx, st, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	admitted, err := a.admit(ctx, states)
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

// read returns every registered tenant's counts and its waiting jobs past
// their deadline (by a second, so the claim that cancels them is sure to
// see the deadline passed), in registry order rotated by one each step.
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
	cutoff := strconv.FormatInt(a.cfg.Clock.Now().Add(-time.Second).UnixMilli(), 10)
	pipe := a.rdb.Pipeline()
	type cmds struct {
		waiting, inFlight *redis.IntCmd
		expired           *redis.StringSliceCmd
	}
	cs := make([]cmds, len(names))
	for i, t := range names {
		cs[i] = cmds{
			waiting:  pipe.ZCard(ctx, waitingKey(t)),
			inFlight: pipe.ZCard(ctx, inFlightKey(t)),
			expired: pipe.ZRangeByScore(ctx, waitingKey(t), &redis.ZRangeBy{
				Min: "-inf", Max: cutoff, Count: int64(a.cfg.Batch),
			}),
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("admission: read tenant counts: %w", err)
	}
	out := make([]*tenantState, len(names))
	for i, t := range names {
		out[i] = &tenantState{name: t, waiting: cs[i].waiting.Val(), inFlight: cs[i].inFlight.Val(), expired: cs[i].expired.Val()}
	}
	return out, nil
}

// expire ends the tenant's waiting jobs whose deadline passed, without a
// worker: through the claim, the store's one path that cancels a job past
// its deadline (deadline_exceeded). A claim that finds the job still
// runnable (a clock set back) has started an attempt: the job is then
// moved in flight and published like an admitted one, and its handler
// takes the attempt over as a crash recovery.
func (a *Admitter) expire(ctx context.Context, st *tenantState, rep *StepReport) error {
	for _, id := range st.expired {
		k, err := jobs.ParseKey(id)
		if err != nil {
			a.log.Error("dropping a malformed member of a waiting set", "tenant", st.name)
			a.rdb.ZRem(ctx, waitingKey(st.name), id)
			continue
		}
		c, err := a.store.Claim(ctx, k, "admission-"+uuid.NewString())
		switch {
		case errors.Is(err, jobs.ErrNotFound):
		case err != nil:
			return fmt.Errorf("admission: cancel %s past its deadline: %w", k, err)
		case c.State == jobs.StateRunning:
			if err := a.moveInFlight(ctx, k); err != nil {
				return err
			}
			if err := a.cfg.Publisher.Publish(ctx, a.event(k)); err != nil {
				return fmt.Errorf("admission: publish %s: %w", k, err)
			}
			st.waiting--
			st.inFlight++
			continue
		case c.EndedNow:
			rep.Cancelled++
		}
		if err := a.rdb.ZRem(ctx, waitingKey(st.name), id).Err(); err != nil {
			return fmt.Errorf("admission: drop %s from waiting: %w", k, err)
		}
		st.waiting--
	}
	return nil
}

func (a *Admitter) moveInFlight(ctx context.Context, k jobs.Key) error {
	_, err := a.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, waitingKey(k.Tenant), k.String())
		p.ZAdd(ctx, inFlightKey(k.Tenant), redis.Z{Score: float64(a.cfg.Clock.Now().UnixMilli()), Member: k.String()})
		return nil
	})
	if err != nil {
		return fmt.Errorf("admission: move %s in flight: %w", k, err)
	}
	return nil
}
