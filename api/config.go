package api

import (
	"log/slog"
	"net/http"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/jobs"
)

// ConfigFrom maps a deployment's configuration (RELAYOPS_*) onto the API's,
// so cmd/api and cmd/dev serve the same API. rdb is the store's connection;
// the cluster-wide gauges of /metrics (asynq_* included, for asynqmon's
// charts) read Asynq's queues through it.
func ConfigFrom(c *config.Config, store *jobs.Store, rdb redis.UniversalClient, dash http.Handler, log *slog.Logger) Config {
	return Config{
		Store: store, Tenants: c.TenantTokens, Operators: c.OperatorTokens,
		Limits:        jobs.Limits{MaxAttempts: c.MaxAttempts, MaxRecoveries: c.MaxRecoveries, Deadline: c.DefaultDeadline},
		ReprocessRate: c.ReprocessRate, Dashboard: dash, Logger: log,
		Inspector: asynq.NewInspectorFromRedisClient(rdb), MetricsTenantLabels: c.MetricsTenantLabels,
		MetricsToken: c.MetricsToken,
	}
}
