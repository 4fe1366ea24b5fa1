package api

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/outbox"
)

// withInspector gives the server an Inspector on its store's Redis.
var withInspector = &setupOpts{modify: func(c *Config) {
	c.Inspector = asynq.NewInspectorFromRedisClient(c.Store.Redis())
}}

// failingPublisher leaves every outbox entry it is handed pending.
type failingPublisher struct{}

func (failingPublisher) Publish(context.Context, outbox.Event) error {
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
	return outbox.Shard(k.Tenant, k.DocumentID, b.store.Shards())
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
	rdb, err := outbox.NewRedisClient(srv.URL)
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
