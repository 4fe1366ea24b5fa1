package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// PublisherConfig configures a Publisher.
type PublisherConfig struct {
	// Redis is Asynq's Redis, where the tasks are enqueued. Required.
	Redis redis.UniversalClient
	// Layout names the queue of each shard's tasks. The zero Layout is the
	// single extract queue.
	Layout task.Layout
	// MaxRetry is Asynq's retry limit of each task. It must exceed what the
	// job record allows (maxAttempts + maxRecoveries), so that the record,
	// not Asynq, decides when a job is dead-lettered. Default 3 + 5 + 2.
	MaxRetry int
	// Timeout is Asynq's per-delivery timeout: the attempt timeout plus a
	// grace, so Asynq never gives up on a handler that is still running.
	// Rounded up to whole seconds (Asynq truncates). Default 5m10s.
	Timeout time.Duration
	// Retention keeps completed tasks so their TaskIDs keep absorbing
	// republishes of recently finished jobs. Default 24h.
	Retention time.Duration
	// Faults fires relay_after_enqueue_before_ack after each successful
	// enqueue; nil fires nothing.
	Faults *Faults
	// Metrics counts enqueues. Default: NewMetrics(false).
	Metrics *Metrics
}

func (c PublisherConfig) withDefaults() PublisherConfig {
	if c.MaxRetry == 0 {
		c.MaxRetry = MaxRetry(3, 5)
	}
	if c.Timeout == 0 {
		c.Timeout = AsynqTimeout(5*time.Minute, defaultGrace)
	}
	if c.Retention == 0 {
		c.Retention = 24 * time.Hour
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(false)
	}
	return c
}

// MaxRetry is Asynq's retry limit for jobs of the given limits: every
// business attempt and every crash recovery may cost one Asynq retry, plus a
// margin of two, so Asynq never archives a task before the record ends it.
func MaxRetry(maxAttempts, maxRecoveries int) int { return maxAttempts + maxRecoveries + 2 }

// AsynqTimeout is the attempt timeout plus grace, rounded up to whole seconds.
func AsynqTimeout(attempt, grace time.Duration) time.Duration {
	return time.Duration(math.Ceil((attempt + grace).Seconds())) * time.Second
}

// Publisher implements outbox.Publisher with Asynq: a job.submitted row
// becomes an extract task whose TaskID is the job key. Publishing is
// idempotent: a TaskID conflict means the task already exists (pending,
// running, retrying, archived, or completed within the retention), which is
// success. PublishBatch enqueues many tasks in one round trip.
type Publisher struct {
	writer  *taskWriter
	layout  task.Layout
	task    asynqTask // the options every task shares
	faults  *Faults
	metrics *Metrics
}

var (
	_ outbox.Publisher      = (*Publisher)(nil)
	_ outbox.BatchPublisher = (*Publisher)(nil)
)

// NewPublisher checks cfg and returns a Publisher.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	cfg = cfg.withDefaults()
	var errs []error
	if cfg.Redis == nil {
		errs = append(errs, errors.New("worker: PublisherConfig.Redis is required"))
	}
	if cfg.MaxRetry < 0 || cfg.Timeout < time.Second || cfg.Retention < 0 {
		errs = append(errs, errors.New("worker: PublisherConfig needs MaxRetry >= 0, Timeout >= 1s, Retention >= 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	w, err := newTaskWriter(cfg.Redis)
	if err != nil {
		return nil, err
	}
	return &Publisher{
		writer: w,
		layout: cfg.Layout,
		task: asynqTask{
			typ: task.TypeExtract, maxRetry: cfg.MaxRetry,
			timeout: AsynqTimeout(cfg.Timeout, 0), retention: cfg.Retention,
		},
		faults:  cfg.Faults,
		metrics: cfg.Metrics,
	}, nil
}

// Publish enqueues the extract task of a job.submitted event, into the
// queue of the event's shard. A republished job (the reconciler's outbox
// row) lands in the same queue, where its TaskID absorbs the repeat.
func (p *Publisher) Publish(ctx context.Context, ev jobs.Event) error {
	return p.PublishBatch(ctx, []jobs.Event{ev})[0]
}

// PublishBatch publishes the events as Publish does, in one round trip, and
// returns one error per event (nil: published). The tasks are written in
// the order of evs.
func (p *Publisher) PublishBatch(ctx context.Context, evs []jobs.Event) []error {
	errs := make([]error, len(evs))
	tasks := make([]asynqTask, 0, len(evs))
	at := make([]int, 0, len(evs)) // tasks[j] is evs[at[j]]
	for i, ev := range evs {
		if ev.Type != jobs.EventJobSubmitted {
			errs[i] = fmt.Errorf("worker: publish: unexpected event type %q", ev.Type)
			continue
		}
		t := p.task
		t.id = ev.Key.String()
		t.payload = task.ExtractPayload{JobKey: t.id}.Marshal()
		t.queue = p.layout.Queue(ev.Shard)
		tasks = append(tasks, t)
		at = append(at, i)
	}
	for j, err := range p.writer.enqueue(ctx, tasks) {
		i := at[j]
		switch {
		case errors.Is(err, errTaskExists):
			p.metrics.publishes.WithLabelValues("already_enqueued").Inc()
		case err != nil:
			p.metrics.publishes.WithLabelValues("error").Inc()
			errs[i] = fmt.Errorf("worker: publish %s: %w", tasks[j].id, err)
			continue
		default:
			p.metrics.publishes.WithLabelValues("enqueued").Inc()
		}
		errs[i] = p.faults.Hit(PointRelayAfterEnqueue)
	}
	return errs
}
