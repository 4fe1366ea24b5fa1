package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// withInspector gives the server an Inspector on its store's Redis.
var withInspector = &setupOpts{modify: func(c *Config) {
	c.Inspector = asynq.NewInspectorFromRedisClient(c.Store.Redis())
}}

// failingPublisher leaves every outbox entry it is handed pending.
type failingPublisher struct{}

func (failingPublisher) Publish(context.Context, jobs.Event) error {
	return fmt.Errorf("asynq down")
}

// collectorRun is a known run: two dead-lettered jobs, one queued job whose
// outbox entry a relay read without acking, and three tasks enqueued
// straight to Asynq. It returns the queued job's shard.
func collectorRun(t *testing.T, b *bundle) int {
	t.Helper()
	id := b.submit(t, tokGlobex, "queued", 1, "x")
	for _, doc := range []string{"dead-1", "dead-2"} {
		b.deadLetter(t, b.submit(t, tokAcme, doc, 1, "x"))
	}
	relay, err := outbox.NewRelay(outbox.RelayConfig{Store: b.store, Publisher: failingPublisher{}, Consumer: "test", Clock: b.clock,
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	_, err = relay.Drain(context.Background())
	require.Error(t, err, "the failing publisher leaves the entries pending")

	client := asynq.NewClientFromRedisClient(b.rdb)
	for i := range 3 {
		_, err := client.Enqueue(asynq.NewTask(task.TypeExtract, nil), asynq.Queue(task.QueueExtract), asynq.TaskID(fmt.Sprint("t", i)))
		require.NoError(t, err)
	}
	k := mustKey(t, id)
	return jobs.Shard(k.Tenant, k.DocumentID, b.store.Shards())
}

func requireClusterGauges(t *testing.T, m map[string]float64, queuedShard int) {
	t.Helper()
	require.Equal(t, 2.0, m[`relayops_dlq_size`])
	pending := 0.0
	for sh := range 4 {
		pending += m[fmt.Sprintf(`relayops_outbox_pending{shard="%d"}`, sh)]
	}
	require.Equal(t, 3.0, pending, "three submissions, none acked")
	require.GreaterOrEqual(t, m[fmt.Sprintf(`relayops_outbox_pending{shard="%d"}`, queuedShard)], 1.0)
	require.Equal(t, 3.0, m[`asynq_tasks_enqueued_total{queue="extract",state="pending"}`])
	require.Equal(t, 0.0, m[`asynq_tasks_enqueued_total{queue="extract",state="active"}`])
	require.Equal(t, 3.0, m[`asynq_queue_size{queue="extract"}`])
	require.Contains(t, m, `asynq_queue_latency_seconds{queue="extract"}`)
	require.Contains(t, m, `asynq_queue_memory_usage_approx_bytes{queue="extract"}`)
	require.Equal(t, 0.0, m[`asynq_tasks_processed_total{queue="extract"}`])
	require.Equal(t, 0.0, m[`asynq_tasks_failed_total{queue="extract"}`])
	require.Equal(t, 0.0, m[`asynq_queue_paused_total{queue="extract"}`])
	for _, part := range []string{"jobs", "dlq", "outbox", "asynq"} {
		require.Equal(t, 1.0, m[`relayops_metrics_collect_success{part="`+part+`"}`], part)
	}
}

func TestCollector_KnownRun_ExportsExactGauges(t *testing.T) {
	t.Parallel()
	b := setup(t, withInspector)
	start := t0.Add(time.Hour)
	b.mini.SetTime(start) // stream IDs and Redis TIME
	b.clock.Set(start)    // the store's and the API's clock
	queuedShard := collectorRun(t, b)
	b.mini.SetTime(start.Add(45 * time.Second))
	b.clock.Set(start.Add(30 * time.Second))

	m := b.scrape(t)
	requireClusterGauges(t, m, queuedShard)
	require.Equal(t, 45.0, m[`relayops_outbox_lag_seconds`], "the oldest unacked entry, by Redis time")
	require.Equal(t, 30.0, m[`relayops_oldest_active_job_age_seconds`], "the queued job, by the store's clock")
}

func TestCollector_RealRedis_ExportsExactGauges(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	rdb, err := jobs.NewRedisClient(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	b := setup(t, &setupOpts{rdb: rdb, modify: withInspector.modify})
	queuedShard := collectorRun(t, b)
	b.clock.Advance(30 * time.Second)

	m := b.scrape(t)
	requireClusterGauges(t, m, queuedShard)
	require.Less(t, m[`relayops_outbox_lag_seconds`], 60.0)
	require.Equal(t, 30.0, m[`relayops_oldest_active_job_age_seconds`])
}

func TestCollector_NothingActive_ZeroAges(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	m := b.scrape(t)
	require.Equal(t, 0.0, m[`relayops_oldest_active_job_age_seconds`])
	require.Equal(t, 0.0, m[`relayops_outbox_lag_seconds`])
	require.Equal(t, 0.0, m[`relayops_dlq_size`])
	for series := range m {
		require.NotContains(t, series, "asynq_", "no Inspector, no asynq series")
	}
	require.NotContains(t, m, `relayops_metrics_collect_success{part="asynq"}`)
}

// With Redis down the scrape still answers, within the store timeout: the
// process metrics are there and every cluster part reports failure.
func TestCollector_RedisDown_ScrapeStillAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t, withInspector)
	b.mini.Close()

	m := b.scrape(t)
	for _, part := range []string{"jobs", "dlq", "outbox", "asynq"} {
		require.Equal(t, 0.0, m[`relayops_metrics_collect_success{part="`+part+`"}`], part)
	}
	require.NotContains(t, m, `relayops_dlq_size`)
	require.Contains(t, m, `relayops_submissions_total{outcome="created"}`)
}

// commandCounter is a go-redis hook counting the commands sent, pipelined
// ones included.
type commandCounter struct{ n atomic.Int64 }

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// scrapeRaw GETs /metrics from the handler (safe from any goroutine) and
// returns the body, "" unless it answered 200.
func (b *bundle) scrapeRaw() string {
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		return ""
	}
	return rec.Body.String()
}

// scrapeConcurrently runs n scrapes at once and returns how many of them
// lacked asynq_queue_size{queue="extract"}.
func (b *bundle) scrapeConcurrently(n int) int {
	var wg sync.WaitGroup
	var missing atomic.Int64
	for range n {
		wg.Go(func() {
			if !strings.Contains(b.scrapeRaw(), `asynq_queue_size{queue="extract"}`) {
				missing.Add(1)
			}
		})
	}
	wg.Wait()
	return int(missing.Load())
}

// A scrape reads the cluster gauges collected at most once per
// ClusterMetricsInterval: many scrapes, even concurrent, cost one collection
// of Redis commands, and every one of them has the asynq series.
func TestMetrics_ManyScrapes_CostOneCollection(t *testing.T) {
	t.Parallel()
	b := setup(t, withInspector)
	count := &commandCounter{}
	b.rdb.AddHook(count)

	first := b.scrape(t)
	require.Contains(t, first, `asynq_queue_size{queue="extract"}`, "the queue is exported before its first task")
	perCollection := count.n.Load()
	require.Positive(t, perCollection)

	require.Zero(t, b.scrapeConcurrently(50))
	require.Equal(t, perCollection, count.n.Load(), "50 scrapes within the interval send no command")

	b.clock.Advance(defaultClusterMetricsInterval)
	require.Zero(t, b.scrapeConcurrently(20), "a stale collection is served while the next one runs")
	redistest.Eventually(t, 5*time.Second, b.srv.collector.idle, "the background collection to finish")
	require.LessOrEqual(t, count.n.Load(), 2*perCollection, "20 scrapes past the interval cost one collection")
	t.Logf("Redis commands: %d per collection (%d shards); %d for 71 scrapes", perCollection, b.store.Shards(), count.n.Load())
}

// A part whose collection fails keeps its last values for three intervals,
// flagged by collect_success 0 and an age that grows; then it is dropped.
func TestCollector_PartFails_KeepsLastValuesForThreeIntervals(t *testing.T) {
	t.Parallel()
	b := setup(t, withInspector)
	require.Equal(t, 1.0, b.scrape(t)[`relayops_metrics_collect_success{part="dlq"}`])
	b.mini.Close()

	b.clock.Advance(defaultClusterMetricsInterval)
	m := b.scrape(t)
	require.Equal(t, 0.0, m[`relayops_metrics_collect_success{part="dlq"}`])
	require.Contains(t, m, `relayops_dlq_size`, "the last value is still served")
	require.Contains(t, m, `asynq_queue_size{queue="extract"}`)
	require.Equal(t, defaultClusterMetricsInterval.Seconds(), m[`relayops_metrics_collect_age_seconds{part="dlq"}`])

	b.clock.Advance(2 * defaultClusterMetricsInterval)
	m = b.scrape(t)
	require.NotContains(t, m, `relayops_dlq_size`, "too old to be served")
	require.Equal(t, 3*defaultClusterMetricsInterval.Seconds(), m[`relayops_metrics_collect_age_seconds{part="dlq"}`])
}

// Every queue of the workers' layout has its asynq_* series from the first
// scrape on, so a dashboard never loses a queue that has had no task yet.
func TestMetrics_EveryExtractionQueue_ExportedBeforeItsFirstTask(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) {
		withInspector.modify(c)
		c.Queues = 3
	}})
	client := asynq.NewClientFromRedisClient(b.rdb)
	t.Cleanup(func() { _ = client.Close() })
	_, err := client.Enqueue(asynq.NewTask(task.TypeExtract, nil), asynq.Queue("extract-2"), asynq.TaskID("t1"))
	require.NoError(t, err)

	m := b.scrape(t)
	for _, q := range []string{"extract", "extract-1"} {
		require.Equal(t, 0.0, m[`asynq_queue_size{queue="`+q+`"}`], q)
		require.Contains(t, m, `asynq_queue_size{queue="`+q+`"}`, q)
	}
	require.Equal(t, 1.0, m[`asynq_queue_size{queue="extract-2"}`])
	require.NotContains(t, m, `asynq_queue_size{queue="extract-3"}`, "no queue beyond the layout")
}
