package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/relayops/relayops/jobs"
)

// Submission outcomes, the values of relayops_submissions_total{outcome}.
const (
	outcomeCreated   = "created"
	outcomeDeduped   = "deduped"
	outcomeConflict  = "conflict"
	outcomeInvalid   = "invalid"
	outcomeOverQuota = "over_quota" // refused by a tenant quota (429)
)

// Reprocess outcomes, the values of relayops_reprocesses_total{outcome}.
const (
	reprocessCreated  = "created"
	reprocessRepeat   = "repeat"
	reprocessConflict = "conflict"
)

// reviewWaitBuckets run from seconds to a week, in seconds: reviews are
// decided by people.
var reviewWaitBuckets = []float64{1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400, 172800, 345600, 604800}

// metrics are the API's Prometheus series. Labels are bounded: route is a
// route template, never a raw path; tenant appears only with tenantLabels.
type metrics struct {
	tenantLabels bool
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	submissions  *prometheus.CounterVec
	reprocesses  *prometheus.CounterVec
	reviewWait   *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry, tenantLabels bool) (*metrics, error) {
	perJob := []string{"outcome"}
	if tenantLabels {
		perJob = append(perJob, "tenant")
	}
	m := &metrics{
		tenantLabels: tenantLabels,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "relayops", Name: "http_requests_total",
			Help: "HTTP requests answered, by route template, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "relayops", Name: "http_request_duration_seconds",
			Help:    "HTTP request latency by route template and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		submissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "relayops", Name: "submissions_total",
			Help: "Job submissions by outcome: created, deduped (same key, same payload: the existing job is answered), conflict (same key, different payload: 409 idempotency_conflict), invalid, over_quota (refused by a tenant quota: 429).",
		}, perJob),
		reprocesses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "relayops", Name: "reprocesses_total",
			Help: "Operator reprocess calls the store answered, by outcome: created (a new job version), repeat (the same call again: the job it created is answered), conflict (a repeat with other content: 409 idempotency_conflict).",
		}, perJob),
		reviewWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "relayops", Name: "review_wait_seconds",
			Help:    "From a review's creation (the job's extraction.committed event applied) to its decision, by outcome (approved, rejected); observed when a decision is first recorded, not for a repeat.",
			Buckets: reviewWaitBuckets,
		}, perJob),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.submissions, m.reprocesses, m.reviewWait} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("api: register metrics: %w", err)
		}
	}
	if !tenantLabels { // export zeros, so rates exist from the start
		for _, o := range []string{outcomeCreated, outcomeDeduped, outcomeConflict, outcomeInvalid, outcomeOverQuota} {
			m.submissions.WithLabelValues(o)
		}
		for _, o := range []string{reprocessCreated, reprocessRepeat, reprocessConflict} {
			m.reprocesses.WithLabelValues(o)
		}
	}
	return m, nil
}

// labels are the label values of a per-job series: outcome, then tenant
// when tenant labels are on.
func (m *metrics) labels(tenant, outcome string) []string {
	if m.tenantLabels {
		return []string{outcome, tenant}
	}
	return []string{outcome}
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	method = methodLabel(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

func (m *metrics) submitted(tenant, outcome string) {
	m.submissions.WithLabelValues(m.labels(tenant, outcome)...).Inc()
}

func (m *metrics) reprocessed(tenant, outcome string) {
	m.reprocesses.WithLabelValues(m.labels(tenant, outcome)...).Inc()
}

// decided observes a review's wait once its decision is first recorded.
func (m *metrics) decided(tenant string, r *jobs.Review) {
	wait := max(r.DecidedAt.Sub(r.CreatedAt), 0)
	m.reviewWait.WithLabelValues(m.labels(tenant, r.Status)...).Observe(wait.Seconds())
}

func (m *metrics) handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// methodLabel bounds the method label: a client may send any token.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
