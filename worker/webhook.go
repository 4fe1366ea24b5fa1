package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/relayops/relayops/outbox"
	"github.com/relayops/relayops/webhook"
)

// WebhookConfig turns on webhook deliveries in a worker: its relays notify
// the endpoints' deliveries, an Asynq server of its own runs them from the
// "webhooks" queue. Zero fields take the defaults of package webhook.
type WebhookConfig struct {
	Registry *webhook.Registry // required
	// Concurrency is how many deliveries run at once, apart from the
	// extraction's Config.Concurrency. Default DefaultWebhookConcurrency.
	Concurrency int
	// AttemptTimeout bounds one request. Default 10s.
	AttemptTimeout time.Duration
	// ConnectTimeout and HeaderTimeout bound a request's connect (and TLS
	// handshake) and its wait for response headers. Defaults 3s and 5s.
	ConnectTimeout, HeaderTimeout time.Duration
	// Isolation caps each endpoint's and tenant's share of the delivery
	// slots and opens the circuit of an endpoint that keeps timing out.
	// Its Slots is always Concurrency.
	Isolation webhook.Isolation
	// Window is how long a delivery is retried before it is dead. Default 24h.
	Window time.Duration
	// RetryBase and RetryMax shape the delivery backoff. Defaults 5s and 1h.
	RetryBase, RetryMax time.Duration
	// DisableAfter disables an endpoint after that many failed attempts in
	// a row. Default 100.
	DisableAfter int
	// CacheTTL is how long the relay reuses a tenant's endpoint list.
	// Default 5s.
	CacheTTL time.Duration
}

// webhooks are a worker's webhook parts.
type webhooks struct {
	notifier    *webhook.Notifier
	deliverer   *webhook.Deliverer
	concurrency int
}

// buildWebhooks builds the notifier and the deliverer, or nothing when
// webhooks are off.
func (w *Worker) buildWebhooks() (*webhooks, error) {
	c, cfg := w.cfg.Webhooks, w.cfg
	if c == nil {
		return nil, nil
	}
	if c.Registry == nil {
		return nil, errors.New("worker: Config.Webhooks.Registry is required")
	}
	if c.Concurrency < 0 {
		return nil, fmt.Errorf("worker: Config.Webhooks.Concurrency must not be negative, got %d", c.Concurrency)
	}
	concurrency := c.Concurrency
	if concurrency == 0 {
		concurrency = DefaultWebhookConcurrency
	}
	attempt := c.AttemptTimeout
	if attempt == 0 {
		attempt = 10 * time.Second
	}
	metrics := webhook.NewMetrics(cfg.Metrics.Registry)
	n, err := webhook.NewNotifier(webhook.NotifierConfig{
		Registry: c.Registry, Enqueuer: w.client, Clock: cfg.Clock, Metrics: metrics, CacheTTL: c.CacheTTL,
		TaskTimeout: AsynqTimeout(attempt, cfg.AttemptGrace), Retention: cfg.CompletedRetention,
	})
	if err != nil {
		return nil, err
	}
	isolation := c.Isolation
	isolation.Slots = concurrency
	d, err := webhook.NewDeliverer(webhook.DelivererConfig{
		Registry: c.Registry, Clock: cfg.Clock, Logger: cfg.Logger, Metrics: metrics,
		AttemptTimeout: attempt, ConnectTimeout: c.ConnectTimeout, HeaderTimeout: c.HeaderTimeout,
		Isolation: isolation, Window: c.Window, RetryBase: c.RetryBase, RetryMax: c.RetryMax,
		DisableAfter: c.DisableAfter,
		AfterSend:    func(context.Context) error { return cfg.Faults.Hit(PointWebhookAfterSend) },
	})
	if err != nil {
		return nil, err
	}
	return &webhooks{notifier: n, deliverer: d, concurrency: concurrency}, nil
}

// relayNotifier is the relays' Notifier: nil (an untyped nil, so the relay
// sees none) when webhooks are off.
func (wh *webhooks) relayNotifier() outbox.Notifier {
	if wh == nil {
		return nil
	}
	return wh.notifier
}
