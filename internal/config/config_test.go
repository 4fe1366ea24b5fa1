package config

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/keyring"
)

const day = 24 * time.Hour

// env returns a getenv over m; missing names read as unset.
func env(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestFromEnv_NothingSet_UsesDefaults(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, &Config{
		RedisURL:          "redis://127.0.0.1:6379/0",
		DashboardRedisURL: "redis://127.0.0.1:6379/0",
		HTTPAddr:          ":8080",
		MetricsAddr:       ":9090",
		RelayStallTimeout: time.Minute,
		Shards:            16,
		RedisWaitTimeout:  time.Second,
		MaxAttempts:       3,
		MaxRecoveries:     5,
		DefaultDeadline:   24 * time.Hour,
		Concurrency:       20,
		AttemptTimeout:    5 * time.Minute,
		RetryBase:         time.Second,
		RetryMax:          5 * time.Minute,
		ReconcileInterval: time.Minute,
		ReprocessRate:     Rate{Count: 10, Per: time.Minute},
		CorrectionRate:    Rate{Count: 120, Per: time.Minute},
		AcceptDocuments:   []string{"invoice", "creditNote", "correctiveInvoice"},
		SupplierProfiles:  true,
		LogLevel:          slog.LevelInfo,
		Retention: Retention{
			Input: 7 * day, Result: 30 * day, Outbox: 24 * time.Hour, Audit: 400 * day, Ledger: 400 * day,
		},
		Extractor: ExtractorRules,
		LLM:       LLM{Timeout: time.Minute, MaxTokens: 2048, ImageMaxPixels: 2_500_000},
		Webhook: Webhook{Timeout: 10 * time.Second, Window: day, RetryBase: 5 * time.Second, RetryMax: time.Hour,
			DisableAfter: 100, RotationGrace: day, CacheTTL: 5 * time.Second, Concurrency: 10},
		Tenants: Tenants{MaxInFlight: 100, MaxSupplierBytes: 16 << 20},
		Documents: Documents{MaxFileBytes: 10 << 20, MaxPages: 50, PDFInstances: 2, ReadMemory: 1 << 30,
			OCR: OCR{Command: "tesseract", Languages: "eng+deu+fra+nld+spa+ita", PageTimeout: time.Minute, MinConfidence: 60, MaxPages: 10}},
		Pages: Pages{RenderRate: Rate{Count: 120, Per: time.Minute}, RenderConcurrency: 1, CountConcurrency: 1,
			RenderInstances: 1, CacheBytes: 64 << 20},
	}, c)
}

func TestFromEnv_BlankValue_UsesDefault(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_SHARDS": "  ", "RELAYOPS_HTTP_ADDR": ""}))
	require.NoError(t, err)
	require.Equal(t, 16, c.Shards)
	require.Equal(t, ":8080", c.HTTPAddr)
}

func TestFromEnv_GoodValue_IsApplied(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, 32)
	tests := []struct {
		name, value string
		got         func(*Config) any
		want        any
	}{
		{"RELAYOPS_REDIS_URL", "redis://:pw@redis.internal:6380/2", func(c *Config) any { return c.RedisURL }, "redis://:pw@redis.internal:6380/2"},
		{"RELAYOPS_REDIS_URL", "rediss://redis.internal:6380", func(c *Config) any { return c.RedisURL }, "rediss://redis.internal:6380"},
		{"RELAYOPS_HTTP_ADDR", "127.0.0.1:8081", func(c *Config) any { return c.HTTPAddr }, "127.0.0.1:8081"},
		{"RELAYOPS_METRICS_ADDR", ":0", func(c *Config) any { return c.MetricsAddr }, ":0"},
		{"RELAYOPS_RELAY_STALL_TIMEOUT", "90s", func(c *Config) any { return c.RelayStallTimeout }, 90 * time.Second},
		{"RELAYOPS_METRICS_TOKEN", "scrape-0123456789", func(c *Config) any { return c.MetricsToken }, "scrape-0123456789"},
		{"RELAYOPS_TENANT_TOKENS", "acme:acme-token-0123456, globex:globex-token-012345", func(c *Config) any { return c.TenantTokens },
			[]Credential{{Name: "acme", Token: "acme-token-0123456"}, {Name: "globex", Token: "globex-token-012345"}}},
		{"RELAYOPS_TENANT_TOKENS", "acme:old-token-0123456789,acme:new-token-0123456789", func(c *Config) any { return c.TenantTokens },
			[]Credential{{Name: "acme", Token: "old-token-0123456789"}, {Name: "acme", Token: "new-token-0123456789"}}},
		{"RELAYOPS_OPERATOR_TOKENS", "alice:tok:C-0123456789abc", func(c *Config) any { return c.OperatorTokens },
			[]Credential{{Name: "alice", Token: "tok:C-0123456789abc"}}},
		{"RELAYOPS_SHARDS", "16384", func(c *Config) any { return c.Shards }, 16384},
		{"RELAYOPS_SHARDS", "1", func(c *Config) any { return c.Shards }, 1},
		{"RELAYOPS_QUEUES", "AUTO", func(c *Config) any { return c.Queues }, 0},
		{"RELAYOPS_QUEUES", "1", func(c *Config) any { return c.Queues }, 1},
		{"RELAYOPS_QUEUES", "16", func(c *Config) any { return c.Queues }, 16},
		{"RELAYOPS_REDIS_WAIT_REPLICAS", "1", func(c *Config) any { return c.RedisWaitReplicas }, 1},
		{"RELAYOPS_REDIS_WAIT_TIMEOUT", "250ms", func(c *Config) any { return c.RedisWaitTimeout }, 250 * time.Millisecond},
		{"RELAYOPS_MAX_ATTEMPTS", "100", func(c *Config) any { return c.MaxAttempts }, 100},
		{"RELAYOPS_MAX_RECOVERIES", "0", func(c *Config) any { return c.MaxRecoveries }, 0},
		{"RELAYOPS_DEFAULT_DEADLINE", "7d", func(c *Config) any { return c.DefaultDeadline }, 7 * day},
		{"RELAYOPS_DEFAULT_DEADLINE", "1s", func(c *Config) any { return c.DefaultDeadline }, time.Second},
		{"RELAYOPS_CONCURRENCY", "10000", func(c *Config) any { return c.Concurrency }, 10000},
		{"RELAYOPS_ASYNQ_SERVERS", "4", func(c *Config) any { return c.AsynqServers }, 4},
		{"RELAYOPS_ASYNQ_SERVERS", "AUTO", func(c *Config) any { return c.AsynqServers }, 0},
		{"RELAYOPS_ATTEMPT_TIMEOUT", "90s", func(c *Config) any { return c.AttemptTimeout }, 90 * time.Second},
		{"RELAYOPS_RETRY_BASE", "200ms", func(c *Config) any { return c.RetryBase }, 200 * time.Millisecond},
		{"RELAYOPS_RETRY_MAX", "1d", func(c *Config) any { return c.RetryMax }, day},
		{"RELAYOPS_TASK_CHECK_INTERVAL", "1s", func(c *Config) any { return c.TaskCheckInterval }, time.Second},
		{"RELAYOPS_TASK_CHECK_INTERVAL", "auto", func(c *Config) any { return c.TaskCheckInterval }, time.Duration(0)},
		{"RELAYOPS_RECONCILE_INTERVAL", "1s", func(c *Config) any { return c.ReconcileInterval }, time.Second},
		{"RELAYOPS_RECONCILE_AFTER", "5s", func(c *Config) any { return c.ReconcileAfter }, 5 * time.Second},
		{"RELAYOPS_RECONCILE_AFTER", "auto", func(c *Config) any { return c.ReconcileAfter }, time.Duration(0)},
		{"RELAYOPS_REPROCESS_RATE", "3/1h", func(c *Config) any { return c.ReprocessRate }, Rate{3, time.Hour}},
		{"RELAYOPS_REPROCESS_RATE", "100/1d", func(c *Config) any { return c.ReprocessRate }, Rate{100, day}},
		{"RELAYOPS_PAGE_RENDER_RATE", "30/10s", func(c *Config) any { return c.Pages.RenderRate }, Rate{30, 10 * time.Second}},
		{"RELAYOPS_PAGE_RENDER_CONCURRENCY", "4", func(c *Config) any { return c.Pages.RenderConcurrency }, 4},
		{"RELAYOPS_PAGE_COUNT_CONCURRENCY", "2", func(c *Config) any { return c.Pages.CountConcurrency }, 2},
		{"RELAYOPS_PAGE_RENDER_INSTANCES", "3", func(c *Config) any { return c.Pages.RenderInstances }, 3},
		{"RELAYOPS_PAGE_CACHE_BYTES", "0", func(c *Config) any { return c.Pages.CacheBytes }, int64(0)},
		{"RELAYOPS_PAGE_CACHE_BYTES", "1GiB", func(c *Config) any { return c.Pages.CacheBytes }, int64(1 << 30)},
		{"RELAYOPS_DATA_KEY", base64.StdEncoding.EncodeToString(key), func(c *Config) any { return c.DataKeys }, []keyring.Key{{ID: "default", Secret: key}}},
		{"RELAYOPS_FAULTS", "extract=transient@0.2", func(c *Config) any { return c.Faults }, "extract=transient@0.2"},
		{"RELAYOPS_LOG_LEVEL", "debug", func(c *Config) any { return c.LogLevel }, slog.LevelDebug},
		{"RELAYOPS_LOG_LEVEL", "WARN", func(c *Config) any { return c.LogLevel }, slog.LevelWarn},
		{"RELAYOPS_LOG_LEVEL", "error", func(c *Config) any { return c.LogLevel }, slog.LevelError},
		{"RELAYOPS_RETENTION_INPUT", "1.5d", func(c *Config) any { return c.Retention.Input }, 36 * time.Hour},
		{"RELAYOPS_RETENTION_RESULT", "48h", func(c *Config) any { return c.Retention.Result }, 48 * time.Hour},
		{"RELAYOPS_RETENTION_OUTBOX", "1h", func(c *Config) any { return c.Retention.Outbox }, time.Hour},
		{"RELAYOPS_RETENTION_AUDIT", "3650d", func(c *Config) any { return c.Retention.Audit }, 3650 * day},
		{"RELAYOPS_RETENTION_LEDGER", "0", func(c *Config) any { return c.Retention.Ledger }, time.Duration(0)},
		{"RELAYOPS_RETENTION_LEDGER", "30d", func(c *Config) any { return c.Retention.Ledger }, 30 * day},
		{"RELAYOPS_PROMETHEUS_URL", "http://prometheus:9090", func(c *Config) any { return c.PrometheusURL }, "http://prometheus:9090"},
		{"RELAYOPS_METRICS_TENANT_LABELS", "true", func(c *Config) any { return c.MetricsTenantLabels }, true},
		{"RELAYOPS_METRICS_TENANT_LABELS", "0", func(c *Config) any { return c.MetricsTenantLabels }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(map[string]string{tt.name: tt.value}))
			require.NoError(t, err)
			require.Equal(t, tt.want, tt.got(c))
		})
	}
}

func TestFromEnv_BadValue_MessageNamesVariable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		wantMsg     string // the whole message when it quotes the value, else a part
	}{
		{"RELAYOPS_REDIS_URL", "http://localhost:6379", "RELAYOPS_REDIS_URL: must be a redis://, rediss://, unix:// or redis-cluster:// URL"},
		{"RELAYOPS_REDIS_URL", "redis://localhost:6379/x", "RELAYOPS_REDIS_URL: must be a redis://"},
		{"RELAYOPS_HTTP_ADDR", "8080", `RELAYOPS_HTTP_ADDR: must be host:port or :port, got "8080"`},
		{"RELAYOPS_METRICS_ADDR", "localhost:", `RELAYOPS_METRICS_ADDR: must be host:port or :port, got "localhost:"`},
		{"RELAYOPS_RELAY_STALL_TIMEOUT", "500ms", `RELAYOPS_RELAY_STALL_TIMEOUT: must be a duration of at least 1s`},
		{"RELAYOPS_RECONCILE_INTERVAL", "10ms", `RELAYOPS_RECONCILE_INTERVAL: must be a duration of at least 100ms`},
		{"RELAYOPS_RECONCILE_AFTER", "0", `RELAYOPS_RECONCILE_AFTER: must be auto or a duration of at least 1s`},
		{"RELAYOPS_METRICS_TOKEN", "short-token", "RELAYOPS_METRICS_TOKEN: token must be at least 16 characters, got 11 (value not shown)"},
		{"RELAYOPS_METRICS_TOKEN", "scrape token 0123456789", "RELAYOPS_METRICS_TOKEN: token must be printable ASCII without spaces (value not shown)"},
		{"RELAYOPS_TENANT_TOKENS", "acme", "RELAYOPS_TENANT_TOKENS: entry 1 must be name:token (value not shown)"},
		{"RELAYOPS_TENANT_TOKENS", "acme:acme-token-0123456,,globex:globex-token-012345", "RELAYOPS_TENANT_TOKENS: entry 2 is empty"},
		{"RELAYOPS_TENANT_TOKENS", "Acme:tokA", "RELAYOPS_TENANT_TOKENS: entry 1: name must match"},
		{"RELAYOPS_TENANT_TOKENS", "a:tokA", "RELAYOPS_TENANT_TOKENS: entry 1: name must match"},
		{"RELAYOPS_OPERATOR_TOKENS", "alice:", "RELAYOPS_OPERATOR_TOKENS: entry 1 (alice): token is empty"},
		{"RELAYOPS_OPERATOR_TOKENS", "alice:a\tb", "RELAYOPS_OPERATOR_TOKENS: entry 1 (alice): token must be printable ASCII without spaces"},
		{"RELAYOPS_TENANT_TOKENS", "acme:acme-demo-token", "RELAYOPS_TENANT_TOKENS: entry 1 (acme): token must be at least 16 characters, got 15"},
		{"RELAYOPS_OPERATOR_TOKENS", "alice:x", "RELAYOPS_OPERATOR_TOKENS: entry 1 (alice): token must be at least 16 characters, got 1"},
		{"RELAYOPS_SHARDS", "x", `RELAYOPS_SHARDS: must be an integer from 1 to 16384, got "x"`},
		{"RELAYOPS_SHARDS", "0", `RELAYOPS_SHARDS: must be an integer from 1 to 16384, got "0"`},
		{"RELAYOPS_SHARDS", "16385", `RELAYOPS_SHARDS: must be an integer from 1 to 16384, got "16385"`},
		{"RELAYOPS_QUEUES", "0", `RELAYOPS_QUEUES: must be auto or an integer from 1 to 16384, got "0"`},
		{"RELAYOPS_QUEUES", "many", `RELAYOPS_QUEUES: must be auto or an integer from 1 to 16384, got "many"`},
		{"RELAYOPS_QUEUES", "17", `RELAYOPS_QUEUES: must not exceed RELAYOPS_SHARDS (16), got "17"`},
		{"RELAYOPS_REDIS_WAIT_REPLICAS", "-1", `RELAYOPS_REDIS_WAIT_REPLICAS: must be an integer from 0 to 100, got "-1"`},
		{"RELAYOPS_REDIS_WAIT_TIMEOUT", "0s", `RELAYOPS_REDIS_WAIT_TIMEOUT: must be a duration from 1ms to 1.5s`},
		{"RELAYOPS_REDIS_WAIT_TIMEOUT", "2s", `RELAYOPS_REDIS_WAIT_TIMEOUT: must be a duration from 1ms to 1.5s`},
		{"RELAYOPS_MAX_ATTEMPTS", "0", `RELAYOPS_MAX_ATTEMPTS: must be an integer from 1 to 100, got "0"`},
		{"RELAYOPS_MAX_RECOVERIES", "-1", `RELAYOPS_MAX_RECOVERIES: must be an integer from 0 to 100, got "-1"`},
		{"RELAYOPS_DEFAULT_DEADLINE", "1500ms", `RELAYOPS_DEFAULT_DEADLINE: must be a duration of at least 1s in whole seconds`},
		{"RELAYOPS_DEFAULT_DEADLINE", "500ms", `got "500ms"`},
		{"RELAYOPS_CONCURRENCY", "10001", `RELAYOPS_CONCURRENCY: must be an integer from 1 to 10000, got "10001"`},
		{"RELAYOPS_ASYNQ_SERVERS", "0", `RELAYOPS_ASYNQ_SERVERS: must be auto or an integer from 1 to 64, got "0"`},
		{"RELAYOPS_ASYNQ_SERVERS", "two", `RELAYOPS_ASYNQ_SERVERS: must be auto or an integer from 1 to 64, got "two"`},
		{"RELAYOPS_ATTEMPT_TIMEOUT", "999ms", `RELAYOPS_ATTEMPT_TIMEOUT: must be a duration of at least 1s`},
		{"RELAYOPS_RETRY_BASE", "0s", `RELAYOPS_RETRY_BASE: must be a positive duration`},
		{"RELAYOPS_RETRY_MAX", "500ms", `RELAYOPS_RETRY_MAX: must be at least RELAYOPS_RETRY_BASE (1s), got "500ms"`},
		{"RELAYOPS_TASK_CHECK_INTERVAL", "-1s", `RELAYOPS_TASK_CHECK_INTERVAL: must be auto or a positive duration`},
		{"RELAYOPS_TASK_CHECK_INTERVAL", "fast", `got "fast"`},
		{"RELAYOPS_REPROCESS_RATE", "10", `RELAYOPS_REPROCESS_RATE: must be count/duration`},
		{"RELAYOPS_PAGE_RENDER_RATE", "fast", `RELAYOPS_PAGE_RENDER_RATE: must be count/duration`},
		{"RELAYOPS_PAGE_RENDER_CONCURRENCY", "0", `RELAYOPS_PAGE_RENDER_CONCURRENCY: must be an integer from 1 to 64`},
		{"RELAYOPS_PAGE_COUNT_CONCURRENCY", "65", `RELAYOPS_PAGE_COUNT_CONCURRENCY: must be an integer from 1 to 64`},
		{"RELAYOPS_PAGE_RENDER_INSTANCES", "0", `RELAYOPS_PAGE_RENDER_INSTANCES: must be an integer from 1 to 64`},
		{"RELAYOPS_PAGE_CACHE_BYTES", "lots", `RELAYOPS_PAGE_CACHE_BYTES: must be a number of bytes`},
		{"RELAYOPS_PAGE_CACHE_BYTES", "17GiB", `RELAYOPS_PAGE_CACHE_BYTES: must be at most 16GiB`},
		{"RELAYOPS_REPROCESS_RATE", "0/1m", `got "0/1m"`},
		{"RELAYOPS_REPROCESS_RATE", "10/m", `got "10/m"`},
		{"RELAYOPS_REPROCESS_RATE", "10/0s", `got "10/0s"`},
		{"RELAYOPS_DATA_KEY", "not base64!", "RELAYOPS_DATA_KEY: must be standard base64 (value not shown)"},
		{"RELAYOPS_DATA_KEY", base64.StdEncoding.EncodeToString(make([]byte, 16)), "RELAYOPS_DATA_KEY: must decode to exactly 32 bytes, got 16"},
		{"RELAYOPS_LOG_LEVEL", "verbose", `RELAYOPS_LOG_LEVEL: must be debug, info, warn or error, got "verbose"`},
		{"RELAYOPS_RETENTION_INPUT", "0", `RELAYOPS_RETENTION_INPUT: must be a positive duration`},
		{"RELAYOPS_RETENTION_RESULT", "-1d", `RELAYOPS_RETENTION_RESULT: must be a positive duration`},
		{"RELAYOPS_RETENTION_OUTBOX", "0s", `RELAYOPS_RETENTION_OUTBOX: must be a positive duration`},
		{"RELAYOPS_RETENTION_AUDIT", "0d", `RELAYOPS_RETENTION_AUDIT: must be a positive duration`},
		{"RELAYOPS_RETENTION_LEDGER", "-1s", `RELAYOPS_RETENTION_LEDGER: must be 0 (forever) or a positive duration`},
		{"RELAYOPS_RETENTION_LEDGER", "1d", `RELAYOPS_RETENTION_LEDGER: must be 0 (forever) or at least RELAYOPS_RETENTION_INPUT`},
		{"RELAYOPS_PROMETHEUS_URL", "prometheus:9090", "RELAYOPS_PROMETHEUS_URL: must be an absolute http:// or https:// URL"},
		{"RELAYOPS_SUPPLIER_PROFILES", "true", `RELAYOPS_SUPPLIER_PROFILES: must be on or off, got "true"`},
		{"RELAYOPS_METRICS_TENANT_LABELS", "yes", `RELAYOPS_METRICS_TENANT_LABELS: must be true or false, got "yes"`},
		{"RELAYOPS_TENANT_MAX_INFLIGHT", "-1", `RELAYOPS_TENANT_MAX_INFLIGHT: must be an integer from 0 to 1000000, got "-1"`},
		{"RELAYOPS_TENANT_LIMITS", "acme=50,globex", `RELAYOPS_TENANT_LIMITS: entry 2 must be tenant=n with n from 0 to 1000000, got "globex"`},
		{"RELAYOPS_TENANT_LIMITS", "acme=-5", `RELAYOPS_TENANT_LIMITS: entry 1 must be tenant=n`},
		{"RELAYOPS_TENANT_LIMITS", "Acme=5", `RELAYOPS_TENANT_LIMITS: entry 1: tenant "Acme" must match`},
		{"RELAYOPS_TENANT_LIMITS", "acme=5,acme=6", `RELAYOPS_TENANT_LIMITS: tenant acme is listed twice`},
		{"RELAYOPS_TENANT_SUBMIT_RATE", "100", `RELAYOPS_TENANT_SUBMIT_RATE: must be count/duration`},
		{"RELAYOPS_TENANT_MAX_BACKLOG", "lots", `RELAYOPS_TENANT_MAX_BACKLOG: must be an integer from 0 to 100000000, got "lots"`},
		{"RELAYOPS_TENANT_MAX_BACKLOG_BYTES", "1GB", `RELAYOPS_TENANT_MAX_BACKLOG_BYTES: must be a number of bytes`},
		{"RELAYOPS_TENANT_MAX_BACKLOG_BYTES", "2048TiB", `got "2048TiB"`},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(map[string]string{tt.name: tt.value}))
			require.Error(t, err)
			require.Nil(t, c)
			require.Len(t, unjoin(err), 1, "one bad variable gives one message: %v", err)
			require.True(t, strings.HasPrefix(err.Error(), tt.name+": "), "message %q does not start with the variable", err)
			require.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestFromEnv_SeveralBadValues_AllReported(t *testing.T) {
	t.Parallel()
	_, err := FromEnv(env(map[string]string{
		"RELAYOPS_SHARDS":     "x",
		"RELAYOPS_LOG_LEVEL":  "loud",
		"RELAYOPS_RETRY_BASE": "soon",
	}))
	require.Error(t, err)
	msgs := unjoin(err)
	require.Len(t, msgs, 3)
	require.Contains(t, err.Error(), `RELAYOPS_SHARDS: must be an integer from 1 to 16384, got "x"`)
	require.Contains(t, err.Error(), `RELAYOPS_LOG_LEVEL:`)
	require.Contains(t, err.Error(), `RELAYOPS_RETRY_BASE:`)
}

func TestFromEnv_BadRetryBase_DoesNotAlsoBlameRetryMax(t *testing.T) {
	t.Parallel()
	_, err := FromEnv(env(map[string]string{"RELAYOPS_RETRY_BASE": "10m", "RELAYOPS_RETRY_MAX": "x"}))
	require.Len(t, unjoin(err), 1)
	require.Contains(t, err.Error(), "RELAYOPS_RETRY_MAX:")
}

func TestFromEnv_DuplicateToken_Rejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantMsg string
	}{
		{"within tenants", map[string]string{"RELAYOPS_TENANT_TOKENS": "acme:same-token-0123456,globex:same-token-0123456"},
			"RELAYOPS_TENANT_TOKENS: token of globex is already used by acme in RELAYOPS_TENANT_TOKENS"},
		{"tenant and operator", map[string]string{"RELAYOPS_TENANT_TOKENS": "acme:same-token-0123456", "RELAYOPS_OPERATOR_TOKENS": "alice:same-token-0123456"},
			"RELAYOPS_OPERATOR_TOKENS: token of alice is already used by acme in RELAYOPS_TENANT_TOKENS"},
		{"within operators", map[string]string{"RELAYOPS_OPERATOR_TOKENS": "alice:same-token-0123456,bob:same-token-0123456"},
			"RELAYOPS_OPERATOR_TOKENS: token of bob is already used by alice in RELAYOPS_OPERATOR_TOKENS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromEnv(env(tt.env))
			require.EqualError(t, err, tt.wantMsg)
		})
	}
}

func TestFromEnv_Errors_NeverQuoteSecrets(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-VALUE-0123456789"
	bad := []map[string]string{
		{"RELAYOPS_TENANT_TOKENS": secret},
		{"RELAYOPS_TENANT_TOKENS": secret + ":acme"},
		{"RELAYOPS_TENANT_TOKENS": "acme:" + secret + " x"},
		{"RELAYOPS_TENANT_TOKENS": "acme:" + secret, "RELAYOPS_OPERATOR_TOKENS": "alice:" + secret},
		{"RELAYOPS_OPERATOR_TOKENS": "alice:" + secret + ",," + secret},
		{"RELAYOPS_DATA_KEY": secret},
		{"RELAYOPS_DATA_KEY": base64.StdEncoding.EncodeToString([]byte(secret))},
		{"RELAYOPS_REDIS_URL": "redis://:" + secret + "@host:notaport/0"},
		{"RELAYOPS_REDIS_URL": "redis://:ab/" + secret + "@host:6379/0"},
		{"RELAYOPS_REDIS_URL": "redis://:" + secret + "@host:6379/x"},
		{"RELAYOPS_REDIS_URL": "ftp://:" + secret + "@host:6379/0"},
		{"RELAYOPS_PROMETHEUS_URL": "ftp://user:" + secret + "@host"},
	}
	for i, m := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			_, err := FromEnv(env(m))
			require.Error(t, err)
			require.NotContains(t, err.Error(), secret)
			require.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

func TestVars_ListsExactlyWhatFromEnvReads(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	_, err := FromEnv(func(name string) string { read[name] = true; return "" })
	require.NoError(t, err)

	listed := map[string]bool{}
	for _, v := range Vars() {
		require.True(t, strings.HasPrefix(v.Name, "RELAYOPS_"), v.Name)
		require.NotEmpty(t, v.Description, v.Name)
		require.NotContains(t, v.Description, "\n", v.Name)
		require.False(t, listed[v.Name], "%s listed twice", v.Name)
		listed[v.Name] = true
	}
	require.Equal(t, listed, read)
}

func TestVars_DefaultsAreValidValues(t *testing.T) {
	t.Parallel()
	m := map[string]string{}
	for _, v := range Vars() {
		m[v.Name] = v.Default
	}
	got, err := FromEnv(env(m))
	require.NoError(t, err)
	want, err := FromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestVars_ReturnsACopy(t *testing.T) {
	t.Parallel()
	v := Vars()
	v[0].Default = "changed"
	require.NotEqual(t, "changed", Vars()[0].Default)
}

func TestCredential_Printing_HidesToken(t *testing.T) {
	t.Parallel()
	c := Credential{Name: "alice", Token: "tokC"}
	require.Equal(t, "alice:***", c.String())
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		require.NotContains(t, fmt.Sprintf(format, c), "tokC", format)
		require.NotContains(t, fmt.Sprintf(format, []Credential{c}), "tokC", format)
		require.NotContains(t, fmt.Sprintf(format, Config{OperatorTokens: []Credential{c}}), "tokC", format)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "cred", c, "creds", []Credential{c})
	require.Contains(t, buf.String(), "alice:***")
	require.NotContains(t, buf.String(), "tokC")
}

func TestConfig_NewLogger_JSONAtLevelWithComponent(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_LOG_LEVEL": "warn"}))
	require.NoError(t, err)
	var buf bytes.Buffer
	log := c.NewLogger(&buf, "outbox.relay")
	log.Info("dropped")
	log.Warn("kept", "job_key", "acme:doc:v1")

	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	require.Equal(t, "kept", rec["msg"])
	require.Equal(t, "outbox.relay", rec["component"])
	require.Equal(t, "acme:doc:v1", rec["job_key"])
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	good := map[string]time.Duration{
		"7d": 7 * day, "1.5d": 36 * time.Hour, "0d": 0, "90s": 90 * time.Second, "1h30m": 90 * time.Minute, "0": 0,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "d", "1.d", ".5d", "-1d", "1e3d", "infd", "NaNd", "7 d", "1d12h", "200000d"} {
		_, err := ParseDuration(in)
		require.Error(t, err, in)
	}
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	var j interface{ Unwrap() []error }
	if errors.As(err, &j) {
		return j.Unwrap()
	}
	return []error{err}
}

func TestCredential_JSON_HidesToken(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Config{TenantTokens: []Credential{{Name: "acme", Token: "tokA"}}})
	require.NoError(t, err)
	require.Contains(t, string(b), `"TenantTokens":["acme:***"]`)
	require.NotContains(t, string(b), "tokA")
}

// FuzzFromEnv feeds one arbitrary value to every variable: FromEnv must not
// panic, and whatever it accepts must hold the documented invariants.
func FuzzFromEnv(f *testing.F) {
	for _, v := range Vars() {
		f.Add(v.Default)
	}
	f.Add("acme:tokA,globex:tokB")
	f.Add("1.5d")
	f.Add("3/1h")
	f.Fuzz(func(t *testing.T, value string) {
		for _, v := range Vars() {
			c, err := FromEnv(env(map[string]string{v.Name: value}))
			if err != nil {
				require.Nil(t, c)
				// Cross-variable rules may blame the partner variable.
				require.True(t, strings.HasPrefix(err.Error(), "RELAYOPS_"), "%s=%q: %v", v.Name, value, err)
				continue
			}
			require.True(t, c.Shards >= 1 && c.Shards <= 16384)
			require.True(t, c.RetryBase > 0 && c.RetryMax >= c.RetryBase)
			require.True(t, c.DefaultDeadline >= time.Second && c.DefaultDeadline%time.Second == 0)
			require.True(t, c.ReprocessRate.Count >= 1 && c.ReprocessRate.Per > 0)
			for _, k := range c.DataKeys {
				require.Len(t, k.Secret, 32)
			}
			require.GreaterOrEqual(t, c.Retention.Ledger, time.Duration(0))
		}
	})
}

func TestFromEnv_Webhook_ReadsOverridesAndNamesBadValues(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{
		"RELAYOPS_WEBHOOK_ALLOW_INSECURE": "1", "RELAYOPS_WEBHOOK_ALLOW_PRIVATE": "true",
		"RELAYOPS_WEBHOOK_WINDOW": "2h", "RELAYOPS_WEBHOOK_RETRY_BASE": "100ms", "RELAYOPS_WEBHOOK_RETRY_MAX": "1s",
		"RELAYOPS_WEBHOOK_DISABLE_AFTER": "0", "RELAYOPS_WEBHOOK_CONCURRENCY": "3",
	}))
	require.NoError(t, err)
	require.Equal(t, 3, c.Webhook.Concurrency)
	require.True(t, c.Webhook.AllowInsecure)
	require.True(t, c.Webhook.AllowPrivate)
	require.Equal(t, 2*time.Hour, c.Webhook.Window)
	require.Equal(t, 100*time.Millisecond, c.Webhook.RetryBase)
	require.Equal(t, 0, c.Webhook.DisableAfter)

	_, err = FromEnv(env(map[string]string{
		"RELAYOPS_WEBHOOK_RETRY_BASE": "10s", "RELAYOPS_WEBHOOK_RETRY_MAX": "1s", "RELAYOPS_WEBHOOK_ALLOW_PRIVATE": "maybe",
		"RELAYOPS_WEBHOOK_CONCURRENCY": "0",
	}))
	require.ErrorContains(t, err, "RELAYOPS_WEBHOOK_RETRY_MAX")
	require.ErrorContains(t, err, `RELAYOPS_WEBHOOK_CONCURRENCY: must be an integer from 1 to 10000, got "0"`)
	require.ErrorContains(t, err, "RELAYOPS_WEBHOOK_ALLOW_PRIVATE")
}

func TestFromEnv_TenantSettings_Parsed(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{
		"RELAYOPS_TENANT_MAX_INFLIGHT":      "0",
		"RELAYOPS_TENANT_LIMITS":            " acme=50 , globex=5,initech=0",
		"RELAYOPS_TENANT_SUBMIT_RATE":       "1000/1s",
		"RELAYOPS_TENANT_MAX_BACKLOG":       "50000",
		"RELAYOPS_TENANT_MAX_BACKLOG_BYTES": "256MiB",
		"RELAYOPS_TENANT_MAX_STORED_BYTES":  "2GiB",
	}))
	require.NoError(t, err)
	require.Equal(t, Tenants{
		MaxInFlight: 0, Limits: map[string]int{"acme": 50, "globex": 5, "initech": 0},
		SubmitRate: Rate{1000, time.Second}, MaxBacklog: 50000, MaxBacklogBytes: 256 << 20,
		MaxStoredBytes: 2 << 30, MaxSupplierBytes: 16 << 20,
	}, c.Tenants)
}

func TestFromEnv_AsynqServers_AtMostTheConcurrency(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_CONCURRENCY": "1"}))
	require.NoError(t, err, "auto fits any concurrency")
	require.Zero(t, c.AsynqServers)
	_, err = FromEnv(env(map[string]string{"RELAYOPS_CONCURRENCY": "3", "RELAYOPS_ASYNQ_SERVERS": "4"}))
	require.ErrorContains(t, err, `RELAYOPS_ASYNQ_SERVERS: must be at most RELAYOPS_CONCURRENCY (3): each server needs a slot, got "4"`)
}

func TestFromEnv_AcceptDocuments_NamesTheBookedTypesOnly(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(func(k string) string {
		if k == "RELAYOPS_ACCEPT_DOCUMENTS" {
			return " invoice , invoice"
		}
		return ""
	})
	require.NoError(t, err)
	require.Equal(t, []string{"invoice"}, c.AcceptDocuments)
	for _, bad := range []string{"invoice,credit_note", ",", "receipt"} {
		_, err := FromEnv(func(k string) string {
			if k == "RELAYOPS_ACCEPT_DOCUMENTS" {
				return bad
			}
			return ""
		})
		require.ErrorContains(t, err, "RELAYOPS_ACCEPT_DOCUMENTS", bad)
	}
}

func TestFromEnv_SupplierProfiles_OnOrOff(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"": true, "on": true, "off": false} {
		c, err := FromEnv(env(map[string]string{"RELAYOPS_SUPPLIER_PROFILES": v}))
		require.NoError(t, err, v)
		require.Equal(t, want, c.SupplierProfiles, v)
	}
}
