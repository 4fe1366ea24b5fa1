package worker

import (
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/jobs"
)

// ConfigFrom maps a deployment's configuration (RELAYOPS_*) onto the
// worker's, so cmd/worker and cmd/dev run the same worker, with the
// extractor RELAYOPS_EXTRACTOR names wired to the worker's metrics.
// asynqRedis is Asynq's own, ordinary connection: Asynq's scripts are safe
// to retry, the store's are not.
func ConfigFrom(c *config.Config, store *jobs.Store, asynqRedis redis.UniversalClient, faults *Faults, log *slog.Logger) (Config, error) {
	metrics := NewMetrics(c.MetricsTenantLabels)
	x, err := ExtractorFrom(c, metrics)
	if err != nil {
		return Config{}, err
	}
	return Config{
		Store: store, Redis: asynqRedis, Extractor: x, Faults: faults, Logger: log, Metrics: metrics,
		Concurrency: c.Concurrency, AttemptTimeout: c.AttemptTimeout,
		RetryBase: c.RetryBase, RetryMax: c.RetryMax, TaskCheckInterval: c.TaskCheckInterval,
		MaxAttempts: c.MaxAttempts, MaxRecoveries: c.MaxRecoveries,
		MetricsAddr: c.MetricsAddr, MetricsTenantLabels: c.MetricsTenantLabels, RelayStallTimeout: c.RelayStallTimeout,
		MetricsToken: c.MetricsToken,
	}, nil
}

// ExtractorFrom builds the extractor RELAYOPS_EXTRACTOR names: the rules
// extractor, the model extractor, or the chain of both. The model's calls
// are counted in metrics.
func ExtractorFrom(c *config.Config, metrics *Metrics) (extract.Extractor, error) {
	rules := extract.Rules{}
	if !c.UsesModel() {
		return rules, nil
	}
	model, err := extract.NewModel(extract.ModelConfig{
		BaseURL: c.LLM.BaseURL, Model: c.LLM.Model, APIKey: c.LLM.APIKey.Reveal(),
		Timeout: c.LLM.Timeout, MaxTokens: c.LLM.MaxTokens, Observe: metrics.ObserveModelCall,
	})
	if err != nil {
		return nil, fmt.Errorf("worker: model extractor: %w", err)
	}
	if c.Extractor == config.ExtractorLLM {
		return model, nil
	}
	return extract.NewChain(rules, model), nil
}
