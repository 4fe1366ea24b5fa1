package webhook

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
)

// Re-send errors.
var (
	// ErrDeliveryNotFound: the endpoint has no delivery with that
	// webhook-id in Asynq (never, or no longer: archived tasks age out).
	ErrDeliveryNotFound = errors.New("webhook: delivery not found")
	// ErrDeliveryNotDead: the delivery is still pending, retrying,
	// running or done; only a dead (archived) one can be re-sent.
	ErrDeliveryNotDead = errors.New("webhook: only a dead delivery can be re-sent")
)

// Inspector reads Asynq tasks; *asynq.Inspector implements it.
type Inspector interface {
	GetTaskInfo(queue, id string) (*asynq.TaskInfo, error)
}

// ResenderConfig configures a Resender.
type ResenderConfig struct {
	Registry  *Registry // required
	Inspector Inspector // required
	Enqueuer  Enqueuer  // required
	Clock     clock.Clock
	// TaskTimeout and Retention are the re-sent task's, as the notifier's.
	// Defaults 30s and 24h.
	TaskTimeout, Retention time.Duration
}

// Resender lets an operator send a dead delivery again: the same event,
// under the same webhook-id, with a fresh retry window, and an audit entry.
type Resender struct {
	cfg ResenderConfig
}

// NewResender checks cfg and returns a Resender.
func NewResender(cfg ResenderConfig) (*Resender, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.TaskTimeout == 0 {
		cfg.TaskTimeout = 30 * time.Second
	}
	if cfg.Retention == 0 {
		cfg.Retention = 24 * time.Hour
	}
	if cfg.Registry == nil || cfg.Inspector == nil || cfg.Enqueuer == nil {
		return nil, errors.New("webhook: ResenderConfig.Registry, Inspector and Enqueuer are required")
	}
	return &Resender{cfg: cfg}, nil
}

// Resend enqueues the dead delivery webhookID of endpoint again, for
// operator, who gave reason; the audit entry and an attempt of status
// "resent" record it.
func (r *Resender) Resend(ctx context.Context, endpoint, webhookID, operator, reason string) (*Delivery, error) {
	info, err := r.cfg.Inspector.GetTaskInfo(task.QueueWebhooks, webhookID)
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil, ErrDeliveryNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("webhook: resend %s: %w", webhookID, err)
	}
	d, err := ParseDelivery(info.Payload)
	if err != nil || d.Endpoint != endpoint {
		return nil, ErrDeliveryNotFound
	}
	if info.State != asynq.TaskStateArchived {
		return nil, ErrDeliveryNotDead
	}
	now := r.cfg.Clock.Now()
	d.FirstAt, d.ResentBy = now.UnixMilli(), operator
	d.TaskID = webhookID + ":resend:" + strconv.FormatInt(now.UnixMilli(), 10)
	if err := r.cfg.Registry.audit(ctx, d, operator, reason, now); err != nil {
		return nil, err
	}
	opts := d.options(NotifierConfig{TaskTimeout: r.cfg.TaskTimeout, Retention: r.cfg.Retention})
	if _, err := r.cfg.Enqueuer.EnqueueContext(ctx, d.task(), opts...); err != nil {
		return nil, fmt.Errorf("webhook: resend %s: %w", webhookID, err)
	}
	return &d, nil
}

// auditKey is a tenant's webhook audit stream (re-sends).
func auditKey(tenant string) string { return tenantKey(tenant, "audit") }

// auditKept bounds the audit stream of a tenant (approximately).
const auditKept = 10000

// audit writes the re-send's audit entry and its "resent" attempt, in one
// transaction (one slot).
func (r *Registry) audit(ctx context.Context, d Delivery, operator, reason string, now time.Time) error {
	a := Attempt{WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, JobID: d.JobID,
		Status: StatusResent, At: now.UTC().Truncate(time.Millisecond), ResentBy: operator, Reason: reason}
	b, err := jsonOf(a)
	if err != nil {
		return err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.XAdd(ctx, &redis.XAddArgs{Stream: auditKey(d.Tenant), MaxLen: auditKept, Approx: true, Values: []any{
			"action", "webhook_resent", "endpoint", d.Endpoint, "webhookId", d.WebhookID, "jobId", d.JobID,
			"operator", operator, "reason", reason, "at", now.UnixMilli(),
		}})
		p.LPush(ctx, attemptsKey(d.Tenant, d.Endpoint), b)
		p.LTrim(ctx, attemptsKey(d.Tenant, d.Endpoint), 0, int64(r.cfg.AttemptsKept)-1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("webhook: audit resend of %s: %w", d.WebhookID, err)
	}
	return nil
}

// AuditEntry is one operator action on a tenant's webhooks.
type AuditEntry struct {
	Action, Endpoint, WebhookID, JobID, Operator, Reason string
	At                                                   time.Time
}

// Audit returns a tenant's webhook audit entries, newest first, at most
// limit.
func (r *Registry) Audit(ctx context.Context, tenant string, limit int) ([]AuditEntry, error) {
	msgs, err := r.rdb.XRevRangeN(ctx, auditKey(tenant), "+", "-", int64(limit)).Result()
	if err != nil {
		return nil, fmt.Errorf("webhook: audit of %s: %w", tenant, err)
	}
	out := make([]AuditEntry, 0, len(msgs))
	for _, m := range msgs {
		s := func(k string) string { v, _ := m.Values[k].(string); return v }
		ms, _ := strconv.ParseInt(s("at"), 10, 64)
		out = append(out, AuditEntry{Action: s("action"), Endpoint: s("endpoint"), WebhookID: s("webhookId"),
			JobID: s("jobId"), Operator: s("operator"), Reason: s("reason"), At: time.UnixMilli(ms).UTC()})
	}
	return out, nil
}
