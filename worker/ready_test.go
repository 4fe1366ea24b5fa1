package worker

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// readyBundle is a worker built (not run) on miniredis with a stub clock,
// and its metrics port's handler.
type readyBundle struct {
	w     *Worker
	clock *clock.Stub
	stop  func() // makes Redis unreachable
	serve http.Handler
}

func setupReady(t *testing.T) *readyBundle {
	t.Helper()
	m, rdb := redistest.Mini(t)
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: testShards})
	require.NoError(t, err)
	asynqRedis := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { _ = asynqRedis.Close() })
	w, err := New(Config{
		Store: store, Redis: asynqRedis, Clock: clk, MetricsAddr: "127.0.0.1:0",
		RelayStallTimeout: time.Minute, Logger: slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	t.Cleanup(w.metrics.shutdown)
	return &readyBundle{w: w, clock: clk, stop: m.Close, serve: w.metrics.srv.Handler}
}

func (b *readyBundle) get(t *testing.T, path string) (int, map[string]string) {
	t.Helper()
	rec := httptest.NewRecorder()
	b.serve.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	var v map[string]string
	require.NoError(t, json.Unmarshal(body, &v), "body %s", body)
	return rec.Code, v
}

// /readyz tells whether the worker can do its work; /healthz only that the
// process answers and Redis is reachable.
func TestReadyz_RelayWithoutProgress_NotReady(t *testing.T) {
	t.Parallel()
	b := setupReady(t)
	code, body := b.get(t, "/readyz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready", body["status"])

	b.clock.Advance(time.Minute + time.Millisecond) // the relays have not passed since
	code, body = b.get(t, "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, map[string]string{"status": "unavailable", "reason": "relay_stalled"}, body)
	code, _ = b.get(t, "/healthz")
	require.Equal(t, http.StatusOK, code, "the process is alive: no reason to restart it")
}

func TestReadyz_RedisUnreachable_NotReady(t *testing.T) {
	t.Parallel()
	b := setupReady(t)
	b.stop()
	code, body := b.get(t, "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, map[string]string{"status": "unavailable", "reason": "redis_unavailable"}, body)
}

// The relay's errors are counted by kind, every kind exported from the
// start.
func TestMetrics_RelayErrors_CountedByKind(t *testing.T) {
	t.Parallel()
	m := NewMetrics(false)
	for _, kind := range outbox.RelayErrorKinds {
		require.Zero(t, counterValue(m, "relayops_relay_errors_total", "kind", kind))
	}
	m.relayError(outbox.RelayErrorNoGroup)
	m.relayError(outbox.RelayErrorNoGroup)
	require.EqualValues(t, 2, counterValue(m, "relayops_relay_errors_total", "kind", outbox.RelayErrorNoGroup))
	families, err := m.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == "relayops_relay_errors_total" {
			require.Len(t, f.GetMetric(), len(outbox.RelayErrorKinds))
		}
	}
}
