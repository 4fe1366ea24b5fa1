package webhook

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the webhook counters and histograms. A nil *Metrics records
// nothing.
type Metrics struct {
	published  *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	lag        prometheus.Histogram
	disabled   *prometheus.CounterVec
	deferrals  *prometheus.CounterVec
	circuits   prometheus.Counter
}

// Delivery outcomes, the outcome label of relayops_webhook_attempts_total:
// the Status* values, plus these two for attempts that sent nothing.
const (
	OutcomeEndpointDeleted = "endpoint_deleted" // the endpoint was deleted: the delivery ends
	OutcomeStoreError      = "store_error"      // Redis could not be read or written: Asynq retries
)

var attemptOutcomes = []string{StatusDelivered, StatusRetrying, StatusDead, StatusGone, StatusDisabled, OutcomeEndpointDeleted, OutcomeStoreError}

// NewMetrics registers the webhook metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		published: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_webhook_published_total",
			Help: "Webhook deliveries enqueued by the relay, by event type and outcome (enqueued; duplicate: a republished event, absorbed by its TaskID).",
		}, []string{"event", "outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: delivered, retrying, dead (retry window over), gone (410, endpoint disabled), disabled (not sent), endpoint_deleted, store_error.",
		}, []string{"outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relayops_webhook_attempt_seconds",
			Help:    "Time from sending a webhook request to its answer (or failure), by outcome.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 10),
		}, []string{"outcome"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "relayops_webhook_delivery_lag_seconds",
			Help:    "Time from an event's commit to the receiver's 2xx answer (first delivery of each event and endpoint, retries included).",
			Buckets: prometheus.ExponentialBuckets(0.005, 3, 12),
		}),
		disabled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_webhook_endpoints_disabled_total",
			Help: "Endpoints disabled by deliveries, by reason (gone, consecutive_failures).",
		}, []string{"reason"}),
		deferrals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_webhook_deferred_total",
			Help: "Webhook deliveries deferred without a request, holding no slot, by reason: circuit_open (the endpoint kept timing out), endpoint_busy (its in-flight cap), tenant_share (its tenant holds its share of the slots).",
		}, []string{"reason"}),
		circuits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relayops_webhook_circuit_opened_total",
			Help: "Times an endpoint's circuit opened: its attempts kept timing out (or a probe did), so its deliveries are deferred for a cooldown.",
		}),
	}
	for _, r := range []string{DeferCircuitOpen, DeferEndpointBusy, DeferTenantShare} {
		m.deferrals.WithLabelValues(r)
	}
	for _, o := range attemptOutcomes {
		m.deliveries.WithLabelValues(o)
	}
	for _, r := range []string{DisabledGone, DisabledConsecutiveFailures} {
		m.disabled.WithLabelValues(r)
	}
	reg.MustRegister(m.published, m.deliveries, m.latency, m.lag, m.disabled, m.deferrals, m.circuits)
	return m
}

func (m *Metrics) publish(event, outcome string) {
	if m != nil {
		m.published.WithLabelValues(event, outcome).Inc()
	}
}

func (m *Metrics) attempt(outcome string, seconds float64, sent bool) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(outcome).Inc()
	if sent {
		m.latency.WithLabelValues(outcome).Observe(seconds)
	}
}

func (m *Metrics) delivered(lagSeconds float64) {
	if m != nil {
		m.lag.Observe(lagSeconds)
	}
}

func (m *Metrics) disable(reason string) {
	if m != nil {
		m.disabled.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) deferred(reason string) {
	if m != nil {
		m.deferrals.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) circuitOpen() {
	if m != nil {
		m.circuits.Inc()
	}
}
