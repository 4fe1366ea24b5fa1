package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/webhook"
)

// Webhook endpoints: operators register, rotate and delete them per tenant;
// tenants list their own (never a secret). Another tenant's endpoint is
// 404, like a missing one.

// webhookView is an endpoint as the API shows it. Secret is set only in the
// answer that creates the endpoint: it is shown once.
type webhookView struct {
	ID                  string        `json:"id"`
	Tenant              string        `json:"tenant"`
	URL                 string        `json:"url"`
	Events              []string      `json:"events"`
	CreatedAt           string        `json:"createdAt"`
	Disabled            *disabledView `json:"disabled"`
	ConsecutiveFailures int           `json:"consecutiveFailures"`
	Secret              string        `json:"secret,omitempty"`
}

type disabledView struct {
	Reason string `json:"reason"`
	At     string `json:"at"`
}

func newWebhookView(ep *webhook.Endpoint) webhookView {
	v := webhookView{ID: ep.ID, Tenant: ep.Tenant, URL: ep.URL, Events: ep.Events, CreatedAt: formatTime(ep.CreatedAt),
		ConsecutiveFailures: ep.ConsecutiveFailures}
	if ep.Disabled != nil {
		v.Disabled = &disabledView{Reason: ep.Disabled.Reason, At: formatTime(ep.Disabled.At)}
	}
	return v
}

// attemptView is one delivery attempt as the API shows it.
type attemptView struct {
	WebhookID     string  `json:"webhookId"`
	EventID       string  `json:"eventId"`
	EventType     string  `json:"eventType"`
	JobID         string  `json:"jobId"`
	Attempt       int     `json:"attempt"`
	Status        string  `json:"status"`
	StatusCode    int     `json:"statusCode"`
	Error         *string `json:"error,omitempty"`
	LatencyMs     int64   `json:"latencyMs"`
	At            string  `json:"at"`
	NextAttemptAt *string `json:"nextAttemptAt,omitempty"`
	ResentBy      *string `json:"resentBy,omitempty"`
	Reason        *string `json:"reason,omitempty"`
}

func newAttemptView(a webhook.Attempt) attemptView {
	v := attemptView{WebhookID: a.WebhookID, EventID: a.EventID, EventType: a.EventType, JobID: a.JobID,
		Attempt: a.Attempt, Status: a.Status, StatusCode: a.StatusCode, Error: optString(a.Error),
		LatencyMs: a.LatencyMs, At: formatTime(a.At), ResentBy: optString(a.ResentBy), Reason: optString(a.Reason)}
	if a.NextAttemptAt != nil {
		v.NextAttemptAt = optTime(*a.NextAttemptAt)
	}
	return v
}

// createWebhook is POST /v1/webhooks {tenant, url, events} by an operator.
func (s *Server) createWebhook(c echo.Context) error {
	o, err := s.readObject(c)
	if err != nil {
		return err
	}
	tenant, ok := o.str("tenant", true)
	if ok && !s.configuredTenant(tenant) {
		// An endpoint of a tenant without a token would never be called,
		// and its ID (wh_<tenant>_…) would look real.
		o.fail("tenant", "is not a configured tenant")
	}
	url, _ := o.str("url", true)
	events := o.strings("events")
	if err := o.done(nil); err != nil {
		return err
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	ep, secret, err := s.cfg.Webhooks.Create(ctx, webhook.Registration{Tenant: tenant, URL: url, Events: events})
	if err != nil {
		return fmt.Errorf("api: create webhook: %w", err)
	}
	v := newWebhookView(ep)
	v.Secret = secret
	return c.JSON(http.StatusCreated, v)
}

// configuredTenant reports whether a tenant token names tenant.
func (s *Server) configuredTenant(tenant string) bool {
	for _, c := range s.cfg.Tenants {
		if c.Name == tenant {
			return true
		}
	}
	return false
}

// strings takes a required array of strings.
func (o *object) strings(name string) []string {
	raw, ok := o.take(name, true)
	if !ok {
		return nil
	}
	var v []string
	if raw[0] != '[' || json.Unmarshal(raw, &v) != nil {
		o.fail(name, "must be an array of strings")
		return nil
	}
	return v
}

// webhookCtx bounds a registry call like a store call; registration also
// resolves the URL's host.
func (s *Server) webhookCtx(c echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), 5*time.Second)
}

// listWebhooks is GET /v1/webhooks: a tenant's endpoints (a tenant token:
// its own), or every endpoint for an operator without tenant=.
func (s *Server) listWebhooks(c echo.Context) error {
	q := parseQuery(c, "tenant")
	tenant, err := scopeTenant(principal(c), q, false)
	if err != nil {
		return err
	}
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	var eps []*webhook.Endpoint
	if tenant == "" {
		eps, err = s.cfg.Webhooks.ListAll(ctx)
	} else {
		eps, err = s.cfg.Webhooks.List(ctx, tenant)
	}
	if err != nil {
		return fmt.Errorf("api: list webhooks: %w", err)
	}
	items := make([]webhookView, len(eps))
	for i, ep := range eps {
		items[i] = newWebhookView(ep)
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": nil})
}

// webhookFor returns the endpoint of the path's id, if the caller may see
// it: 404 otherwise.
func (s *Server) webhookFor(c echo.Context) (*webhook.Endpoint, error) {
	id := c.Param("id")
	tenant, ok := webhook.TenantOf(id)
	if p := principal(c); !ok || (p.role == roleTenant && p.name != tenant) {
		return nil, notFound()
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	ep, err := s.cfg.Webhooks.Get(ctx, id)
	if errors.Is(err, webhook.ErrNotFound) {
		return nil, notFound()
	}
	if err != nil {
		return nil, fmt.Errorf("api: get webhook: %w", err)
	}
	return ep, nil
}

// getWebhook is GET /v1/webhooks/{id}.
func (s *Server) getWebhook(c echo.Context) error {
	ep, err := s.webhookFor(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newWebhookView(ep))
}

// deleteWebhook is DELETE /v1/webhooks/{id} by an operator: 204, and
// deliveries already queued for it end without a request.
func (s *Server) deleteWebhook(c echo.Context) error {
	ep, err := s.webhookFor(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	if err := s.cfg.Webhooks.Delete(ctx, ep.ID); errors.Is(err, webhook.ErrNotFound) {
		return notFound()
	} else if err != nil {
		return fmt.Errorf("api: delete webhook: %w", err)
	}
	return c.NoContent(http.StatusNoContent)
}

// rotateWebhook is POST /v1/webhooks/{id}/rotate by an operator: a new
// secret, shown once; the old one keeps signing beside it until
// previousSecretValidUntil.
func (s *Server) rotateWebhook(c echo.Context) error {
	ep, err := s.webhookFor(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	rot, err := s.cfg.Webhooks.Rotate(ctx, ep.ID)
	if errors.Is(err, webhook.ErrNotFound) {
		return notFound()
	} else if err != nil {
		return fmt.Errorf("api: rotate webhook: %w", err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"id": ep.ID, "secret": rot.Secret, "previousSecretValidUntil": formatTime(rot.PreviousValidUntil),
	})
}

// webhookDeliveries is GET /v1/webhooks/{id}/deliveries: the endpoint's
// recent attempts, newest first (?limit=, default 50).
func (s *Server) webhookDeliveries(c echo.Context) error {
	q := parseQuery(c, "limit")
	limit := q.limit()
	if err := q.done(); err != nil {
		return err
	}
	ep, err := s.webhookFor(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	items, err := s.cfg.Webhooks.Attempts(ctx, ep.ID, limit)
	if err != nil {
		return fmt.Errorf("api: webhook deliveries: %w", err)
	}
	views := make([]attemptView, len(items))
	for i, a := range items {
		views[i] = newAttemptView(a)
	}
	return c.JSON(http.StatusOK, map[string]any{"items": views, "nextCursor": nil})
}

// resendWebhook is POST /v1/webhooks/{id}/deliveries/{webhookId}/resend
// {reason} by an operator: a dead delivery is sent again under the same
// webhook-id, with a fresh retry window; the re-send is audited.
func (s *Server) resendWebhook(c echo.Context) error {
	o, err := s.readObject(c)
	if err != nil {
		return err
	}
	reason, ok := o.str("reason", true)
	if problem := reasonProblem(reason); ok && problem != "" {
		o.fail("reason", problem)
	}
	if err := o.done(nil); err != nil {
		return err
	}
	ep, err := s.webhookFor(c)
	if err != nil {
		return err
	}
	if s.cfg.WebhookResender == nil {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "re-sending needs the Asynq connection, which this server lacks"}
	}
	ctx, cancel := s.webhookCtx(c)
	defer cancel()
	d, err := s.cfg.WebhookResender.Resend(ctx, ep.ID, c.Param("webhookId"), principal(c).name, reason)
	switch {
	case errors.Is(err, webhook.ErrDeliveryNotFound):
		return notFound()
	case errors.Is(err, webhook.ErrDeliveryNotDead):
		return &Error{Status: http.StatusConflict, Code: CodeDeliveryNotDead, Message: "only a dead delivery can be re-sent", Err: err}
	case err != nil:
		return fmt.Errorf("api: resend webhook: %w", err)
	}
	return c.JSON(http.StatusAccepted, map[string]any{"webhookId": d.WebhookID, "eventType": d.EventType, "jobId": d.JobID,
		"resentBy": d.ResentBy})
}
