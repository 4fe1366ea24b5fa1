// Package worker runs relayops' extraction jobs: the Asynq server and its
// extract handler (claim → classify → extract → validate, expensive stages
// checkpointed → commit) around any extract.Extractor, error
// classification, the outbox relay with its Asynq publisher, the
// reconciler, fault injection and the worker's metrics. It knows nothing of
// invoice fields. Any number of worker processes share one Redis.
package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/relayops/relayops/admission"
	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
	"github.com/relayops/relayops/supplier"
)

// claimer is the relays' Claimer: nil (an untyped nil, so the relay sees
// none) without a supplier store; with one, each batch's claim passes the
// fault point after it.
func claimer(s *supplier.Store, f *Faults) outbox.Claimer {
	if s == nil {
		return nil
	}
	return faultyClaimer{s: s, faults: f}
}

type faultyClaimer struct {
	s      *supplier.Store
	faults *Faults
}

func (c faultyClaimer) ClaimEvents(ctx context.Context, evs []jobs.Event) error {
	if err := c.s.ClaimEvents(ctx, evs); err != nil {
		return err
	}
	return c.faults.Hit(PointAfterFingerprint)
}

// Config configures a Worker. Zero fields take the stated defaults, which
// match the README's configuration table (internal/app maps the
// environment onto them).
type Config struct {
	// Store is the job store (its Redis client must not retry). Required.
	Store *jobs.Store
	// Redis is Asynq's connection: an ordinary client (Asynq's own scripts
	// are safe to retry), separate from the store's. Required.
	Redis redis.UniversalClient
	// Extractor runs the stages. Default rules.Rules{}.
	Extractor extract.Extractor
	// Reader is the read stage (HandlerConfig.Reader). Default: text and
	// XML e-invoices only.
	Reader DocumentReader
	// VisibleTotal checks a hybrid PDF's visible total (HandlerConfig).
	VisibleTotal VisibleTotal
	// Policy is what the deployment books (HandlerConfig).
	Policy extract.Policy
	// Suppliers claims the duplicate fingerprints of committed documents
	// before their reviews are created; nil: no duplicate check.
	Suppliers *supplier.Store
	// Memory reads documents with their supplier's profile and learns the
	// profiles from corrections and approvals; nil: no supplier memory.
	Memory Memory
	// Vision reads scans' page images (HandlerConfig.Vision).
	Vision Vision
	// Faults injects failures (tests and chaos only); nil injects none.
	Faults *Faults
	// Logger is the base logger; each part adds its component. Default:
	// discard.
	Logger *slog.Logger
	// Clock is the source of "now". Default clock.Real{}.
	Clock clock.Clock
	// Metrics collects the worker's metrics. Default
	// NewMetrics(MetricsTenantLabels).
	Metrics *Metrics

	// Concurrency is the number of tasks run at once. Default 20.
	Concurrency int
	// Servers is how many Asynq servers share Concurrency and
	// TaskCheckInterval (each polls every Servers × TaskCheckInterval, so
	// the worker polls as often in all). An Asynq server fetches its tasks
	// one round trip at a time, in one goroutine that waits behind the
	// handlers for a CPU under load; two fetch about a fifth more jobs per
	// second per worker, at less CPU per job. Default DefaultServers (at
	// most Concurrency); 1..Concurrency.
	Servers int
	// Queues is the number of Asynq queues extraction tasks are spread
	// over (task.Layout): the task of shard s goes to queue s mod Queues,
	// and the worker serves every queue with the same weight. It must match
	// across the workers of a deployment and not exceed the store's shards.
	// Default (task.NewLayout): task.ClusterQueues, capped at the store's
	// shards, when Redis is a *redis.ClusterClient; 1 otherwise.
	Queues int
	// AttemptTimeout bounds one attempt. Default 5m.
	AttemptTimeout time.Duration
	// AttemptGrace is how much longer Asynq waits for a handler than the
	// attempt may run, so it never redelivers beside a live handler.
	// Default 10s.
	AttemptGrace time.Duration
	// RetryBase and RetryMax shape the retry backoff. Default 1s and 5m.
	RetryBase, RetryMax time.Duration
	// TaskCheckInterval is how often an idle worker polls Asynq. Asynq
	// offers no wake-up, so this bounds how long a published task waits to
	// be picked up; an idle poll costs Redis 3 commands per queue served
	// (docs/architecture.md, Performance). Default: PollPerQueue times the
	// layout's queues, at least 5ms — 5ms on one Redis, 40ms with a
	// cluster's 16 queues — so the idle cost stays about the same however
	// many queues there are. Webhook deliveries have a server of their own
	// (polling every 50ms).
	TaskCheckInterval time.Duration
	// DelayedTaskCheckInterval is how often due retries are moved to
	// pending. Default 1s.
	DelayedTaskCheckInterval time.Duration
	// ShutdownTimeout is how long Shutdown waits for running handlers
	// before Asynq requeues them. Default 25s (inside a typical 30 s
	// termination grace, leaving time to drain the relay).
	ShutdownTimeout time.Duration
	// DrainTimeout bounds the relay drain at shutdown. Default 10s.
	DrainTimeout time.Duration
	// Limits are the job limits of this deployment; MaxAttempts and
	// MaxRecoveries set Asynq's MaxRetry, which only has to be large enough
	// (the job record decides). Defaulted by jobs.Limits.WithDefaults: the
	// zero Limits is jobs.DefaultLimits.
	Limits jobs.Limits
	// CompletedRetention keeps completed Asynq tasks so their TaskIDs absorb
	// republishes. Default 24h.
	CompletedRetention time.Duration
	// TenantMaxInFlight caps each tenant's jobs enqueued or running (fair
	// admission, package admission); TenantLimits overrides it per tenant.
	// With every cap 0 (the zero Config) there is no admission: the relay
	// publishes straight to Asynq.
	TenantMaxInFlight int
	TenantLimits      map[string]int

	// Relays is the number of relays this process runs. They share the
	// outbox consumer group, which hands each row to one of them. Each relay
	// reads every shard in its own loop (a blocking read), so one relay
	// already publishes as many rows in parallel as there are shards.
	// Default 1.
	Relays int
	// RelayReadRedis, if set, serves the relays' blocking reads (one
	// connection per shard and relay, held while a shard is idle). Default:
	// each relay makes its own client from the store client's options
	// (outbox.RelayConfig.ReadRedis).
	RelayReadRedis redis.UniversalClient
	// RelayConsumer prefixes the relays' consumer names in the outbox
	// consumer group ("<prefix>-r<i>"); it must be unique among live
	// processes. Default hostname-pid.
	RelayConsumer string
	// OnRelayEvent, if set, is told every relay outcome (after metrics).
	OnRelayEvent func(ev jobs.Event, outcome string)
	// RelayStallTimeout is how long a relay may go without progress (a
	// delivery, or a clean pass over an empty outbox) before /readyz says
	// the worker is not ready. Default 1m, longer than the 45 s a failed
	// delivery may wait for its retry.
	RelayStallTimeout time.Duration

	// ReconcileInterval and ReconcileThreshold drive the reconciler.
	// Defaults 1m and max(10m, AttemptTimeout+AttemptGrace+1m, RetryMax+1m).
	ReconcileInterval, ReconcileThreshold time.Duration

	// MetricsAddr is where /metrics, /healthz and /readyz are served; ""
	// serves nothing.
	MetricsAddr string
	// MetricsToken, when set, is the bearer token /metrics requires (the
	// probes need none). Default: /metrics is open.
	MetricsToken string
	// MetricsTenantLabels adds a tenant label to the per-job series (the job
	// counter, the histograms, recoveries and commit conflicts).
	MetricsTenantLabels bool

	// Webhooks, if set, delivers webhook events (worker/webhook.go).
	Webhooks *WebhookConfig
}

// PollPerQueue is the default TaskCheckInterval per queue a worker serves
// (see DefaultTaskCheckInterval).
const PollPerQueue = 2500 * time.Microsecond

// DefaultTaskCheckInterval is the default TaskCheckInterval of a worker
// serving queues Asynq queues: Asynq's idle poll runs its dequeue script
// once per queue, so the interval grows with the queues (PollPerQueue each,
// at least 5ms) and an idle worker costs Redis about the same however many
// queues the layout has.
func DefaultTaskCheckInterval(queues int) time.Duration {
	return max(5*time.Millisecond, time.Duration(queues)*PollPerQueue)
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Extractor == nil {
		c.Extractor = rules.Rules{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(c.MetricsTenantLabels)
	}
	if c.Concurrency == 0 {
		c.Concurrency = 20
	}
	if c.Servers == 0 {
		c.Servers = min(DefaultServers, c.Concurrency)
	}
	if c.Relays == 0 {
		c.Relays = 1
	}
	if c.Queues == 0 && c.Store != nil {
		_, cluster := c.Redis.(*redis.ClusterClient)
		c.Queues = task.NewLayout(0, c.Store.Shards(), cluster).Queues
	}
	if c.RelayConsumer == "" {
		host, _ := os.Hostname()
		c.RelayConsumer = host + "-" + strconv.Itoa(os.Getpid())
	}
	def(&c.AttemptTimeout, 5*time.Minute)
	def(&c.AttemptGrace, defaultGrace)
	def(&c.RetryBase, time.Second)
	def(&c.RetryMax, 5*time.Minute)
	if c.TaskCheckInterval == 0 {
		c.TaskCheckInterval = DefaultTaskCheckInterval(c.Queues)
	}
	def(&c.DelayedTaskCheckInterval, time.Second)
	def(&c.ShutdownTimeout, 25*time.Second)
	def(&c.DrainTimeout, 10*time.Second)
	def(&c.CompletedRetention, 24*time.Hour)
	def(&c.RelayStallTimeout, time.Minute)
	def(&c.ReconcileInterval, time.Minute)
	def(&c.ReconcileThreshold, max(10*time.Minute, c.AttemptTimeout+c.AttemptGrace+time.Minute, c.RetryMax+time.Minute))
	c.Limits = c.Limits.WithDefaults()
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("worker: Config.Store is required"))
	}
	if c.Redis == nil {
		errs = append(errs, errors.New("worker: Config.Redis is required"))
	}
	if c.Servers < 1 || c.Servers > c.Concurrency {
		errs = append(errs, fmt.Errorf("worker: Config.Servers must be 1..Config.Concurrency (%d), got %d", c.Concurrency, c.Servers))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("worker: Config.Concurrency must be positive, got %d", c.Concurrency))
	}
	if c.Relays < 1 {
		errs = append(errs, fmt.Errorf("worker: Config.Relays must be positive, got %d", c.Relays))
	}
	if c.Queues < 1 || (c.Store != nil && c.Queues > c.Store.Shards()) {
		errs = append(errs, fmt.Errorf("worker: Config.Queues must be 1..the store's shards, got %d", c.Queues))
	}
	if c.AttemptTimeout < time.Second {
		errs = append(errs, fmt.Errorf("worker: Config.AttemptTimeout must be at least 1s, got %s", c.AttemptTimeout))
	}
	if c.RetryBase <= 0 || c.RetryMax < c.RetryBase {
		errs = append(errs, fmt.Errorf("worker: Config.RetryBase must be positive and RetryMax at least RetryBase, got %s and %s", c.RetryBase, c.RetryMax))
	}
	if c.Limits.MaxAttempts < 1 || c.Limits.MaxRecoveries < 0 {
		errs = append(errs, errors.New("worker: Config.Limits.MaxAttempts must be positive and Limits.MaxRecoveries not negative"))
	}
	if c.AttemptGrace < 0 || c.TaskCheckInterval < 0 || c.DelayedTaskCheckInterval < 0 || c.ShutdownTimeout < 0 || c.DrainTimeout < 0 || c.RelayStallTimeout < 0 {
		errs = append(errs, errors.New("worker: Config durations must not be negative"))
	}
	return errors.Join(errs...)
}

// Worker is one worker process: the Asynq server running the extract
// handler, the outbox relay (with the review consumer in-process), the
// reconciler and the metrics endpoint.
type Worker struct {
	cfg     Config
	log     *slog.Logger
	handler *Handler
	servers []*asynq.Server // the extraction servers (Config.Servers)
	// webhookServer runs webhook deliveries (nil without webhooks).
	webhookServer *asynq.Server
	client        *asynq.Client
	inspector     *asynq.Inspector
	relays        []*outbox.Relay
	admitter      *admission.Admitter // nil: admission off
	reconciler    *Reconciler
	metrics       *metricsServer
	webhooks      *webhooks
}

// New checks cfg and builds a Worker. It binds the metrics address at once,
// so a port in use fails here.
func New(cfg Config) (*Worker, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, log: cfg.Logger.With("component", "worker")}
	if cfg.Faults.Enabled() {
		cfg.Faults.OnFire(func(point, action string) {
			cfg.Metrics.faults.WithLabelValues(point, action).Inc()
			w.log.Warn("FAULT INJECTED", "point", point, "action", action)
		})
	}
	if err := w.build(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Worker) build() error {
	cfg := w.cfg
	var err error
	w.handler, err = NewHandler(HandlerConfig{
		Store: cfg.Store, Extractor: cfg.Extractor, Reader: cfg.Reader, VisibleTotal: cfg.VisibleTotal, Vision: cfg.Vision, Policy: cfg.Policy,
		Memory: cfg.Memory, Faults: cfg.Faults, Clock: cfg.Clock,
		Logger: cfg.Logger.With("component", "worker.handler"), Metrics: cfg.Metrics,
		AttemptTimeout: cfg.AttemptTimeout, OnEnd: w.release,
	})
	if err != nil {
		return err
	}
	if r, ok := cfg.Reader.(interface{ Budget() *document.Budget }); ok {
		cfg.Metrics.watchReadBudget(r.Budget())
	}
	w.client = asynq.NewClientFromRedisClient(cfg.Redis)
	publisher, err := NewPublisher(PublisherConfig{
		Redis: cfg.Redis, Layout: w.layout(), MaxRetry: MaxRetry(cfg.Limits.MaxAttempts, cfg.Limits.MaxRecoveries),
		Timeout: AsynqTimeout(cfg.AttemptTimeout, cfg.AttemptGrace), Retention: cfg.CompletedRetention,
		Faults: cfg.Faults, Metrics: cfg.Metrics,
	})
	if err != nil {
		return err
	}
	if w.webhooks, err = w.buildWebhooks(); err != nil {
		return err
	}
	var pub outbox.Publisher = publisher
	if admission.Enabled(cfg.TenantMaxInFlight, cfg.TenantLimits) {
		w.admitter, err = admission.New(admission.Config{
			Store: cfg.Store, Publisher: publisher, MaxInFlight: cfg.TenantMaxInFlight, Limits: cfg.TenantLimits,
			Slots: cfg.Concurrency, Clock: cfg.Clock, Logger: cfg.Logger, OnStep: cfg.Metrics.admissionStep,
		})
		if err != nil {
			return err
		}
		pub = w.admitter
	}
	for i := range cfg.Relays {
		r, err := outbox.NewRelay(outbox.RelayConfig{
			Store: cfg.Store, Publisher: pub, Notifier: w.notifier(), Claimer: claimer(cfg.Suppliers, cfg.Faults),
			Consumer: fmt.Sprintf("%s-r%d", cfg.RelayConsumer, i),
			Logger:   cfg.Logger, Clock: cfg.Clock, OnEvent: w.onRelayEvent, OnTrim: cfg.Metrics.outboxTrim,
			OnError: cfg.Metrics.relayError, ReadRedis: cfg.RelayReadRedis,
		})
		if err != nil {
			return err
		}
		w.relays = append(w.relays, r)
	}
	w.inspector = asynq.NewInspectorFromRedisClient(cfg.Redis)
	w.reconciler, err = NewReconciler(ReconcilerConfig{
		Store: cfg.Store, Inspector: w.inspector, Redis: cfg.Redis, Layout: w.layout(), Clock: cfg.Clock,
		Logger: cfg.Logger.With("component", "worker.reconciler"), Metrics: cfg.Metrics,
		Interval: cfg.ReconcileInterval, Threshold: cfg.ReconcileThreshold, Waiting: w.admissionWaiting(),
	})
	if err != nil {
		return err
	}
	sc := serverConfig{
		concurrency: cfg.Concurrency, taskCheckInterval: cfg.TaskCheckInterval,
		delayedTaskCheckInterval: cfg.DelayedTaskCheckInterval,
		retryBase:                cfg.RetryBase, retryMax: cfg.RetryMax,
		shutdownTimeout: cfg.ShutdownTimeout, logger: cfg.Logger, queues: extractionQueues(w.layout()),
		asynqLog: NewAsynqLogger(cfg.Logger.With("component", "asynq")),
	}
	for _, n := range shares(cfg.Concurrency, cfg.Servers) {
		one := sc
		one.concurrency = n
		one.taskCheckInterval = sc.taskCheckInterval * time.Duration(cfg.Servers)
		w.servers = append(w.servers, newAsynqServer(cfg.Redis, one))
	}
	if w.webhooks != nil {
		sc.concurrency, sc.taskCheckInterval = w.webhooks.concurrency, webhookTaskCheckInterval
		sc.queues = map[string]int{task.QueueWebhooks: 1}
		w.webhookServer = newAsynqServer(cfg.Redis, sc)
	}
	cfg.Metrics.watchRelays(w.relays, cfg.Clock)
	if cfg.MetricsAddr != "" {
		w.metrics, err = listenMetrics(cfg.MetricsAddr, cfg.Metrics, probes{health: cfg.Store.Ping, ready: w.ready},
			cfg.MetricsToken, defaultMetricsTimeouts, cfg.Logger.With("component", "worker.metrics"))
	}
	return err
}

// notifier is the relays' Notifier: the learning of approved reviews
// (with a supplier memory), then the webhooks; nil (untyped) for neither.
func (w *Worker) notifier() outbox.Notifier {
	next := w.webhooks.relayNotifier()
	if w.cfg.Memory == nil {
		return next
	}
	return &learner{next: next, client: w.client, layout: w.layout(), shards: w.cfg.Store.Shards()}
}

// mux routes the extraction servers' tasks: extractions, and with a
// supplier memory the learning of approved reviews.
func (w *Worker) mux() asynq.Handler {
	if w.cfg.Memory == nil {
		return w.handler
	}
	m := asynq.NewServeMux()
	m.Handle(task.TypeExtract, w.handler)
	m.Handle(task.TypeLearn, &LearnHandler{store: w.cfg.Store, reader: w.handler.reader, memory: w.cfg.Memory,
		policy: w.cfg.Policy, log: w.log.With("component", "worker.learn")})
	return m
}

// layout is the queue layout of this worker's tasks.
func (w *Worker) layout() task.Layout { return task.Layout{Queues: w.cfg.Queues} }

// Reasons a worker is not ready, as /readyz reports them.
const (
	notReadyRedis = "redis_unavailable"
	notReadyRelay = "relay_stalled"
	notReadyModel = "model_settings_refused"
)

// ready reports why the worker cannot do its work, "" when it can: Redis
// must answer, and every relay must have made progress within
// RelayStallTimeout. A relay over an empty outbox makes progress on every
// pass; one whose passes or deliveries keep failing makes none, although
// the process is alive (so /healthz stays ok: restarting would not help).
// A model endpoint that refuses this deployment's settings (key, model or
// URL) leaves the worker alive but unable to work, too.
func (w *Worker) ready(ctx context.Context) string {
	if err := w.cfg.Store.Ping(ctx); err != nil {
		return notReadyRedis
	}
	if w.cfg.Metrics.ModelReady() != nil {
		return notReadyModel
	}
	now := w.cfg.Clock.Now()
	for _, r := range w.relays {
		if now.Sub(r.Progress()) > w.cfg.RelayStallTimeout {
			return notReadyRelay
		}
	}
	return ""
}

func (w *Worker) onRelayEvent(ev jobs.Event, outcome string) {
	w.cfg.Metrics.relayEvents.WithLabelValues(ev.Type, outcome).Inc()
	if w.cfg.OnRelayEvent != nil {
		w.cfg.OnRelayEvent(ev, outcome)
	}
}

// admissionWaiting is the reconciler's test for jobs waiting for
// admission; nil without admission.
func (w *Worker) admissionWaiting() func(context.Context, jobs.Key) (bool, error) {
	if w.admitter == nil {
		return nil
	}
	return w.admitter.Waiting
}

// release frees the admission slot of a job a handler found ended. A
// failure is left to the admitters' prune, which finds the job ended.
func (w *Worker) release(ctx context.Context, k jobs.Key) {
	if w.admitter == nil {
		return
	}
	if err := w.admitter.Release(ctx, k); err != nil {
		w.log.Debug("admission release failed; the prune frees the slot", "error", err.Error())
	}
}

// Handler returns the extract handler (for tests and embedding).
func (w *Worker) Handler() *Handler { return w.handler }

// Metrics returns the worker's metrics.
func (w *Worker) Metrics() *Metrics { return w.cfg.Metrics }

// MetricsAddr returns the bound metrics address, "" when not serving.
func (w *Worker) MetricsAddr() string {
	if w.metrics == nil {
		return ""
	}
	return w.metrics.Addr()
}

// Run runs the worker until ctx is done, then shuts down gracefully: stop
// fetching tasks and let running handlers finish (or requeue them after
// ShutdownTimeout), drain the relay of what they committed, stop serving
// metrics. It returns nil after a graceful stop, or the first error that
// stopped a part early.
func (w *Worker) Run(ctx context.Context) error {
	w.announce()
	if err := w.startServers(); err != nil {
		if w.metrics != nil {
			w.metrics.shutdown()
		}
		return err
	}
	metricsDone := make(chan error, 1)
	if w.metrics != nil {
		go func() { metricsDone <- w.metrics.serve() }()
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, r := range w.relays {
		g.Go(func() error { return r.Run(gctx) })
	}
	g.Go(func() error { return w.reconciler.Run(gctx) })
	if w.admitter != nil {
		g.Go(func() error { return w.admitter.Run(gctx) })
	}
	if w.metrics != nil {
		g.Go(func() error {
			select {
			case err := <-metricsDone:
				return err
			case <-gctx.Done():
				return nil
			}
		})
	}
	<-gctx.Done()
	w.log.Info("shutting down: waiting for running handlers")
	w.shutdownServers()
	err := g.Wait()
	w.drain()
	if w.metrics != nil {
		w.metrics.shutdown()
	}
	w.log.Info("worker stopped")
	return err
}

// shares divides total into n near-equal parts, the first ones taking the
// remainder.
func shares(total, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = total / n
		if i < total%n {
			out[i]++
		}
	}
	return out
}

// startServers starts the extraction servers and, with webhooks, the
// webhook server; if one fails, those started are stopped.
func (w *Worker) startServers() error {
	var started []*asynq.Server
	start := func(s *asynq.Server, h asynq.Handler, what string) error {
		if err := s.Start(h); err != nil {
			stopAll(started)
			return fmt.Errorf("worker: start the %s asynq server: %w", what, err)
		}
		started = append(started, s)
		return nil
	}
	for _, s := range w.servers {
		if err := start(s, w.mux(), "extraction"); err != nil {
			return err
		}
	}
	if w.webhookServer != nil {
		return start(w.webhookServer, w.webhooks.deliverer, "webhook")
	}
	return nil
}

// shutdownServers stops every Asynq server at once, so a shutdown waits
// for the slowest one's running handlers, not for the sum of all.
func (w *Worker) shutdownServers() {
	all := w.servers
	if w.webhookServer != nil {
		all = append(all[:len(all):len(all)], w.webhookServer)
	}
	stopAll(all)
}

func stopAll(servers []*asynq.Server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.Shutdown)
	}
	wg.Wait()
}

// announce logs the configuration, and fault injection loudly.
func (w *Worker) announce() {
	c := w.cfg
	w.log.Info("worker starting", "concurrency", c.Concurrency, "asynq_servers", c.Servers, "attempt_timeout", c.AttemptTimeout.String(),
		"asynq_timeout", AsynqTimeout(c.AttemptTimeout, c.AttemptGrace).String(),
		"max_retry", MaxRetry(c.Limits.MaxAttempts, c.Limits.MaxRecoveries), "shards", c.Store.Shards(), "queues", c.Queues)
	if c.Faults.Enabled() {
		w.log.Warn("FAULT INJECTION ENABLED: this worker will fail on purpose (RELAYOPS_FAULTS); never run it in production",
			"faults", c.Faults.String())
	}
}

// drain publishes what the stopped handlers committed, so their reviews
// exist and nothing waits for the reclaim timeout of another relay. Every
// relay drains: each first delivers what it holds unacked (its loop may have
// stopped in the middle of a delivery), then reads until the shards are empty.
func (w *Worker) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.DrainTimeout)
	defer cancel()
	total := 0
	for _, r := range w.relays {
		n, err := r.Drain(ctx)
		total += n
		if err != nil {
			w.log.Warn("relay drain incomplete; another relay will reclaim the rest", "drained", total)
			w.log.Debug("relay drain failed", "error", err.Error())
			return
		}
	}
	w.log.Info("relay drained", "drained", total)
}
