// Package app is the one place that maps a deployment's configuration (the
// RELAYOPS_* environment, read by internal/config) onto the plain Config of
// each library package. The library packages never import internal/config;
// the commands (cmd/api, cmd/worker, cmd/dev) call these functions.
package app

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/dashboard"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/keyring"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/quota"
	"github.com/relayops/relayops/supplier"
	"github.com/relayops/relayops/webhook"
	"github.com/relayops/relayops/worker"
)

// Jobs is the job store's configuration. A zero ledger retention means the
// ledger is kept forever.
func Jobs(c *config.Config, rdb redis.UniversalClient) jobs.Config {
	r := c.Retention
	return jobs.Config{
		Redis: rdb, Shards: c.Shards, Keys: DataKeys(c),
		WaitReplicas: c.RedisWaitReplicas, WaitTimeout: c.RedisWaitTimeout,
		Retention:     jobs.Retention{Input: r.Input, Result: r.Result, Outbox: r.Outbox, Audit: r.Audit, Ledger: r.Ledger},
		LedgerForever: r.Ledger == 0,
	}
}

// DataKeys is the key ring of RELAYOPS_DATA_KEYS (or RELAYOPS_DATA_KEY);
// nil without a key. The configuration was validated when it was loaded,
// so building the ring cannot fail: a failure is a broken invariant.
func DataKeys(c *config.Config) *keyring.Ring {
	r, err := keyring.New(c.DataKeys)
	if err != nil {
		panic(fmt.Sprintf("app: data keys from a validated configuration: %v", err))
	}
	return r
}

// Suppliers is the supplier store on the job store's Redis: fingerprints
// and aliases live as long as the ledger; nil without a store.
func Suppliers(c *config.Config, store *jobs.Store) *supplier.Store {
	if store == nil {
		return nil
	}
	window := c.Retention.Ledger
	if window == 0 {
		window = -1 // RELAYOPS_RETENTION_LEDGER=0: forever
	}
	maxBytes := c.Tenants.MaxSupplierBytes
	if maxBytes == 0 {
		maxBytes = -1 // RELAYOPS_TENANT_MAX_SUPPLIER_BYTES=0: no cap
	}
	s, err := supplier.NewStore(supplier.Config{Redis: store.Redis(), Window: window, Keys: DataKeys(c),
		MaxBytes: maxBytes, AuditRetention: c.Retention.Audit})
	if err != nil {
		panic(fmt.Sprintf("app: supplier store from a validated configuration: %v", err))
	}
	return s
}

// Policy is what the deployment books (RELAYOPS_ACCEPT_DOCUMENTS).
func Policy(c *config.Config) extract.Policy {
	return extract.Policy{Accept: c.AcceptDocuments}
}

// Limits are the job limits the deployment stamps on every job.
func Limits(c *config.Config) jobs.Limits {
	return jobs.Limits{MaxAttempts: c.MaxAttempts, MaxRecoveries: c.MaxRecoveries, Deadline: c.DefaultDeadline}
}

// API is the HTTP API's configuration; rdb is the Redis of Asynq's queues
// (read for /metrics), dash the dashboard handler (nil: none).
func API(c *config.Config, store *jobs.Store, rdb redis.UniversalClient, dash http.Handler, docs *Documents, log *slog.Logger) api.Config {
	var pages, renders api.DocumentPages
	if docs != nil && docs.PDF != nil {
		pages = docs.PDF
	}
	if docs != nil && docs.Renders != nil {
		renders = docs.Renders
	}
	cacheBytes := c.Pages.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = -1 // RELAYOPS_PAGE_CACHE_BYTES=0: no cache
	}
	return api.Config{
		MaxFileBytes: c.Documents.MaxFileBytes, MaxPages: c.Documents.MaxPages, Pages: pages, PageRenders: renders,
		PageLimits: api.PageLimits{
			RenderRate:        api.Rate{Count: c.Pages.RenderRate.Count, Per: c.Pages.RenderRate.Per},
			RenderConcurrency: c.Pages.RenderConcurrency, CountConcurrency: c.Pages.CountConcurrency,
			CacheBytes: cacheBytes,
		},
		Store: store, Tenants: c.TenantTokens, Operators: c.OperatorTokens,
		Limits:         Limits(c),
		ReprocessRate:  api.Rate{Count: c.ReprocessRate.Count, Per: c.ReprocessRate.Per},
		CorrectionRate: api.Rate{Count: c.CorrectionRate.Count, Per: c.CorrectionRate.Per},
		Policy:         Policy(c),
		Suppliers:      Suppliers(c, store),
		Dashboard:      dash, Logger: log,
		Inspector: asynq.NewInspectorFromRedisClient(rdb), MetricsTenantLabels: c.MetricsTenantLabels,
		MetricsToken: c.MetricsToken, Queues: c.Queues,
		Webhooks:        WebhookRegistry(c, store),
		WebhookResender: webhookResender(c, store, rdb),
		Quota: quota.Config{
			Rate: c.Tenants.SubmitRate.Count, Per: c.Tenants.SubmitRate.Per,
			MaxJobs: c.Tenants.MaxBacklog, MaxBytes: c.Tenants.MaxBacklogBytes,
			MaxStoredBytes: c.Tenants.MaxStoredBytes, InputRetention: c.Retention.Input,
		},
	}
}

// webhookResender re-sends dead deliveries from Asynq's archive (rdb is
// Asynq's Redis); nil without a store or a Redis.
func webhookResender(c *config.Config, store *jobs.Store, rdb redis.UniversalClient) *webhook.Resender {
	if store == nil || rdb == nil {
		return nil
	}
	r, err := webhook.NewResender(webhook.ResenderConfig{
		Registry: WebhookRegistry(c, store), Inspector: asynq.NewInspectorFromRedisClient(rdb),
		Enqueuer: asynq.NewClientFromRedisClient(rdb),
	})
	if err != nil {
		panic(fmt.Sprintf("app: webhook resender from a validated configuration: %v", err))
	}
	return r
}

// WebhookRegistry is the webhook endpoint registry, on the job store's
// Redis; nil without a store. The configuration was validated when it was
// loaded, so the registry's own checks cannot fail: a failure is a broken
// invariant.
func WebhookRegistry(c *config.Config, store *jobs.Store) *webhook.Registry {
	if store == nil {
		return nil
	}
	r, err := webhook.NewRegistry(webhook.RegistryConfig{
		Redis: store.Redis(), Keys: store.Keys(), RotationGrace: c.Webhook.RotationGrace,
		Policy: webhook.TargetPolicy{AllowInsecure: c.Webhook.AllowInsecure, AllowPrivate: c.Webhook.AllowPrivate},
	})
	if err != nil {
		panic(fmt.Sprintf("app: webhook registry from a validated configuration: %v", err))
	}
	return r
}

// Webhooks is the worker's webhook delivery configuration; nil (no
// webhooks) without a store.
func Webhooks(c *config.Config, store *jobs.Store) *worker.WebhookConfig {
	if store == nil {
		return nil
	}
	w := c.Webhook
	disableAfter := w.DisableAfter
	if disableAfter == 0 {
		disableAfter = -1 // RELAYOPS_WEBHOOK_DISABLE_AFTER=0: never
	}
	return &worker.WebhookConfig{
		Registry: WebhookRegistry(c, store), AttemptTimeout: w.Timeout, Window: w.Window,
		RetryBase: w.RetryBase, RetryMax: w.RetryMax, DisableAfter: disableAfter, CacheTTL: w.CacheTTL,
		Concurrency: w.Concurrency,
	}
}

// Dashboard is the read-only Asynq dashboard's configuration: asynqmon
// reads the Redis or the Redis Cluster that RELAYOPS_REDIS_URL names.
func Dashboard(c *config.Config, log *slog.Logger) (dashboard.Config, error) {
	d := dashboard.Config{Operators: c.OperatorTokens, PrometheusURL: c.PrometheusURL, Logger: log}
	if c.DashboardRedisCluster == nil {
		d.RedisURL = c.DashboardRedisURL
		return d, nil
	}
	opt, err := asynqClusterOptions(c.DashboardRedisCluster)
	d.RedisCluster = opt
	return d, err
}

// Worker is the worker's configuration, with the extractor the deployment
// names; asynqRedis is the Redis of Asynq's queues.
//
// docs is the process's document readers (nil: text and XML only, PDFs
// refused).
func Worker(c *config.Config, store *jobs.Store, asynqRedis redis.UniversalClient, faults *worker.Faults, docs *Documents, log *slog.Logger) (worker.Config, error) {
	metrics := worker.NewMetrics(c.MetricsTenantLabels)
	x, model, err := extractors(c, metrics)
	if err != nil {
		return worker.Config{}, err
	}
	x = extract.WithPolicy(x, Policy(c))
	var vision worker.Vision
	if c.LLM.Vision && model != nil {
		vision = model
	}
	var reader worker.DocumentReader
	if docs != nil {
		reader = docs.Readers
	}
	suppliers := Suppliers(c, store)
	var memory worker.Memory
	if c.SupplierProfiles {
		memory = supplier.NewMemory(suppliers)
	}
	return worker.Config{
		Store: store, Redis: asynqRedis, Extractor: x, Faults: faults, Logger: log, Metrics: metrics,
		Reader: reader, VisibleTotal: visibleTotal(rules.Rules{}), Vision: vision, Policy: Policy(c),
		Suppliers: suppliers, Memory: memory,
		Concurrency: c.Concurrency, Servers: c.AsynqServers, Queues: c.Queues, AttemptTimeout: c.AttemptTimeout,
		RetryBase: c.RetryBase, RetryMax: c.RetryMax, TaskCheckInterval: c.TaskCheckInterval,
		ReconcileInterval: c.ReconcileInterval, ReconcileThreshold: c.ReconcileAfter,
		Limits:      Limits(c),
		MetricsAddr: c.MetricsAddr, MetricsTenantLabels: c.MetricsTenantLabels, RelayStallTimeout: c.RelayStallTimeout,
		MetricsToken:      c.MetricsToken,
		Webhooks:          Webhooks(c, store),
		TenantMaxInFlight: c.Tenants.MaxInFlight, TenantLimits: c.Tenants.Limits,
	}, nil
}

// Extractor builds the extractor RELAYOPS_EXTRACTOR names: the rules
// extractor, the model extractor, or the chain of both. The model's calls
// are counted in metrics.
func Extractor(c *config.Config, metrics *worker.Metrics) (extract.Extractor, error) {
	x, _, err := extractors(c, metrics)
	return x, err
}

// extractors is Extractor, and the model extractor itself when one is
// configured (nil otherwise): with RELAYOPS_LLM_VISION it also reads scans'
// page images.
func extractors(c *config.Config, metrics *worker.Metrics) (extract.Extractor, *extract.Model, error) {
	rules := rules.Rules{}
	if !c.UsesModel() {
		return rules, nil, nil
	}
	model, err := extract.NewModel(extract.ModelConfig{
		BaseURL: c.LLM.BaseURL, Model: c.LLM.Model, APIKey: c.LLM.APIKey.Reveal(),
		Timeout: c.LLM.Timeout, MaxTokens: c.LLM.MaxTokens, Observe: metrics.ObserveModelCall,
		Vision: c.LLM.Vision, ImageMaxPixels: c.LLM.ImageMaxPixels,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("app: model extractor: %w", err)
	}
	if c.Extractor == config.ExtractorLLM {
		return model, model, nil
	}
	return extract.NewChain(rules, model), model, nil
}
