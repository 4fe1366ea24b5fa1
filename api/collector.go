package api

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// Cluster-wide gauges, read from Redis by one collection at a time and
// cached: a scrape answers the last collection when it is younger than the
// interval, and otherwise waits for the next one, which every scrape
// arriving meanwhile shares. However often and concurrently /metrics is
// called, Redis sees at most one collection per interval (a few pipelined
// reads plus Asynq's queue stats, bounded by the collector's timeout). Only
// the API exports these: it is one scrape target, so no series is
// duplicated across worker replicas. A part that fails keeps its last values
// for three intervals, flagged by relayops_metrics_collect_success 0.
var (
	oldestActiveDesc = prometheus.NewDesc("relayops_oldest_active_job_age_seconds",
		"Age of the oldest job not yet terminal (queued, running or retrying), from its submission; 0 when there is none.", nil, nil)
	dlqSizeDesc = prometheus.NewDesc("relayops_dlq_size",
		"Entries of the dead-letter indexes: jobs dead-lettered within the result retention, INCLUDING those already reprocessed (GET /v1/dlq lists the others). Summed ZCARD of the per-shard indexes.", nil, nil)
	outboxPendingDesc = prometheus.NewDesc("relayops_outbox_pending",
		"Outbox entries delivered to a relay and not yet acked, per shard (XPENDING).", []string{"shard"}, nil)
	outboxUndeliveredDesc = prometheus.NewDesc("relayops_outbox_undelivered",
		"Outbox entries not yet delivered to any relay, per shard (the consumer group's lag; Redis 7+). Absent for a shard when Redis cannot count them.", []string{"shard"}, nil)
	outboxLagDesc = prometheus.NewDesc("relayops_outbox_lag_seconds",
		"Age of the oldest outbox entry not yet acked (pending or undelivered) across shards, by Redis time; 0 when every entry is acked.", nil, nil)
	collectSuccessDesc = prometheus.NewDesc("relayops_metrics_collect_success",
		"1 when the part (jobs, dlq, outbox, tenants, asynq) of the cluster-wide gauges was read by the last collection, 0 when it failed or timed out.", []string{"part"}, nil)
	collectAgeDesc = prometheus.NewDesc("relayops_metrics_collect_age_seconds",
		"Seconds since the part (jobs, dlq, outbox, tenants, asynq) of the cluster-wide gauges was last read; its series are served while younger than three collection intervals.", []string{"part"}, nil)
)

// The series of Asynq's x/metrics QueueMetricsCollector, with its names,
// labels and semantics: asynqmon's charts (Options.PrometheusAddress) query
// exactly these. Asynq's cumulative totals are counters there too.
var (
	asynqTasksDesc = prometheus.NewDesc("asynq_tasks_enqueued_total",
		"Number of tasks enqueued; broken down by queue and state.", []string{"queue", "state"}, nil)
	asynqSizeDesc = prometheus.NewDesc("asynq_queue_size",
		"Number of tasks in a queue", []string{"queue"}, nil)
	asynqLatencyDesc = prometheus.NewDesc("asynq_queue_latency_seconds",
		"Number of seconds the oldest pending task is waiting in pending state to be processed.", []string{"queue"}, nil)
	asynqMemoryDesc = prometheus.NewDesc("asynq_queue_memory_usage_approx_bytes",
		"Number of memory used by a given queue (approximated number by sampling).", []string{"queue"}, nil)
	asynqProcessedDesc = prometheus.NewDesc("asynq_tasks_processed_total",
		"Number of tasks processed (both succeeded and failed); broken down by queue", []string{"queue"}, nil)
	asynqFailedDesc = prometheus.NewDesc("asynq_tasks_failed_total",
		"Number of tasks failed; broken down by queue", []string{"queue"}, nil)
	asynqPausedDesc = prometheus.NewDesc("asynq_queue_paused_total",
		"Number of queues paused", []string{"queue"}, nil)
)

// defaultClusterMetricsInterval is how long a collection of the cluster
// gauges is served before the next scrape collects again.
const defaultClusterMetricsInterval = 10 * time.Second

// clusterCollector is the prometheus.Collector of the cluster-wide gauges.
type clusterCollector struct {
	store     *jobs.Store
	inspector *asynq.Inspector // nil: no asynq_* series
	queues    []string         // the extraction queues, exported even before Asynq knows them
	clock     clock.Clock
	timeout   time.Duration
	interval  time.Duration
	log       *slog.Logger
	quotas    bool // tenant quotas are set: export their gauges
	// asynqBusy holds a token while an Inspector read runs. The Inspector
	// takes no context, so a read that outlives its collection is
	// abandoned, not stopped: the token keeps collections from piling more
	// of them up.
	asynqBusy chan struct{}

	mu      sync.Mutex
	parts   map[string]*partState
	started time.Time     // when the last collection started; zero before the first
	running chan struct{} // closed when the running collection ends; nil when none runs
}

// partState is what the collections read of one part.
type partState struct {
	metrics []prometheus.Metric // the last values read
	ok      bool                // the last collection read them
	at      time.Time           // when they were read
}

func newClusterCollector(store *jobs.Store, insp *asynq.Inspector, clk clock.Clock, timeout, interval time.Duration, log *slog.Logger) *clusterCollector {
	return &clusterCollector{
		store: store, inspector: insp, clock: clk, timeout: timeout, interval: interval,
		log: log.With("component", "api.metrics"), asynqBusy: make(chan struct{}, 1),
		parts: map[string]*partState{},
	}
}

// Describe sends every descriptor the collector may export.
func (c *clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		oldestActiveDesc, dlqSizeDesc, outboxPendingDesc, outboxUndeliveredDesc, outboxLagDesc, collectSuccessDesc, collectAgeDesc,
		tenantWaitingDesc, tenantInFlightDesc, tenantQuotaJobsDesc, tenantQuotaBytesDesc, tenantQuotaStoredDesc,
	} {
		ch <- d
	}
	if c.inspector != nil {
		for _, d := range []*prometheus.Desc{
			asynqTasksDesc, asynqSizeDesc, asynqLatencyDesc, asynqMemoryDesc, asynqProcessedDesc, asynqFailedDesc, asynqPausedDesc,
		} {
			ch <- d
		}
	}
}

// collectPart reads one part of the gauges. It returns the metrics to send
// only when all of them were read, so a part is never half exported.
type collectPart func(ctx context.Context) ([]prometheus.Metric, error)

// Collect sends the last collection, after waiting for a new one when it is
// older than the interval (or there is none yet).
func (c *clusterCollector) Collect(ch chan<- prometheus.Metric) {
	if done := c.due(); done != nil {
		<-done
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, p := range c.parts {
		if now.Sub(p.at) < 3*c.interval {
			for _, m := range p.metrics {
				ch <- m
			}
		}
		ok := 0.0
		if p.ok {
			ok = 1
		}
		ch <- gauge(collectSuccessDesc, ok, name)
		if !p.at.IsZero() {
			ch <- gauge(collectAgeDesc, max(now.Sub(p.at), 0).Seconds(), name)
		}
	}
}

// due starts a collection when the last one is older than the interval and
// none runs, and returns the channel that closes when the running one ends,
// or nil when the last collection is fresh.
func (c *clusterCollector) due() <-chan struct{} {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running != nil {
		return c.running
	}
	if !c.started.IsZero() && now.Sub(c.started) < c.interval {
		return nil
	}
	c.started, c.running = now, make(chan struct{})
	go c.collect(c.running)
	return c.running
}

// idle reports whether no collection runs.
func (c *clusterCollector) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running == nil
}

// collect reads every part concurrently, within the timeout, and closes
// done when the results are stored.
func (c *clusterCollector) collect(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	parts := map[string]collectPart{"jobs": c.oldestActive, "dlq": c.dlqSize, "outbox": c.outbox, "tenants": c.tenants}
	if c.inspector != nil {
		parts["asynq"] = c.asynq
	}
	type result struct {
		name    string
		metrics []prometheus.Metric
		err     error
	}
	results := make(chan result, len(parts))
	var wg sync.WaitGroup
	for name, part := range parts {
		wg.Go(func() {
			ms, err := part(ctx)
			results <- result{name, ms, err}
		})
	}
	wg.Wait()
	close(results)
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for r := range results {
		p := c.parts[r.name]
		if p == nil {
			p = &partState{}
			c.parts[r.name] = p
		}
		p.ok = r.err == nil
		if r.err != nil {
			c.log.Warn("cluster metrics: part not collected", "part", r.name, "error", r.err)
			continue
		}
		p.metrics, p.at = r.metrics, now
	}
	c.running = nil
	close(done)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func (c *clusterCollector) oldestActive(ctx context.Context) ([]prometheus.Metric, error) {
	oldest, found, err := c.store.OldestActive(ctx)
	if err != nil {
		return nil, err
	}
	age := 0.0
	if found {
		age = max(c.clock.Now().Sub(oldest), 0).Seconds()
	}
	return []prometheus.Metric{gauge(oldestActiveDesc, age)}, nil
}

func (c *clusterCollector) dlqSize(ctx context.Context) ([]prometheus.Metric, error) {
	n, err := c.store.DLQSize(ctx)
	if err != nil {
		return nil, err
	}
	return []prometheus.Metric{gauge(dlqSizeDesc, float64(n))}, nil
}

func (c *clusterCollector) outbox(ctx context.Context) ([]prometheus.Metric, error) {
	b, err := c.store.Backlog(ctx)
	if err != nil {
		return nil, err
	}
	ms := []prometheus.Metric{gauge(outboxLagDesc, b.Lag().Seconds())}
	for _, s := range b.Shards {
		shard := strconv.Itoa(s.Shard)
		ms = append(ms, gauge(outboxPendingDesc, float64(s.Pending), shard))
		if s.Undelivered >= 0 {
			ms = append(ms, gauge(outboxUndeliveredDesc, float64(s.Undelivered), shard))
		}
	}
	return ms, nil
}

// asynq reads every queue's info through the Inspector, the way Asynq's own
// collector does, but gives up at the collection's deadline.
func (c *clusterCollector) asynq(ctx context.Context) ([]prometheus.Metric, error) {
	select {
	case c.asynqBusy <- struct{}{}:
	default:
		return nil, errors.New("the previous collection's asynq read is still running")
	}
	type result struct {
		infos []*asynq.QueueInfo
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-c.asynqBusy }()
		infos, err := c.queueInfos()
		done <- result{infos, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return asynqMetrics(r.infos), nil
	}
}

// extractQueues names the workers' extraction queues: queues of them, or
// the workers' default for the store's connection (task.NewLayout).
func extractQueues(queues int, store *jobs.Store) []string {
	_, cluster := store.Redis().(*redis.ClusterClient)
	return task.NewLayout(queues, store.Shards(), cluster).Names()
}

// queueInfos reads every queue Asynq knows, and each of relayops'
// extraction queues even before Asynq knows it (no task enqueued yet, or
// Redis lost its data): it is then exported empty, so its series never go
// missing.
func (c *clusterCollector) queueInfos() ([]*asynq.QueueInfo, error) {
	queues, err := c.inspector.Queues()
	if err != nil {
		return nil, err
	}
	infos := make([]*asynq.QueueInfo, 0, len(queues)+len(c.queues))
	for _, q := range queues {
		info, err := c.inspector.GetQueueInfo(q)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	for _, q := range c.queues {
		if !slices.Contains(queues, q) {
			infos = append(infos, &asynq.QueueInfo{Queue: q})
		}
	}
	return infos, nil
}

func asynqMetrics(infos []*asynq.QueueInfo) []prometheus.Metric {
	var ms []prometheus.Metric
	for _, q := range infos {
		for _, s := range []struct {
			state string
			n     int
		}{
			{"active", q.Active}, {"pending", q.Pending}, {"scheduled", q.Scheduled}, {"retry", q.Retry},
			{"archived", q.Archived}, {"completed", q.Completed}, {"aggregating", q.Aggregating},
		} {
			ms = append(ms, gauge(asynqTasksDesc, float64(s.n), q.Queue, s.state))
		}
		paused := 0.0
		if q.Paused {
			paused = 1
		}
		ms = append(ms,
			gauge(asynqSizeDesc, float64(q.Size), q.Queue),
			gauge(asynqLatencyDesc, q.Latency.Seconds(), q.Queue),
			gauge(asynqMemoryDesc, float64(q.MemoryUsage), q.Queue),
			prometheus.MustNewConstMetric(asynqProcessedDesc, prometheus.CounterValue, float64(q.ProcessedTotal), q.Queue),
			prometheus.MustNewConstMetric(asynqFailedDesc, prometheus.CounterValue, float64(q.FailedTotal), q.Queue),
			gauge(asynqPausedDesc, paused, q.Queue),
		)
	}
	return ms
}
