package api

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/outbox"
)

// Cluster-wide gauges, read from Redis at scrape time. Only the API exports
// them: it is one scrape target, so no series is duplicated across worker
// replicas. A scrape costs a few pipelined Redis reads plus Asynq's queue
// stats, bounded by the collector's timeout; a part that fails or runs out
// of time is left out and reported by relayops_metrics_collect_success.
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
		"1 when the part (jobs, dlq, outbox, asynq) of the cluster-wide gauges was read in this scrape, 0 when it failed or timed out.", []string{"part"}, nil)
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

// clusterCollector is the prometheus.Collector of the cluster-wide gauges.
type clusterCollector struct {
	store     *outbox.Store
	inspector *asynq.Inspector // nil: no asynq_* series
	clock     clock.Clock
	timeout   time.Duration
	log       *slog.Logger
	// asynqBusy holds a token while an Inspector read runs. The Inspector
	// takes no context, so a read that outlives its scrape is abandoned, not
	// stopped: the token keeps scrapes from piling more of them up.
	asynqBusy chan struct{}
}

func newClusterCollector(store *outbox.Store, insp *asynq.Inspector, clk clock.Clock, timeout time.Duration, log *slog.Logger) *clusterCollector {
	return &clusterCollector{
		store: store, inspector: insp, clock: clk, timeout: timeout,
		log: log.With("component", "api.metrics"), asynqBusy: make(chan struct{}, 1),
	}
}

// Describe sends every descriptor the collector may export.
func (c *clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		oldestActiveDesc, dlqSizeDesc, outboxPendingDesc, outboxUndeliveredDesc, outboxLagDesc, collectSuccessDesc,
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

// Collect reads every part concurrently, within the timeout.
func (c *clusterCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	parts := map[string]collectPart{"jobs": c.oldestActive, "dlq": c.dlqSize, "outbox": c.outbox}
	if c.inspector != nil {
		parts["asynq"] = c.asynq
	}
	var wg sync.WaitGroup
	for name, part := range parts {
		wg.Go(func() {
			ms, err := part(ctx)
			ok := 1.0
			if err != nil {
				ok = 0
				c.log.Warn("cluster metrics: part not collected", "part", name, "error", err)
			}
			for _, m := range ms {
				ch <- m
			}
			ch <- prometheus.MustNewConstMetric(collectSuccessDesc, prometheus.GaugeValue, ok, name)
		})
	}
	wg.Wait()
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
// collector does, but gives up at the scrape's deadline.
func (c *clusterCollector) asynq(ctx context.Context) ([]prometheus.Metric, error) {
	select {
	case c.asynqBusy <- struct{}{}:
	default:
		return nil, errors.New("the previous scrape's asynq read is still running")
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

func (c *clusterCollector) queueInfos() ([]*asynq.QueueInfo, error) {
	queues, err := c.inspector.Queues()
	if err != nil {
		return nil, err
	}
	infos := make([]*asynq.QueueInfo, 0, len(queues))
	for _, q := range queues {
		info, err := c.inspector.GetQueueInfo(q)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
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
