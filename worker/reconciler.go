package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// ReconcilerConfig configures a Reconciler.
type ReconcilerConfig struct {
	// Store is the job store. Required.
	Store *jobs.Store
	// Inspector reads Asynq's task states. Required.
	Inspector *asynq.Inspector
	// Redis is Asynq's connection, used to read task leases (the Inspector
	// does not expose them). Required.
	Redis redis.UniversalClient
	// Layout names the queue each job's task is in; it must be the
	// publisher's. The zero Layout is the single extract queue.
	Layout task.Layout
	// Clock is the source of "now". Default clock.Real{}.
	Clock clock.Clock
	// Logger receives structured logs. Default: discard.
	Logger *slog.Logger
	// Metrics counts findings. Default: NewMetrics(false).
	Metrics *Metrics
	// Interval between passes (with ±10% jitter). Default 1m.
	Interval time.Duration
	// Threshold is the age past which a non-terminal job is checked. It must
	// exceed the longest legitimate wait between the relay publishing a job
	// and the job ending or being retried (attempt timeout plus grace, the
	// largest retry backoff). Default 10m.
	Threshold time.Duration
	// Limit bounds the jobs checked per pass. Default 1000.
	Limit int
	// Waiting, if set, reports whether a job waits for tenant admission
	// (it has no Asynq task by design): such a job is skipped.
	Waiting func(ctx context.Context, k jobs.Key) (bool, error)
}

func (c ReconcilerConfig) withDefaults() ReconcilerConfig {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(false)
	}
	if c.Interval == 0 {
		c.Interval = time.Minute
	}
	if c.Threshold == 0 {
		c.Threshold = 10 * time.Minute
	}
	if c.Limit == 0 {
		c.Limit = 1000
	}
	return c
}

func (c ReconcilerConfig) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("worker: ReconcilerConfig.Store is required"))
	}
	if c.Inspector == nil {
		errs = append(errs, errors.New("worker: ReconcilerConfig.Inspector is required"))
	}
	if c.Redis == nil {
		errs = append(errs, errors.New("worker: ReconcilerConfig.Redis is required"))
	}
	if c.Interval < 0 || c.Threshold < 0 || c.Limit < 0 {
		errs = append(errs, errors.New("worker: ReconcilerConfig.Interval, Threshold and Limit must not be negative"))
	}
	return errors.Join(errs...)
}

// Reconciler repairs the one gap the outbox cannot close by itself: a job
// that is still queued, retrying or running long after submission but whose
// Asynq task no longer exists in any state (Redis lost it, or someone deleted
// it). It republishes such a job through its outbox, so the relay remains the
// only enqueuer. A task stuck active without a lease (asynq#1144) cannot be
// moved through the Inspector and is never recovered by Asynq: it is counted
// and logged for an operator.
//
// Every worker process runs one. Passes are idempotent and may overlap: a
// second republish only adds an outbox row whose enqueue the TaskID absorbs.
type Reconciler struct {
	store     *jobs.Store
	inspector *asynq.Inspector
	rdb       redis.UniversalClient
	layout    task.Layout
	clock     clock.Clock
	logger    *slog.Logger
	metrics   *Metrics
	interval  time.Duration
	threshold time.Duration
	limit     int
	waiting   func(ctx context.Context, k jobs.Key) (bool, error)
}

// NewReconciler checks cfg and returns a Reconciler.
func NewReconciler(cfg ReconcilerConfig) (*Reconciler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Reconciler{
		store: cfg.Store, inspector: cfg.Inspector, rdb: cfg.Redis, layout: cfg.Layout, clock: cfg.Clock,
		logger: cfg.Logger, metrics: cfg.Metrics, interval: cfg.Interval,
		threshold: cfg.Threshold, limit: cfg.Limit, waiting: cfg.Waiting,
	}, nil
}

// ReconcileReport is the result of one pass.
type ReconcileReport struct {
	Checked      int // stale jobs looked up in Asynq
	Republished  int // jobs whose task was gone, republished
	StuckActive  int // tasks active without a lease (asynq#1144)
	TaskFinished int // tasks completed or archived while the job is not terminal
}

// Run reconciles every interval until ctx is done. A failed pass is logged
// and retried at the next interval.
func (r *Reconciler) Run(ctx context.Context) error {
	for {
		// Jitter keeps the passes of many workers apart.
		wait := r.interval + time.Duration(rand.Int64N(int64(r.interval)/5+1)) - r.interval/10
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if _, err := r.Reconcile(ctx); err != nil && ctx.Err() == nil {
			r.logger.Warn("reconciler pass failed; retrying next interval")
			r.logger.Debug("reconciler pass failed", "error", err.Error())
		}
	}
}

// Reconcile runs one pass.
func (r *Reconciler) Reconcile(ctx context.Context) (ReconcileReport, error) {
	var rep ReconcileReport
	keys, err := r.store.StaleJobs(ctx, r.clock.Now().Add(-r.threshold), r.limit)
	if err != nil {
		return rep, err
	}
	for _, k := range keys {
		if r.waiting != nil {
			w, err := r.waiting(ctx, k)
			if err != nil {
				return rep, err
			}
			if w {
				continue
			}
		}
		if err := r.check(ctx, k, &rep); err != nil {
			return rep, err
		}
	}
	r.metrics.stuckActive.Set(float64(rep.StuckActive))
	if rep.Republished+rep.StuckActive+rep.TaskFinished > 0 {
		r.logger.Info("reconciler pass", "checked", rep.Checked, "republished", rep.Republished,
			"stuck_active", rep.StuckActive, "task_finished", rep.TaskFinished)
	}
	return rep, nil
}

func (r *Reconciler) check(ctx context.Context, k jobs.Key, rep *ReconcileReport) error {
	id := k.String()
	log := r.logger.With("tenant", k.Tenant, "job_key", id)
	rep.Checked++
	queue := r.layout.Queue(jobs.Shard(k.Tenant, k.DocumentID, r.store.Shards()))
	info, err := r.inspector.GetTaskInfo(queue, id)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
		ok, err := r.store.Republish(ctx, k)
		if err != nil {
			return err
		}
		if ok {
			rep.Republished++
			r.metrics.reconciled.WithLabelValues("republished").Inc()
			log.Info("job's task no longer exists; republished it")
		}
	case err != nil:
		return fmt.Errorf("worker: reconcile %s: %w", id, err)
	case info.State == asynq.TaskStateActive:
		leased, err := r.leased(ctx, queue, id)
		if err != nil {
			return err
		}
		if !leased {
			rep.StuckActive++
			r.metrics.reconciled.WithLabelValues("stuck_active").Inc()
			log.Warn("task is active without a lease (asynq#1144): Asynq will never recover it; an operator must re-enqueue it",
				"queue", queue)
		}
	case info.State == asynq.TaskStateCompleted, info.State == asynq.TaskStateArchived:
		rep.TaskFinished++
		r.metrics.reconciled.WithLabelValues("task_finished").Inc()
		log.Warn("task is finished but the job is not terminal; an operator must look", "task_state", info.State.String())
	}
	return nil
}

// leased reports whether Asynq holds a lease on task id of queue. Asynq
// keeps leases in the sorted set asynq:{<queue>}:lease (v0.26.0); its
// recoverer only looks there, so an active task missing from it is never
// recovered.
func (r *Reconciler) leased(ctx context.Context, queue, id string) (bool, error) {
	err := r.rdb.ZScore(ctx, "asynq:{"+queue+"}:lease", id).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("worker: read lease of %s: %w", id, err)
	}
	return true, nil
}
