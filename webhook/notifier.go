package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// Enqueuer enqueues Asynq tasks; *asynq.Client implements it.
type Enqueuer interface {
	EnqueueContext(ctx context.Context, t *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// NotifierConfig configures a Notifier.
type NotifierConfig struct {
	Registry *Registry // required
	Enqueuer Enqueuer  // required
	Clock    clock.Clock
	Metrics  *Metrics // nil: none
	// CacheTTL is how long a tenant's endpoint list is reused before it is
	// read again. It bounds how late a new, changed or deleted endpoint is
	// seen (deliveries re-read their endpoint, so a deleted or disabled one
	// is never called). Default 5s.
	CacheTTL time.Duration
	// TaskTimeout is Asynq's timeout of a delivery task (the attempt
	// timeout plus a grace). Default 30s.
	TaskTimeout time.Duration
	// Retention keeps finished delivery tasks so their TaskIDs absorb a
	// republished event. Default 24h.
	Retention time.Duration
}

func (c NotifierConfig) withDefaults() NotifierConfig {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = 5 * time.Second
	}
	if c.TaskTimeout == 0 {
		c.TaskTimeout = 30 * time.Second
	}
	if c.Retention == 0 {
		c.Retention = 24 * time.Hour
	}
	return c
}

func (c NotifierConfig) validate() error {
	var errs []error
	if c.Registry == nil {
		errs = append(errs, errors.New("webhook: NotifierConfig.Registry is required"))
	}
	if c.Enqueuer == nil {
		errs = append(errs, errors.New("webhook: NotifierConfig.Enqueuer is required"))
	}
	if c.CacheTTL < 0 || c.TaskTimeout < time.Second || c.Retention < time.Second {
		errs = append(errs, errors.New("webhook: NotifierConfig.CacheTTL must not be negative, TaskTimeout and Retention must be at least 1s"))
	}
	return errors.Join(errs...)
}

// maxRetry is Asynq's MaxRetry of a delivery: only large enough, since the
// retry window (the handler) decides when a delivery is dead.
const maxRetry = 100000

// Notifier turns outbox events into webhook deliveries: one Asynq task per
// subscribed, enabled endpoint of the event's tenant. The outbox relay
// calls it; a failure leaves the outbox row pending, and the relay's retry
// enqueues again, absorbed by the TaskIDs of what was already enqueued.
type Notifier struct {
	cfg NotifierConfig

	mu    sync.Mutex
	cache map[string]cached
}

// cached is a tenant's enabled endpoints as last read.
type cached struct {
	at        time.Time
	endpoints []subscriber
}

type subscriber struct {
	id     string
	events []string
}

// NewNotifier checks cfg and returns a Notifier.
func NewNotifier(cfg NotifierConfig) (*Notifier, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Notifier{cfg: cfg, cache: map[string]cached{}}, nil
}

// Notify enqueues the deliveries of ev. Events that are no webhook event
// (job.submitted), and events of tenants without an endpoint subscribed to
// them, cost nothing but a cache lookup (and one Redis read per tenant per
// CacheTTL).
func (n *Notifier) Notify(ctx context.Context, ev jobs.Event) error {
	e, ok := FromOutbox(ev)
	if !ok {
		return nil
	}
	subs, err := n.subscribers(ctx, ev.Key.Tenant)
	if err != nil {
		return err
	}
	var body []byte
	var errs []error
	for _, s := range subs {
		if !slices.Contains(s.events, e.Type) {
			continue
		}
		if body == nil {
			body = e.Body()
		}
		if err := n.enqueue(ctx, e, body, s.id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (n *Notifier) enqueue(ctx context.Context, e Event, body []byte, endpoint string) error {
	d := Delivery{
		Tenant: e.Data.Tenant, Endpoint: endpoint, WebhookID: MessageID(e.Data.EventID, endpoint),
		EventID: e.Data.EventID, EventType: e.Type, JobID: e.Data.JobID, Body: string(body),
		CommittedAt: e.at.UnixMilli(), FirstAt: n.cfg.Clock.Now().UnixMilli(),
	}
	_, err := n.cfg.Enqueuer.EnqueueContext(ctx, d.task(), d.options(n.cfg)...)
	switch {
	case errors.Is(err, asynq.ErrTaskIDConflict):
		n.cfg.Metrics.publish(e.Type, "duplicate")
		return nil
	case err != nil:
		return fmt.Errorf("webhook: enqueue %s to %s: %w", e.Type, endpoint, err)
	}
	n.cfg.Metrics.publish(e.Type, "enqueued")
	return nil
}

// subscribers returns the tenant's enabled endpoints, from the cache when
// it is fresh.
func (n *Notifier) subscribers(ctx context.Context, tenant string) ([]subscriber, error) {
	now := n.cfg.Clock.Now()
	n.mu.Lock()
	c, ok := n.cache[tenant]
	n.mu.Unlock()
	if ok && now.Sub(c.at) < n.cfg.CacheTTL {
		return c.endpoints, nil
	}
	subs, err := n.cfg.Registry.subscribers(ctx, tenant)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.cache[tenant] = cached{at: now, endpoints: subs}
	n.mu.Unlock()
	return subs, nil
}

// subscribers reads a tenant's enabled endpoints and their event types in
// one round trip.
func (r *Registry) subscribers(ctx context.Context, tenant string) ([]subscriber, error) {
	var eps, dis *redis.MapStringStringCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		eps = p.HGetAll(ctx, endpointsKey(tenant))
		dis = p.HGetAll(ctx, disabledKey(tenant))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webhook: endpoints of %s: %w", tenant, err)
	}
	var out []subscriber
	for id, v := range eps.Val() {
		if _, off := dis.Val()[id]; off {
			continue
		}
		var e Endpoint
		if err := json.Unmarshal([]byte(v), &e); err != nil {
			return nil, fmt.Errorf("webhook: malformed endpoint record %s: %w", id, err)
		}
		out = append(out, subscriber{id: id, events: e.Events})
	}
	return out, nil
}

// Delivery is the payload of a delivery task: one event to one endpoint.
// Body is the event's JSON, fixed when the delivery is created, so every
// attempt signs and sends the same bytes.
type Delivery struct {
	Tenant    string `json:"tenant"`
	Endpoint  string `json:"endpoint"`
	WebhookID string `json:"webhookId"`
	EventID   string `json:"eventId"`
	EventType string `json:"eventType"`
	JobID     string `json:"jobId"`
	Body      string `json:"body"`
	// CommittedAt is when the event was committed (unix ms), for the
	// delivery lag metric.
	CommittedAt int64 `json:"committedAt"`
	// FirstAt is when the delivery was created (unix ms): its retry window
	// starts here.
	FirstAt int64 `json:"firstAt"`
	// ResentBy is the operator who re-sent a dead delivery.
	ResentBy string `json:"resentBy,omitempty"`
	// TaskID is the Asynq TaskID: the webhook-id, or for a re-send the
	// webhook-id and a suffix (the receiver still sees the webhook-id).
	TaskID string `json:"taskId"`
}

func (d Delivery) task() *asynq.Task {
	if d.TaskID == "" {
		d.TaskID = d.WebhookID
	}
	b, _ := json.Marshal(d) // strings and numbers: cannot fail
	return asynq.NewTask(task.TypeWebhook, b)
}

func (d Delivery) options(c NotifierConfig) []asynq.Option {
	id := d.TaskID
	if id == "" {
		id = d.WebhookID
	}
	return []asynq.Option{
		asynq.TaskID(id), asynq.Queue(task.QueueWebhooks), asynq.MaxRetry(maxRetry),
		asynq.Timeout(c.TaskTimeout), asynq.Retention(c.Retention),
	}
}

// ParseDelivery decodes and checks a delivery task's payload.
func ParseDelivery(b []byte) (Delivery, error) {
	var d Delivery
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("webhook: decode delivery: %w", err)
	}
	tenant, ok := TenantOf(d.Endpoint)
	if !ok || d.WebhookID == "" || d.Body == "" || d.FirstAt == 0 {
		return d, errors.New("webhook: delivery payload lacks endpoint, webhookId, body or firstAt")
	}
	d.Tenant = tenant // the endpoint ID names its tenant: one source of truth
	return d, nil
}
