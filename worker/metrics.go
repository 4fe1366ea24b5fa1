package worker

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/relayops/relayops/admission"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/outbox"
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
	OutcomeHeld         = "held"          // model settings refused: attempt released uncounted; Asynq retries
)

var outcomes = []string{
	OutcomeSucceeded, OutcomeRetried, OutcomeDeadLettered, OutcomeCancelled,
	OutcomeDeduped, OutcomeStale, OutcomeNotFound, OutcomeRequeued, OutcomeHeld,
}

// Inference outcomes, the values of the outcome label of
// relayops_inference_seconds.
const (
	InferenceOK    = "ok"    // Extract returned a result
	InferenceError = "error" // Extract returned an error (or panicked)
)

// Histogram buckets, in seconds. Queue wait runs from a poll interval to
// minutes of backlog; inference from milliseconds (the rule-based default
// extractor) to the attempt timeout; end to end up to the default 24 h
// deadline.
var (
	queueWaitBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}
	inferenceBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}
	endToEndBuckets  = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400}
)

// Metrics holds every metric of a worker process. All of them are built in
// NewMetrics, so adding one (a histogram, say) touches this file only.
//
// Every per-job series is labelled by outcome and, only with tenantLabels,
// by tenant. Cluster-wide gauges (queue depths, outbox lag, DLQ size, the
// oldest active job) are the API's: served by every worker replica they
// would be duplicated.
type Metrics struct {
	// Registry holds the worker's collectors plus the process and Go
	// runtime collectors; Handler serves it.
	Registry *prometheus.Registry

	tenantLabels    bool
	jobs            *prometheus.CounterVec
	stages          *prometheus.CounterVec
	relayEvents     *prometheus.CounterVec
	relayErrors     *prometheus.CounterVec
	outboxTrimmed   prometheus.Counter
	publishes       *prometheus.CounterVec
	reconciled      *prometheus.CounterVec
	admission       *prometheus.CounterVec
	admissionSlots  prometheus.Gauge
	stuckActive     prometheus.Gauge
	faults          *prometheus.CounterVec
	queueWait       *prometheus.HistogramVec
	inference       *prometheus.HistogramVec
	endToEnd        *prometheus.HistogramVec
	recoveries      *prometheus.CounterVec
	commitConflicts *prometheus.CounterVec
	rejections      *prometheus.CounterVec
	modelCalls      *prometheus.CounterVec
	modelTokens     *prometheus.CounterVec
	modelRefused    prometheus.Gauge

	model modelState // the endpoint's view of this deployment's settings
}

// NewMetrics builds the worker's metrics on a fresh registry. With
// tenantLabels the per-job series also carry a tenant label (watch the
// cardinality: one series per tenant and outcome, times the buckets for a
// histogram).
func NewMetrics(tenantLabels bool) *Metrics {
	jobLabels := []string{"outcome"}
	tenantOnly := []string{}
	if tenantLabels {
		jobLabels = append(jobLabels, "tenant")
		tenantOnly = append(tenantOnly, "tenant")
	}
	m := &Metrics{
		Registry:     prometheus.NewRegistry(),
		tenantLabels: tenantLabels,
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_jobs_total",
			Help: "Extract handler invocations by outcome. deduped: the job was already committed (a redelivery, or a repeated commit); stale: another invocation holds the current fence.",
		}, jobLabels),
		stages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_stage_runs_total",
			Help: "Extractor stage calls by stage and result (ok, error); checkpointed stages are not called again.",
		}, []string{"stage", "result"}),
		relayEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_relay_events_total",
			Help: "Outbox rows handled by the relay, by event type and outcome.",
		}, []string{"type", "outcome"}),
		relayErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_relay_errors_total",
			Help: "Errors the relay met, by kind: no_group (an outbox stream or its consumer group vanished, Redis lost its data; re-created at once), redis (reading or acking a stream failed), publish (the Asynq enqueue failed), consume (the review consumer failed), trim.",
		}, []string{"kind"}),
		outboxTrimmed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relayops_outbox_trimmed_total",
			Help: "Acked outbox rows past RELAYOPS_RETENTION_OUTBOX removed by this worker's relay (the one retention sweep; everything else expires by TTL).",
		}),
		publishes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_relay_publish_total",
			Help: "Asynq enqueues of extract tasks by result (enqueued, already_enqueued, error).",
		}, []string{"result"}),
		reconciled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_reconciler_jobs_total",
			Help: "Stale jobs found by the reconciler, by action (republished, stuck_active, task_finished).",
		}, []string{"action"}),
		admission: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_admission_jobs_total",
			Help: "Tenant admission by this worker, by action: admitted (published to Asynq), cancelled (deadline passed while waiting), released (an ended job's slot freed by the prune: its worker died before releasing it), republished (admitted, still queued long after: published again).",
		}, []string{"action"}),
		admissionSlots: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relayops_admission_live_slots",
			Help: "The worker slots of every live worker process, as this worker's admission last read them: the tenants' in-flight caps are their shares of these slots (0: none registered, the configured caps apply).",
		}),
		stuckActive: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relayops_reconciler_stuck_active_tasks",
			Help: "Tasks found active without an Asynq lease in the last reconciler pass (asynq#1144); they need an operator.",
		}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_faults_fired_total",
			Help: "Injected faults that fired (RELAYOPS_FAULTS), by point and action.",
		}, []string{"point", "action"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relayops_queue_wait_seconds",
			Help:    "Per attempt: from when the job last became runnable (submitted, or scheduled for a retry) to its claim by a handler, by the attempt's outcome. Crash recoveries are not attempts and are not observed.",
			Buckets: queueWaitBuckets,
		}, jobLabels),
		inference: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relayops_inference_seconds",
			Help:    "Duration of the extract stage alone (the Extractor.Extract call), by outcome (ok, error); not observed when the stage is resumed from its checkpoint.",
			Buckets: inferenceBuckets,
		}, jobLabels),
		endToEnd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relayops_end_to_end_seconds",
			Help:    "From submission to the end of the job (succeeded = committed, dead_lettered, cancelled), observed once, by the handler invocation that ended it (its fenced write, or its claim: deadline passed before pickup, crash loop); redeliveries and repeated commits are not observed.",
			Buckets: endToEndBuckets,
		}, jobLabels),
		recoveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_crash_recoveries_total",
			Help: "Claims that found the job still running (its last handler crashed or lost its lease) and resumed it; a claim over the recovery cap dead-letters the job (crash_loop) instead.",
		}, tenantOnly),
		commitConflicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_worker_commit_conflicts_total",
			Help: "Commits refused because the job's payload hash differs from the one the attempt worked on (idempotency_conflict; the job is dead-lettered).",
		}, tenantOnly),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_jobs_rejected_total",
			Help: "Jobs dead-lettered because the document was rejected (errorCode permanent_error), by reason: a code of the fixed set (the job's errorReason), other for any other.",
		}, []string{"reason"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_model_calls_total",
			Help: "Calls to the model endpoint by model and outcome (ok, invalid_output, rate_limited, unavailable, timeout, unreachable, bad_request, unauthorized, not_found, cancelled). Re-asks after an invalid answer are calls.",
		}, []string{"model", "outcome"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayops_model_tokens_total",
			Help: "Tokens the model endpoint reported, by model and kind (prompt, completion): the cost of the model extractor.",
		}, []string{"model", "kind"}),
		modelRefused: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relayops_model_settings_refused",
			Help: "1 while the model endpoint's last answer to this worker refused its settings (401/403: API key; 404: model or URL): jobs wait uncounted, /readyz answers 503. 0 otherwise.",
		}),
	}
	m.Registry.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
		m.jobs, m.stages, m.relayEvents, m.relayErrors, m.outboxTrimmed, m.publishes, m.reconciled, m.stuckActive, m.faults,
		m.queueWait, m.inference, m.endToEnd, m.recoveries, m.commitConflicts,
		m.rejections, m.modelCalls, m.modelTokens, m.modelRefused, m.admission, m.admissionSlots,
	)
	for _, r := range append(extract.Reasons(), ReasonOther) {
		m.rejections.WithLabelValues(r)
	}
	for _, kind := range outbox.RelayErrorKinds {
		m.relayErrors.WithLabelValues(kind)
	}
	if !tenantLabels {
		for _, o := range outcomes {
			m.jobs.WithLabelValues(o)
		}
		m.recoveries.WithLabelValues()
		m.commitConflicts.WithLabelValues()
	}
	return m
}

// admissionStep counts what one tenant admission step did.
func (m *Metrics) admissionStep(r admission.StepReport) {
	for action, n := range map[string]int{"admitted": r.Admitted, "cancelled": r.Cancelled, "released": r.Released, "republished": r.Republished} {
		if n > 0 {
			m.admission.WithLabelValues(action).Add(float64(n))
		}
	}
	m.admissionSlots.Set(float64(r.Slots))
}

// labels are the label values of a per-job series: outcome (if any), then
// tenant when tenant labels are on.
func (m *Metrics) labels(tenant string, outcome ...string) []string {
	if m.tenantLabels {
		return append(outcome, tenant)
	}
	return outcome
}

func (m *Metrics) jobOutcome(tenant, outcome string) {
	m.jobs.WithLabelValues(m.labels(tenant, outcome)...).Inc()
}

func (m *Metrics) observeQueueWait(tenant, outcome string, d time.Duration) {
	m.queueWait.WithLabelValues(m.labels(tenant, outcome)...).Observe(seconds(d))
}

func (m *Metrics) observeInference(tenant, outcome string, d time.Duration) {
	m.inference.WithLabelValues(m.labels(tenant, outcome)...).Observe(seconds(d))
}

func (m *Metrics) observeEndToEnd(tenant, outcome string, d time.Duration) {
	m.endToEnd.WithLabelValues(m.labels(tenant, outcome)...).Observe(seconds(d))
}

func (m *Metrics) crashRecovered(tenant string) {
	m.recoveries.WithLabelValues(m.labels(tenant)...).Inc()
}

func (m *Metrics) commitConflict(tenant string) {
	m.commitConflicts.WithLabelValues(m.labels(tenant)...).Inc()
}

// seconds is d in seconds, never negative: durations between timestamps of
// different clocks (a script's "now" and this process's) can come out
// slightly below zero.
func seconds(d time.Duration) float64 { return max(d, 0).Seconds() }

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

// ListenError is New's error when the metrics address cannot be bound (a
// port in use, say); mains name the setting that chose it.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string {
	return "worker: metrics listen on " + e.Addr + ": " + e.Err.Error()
}
func (e *ListenError) Unwrap() error { return e.Err }

// metricsServer serves /metrics, /healthz and /readyz.
type metricsServer struct {
	srv    *http.Server
	ln     net.Listener
	logger *slog.Logger
}

// probes answer /healthz (liveness: the process answers and reaches Redis)
// and /readyz (the reason the worker cannot do its work, "" when it can).
type probes struct {
	health func(context.Context) error
	ready  func(context.Context) string
}

// metricsTimeouts bound every connection of the metrics server.
type metricsTimeouts struct {
	readHeader, read, write, idle time.Duration
}

// defaultMetricsTimeouts are the API server's: a client that stalls
// (sending headers, a body, or reading the answer) or leaves a keep-alive
// connection idle is disconnected, so slow or idle scrapers cannot hold
// connections and descriptors open.
var defaultMetricsTimeouts = metricsTimeouts{
	readHeader: 5 * time.Second, read: 30 * time.Second, write: 60 * time.Second, idle: 2 * time.Minute,
}

// listenMetrics binds addr at once, so a port clash fails start-up rather
// than a background goroutine. A non-empty token protects /metrics (not the
// probes) as a bearer token.
func listenMetrics(addr string, m *Metrics, p probes, token string, to metricsTimeouts, logger *slog.Logger) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ListenError{Addr: addr, Err: err}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", requireToken(token, m.Handler()))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := p.health(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if reason := p.ready(ctx); reason != "" {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": reason})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	return &metricsServer{
		srv: &http.Server{
			Handler: mux, ReadHeaderTimeout: to.readHeader, ReadTimeout: to.read, WriteTimeout: to.write, IdleTimeout: to.idle,
			ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		},
		ln:     ln,
		logger: logger,
	}, nil
}

// requireToken admits requests carrying "Authorization: Bearer <token>"
// (compared in constant time); an empty token admits every request.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Values("Authorization")
		if len(auth) > 1 {
			writeError(w, http.StatusBadRequest, "invalid_request", "send one Authorization header")
			return
		}
		scheme, got, _ := strings.Cut(strings.Join(auth, ""), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="relayops-metrics"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "/metrics needs the metrics bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeError answers with the API's error shape.
func writeError(w http.ResponseWriter, code int, errCode, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]string{"code": errCode, "message": msg}})
}

func writeJSON(w http.ResponseWriter, code int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
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

// outboxTrim counts outbox rows a relay trimmed.
func (m *Metrics) outboxTrim(_ int, n int64) { m.outboxTrimmed.Add(float64(n)) }

// relayError counts an error a relay met, by kind (outbox.RelayError*).
func (m *Metrics) relayError(kind string) { m.relayErrors.WithLabelValues(kind).Inc() }

// watchRelays exports how long ago the least recently progressing relay
// made progress (the figure /readyz compares with RelayStallTimeout). A
// Metrics shared by several workers watches the first one's relays.
func (m *Metrics) watchRelays(relays []*outbox.Relay, clk clock.Clock) {
	_ = m.Registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayops_relay_progress_age_seconds",
		Help: "Seconds since the relay of this worker that progressed least recently last made progress (a delivery, or a clean pass over an empty outbox); /readyz fails past RELAYOPS_RELAY_STALL_TIMEOUT.",
	}, func() float64 {
		now, age := clk.Now(), time.Duration(0)
		for _, r := range relays {
			age = max(age, now.Sub(r.Progress()))
		}
		return age.Seconds()
	}))
}

// readBudget is what the worker reads of its read stage's memory budget
// (document.Budget).
type readBudget interface {
	Total() int64
	Reserved() int64
	Waits() int64
}

// watchReadBudget exports the read stage's memory budget: its size, what
// is reserved now, and how many reservations waited for room. A Metrics
// shared by several workers watches the first one's.
func (m *Metrics) watchReadBudget(b readBudget) {
	_ = m.Registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayops_worker_read_memory_bytes",
		Help: "The read stage's memory budget (RELAYOPS_READ_MEMORY): what decoded pages, rendered pages and OCR processes may hold at once in this worker.",
	}, func() float64 { return float64(b.Total()) }))
	_ = m.Registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayops_worker_read_memory_reserved_bytes",
		Help: "Bytes of the read stage's memory budget reserved now, estimated from the documents' headers.",
	}, func() float64 { return float64(b.Reserved()) }))
	_ = m.Registry.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "relayops_worker_read_memory_waits_total",
		Help: "Reservations of read memory that waited for others to give theirs back (the budget was full).",
	}, func() float64 { return float64(b.Waits()) }))
}
