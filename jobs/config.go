package jobs

import (
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/config"
)

// ConfigFrom maps a deployment's configuration (RELAYOPS_*) onto the store's,
// so every binary builds the same store from the same environment.
func ConfigFrom(c *config.Config, rdb redis.UniversalClient) Config {
	r := c.Retention
	return Config{
		Redis: rdb, Shards: c.Shards, DataKey: c.DataKey,
		Retention:     Retention{Input: r.Input, Result: r.Result, Outbox: r.Outbox, Audit: r.Audit, Ledger: r.Ledger},
		LedgerForever: r.Ledger == 0,
	}
}
