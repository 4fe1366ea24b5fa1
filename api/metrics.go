package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Submission outcomes, the values of relayops_submissions_total{outcome}.
const (
	outcomeCreated  = "created"
	outcomeDeduped  = "deduped"
	outcomeConflict = "conflict"
	outcomeInvalid  = "invalid"
)

// metrics are the API's Prometheus series. Labels are bounded: route is a
// route template, never a raw path.
type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	submissions *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) (*metrics, error) {
	m := &metrics{
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
			Help: "Job submissions by outcome: created, deduped, conflict, invalid.",
		}, []string{"outcome"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.submissions} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("api: register metrics: %w", err)
		}
	}
	for _, o := range []string{outcomeCreated, outcomeDeduped, outcomeConflict, outcomeInvalid} {
		m.submissions.WithLabelValues(o) // export zeros, so rates exist from the start
	}
	return m, nil
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	method = methodLabel(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

func (m *metrics) submitted(outcome string) { m.submissions.WithLabelValues(outcome).Inc() }

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
