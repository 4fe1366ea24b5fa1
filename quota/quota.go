// Package quota is relayops' per-tenant submission quotas: a submit rate,
// a cap on each tenant's open backlog, in jobs and in input bytes, and a
// cap on the input bytes each tenant has stored (open and ended jobs'
// inputs, until they expire), kept in Redis so every API process enforces
// the same budget. A
// submission reserves its job before the store creates it (one script, one
// round trip, in the tenant's own Redis Cluster slot); a resubmission of an
// open job finds its reservation and counts nothing, and a call that
// creates nothing gives its reservation back.
//
// The backlog heals by itself: a reservation is dropped once its job has
// ended, found by checking the job records of the oldest reservations when
// the tenant reaches a limit (and when an operator reads the backlog), and
// a reservation whose job never came to exist (the API died between the
// reservation and the submission) is dropped once older than Grace.
//
// Stored inputs heal as they expire: each counted input carries its expiry
// (a bound from the job's deadline and the input retention until the job
// ends, then the input's own), and every reservation first drops those
// whose expiry passed. A tenant at the stored cap has the bounds of its
// ended jobs replaced by their inputs' real expiries (HealStored). Inputs
// no reservation counted (stored before the cap was on, or by a process
// without it) are counted by a recount of the tenant's job indexes
// (Recount), which runs when the cap is first used and every RecountEvery
// after.
package quota

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

//go:embed lua/quota.lua
var quotaLua string

var quotaScript = redis.NewScript(quotaLua)

// Config configures a Limiter. A zero limit is no limit.
type Config struct {
	// Store is the job store, whose records tell which reserved jobs ended.
	// Required.
	Store *jobs.Store
	// Rate is each tenant's submissions (new jobs) per Per: Rate tokens at
	// most, one regained every Per/Rate. 0: no rate limit.
	Rate int
	Per  time.Duration
	// MaxJobs caps each tenant's open jobs (queued, running, retrying).
	MaxJobs int
	// MaxBytes caps the input bytes of each tenant's open jobs.
	MaxBytes int64
	// MaxStoredBytes caps the input bytes each tenant has stored: open
	// jobs' and ended jobs' until their inputs expire. 0: not counted.
	MaxStoredBytes int64
	// InputRetention is how long an input is kept after its job ends (the
	// store's Retention.Input). Default jobs.DefaultRetention.Input.
	InputRetention time.Duration
	// EndSlack is how long after its deadline a job may still end (the
	// reconciler's republish, a last retry): a stored input is counted
	// until deadline + EndSlack + InputRetention after its reservation at
	// most, unless HealStored learnt its real expiry. Default 1h.
	EndSlack time.Duration
	// Grace is how old a reservation must be before the prune drops it for
	// a job that does not exist (its submission may still be on its way).
	// Default 1m.
	Grace time.Duration
	// PruneEvery is the least time between two prunes of one tenant by one
	// process when the tenant is at a limit. Default 1s.
	PruneEvery time.Duration
	// PruneBatch is how many of the oldest reservations one prune checks.
	// Default 1000.
	PruneBatch int
	// RecountEvery is how often a tenant's stored inputs are recounted
	// from its job indexes (with MaxStoredBytes only): a pass counts what
	// the count lacks, inputs stored before the cap was on or by a process
	// without it, and looks only at jobs created since the previous pass.
	// Default 1m.
	RecountEvery time.Duration
	// RecountBatch is how many jobs one step of a recount looks at; a step
	// runs before a reservation while a pass is under way. Default 1000.
	RecountBatch int
	Clock        clock.Clock  // default clock.Real{}
	Logger       *slog.Logger // a recount that failed; default: discard
}

func (c Config) withDefaults() Config {
	if c.Grace == 0 {
		c.Grace = time.Minute
	}
	if c.PruneEvery == 0 {
		c.PruneEvery = time.Second
	}
	if c.PruneBatch == 0 {
		c.PruneBatch = 1000
	}
	if c.InputRetention == 0 {
		c.InputRetention = jobs.DefaultRetention.Input
	}
	if c.EndSlack == 0 {
		c.EndSlack = time.Hour
	}
	if c.RecountEvery == 0 {
		c.RecountEvery = time.Minute
	}
	if c.RecountBatch == 0 {
		c.RecountBatch = 1000
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("quota: Config.Store is required"))
	}
	if c.Rate < 0 || (c.Rate > 0 && c.Per < time.Millisecond) {
		errs = append(errs, fmt.Errorf("quota: Config.Rate must be 0 or positive with Config.Per at least 1ms, got %d per %s", c.Rate, c.Per))
	}
	if c.MaxJobs < 0 {
		errs = append(errs, fmt.Errorf("quota: Config.MaxJobs must not be negative, got %d", c.MaxJobs))
	}
	if c.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("quota: Config.MaxBytes must not be negative, got %d", c.MaxBytes))
	}
	if c.MaxStoredBytes < 0 {
		errs = append(errs, fmt.Errorf("quota: Config.MaxStoredBytes must not be negative, got %d", c.MaxStoredBytes))
	}
	if c.InputRetention < 0 || c.EndSlack < 0 {
		errs = append(errs, errors.New("quota: Config.InputRetention and EndSlack must not be negative"))
	}
	if c.Grace < 0 || c.PruneEvery < 0 || c.PruneBatch < 1 {
		errs = append(errs, errors.New("quota: Config.Grace and PruneEvery must not be negative, PruneBatch must be positive"))
	}
	if c.RecountEvery < 0 || c.RecountBatch < 1 {
		errs = append(errs, fmt.Errorf("quota: Config.RecountEvery must not be negative and Config.RecountBatch must be positive, got %s and %d", c.RecountEvery, c.RecountBatch))
	}
	return errors.Join(errs...)
}

// Enabled reports whether cfg limits anything: a Limiter of a config that
// does not need not be built (and costs no round trip).
func (c Config) Enabled() bool {
	return c.Rate > 0 || c.MaxJobs > 0 || c.MaxBytes > 0 || c.MaxStoredBytes > 0
}

// The limits a submission can exceed: the codes of ExceededError.
const (
	LimitRate   = "rate"
	LimitJobs   = "jobs"
	LimitBytes  = "bytes"
	LimitStored = "stored"
)

// ExceededError refuses a submission over a limit; nothing was reserved.
type ExceededError struct {
	Limit string // LimitRate, LimitJobs, LimitBytes or LimitStored
	// RetryAfter is when a rate token is available (LimitRate), when
	// enough stored inputs expire for this one to fit (LimitStored); for a
	// full backlog, a guess: the backlog drains as jobs end.
	RetryAfter time.Duration
}

func (e *ExceededError) Error() string { return "quota: tenant " + e.Limit + " limit reached" }

// backlogRetryAfter is the Retry-After of a full backlog.
const backlogRetryAfter = 5 * time.Second

// Limiter enforces the quotas.
type Limiter struct {
	cfg   Config
	store *jobs.Store
	rdb   redis.UniversalClient

	mu      sync.Mutex
	pruned  map[string]time.Time // per tenant: this process's last prune
	recount map[string]time.Time // per tenant: when this process steps its recount next
}

// New checks cfg and returns a Limiter.
func New(cfg Config) (*Limiter, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Limiter{cfg: cfg, store: cfg.Store, rdb: cfg.Store.Redis(), pruned: map[string]time.Time{}, recount: map[string]time.Time{}}, nil
}

func keys(tenant string) []string {
	tag := "ro:{q:" + tenant + "}:"
	return []string{tag + "rate", tag + "open", tag + "bytes", tag + "total",
		tag + "stored", tag + "stored:bytes", tag + "stored:total", tag + "stored:pending"}
}

// interval is the rate's token interval in ms, 0 without a rate.
func (l *Limiter) interval() int64 {
	if l.cfg.Rate == 0 {
		return 0
	}
	return max(l.cfg.Per.Milliseconds()/int64(l.cfg.Rate), 1)
}

// Reservation is a submission's hold on its tenant's budget.
type Reservation struct {
	key    jobs.Key
	taken  bool // this call reserved the job (else it was reserved already)
	stored bool // this call counted its stored input
}

// Tenant is the tenant whose budget r holds.
func (r *Reservation) Tenant() string { return r.key.Tenant }

// Reserve reserves job k, of size bytes and with the given deadline (0:
// jobs.DefaultLimits'), in its tenant's budget, or returns an
// *ExceededError. A tenant at a backlog limit has its ended jobs pruned
// first, one at the stored cap its stored inputs healed (each at most every
// PruneEvery per process), and is checked again.
func (l *Limiter) Reserve(ctx context.Context, k jobs.Key, size int, deadline time.Duration) (*Reservation, error) {
	if deadline <= 0 {
		deadline = jobs.DefaultLimits.Deadline
	}
	l.recountIfDue(ctx, k.Tenant)
	r, err := l.take(ctx, k, size, deadline)
	var ex *ExceededError
	if !errors.As(err, &ex) || ex.Limit == LimitRate || !l.pruneDue(k.Tenant) {
		return r, err
	}
	if ex.Limit == LimitStored {
		_, err = l.HealStored(ctx, k.Tenant)
	} else {
		_, err = l.Prune(ctx, k.Tenant)
	}
	if err != nil {
		return nil, err
	}
	return l.take(ctx, k, size, deadline)
}

func (l *Limiter) take(ctx context.Context, k jobs.Key, size int, deadline time.Duration) (*Reservation, error) {
	now := l.cfg.Clock.Now()
	bound := now.Add(deadline + l.cfg.EndSlack + l.cfg.InputRetention).UnixMilli()
	open := "0"
	if l.cfg.Rate > 0 || l.cfg.MaxJobs > 0 || l.cfg.MaxBytes > 0 {
		open = "1"
	}
	res, err := l.run(ctx, k.Tenant, now.UnixMilli(), "take", k.String(), size, l.interval(), l.cfg.Rate,
		l.cfg.MaxJobs, l.cfg.MaxBytes, l.cfg.MaxStoredBytes, bound, open)
	if err != nil {
		return nil, err
	}
	switch {
	case res[0] == "taken" && len(res) == 2:
		return &Reservation{key: k, taken: true, stored: res[1] == int64(1)}, nil
	case res[0] == "held" && len(res) == 1:
		return &Reservation{key: k}, nil
	case res[0] == "rate" && len(res) == 2:
		ms, err := strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
		if err != nil || ms < 1 {
			return nil, fmt.Errorf("quota: unexpected reply %v", res)
		}
		return nil, &ExceededError{Limit: LimitRate, RetryAfter: time.Duration(ms) * time.Millisecond}
	case (res[0] == LimitJobs || res[0] == LimitBytes) && len(res) == 2:
		return nil, &ExceededError{Limit: res[0].(string), RetryAfter: backlogRetryAfter}
	case res[0] == LimitStored && len(res) == 3:
		ms, _ := res[2].(int64)
		wait := time.Duration(ms) * time.Millisecond
		if ms <= 0 {
			// Not within the inputs looked at (or never: a document over
			// the whole cap): the oldest ones expire within the retention.
			wait = backlogRetryAfter
		}
		return nil, &ExceededError{Limit: LimitStored, RetryAfter: wait}
	}
	return nil, fmt.Errorf("quota: unexpected reply %v", res)
}

// Settle ends a reservation after the store answered the submission: a
// call that reserved the job and did not create it (a dedupe of an ended
// job, a conflict) gives the reservation back, rate token included. After
// an error whose outcome is unknown the reservation stays: if the job was
// not created, the prune drops it after Grace.
func (l *Limiter) Settle(ctx context.Context, r *Reservation, created bool, err error) error {
	if r == nil || !r.taken || created || (err != nil && !errors.Is(err, jobs.ErrIdempotencyConflict)) {
		return nil
	}
	stored := "0"
	if r.stored {
		stored = "1"
	}
	_, gerr := l.run(context.WithoutCancel(ctx), r.key.Tenant, l.cfg.Clock.Now().UnixMilli(), "give", r.key.String(), l.interval(), stored)
	return gerr
}

func (l *Limiter) run(ctx context.Context, tenant string, args ...any) ([]any, error) {
	v, err := quotaScript.Run(ctx, l.rdb, keys(tenant), args...).Result()
	if err != nil {
		return nil, fmt.Errorf("quota: %s: %w", tenant, err)
	}
	res, ok := v.([]any)
	if !ok || len(res) == 0 {
		return nil, fmt.Errorf("quota: unexpected reply %v", v)
	}
	return res, nil
}

func (l *Limiter) pruneDue(tenant string) bool {
	now := l.cfg.Clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, ok := l.pruned[tenant]; ok && now.Sub(last) < l.cfg.PruneEvery {
		return false
	}
	l.pruned[tenant] = now
	return true
}

// Prune checks the records of the tenant's oldest PruneBatch reserved jobs
// and releases the reservations of those that ended, or that never came to
// exist and are older than Grace. It returns how many it released.
func (l *Limiter) Prune(ctx context.Context, tenant string) (int, error) {
	ks := keys(tenant)
	zs, err := l.rdb.ZRangeWithScores(ctx, ks[1], 0, int64(l.cfg.PruneBatch-1)).Result()
	if err != nil {
		return 0, fmt.Errorf("quota: prune %s: %w", tenant, err)
	}
	var gone []any
	var held []jobs.Key
	var reserved []float64
	for _, z := range zs {
		id, _ := z.Member.(string)
		k, err := jobs.ParseKey(id)
		if err != nil || k.Tenant != tenant {
			gone = append(gone, id)
			continue
		}
		held, reserved = append(held, k), append(reserved, z.Score)
	}
	peeks, err := l.store.PeekJobs(ctx, held)
	if err != nil {
		return 0, fmt.Errorf("quota: prune %s: %w", tenant, err)
	}
	graceEdge := float64(l.cfg.Clock.Now().Add(-l.cfg.Grace).UnixMilli())
	for i, p := range peeks {
		if p.State.Terminal() || (p.State == "" && reserved[i] < graceEdge) {
			gone = append(gone, held[i].String())
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	res, err := l.run(ctx, tenant, append([]any{l.cfg.Clock.Now().UnixMilli(), "release"}, gone...)...)
	if err != nil {
		return 0, err
	}
	if len(res) != 2 || res[0] != "released" {
		return 0, fmt.Errorf("quota: unexpected reply %v", res)
	}
	n, _ := res[1].(int64)
	return int(n), nil
}

// Usage is a tenant's counted backlog and stored inputs.
type Usage struct {
	Jobs  int64 // open jobs reserved
	Bytes int64 // their input bytes
	// StoredInputs and StoredBytes count the inputs stored (counted only
	// with Config.MaxStoredBytes): open jobs' and ended jobs' until they
	// expire.
	StoredInputs int64
	StoredBytes  int64
}

// Usage reads tenant's counted backlog; with prune, ended jobs are
// released first and stored inputs healed, so the counts are the open
// backlog and what is stored.
func (l *Limiter) Usage(ctx context.Context, tenant string, prune bool) (Usage, error) {
	if prune {
		l.recountIfDue(ctx, tenant)
		if _, err := l.Prune(ctx, tenant); err != nil {
			return Usage{}, err
		}
		if _, err := l.HealStored(ctx, tenant); err != nil {
			return Usage{}, err
		}
	}
	return ReadUsage(ctx, l.rdb, tenant)
}

// ReadUsage reads tenant's counted backlog from rdb.
func ReadUsage(ctx context.Context, rdb redis.UniversalClient, tenant string) (Usage, error) {
	ks := keys(tenant)
	pipe := rdb.Pipeline()
	n := pipe.ZCard(ctx, ks[1])
	b := pipe.Get(ctx, ks[3])
	sn := pipe.ZCard(ctx, ks[4])
	sb := pipe.Get(ctx, ks[6])
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return Usage{}, fmt.Errorf("quota: usage of %s: %w", tenant, err)
	}
	bytes, _ := strconv.ParseInt(b.Val(), 10, 64)
	stored, _ := strconv.ParseInt(sb.Val(), 10, 64)
	return Usage{Jobs: n.Val(), Bytes: bytes, StoredInputs: sn.Val(), StoredBytes: stored}, nil
}

// HealStored looks at the PruneBatch stored inputs of tenant whose expiry
// is still a bound, longest unlooked-at first: an input whose job ended
// takes its real expiry, one that does not exist is dropped (once its
// reservation is older than Grace: its submission may be on its way), one
// whose job is open goes to the back of the line. Inputs whose expiry
// passed are dropped first. It returns how many entries it changed.
func (l *Limiter) HealStored(ctx context.Context, tenant string) (int, error) {
	if l.cfg.MaxStoredBytes == 0 {
		return 0, nil
	}
	ks := keys(tenant)
	zs, err := l.rdb.ZRangeWithScores(ctx, ks[7], 0, int64(l.cfg.PruneBatch-1)).Result()
	if err != nil {
		return 0, fmt.Errorf("quota: heal %s: %w", tenant, err)
	}
	var ids []string
	var held []jobs.Key
	var looked []float64
	var verdicts []any
	for _, z := range zs {
		id, _ := z.Member.(string)
		k, err := jobs.ParseKey(id)
		if err != nil || k.Tenant != tenant {
			verdicts = append(verdicts, id, "gone", 0)
			continue
		}
		ids, held, looked = append(ids, id), append(held, k), append(looked, z.Score)
	}
	inputs, err := l.store.PeekInputs(ctx, held)
	if err != nil {
		return 0, fmt.Errorf("quota: heal %s: %w", tenant, err)
	}
	now := l.cfg.Clock.Now()
	graceEdge := float64(now.Add(-l.cfg.Grace).UnixMilli())
	for i, in := range inputs {
		switch {
		case in.Stored && in.TTL > 0:
			verdicts = append(verdicts, ids[i], "at", now.Add(in.TTL).UnixMilli())
		case in.Stored:
			verdicts = append(verdicts, ids[i], "open", 0)
		case looked[i] < graceEdge:
			verdicts = append(verdicts, ids[i], "gone", 0)
		}
	}
	res, err := l.run(ctx, tenant, append([]any{now.UnixMilli(), "heal"}, verdicts...)...)
	if err != nil {
		return 0, err
	}
	if len(res) != 2 || res[0] != "healed" {
		return 0, fmt.Errorf("quota: unexpected reply %v", res)
	}
	n, _ := res[1].(int64)
	return int(n), nil
}
