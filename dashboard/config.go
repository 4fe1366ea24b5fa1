package dashboard

import (
	"log/slog"

	"github.com/relayops/relayops/internal/config"
)

// ConfigFrom maps a deployment's configuration (RELAYOPS_*) onto the
// dashboard's.
func ConfigFrom(c *config.Config, log *slog.Logger) Config {
	return Config{RedisURL: c.RedisURL, Operators: c.OperatorTokens, PrometheusURL: c.PrometheusURL, Logger: log}
}
