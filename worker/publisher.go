package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hibiken/asynq"

	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// PublisherConfig configures a Publisher.
type PublisherConfig struct {
	// Client enqueues tasks. Required.
	Client *asynq.Client
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
// success.
type Publisher struct {
	client  *asynq.Client
	layout  task.Layout
	opts    []asynq.Option
	faults  *Faults
	metrics *Metrics
}

var _ outbox.Publisher = (*Publisher)(nil)

// NewPublisher checks cfg and returns a Publisher.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	cfg = cfg.withDefaults()
	var errs []error
	if cfg.Client == nil {
		errs = append(errs, errors.New("worker: PublisherConfig.Client is required"))
	}
	if cfg.MaxRetry < 0 || cfg.Timeout < time.Second || cfg.Retention < 0 {
		errs = append(errs, errors.New("worker: PublisherConfig needs MaxRetry >= 0, Timeout >= 1s, Retention >= 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Publisher{
		client: cfg.Client,
		layout: cfg.Layout,
		opts: []asynq.Option{
			asynq.MaxRetry(cfg.MaxRetry),
			asynq.Timeout(AsynqTimeout(cfg.Timeout, 0)),
			asynq.Retention(cfg.Retention),
		},
		faults:  cfg.Faults,
		metrics: cfg.Metrics,
	}, nil
}

// Publish enqueues the extract task of a job.submitted event, into the
// queue of the event's shard. A republished job (the reconciler's outbox
// row) lands in the same queue, where its TaskID absorbs the repeat.
func (p *Publisher) Publish(ctx context.Context, ev jobs.Event) error {
	if ev.Type != jobs.EventJobSubmitted {
		return fmt.Errorf("worker: publish: unexpected event type %q", ev.Type)
	}
	id := ev.Key.String()
	t := asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: id}.Marshal())
	opts := append(p.opts[:len(p.opts):len(p.opts)], asynq.Queue(p.layout.Queue(ev.Shard)), asynq.TaskID(id))
	_, err := p.client.EnqueueContext(ctx, t, opts...)
	switch {
	case errors.Is(err, asynq.ErrTaskIDConflict):
		p.metrics.publishes.WithLabelValues("already_enqueued").Inc()
	case err != nil:
		p.metrics.publishes.WithLabelValues("error").Inc()
		return fmt.Errorf("worker: publish %s: %w", id, err)
	default:
		p.metrics.publishes.WithLabelValues("enqueued").Inc()
	}
	return p.faults.Hit(PointRelayAfterEnqueue)
}
