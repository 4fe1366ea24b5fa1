// Package api is relayops' HTTP API: job submission and status for tenants,
// reprocessing, the dead-letter queue, the audit trail and review decisions
// for operators, the operator console (package console, at /console/),
// health and readiness probes, Prometheus metrics and the OpenAPI document.
// The OpenAPI document (api/openapi.json, served at /openapi.json) is the
// contract, and the tests hold every answer against it.
//
// The server is an Echo application with a single error handler: every
// failure, from a malformed body to an unreachable Redis, answers
// {"error":{"code","message","requestId","fields"?}} with the status of the
// contract. Bad input never answers 5xx; an unreachable Redis answers 503
// unavailable within the store timeout, never a hang.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/pages"
	"github.com/relayops/relayops/quota"
	"github.com/relayops/relayops/supplier"
	"github.com/relayops/relayops/webhook"
)

// Rate is Count events per Per.
type Rate struct {
	Count int
	Per   time.Duration
}

// String returns the rate as Count/Per, e.g. "10/1m0s".
func (r Rate) String() string { return fmt.Sprintf("%d/%s", r.Count, r.Per) }

// Config configures a Server. Store is required; every other field has the
// default stated in its comment.
type Config struct {
	Store     *jobs.Store
	Tenants   []credential.Credential // tenant bearer tokens; Name is the tenant
	Operators []credential.Credential // operator bearer tokens; Name goes to the audit trail
	// Limits are stamped on every submitted job (a request's
	// deadlineSeconds overrides the deadline). Defaulted by
	// jobs.Limits.WithDefaults: the zero Limits is jobs.DefaultLimits.
	Limits jobs.Limits
	// BodyLimit bounds request bodies, and the text content of a
	// submission; larger ones answer 413. Default 1 MiB. A submission that
	// carries a file may be as large as a base64 file of MaxFileBytes.
	BodyLimit int64
	// MaxFileBytes bounds a submitted file (413 above it). Default 10 MiB.
	MaxFileBytes int64
	// MaxPages bounds a submitted PDF's pages when Pages can count them
	// (413 above it; the worker's read stage enforces its own limit too).
	// Default 50.
	MaxPages int
	// Pages counts a PDF's pages at intake and renders pages for the
	// console; nil: no page count at intake and no page images.
	Pages DocumentPages
	// PageRenders renders page images and counts pages for the console on
	// PDFium instances of its own, so that a submission's page count never
	// waits behind a render. Default: Pages does both.
	PageRenders DocumentPages
	// PageLimits bounds each caller's page renders and page counts (see
	// package pages); zero fields take the defaults stated there.
	PageLimits PageLimits
	// ReprocessRate is the per-tenant budget of reprocesses without
	// corrections (bulk retries after an outage or a fix). Default 10 per
	// minute.
	ReprocessRate Rate
	// CorrectionRate is the per-tenant budget of reprocesses with
	// corrections: a person's work, each judged before it counts, so its
	// bound is against a runaway script only. Default 120 per minute.
	CorrectionRate Rate
	// Policy is what the deployment books (RELAYOPS_ACCEPT_DOCUMENTS); the
	// worker must have the same. Default: every booked type.
	Policy extract.Policy
	// Suppliers serves the supplier profiles (/v1/suppliers); nil: the
	// routes answer 404.
	Suppliers *supplier.Store
	// AuthFailures is how many failed authentications one client address
	// (an IPv4 address or an IPv6 /64) may make per period before further
	// failures answer 429 until the period ends. Default 20 per minute.
	AuthFailures Rate
	// StoreTimeout bounds every store call of a request; past it the request
	// answers 503. Default 2s.
	StoreTimeout time.Duration
	// ClusterMetricsInterval is how long one collection of the cluster-wide
	// gauges of /metrics is served before a scrape collects again: scrapes
	// cost Redis at most one collection per interval. Default 10s.
	ClusterMetricsInterval time.Duration
	// ReadyTimeout bounds the Redis ping of /readyz. Default 1s.
	ReadyTimeout time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests. Default 10s.
	ShutdownTimeout time.Duration
	// Dashboard is mounted at /monitoring and /monitoring/* and sees the
	// full request path (build it with dashboard.DefaultRootPath); nil mounts
	// nothing. It does its own (operator) authentication.
	Dashboard http.Handler
	Logger    *slog.Logger         // default: discard
	Clock     clock.Clock          // default clock.Real{}
	Registry  *prometheus.Registry // default: a new one with Go and process collectors
	// Inspector reads Asynq's queues for the asynq_* series of /metrics (the
	// names asynqmon's charts query); nil exports none of them.
	Inspector *asynq.Inspector
	// Queues is the workers' number of extraction queues (task.Layout);
	// /metrics exports every one of them, even before its first task.
	// Default as the workers': task.ClusterQueues, capped at the store's
	// shards, when the store is on a Redis Cluster; 1 otherwise.
	Queues int
	// MetricsToken, when set, is the bearer token /metrics requires (for
	// deployments that expose the port). Default: /metrics is open.
	MetricsToken string
	// MetricsTenantLabels adds a tenant label to the per-job series
	// (submissions, reprocesses, review wait). Default false: mind the
	// cardinality.
	MetricsTenantLabels bool
	// Webhooks is the webhook endpoint registry (api/webhooks.go). Default:
	// one on the store's Redis with the safe target policy (https, public
	// addresses only).
	Webhooks *webhook.Registry
	// WebhookResender re-sends dead webhook deliveries; nil answers that
	// route 503.
	WebhookResender *webhook.Resender
	// Quota is the per-tenant submission quotas (its Store is this
	// Config's). The zero Quota limits nothing and costs nothing.
	Quota quota.Config
}

const (
	defaultBodyLimit       = 1 << 20
	defaultMaxFileBytes    = 10 << 20
	defaultMaxPages        = 50
	defaultStoreTimeout    = 2 * time.Second
	defaultReadyTimeout    = time.Second
	defaultShutdownTimeout = 10 * time.Second
)

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.WithDefaults()
	if c.BodyLimit == 0 {
		c.BodyLimit = defaultBodyLimit
	}
	if c.MaxFileBytes == 0 {
		c.MaxFileBytes = defaultMaxFileBytes
	}
	if c.MaxPages == 0 {
		c.MaxPages = defaultMaxPages
	}
	if c.ReprocessRate == (Rate{}) {
		c.ReprocessRate = Rate{Count: 10, Per: time.Minute}
	}
	if c.CorrectionRate == (Rate{}) {
		c.CorrectionRate = Rate{Count: 120, Per: time.Minute}
	}
	if c.AuthFailures == (Rate{}) {
		c.AuthFailures = Rate{Count: 20, Per: time.Minute}
	}
	if c.StoreTimeout == 0 {
		c.StoreTimeout = defaultStoreTimeout
	}
	if c.ClusterMetricsInterval == 0 {
		c.ClusterMetricsInterval = defaultClusterMetricsInterval
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = defaultReadyTimeout
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = defaultShutdownTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Webhooks == nil && c.Store != nil {
		c.Webhooks, _ = webhook.NewRegistry(webhook.RegistryConfig{Redis: c.Store.Redis(), Clock: c.Clock})
	}
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
		c.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("api: Config.Store is required"))
	}
	if c.Limits.MaxAttempts < 1 || c.Limits.MaxRecoveries < 0 {
		errs = append(errs, errors.New("api: Config.Limits: MaxAttempts must be >= 1 and MaxRecoveries >= 0"))
	}
	if c.Limits.Deadline < time.Second || c.Limits.Deadline%time.Second != 0 {
		errs = append(errs, errors.New("api: Config.Limits.Deadline must be whole seconds, at least 1s"))
	}
	if c.BodyLimit < 1 {
		errs = append(errs, errors.New("api: Config.BodyLimit must be positive"))
	}
	if c.MaxFileBytes < 1 || c.MaxPages < 1 {
		errs = append(errs, errors.New("api: Config.MaxFileBytes and Config.MaxPages must be positive"))
	}
	if c.ReprocessRate.Count < 1 || c.ReprocessRate.Per <= 0 {
		errs = append(errs, errors.New("api: Config.ReprocessRate must be a positive count per positive duration"))
	}
	if c.CorrectionRate.Count < 1 || c.CorrectionRate.Per <= 0 {
		errs = append(errs, errors.New("api: Config.CorrectionRate must be a positive count per positive duration"))
	}
	if c.AuthFailures.Count < 1 || c.AuthFailures.Per <= 0 {
		errs = append(errs, errors.New("api: Config.AuthFailures must be a positive count per positive duration"))
	}
	errs = append(errs, checkTokens("Tenants", c.Tenants), checkTokens("Operators", c.Operators))
	if c.StoreTimeout < 0 || c.ReadyTimeout < 0 || c.ShutdownTimeout < 0 || c.ClusterMetricsInterval < 0 {
		errs = append(errs, errors.New("api: Config timeouts and ClusterMetricsInterval must not be negative"))
	}
	return errors.Join(errs...)
}

// checkTokens refuses tokens shorter than credential.MinTokenLength, naming the
// entry but never quoting the token.
func checkTokens(field string, creds []credential.Credential) error {
	var errs []error
	for i, c := range creds {
		if len(c.Token) < credential.MinTokenLength {
			errs = append(errs, fmt.Errorf("api: Config.%s[%d] (%s): token must be at least %d characters, got %d",
				field, i, c.Name, credential.MinTokenLength, len(c.Token)))
		}
	}
	return errors.Join(errs...)
}

// Server is the HTTP API. Create it with New.
type Server struct {
	cfg          Config
	log          *slog.Logger
	store        *jobs.Store
	auth         *authenticator
	limiter      *reprocessLimiter
	corrector    *reprocessLimiter // reprocesses with corrections
	metrics      *metrics
	collector    *clusterCollector
	authThrottle *authThrottle
	quota        *quota.Limiter // nil: no quota set
	pages        *pages.Gate    // nil: no PDF reader (Config.Pages)
	console      http.Handler
	echo         *echo.Echo
}

// New validates cfg and builds the server and its routes.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(cfg.Registry, cfg.MetricsTenantLabels)
	if err != nil {
		return nil, err
	}
	col := newClusterCollector(cfg.Store, cfg.Inspector, cfg.Clock, cfg.StoreTimeout, cfg.ClusterMetricsInterval, cfg.Logger)
	col.queues = extractQueues(cfg.Queues, cfg.Store)
	col.quotas = cfg.Quota.Enabled()
	if err := cfg.Registry.Register(col); err != nil {
		return nil, fmt.Errorf("api: register cluster metrics: %w", err)
	}
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		store:     cfg.Store,
		auth:      newAuthenticator(cfg.Tenants, cfg.Operators),
		limiter:   newReprocessLimiter(cfg.Store.Redis(), cfg.Clock, cfg.ReprocessRate, "reprocess"),
		corrector: newReprocessLimiter(cfg.Store.Redis(), cfg.Clock, cfg.CorrectionRate, "correction"),
		metrics:   m,
		collector: col,

		authThrottle: newAuthThrottle(cfg.AuthFailures, cfg.Clock),
	}
	if cfg.Quota.Enabled() {
		q := cfg.Quota
		q.Store = cfg.Store
		if q.Clock == nil {
			q.Clock = cfg.Clock
		}
		if q.Logger == nil {
			q.Logger = s.log
		}
		if s.quota, err = quota.New(q); err != nil {
			return nil, fmt.Errorf("api: Config.Quota: %w", err)
		}
	}
	if s.pages, err = newPageGate(cfg); err != nil {
		return nil, err
	}
	if s.console, err = s.newConsole(); err != nil {
		return nil, err
	}
	s.echo = s.routes()
	return s, nil
}

// Handler returns the server's http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

// routes builds the Echo application; api/openapi.json lists every route.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = echo.ExtractIPDirect() // X-Forwarded-For is the client's to forge
	e.HTTPErrorHandler = s.handleError
	e.Use(s.withRequestID, s.observe, s.recoverPanics)

	tenant := s.authenticate(roleTenant)
	operator := s.authenticate(roleOperator)
	anyone := s.authenticate(roleTenant, roleOperator)
	// Routes that read a body decode its Content-Encoding, once the caller
	// is authenticated (no decompression for strangers).
	body := s.decodeContent

	e.POST("/v1/jobs", s.submit, tenant, body)
	e.GET("/v1/jobs", s.listJobs, anyone)
	e.GET("/v1/jobs/:jobId", s.getJob, anyone)
	e.GET("/v1/jobs/:jobId/document", s.getDocument, anyone)
	e.GET("/v1/jobs/:jobId/document/pages/:page", s.getDocumentPage, anyone)
	e.POST("/v1/jobs/:jobId/reprocess", s.reprocess, operator, body)
	e.GET("/v1/reviews", s.listReviews, anyone)
	e.GET("/v1/reviews/:jobId", s.getReview, anyone)
	e.POST("/v1/reviews/:jobId/decision", s.decide, operator, body)
	e.GET("/v1/dlq", s.listDLQ, operator)
	e.GET("/v1/audit", s.listAudit, operator)
	e.POST("/v1/webhooks", s.createWebhook, operator, body)
	e.GET("/v1/webhooks", s.listWebhooks, anyone)
	e.GET("/v1/webhooks/:id", s.getWebhook, anyone)
	e.DELETE("/v1/webhooks/:id", s.deleteWebhook, operator)
	e.POST("/v1/webhooks/:id/rotate", s.rotateWebhook, operator)
	e.GET("/v1/webhooks/:id/deliveries", s.webhookDeliveries, anyone)
	e.POST("/v1/webhooks/:id/deliveries/:webhookId/resend", s.resendWebhook, operator, body)
	e.GET("/v1/tenants", s.listTenants, operator)
	if s.cfg.Suppliers != nil {
		e.GET("/v1/suppliers", s.listSuppliers, anyone)
		e.GET("/v1/suppliers/:supplierId", s.getSupplier, anyone)
		e.DELETE("/v1/suppliers/:supplierId", s.deleteSupplier, operator)
	}

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(s.metrics.handler(s.cfg.Registry)), s.metricsAuth())
	e.GET("/openapi.json", serveOpenAPI)
	// The operator console: HTML pages, not part of the JSON API.
	con := echo.WrapHandler(s.console)
	e.Any("/console", con)
	e.Any("/console/*", con)
	if s.cfg.Dashboard != nil {
		h := echo.WrapHandler(s.cfg.Dashboard)
		e.Any("/monitoring", h)
		e.Any("/monitoring/*", h)
	}
	return e
}

// Run serves on addr until ctx is done, then shuts down gracefully: it stops
// accepting connections and waits up to ShutdownTimeout for in-flight
// requests.
func (s *Server) Run(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("api: listen %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on an existing listener, which it closes.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.log.Info("listening", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(jsonErrorListener{ln}) }()
	select {
	case err := <-errc:
		return fmt.Errorf("api: serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("api: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("api: serve: %w", err)
	}
	return nil
}

// storeCtx bounds one store call of a request.
func (s *Server) storeCtx(c echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), s.cfg.StoreTimeout)
}

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when Redis answers a ping within ReadyTimeout.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.ReadyTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "the job store is unavailable", Err: err}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
