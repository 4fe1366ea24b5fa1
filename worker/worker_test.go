package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
)

// TestWorker_Run_DrainsJobsToReviewsAndStopsGracefully wires the whole
// worker in-process on a real redis-server: relay → Asynq → handler →
// commit → relay → review, then a graceful stop.
func TestWorker_Run_DrainsJobsToReviewsAndStopsGracefully(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	rdb, err := jobs.NewRedisClient(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Shards: testShards})
	require.NoError(t, err)
	asynqRedis := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = asynqRedis.Close() })
	var applied atomic.Int64
	w, err := New(Config{
		Store: store, Redis: asynqRedis, Concurrency: 4, Queues: testShards, MetricsAddr: "127.0.0.1:0",
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		OnRelayEvent: func(ev jobs.Event, outcome string) {
			if outcome == "applied" {
				applied.Add(1)
			}
		},
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(cancel)

	const n = 30
	keys := make([]jobs.Key, n)
	for i := range keys {
		keys[i] = mustKey(t, "acme", fmt.Sprintf("doc-%d", i), 1)
		content := readSample(t, "valid-basic-eur.txt")
		if i%10 == 0 {
			content = readSample(t, "invalid-total-mismatch.txt")
		}
		_, err := store.Submit(ctx, jobs.SubmitRequest{Key: keys[i], Content: content, Limits: jobs.DefaultLimits})
		require.NoError(t, err)
	}
	redistest.Eventually(t, 30*time.Second, func() bool { return applied.Load() == n-3 }, "reviews applied")

	for i, k := range keys {
		j, err := store.Get(ctx, k)
		require.NoError(t, err)
		if i%10 == 0 {
			require.Equal(t, jobs.StateDeadLettered, j.State)
			continue
		}
		require.Equal(t, jobs.StateSucceeded, j.State)
		r, err := store.GetReview(ctx, k)
		require.NoError(t, err)
		require.Equal(t, j.EventID, r.EventID)
	}
	insp := asynq.NewInspectorFromRedisClient(asynqRedis)
	layout := task.Layout{Queues: testShards}
	info, err := insp.GetTaskInfo(layout.Queue(jobs.Shard("acme", "doc-0", testShards)), keys[0].String())
	require.NoError(t, err)
	require.Equal(t, asynq.TaskStateArchived, info.State)
	require.Equal(t, "permanent_error", info.LastErr)
	queues, err := insp.Queues()
	require.NoError(t, err)
	require.Subset(t, layout.Names(), queues, "tasks only in the layout's queues")
	servers, err := insp.Servers()
	require.NoError(t, err)
	require.Len(t, servers, DefaultServers, "the extraction servers")
	for _, s := range servers {
		require.Equal(t, 2, s.Concurrency, "sharing the worker's concurrency of 4")
	}
	require.Greater(t, len(queues), 1, "the jobs' tasks spread over several queues")

	resp, err := http.Get("http://" + w.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Contains(t, string(body), `relayops_worker_jobs_total{outcome="succeeded"} 27`)
	require.Contains(t, string(body), "process_cpu_seconds_total")
	resp, err = http.Get("http://" + w.MetricsAddr() + "/healthz")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, `{"status":"ok"}`, strings.TrimSpace(string(body)))

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, "a graceful stop returns nil")
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestNew_ValidatesConfig(t *testing.T) {
	t.Parallel()
	_, err := New(Config{})
	require.ErrorContains(t, err, "Config.Store is required")
	require.ErrorContains(t, err, "Config.Redis is required")
}

// The default layout follows the connection: one queue on one Redis, where
// more would only cost polls, and task.ClusterQueues (capped at the shards)
// on a Redis Cluster, so the queue work spreads over its masters.
func TestNew_DefaultQueues_OneOnOneRedisSpreadOnACluster(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}) // never dialled here
	t.Cleanup(func() { _ = cluster.Close() })
	for _, tt := range []struct {
		rdb  redis.UniversalClient
		want int
	}{{b.rdb, 1}, {cluster, testShards}} {
		w, err := New(Config{Store: b.store, Redis: tt.rdb})
		require.NoError(t, err)
		require.Equal(t, tt.want, w.cfg.Queues, "%T", tt.rdb)
	}
	_, err := New(Config{Store: b.store, Redis: b.rdb, Queues: testShards + 1})
	require.ErrorContains(t, err, "Config.Queues must be 1..the store's shards, got 5")
}

// Asynq's idle poll runs its dequeue script once per queue served, so the
// default poll interval grows with the queues: an idle worker costs Redis
// about the same on one Redis (1 queue: 5ms) as with a cluster's 16 queues
// (40ms); webhook deliveries are polled by a server of their own. An
// explicit interval is kept.
func TestNew_DefaultTaskCheckInterval_GrowsWithTheQueuesServed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.Equal(t, 5*time.Millisecond, DefaultTaskCheckInterval(1))
	require.Equal(t, 5*time.Millisecond, DefaultTaskCheckInterval(2))
	require.Equal(t, 40*time.Millisecond, DefaultTaskCheckInterval(16))

	reg, err := webhook.NewRegistry(webhook.RegistryConfig{Redis: b.store.Redis()})
	require.NoError(t, err)
	w, err := New(Config{Store: b.store, Redis: b.rdb, Queues: 4})
	require.NoError(t, err)
	require.Equal(t, 10*time.Millisecond, w.cfg.TaskCheckInterval, "4 queues")
	require.Nil(t, w.webhookServer, "no webhooks, no webhook server")
	w, err = New(Config{Store: b.store, Redis: b.rdb, Queues: 4, Webhooks: &WebhookConfig{Registry: reg}})
	require.NoError(t, err)
	require.Equal(t, 10*time.Millisecond, w.cfg.TaskCheckInterval, "webhooks have a server of their own")
	require.NotNil(t, w.webhookServer)
	require.Equal(t, DefaultWebhookConcurrency, w.webhooks.concurrency)
	w, err = New(Config{Store: b.store, Redis: b.rdb, Queues: 4, TaskCheckInterval: time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, time.Millisecond, w.cfg.TaskCheckInterval, "an explicit interval is kept")
	_, err = New(Config{Store: b.store, Redis: b.rdb, Webhooks: &WebhookConfig{Registry: reg, Concurrency: -1}})
	require.ErrorContains(t, err, "Config.Webhooks.Concurrency")
}

func TestNew_Servers_ShareTheConcurrency_NeverMoreThanItsSlots(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.Equal(t, []int{10, 10}, shares(20, 2))
	require.Equal(t, []int{3, 2}, shares(5, 2))
	require.Equal(t, []int{1, 1, 1}, shares(3, 3))

	w, err := New(Config{Store: b.store, Redis: b.rdb})
	require.NoError(t, err)
	require.Len(t, w.servers, DefaultServers)
	w, err = New(Config{Store: b.store, Redis: b.rdb, Concurrency: 1})
	require.NoError(t, err)
	require.Len(t, w.servers, 1, "one slot: one server")
	_, err = New(Config{Store: b.store, Redis: b.rdb, Concurrency: 2, Servers: 3})
	require.ErrorContains(t, err, "Config.Servers must be 1..Config.Concurrency (2), got 3")
}
