package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Attempt is one recorded delivery attempt (GET
// /v1/webhooks/{id}/deliveries). No response body is stored: the status
// code and a short error code say what happened.
type Attempt struct {
	WebhookID string `json:"webhookId"`
	EventID   string `json:"eventId"`
	EventType string `json:"eventType"`
	JobID     string `json:"jobId"`
	// Attempt counts the attempts of this delivery, from 1.
	Attempt int `json:"attempt"`
	// Status is the delivery's state after the attempt (Status*).
	Status string `json:"status"`
	// StatusCode is the receiver's HTTP status; 0 when none came back.
	StatusCode int `json:"statusCode"`
	// Error is a short code for a failed attempt: http_<status>, timeout,
	// connect_failed, forbidden_address, redirect_refused, ...
	Error     string    `json:"error,omitempty"`
	LatencyMs int64     `json:"latencyMs"`
	At        time.Time `json:"at"`
	// NextAttemptAt is when the delivery is tried again (status retrying).
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
	// ResentBy names the operator who re-sent a dead delivery (the
	// re-send's attempts carry it); Reason is the operator's reason, on the
	// "resent" entry.
	ResentBy string `json:"resentBy,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func jsonOf(a Attempt) ([]byte, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("webhook: encode attempt: %w", err)
	}
	return b, nil
}

// A delivery's state after an attempt.
const (
	StatusDelivered = "delivered" // a 2xx answer: done
	StatusRetrying  = "retrying"  // failed; tried again at NextAttemptAt
	StatusDead      = "dead"      // failed, and the retry window is over: an operator may re-send it
	StatusGone      = "gone"      // 410 Gone: the endpoint is disabled, the delivery ends
	StatusDisabled  = "disabled"  // not sent: the endpoint is disabled
	StatusResent    = "resent"    // an operator sent a dead delivery again (no request by itself)
	StatusDeferred  = "deferred"  // not sent: the endpoint's circuit is open; tried again at NextAttemptAt
)

// recordOutcome is record.lua's view of an attempt.
func (a Attempt) recordOutcome() string {
	switch a.Status {
	case StatusDelivered:
		return "ok"
	case StatusGone:
		return "gone"
	case StatusDeferred:
		return "defer"
	}
	return "fail"
}

// recorded is the answer of record.
type recorded struct {
	found    bool
	failures int
	// disabled is the reason this attempt disabled the endpoint, "" if it
	// did not.
	disabled string
}

// record stores an attempt of endpoint id and counts it toward disabling
// the endpoint after disableAfter failures in a row (0: never).
func (r *Registry) record(ctx context.Context, tenant, id string, a Attempt, disableAfter int) (recorded, error) {
	b, _ := json.Marshal(a) // strings, numbers, times: cannot fail
	keys := []string{endpointsKey(tenant), disabledKey(tenant), failuresKey(tenant), attemptsKey(tenant, id)}
	v, err := recordScript.Run(ctx, r.rdb, keys, id, b, a.recordOutcome(), disableAfter,
		r.cfg.Clock.Now().UnixMilli(), r.cfg.AttemptsKept).Slice()
	if err != nil {
		return recorded{}, fmt.Errorf("webhook: record attempt of %s: %w", id, err)
	}
	if len(v) != 3 {
		return recorded{}, fmt.Errorf("webhook: record.lua answered %d values, want 3", len(v))
	}
	st, _ := v[0].(string)
	n, _ := v[1].(int64)
	reason, _ := v[2].(string)
	return recorded{found: st != "not_found", failures: int(n), disabled: reason}, nil
}

// Attempts returns the most recent attempts of endpoint id, newest first,
// at most limit of them.
func (r *Registry) Attempts(ctx context.Context, id string, limit int) ([]Attempt, error) {
	tenant, ok := TenantOf(id)
	if !ok {
		return nil, ErrNotFound
	}
	vs, err := r.rdb.LRange(ctx, attemptsKey(tenant, id), 0, int64(limit)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("webhook: attempts of %s: %w", id, err)
	}
	out := make([]Attempt, 0, len(vs))
	for _, v := range vs {
		var a Attempt
		if err := json.Unmarshal([]byte(v), &a); err != nil {
			return nil, fmt.Errorf("webhook: malformed attempt of %s: %w", id, err)
		}
		out = append(out, a)
	}
	return out, nil
}
