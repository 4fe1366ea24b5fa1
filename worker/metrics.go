package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Job outcomes, the values of the outcome label of relayops_worker_jobs_total.
// Each handler invocation ends with exactly one.
const (
	OutcomeSucceeded    = "succeeded"     // committed by this invocation
	OutcomeRetried      = "retried"       // transient failure recorded; Asynq retries
	OutcomeDeadLettered = "dead_lettered" // dead-lettered (or redelivered dead-lettered)
	OutcomeCancelled    = "cancelled"     // deadline passed (or redelivered cancelled)
	OutcomeDeduped      = "deduped"       // already succeeded: a redelivery or a repeated commit
	OutcomeStale        = "stale"         // another invocation owns the job (newer fence)
	OutcomeNotFound     = "not_found"     // the task names no job
	OutcomeRequeued     = "requeued"      // nothing recorded (store unreachable); Asynq retries
)

var outcomes = []string{
	OutcomeSucceeded, OutcomeRetried, OutcomeDeadLettered, OutcomeCancelled,
	OutcomeDeduped, OutcomeStale, OutcomeNotFound, OutcomeRequeued,
}

// Metrics holds every metric of a worker process. All of them are built in
// NewMetrics, so adding one (a histogram, say) touches this file only.
type Metrics struct {
	// Registry holds the worker's collectors plus the process and Go
	// runtime collectors; Handler serves it.
	Registry *prometheus.Registry

	tenantLabels bool
	jobs         *prometheus.CounterVec
	stages       *prometheus.CounterVec
	relayEvents  *prometheus.CounterVec
	publishes    *prometheus.CounterVec
	reconciled   *prometheus.CounterVec
	stuckActive  prometheus.Gauge
	faults       *prometheus.CounterVec
}

// NewMetrics builds the worker's metrics on a fresh registry. With
// tenantLabels the job counter also carries a tenant label (watch the
// cardinality: one series per tenant and outcome).
func NewMetrics(tenantLabels bool) *Metrics {
	jobLabels := []string{"outcome"}
	if tenantLabels {
		jobLabels = append(jobLabels, "tenant")
	}
	m := &Metrics{
		Registry:     prometheus.NewRegistry(),
		tenantLabels: tenantLabels,
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_jobs_total",
			Help: "Extract handler invocations by outcome.",
		}, jobLabels),
		stages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_stage_runs_total",
			Help: "Extractor stage calls by stage and result (ok, error); checkpointed stages are not called again.",
		}, []string{"stage", "result"}),
		relayEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_relay_events_total",
			Help: "Outbox rows handled by the relay, by event type and outcome.",
		}, []string{"type", "outcome"}),
		publishes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_relay_publish_total",
			Help: "Asynq enqueues of extract tasks by result (enqueued, already_enqueued, error).",
		}, []string{"result"}),
		reconciled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_reconciler_jobs_total",
			Help: "Stale jobs found by the reconciler, by action (republished, stuck_active, task_finished).",
		}, []string{"action"}),
		stuckActive: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relayops_reconciler_stuck_active_tasks",
			Help: "Tasks found active without an Asynq lease in the last reconciler pass (asynq#1144); they need an operator.",
		}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_faults_fired_total",
			Help: "Injected faults that fired (RELAYOPS_FAULTS), by point and action.",
		}, []string{"point", "action"}),
	}
	m.Registry.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
		m.jobs, m.stages, m.relayEvents, m.publishes, m.reconciled, m.stuckActive, m.faults,
	)
	if !tenantLabels {
		for _, o := range outcomes {
			m.jobs.WithLabelValues(o)
		}
	}
	return m
}

func (m *Metrics) jobOutcome(tenant, outcome string) {
	if m.tenantLabels {
		m.jobs.WithLabelValues(outcome, tenant).Inc()
		return
	}
	m.jobs.WithLabelValues(outcome).Inc()
}

func (m *Metrics) stageRun(stage string, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.stages.WithLabelValues(stage, result).Inc()
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// metricsServer serves /metrics and /healthz.
type metricsServer struct {
	srv    *http.Server
	ln     net.Listener
	logger *slog.Logger
}

// listenMetrics binds addr at once, so a port clash fails start-up rather
// than a background goroutine. health answers /healthz.
func listenMetrics(addr string, m *Metrics, health func(context.Context) error, logger *slog.Logger) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("worker: metrics listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		status, code := "ok", http.StatusOK
		if err := health(ctx); err != nil {
			status, code = "unavailable", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": status})
	})
	return &metricsServer{
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		ln:     ln,
		logger: logger,
	}, nil
}

// Addr is the bound address (useful with port 0).
func (s *metricsServer) Addr() string { return s.ln.Addr().String() }

func (s *metricsServer) serve() error {
	s.logger.Info("metrics listening", "addr", s.Addr())
	if err := s.srv.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("worker: metrics server: %w", err)
	}
	return nil
}

func (s *metricsServer) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
}
