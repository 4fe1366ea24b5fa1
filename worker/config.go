package worker

import (
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/outbox"
)

// ConfigFrom maps a deployment's configuration (RELAYOPS_*) onto the
// worker's, so cmd/worker and cmd/dev run the same worker. asynqRedis is
// Asynq's own, ordinary connection: Asynq's scripts are safe to retry, the
// store's are not.
func ConfigFrom(c *config.Config, store *outbox.Store, asynqRedis redis.UniversalClient, faults *Faults, log *slog.Logger) Config {
	return Config{
		Store: store, Redis: asynqRedis, Faults: faults, Logger: log,
		Concurrency: c.Concurrency, AttemptTimeout: c.AttemptTimeout,
		RetryBase: c.RetryBase, RetryMax: c.RetryMax, TaskCheckInterval: c.TaskCheckInterval,
		MaxAttempts: c.MaxAttempts, MaxRecoveries: c.MaxRecoveries,
		MetricsAddr: c.MetricsAddr, MetricsTenantLabels: c.MetricsTenantLabels, RelayStallTimeout: c.RelayStallTimeout,
		MetricsToken: c.MetricsToken,
	}
}
