// Package config is the only place that reads the environment. It turns the
// RELAYOPS_* variables into a validated Config, reporting every problem at once
// (errors.Join) with messages that name the variable and never quote a secret.
//
// An unset variable and one set to the empty string (after trimming spaces)
// both mean "use the default".
package config

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/internal/keyring"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config is the whole runtime configuration of relayops. Each field names its
// variable and default.
type Config struct {
	RedisURL          string        // RELAYOPS_REDIS_URL, default redis://127.0.0.1:6379/0
	HTTPAddr          string        // RELAYOPS_HTTP_ADDR, default :8080
	MetricsAddr       string        // RELAYOPS_METRICS_ADDR, default :9090
	RelayStallTimeout time.Duration // RELAYOPS_RELAY_STALL_TIMEOUT, default 1m (>= 1s)
	MetricsToken      string        // RELAYOPS_METRICS_TOKEN, default none (/metrics open); >= 16 characters
	TenantTokens      []Credential  // RELAYOPS_TENANT_TOKENS, default none
	OperatorTokens    []Credential  // RELAYOPS_OPERATOR_TOKENS, default none
	Shards            int           // RELAYOPS_SHARDS, default 16 (1..16384)
	Queues            int           // RELAYOPS_QUEUES, default auto (0: 16 capped at Shards on a cluster, 1 on one Redis); 1..Shards
	RedisWaitReplicas int           // RELAYOPS_REDIS_WAIT_REPLICAS, default 0 (0..100)
	RedisWaitTimeout  time.Duration // RELAYOPS_REDIS_WAIT_TIMEOUT, default 1s (1ms..1.5s, below the store's 2 s read timeout)
	MaxAttempts       int           // RELAYOPS_MAX_ATTEMPTS, default 3 (1..100)
	MaxRecoveries     int           // RELAYOPS_MAX_RECOVERIES, default 5 (0..100)
	DefaultDeadline   time.Duration // RELAYOPS_DEFAULT_DEADLINE, default 24h (>= 1s, whole seconds)
	Concurrency       int           // RELAYOPS_CONCURRENCY, default 20 (1..10000)
	AsynqServers      int           // RELAYOPS_ASYNQ_SERVERS, default auto (0: the worker's default, 2, at most Concurrency): Asynq servers sharing Concurrency (1..64, at most Concurrency)
	AttemptTimeout    time.Duration // RELAYOPS_ATTEMPT_TIMEOUT, default 5m (>= 1s)
	RetryBase         time.Duration // RELAYOPS_RETRY_BASE, default 1s (> 0)
	RetryMax          time.Duration // RELAYOPS_RETRY_MAX, default 5m (>= RetryBase)
	TaskCheckInterval time.Duration // RELAYOPS_TASK_CHECK_INTERVAL, default auto (0: 2.5ms per queue served, at least 5ms; worker.DefaultTaskCheckInterval)
	ReconcileInterval time.Duration // RELAYOPS_RECONCILE_INTERVAL, default 1m (>= 100ms): the reconciler's passes
	ReconcileAfter    time.Duration // RELAYOPS_RECONCILE_AFTER, default auto (0: the worker's, max(10m, attempt timeout + grace + 1m, RetryMax + 1m)); >= 1s: age of an open job the reconciler checks
	ReprocessRate     Rate          // RELAYOPS_REPROCESS_RATE, default 10/1m (per tenant)
	CorrectionRate    Rate          // RELAYOPS_CORRECTION_RATE, default 120/1m (per tenant): reprocesses with corrections
	AcceptDocuments   []string      // RELAYOPS_ACCEPT_DOCUMENTS, default invoice,creditNote,correctiveInvoice (BookedTypes)
	SupplierProfiles  bool          // RELAYOPS_SUPPLIER_PROFILES, default on: read with and learn supplier profiles
	DataKeys          []keyring.Key // RELAYOPS_DATA_KEYS (id:base64,…; the first seals) or RELAYOPS_DATA_KEY (one key, ID "default"), default none
	Faults            string        // RELAYOPS_FAULTS, default none; parsed by the worker
	LogLevel          slog.Level    // RELAYOPS_LOG_LEVEL, default info
	Retention         Retention     // RELAYOPS_RETENTION_*
	PrometheusURL     string        // RELAYOPS_PROMETHEUS_URL, default none (asynqmon charts)
	// RedisCluster is set when RELAYOPS_REDIS_URL is a redis-cluster:// URL
	// (then RedisURL is not a go-redis URL); nil for one Redis.
	RedisCluster *RedisCluster
	// DashboardRedisURL and DashboardRedisCluster are the Redis of the
	// dashboard (asynqmon, in the api process), read as RedisURL and
	// RedisCluster are: RELAYOPS_DASHBOARD_REDIS_URL, default
	// RELAYOPS_REDIS_URL. A separate URL lets it connect as a read-only
	// Redis ACL user (docs/security.md).
	DashboardRedisURL     string
	DashboardRedisCluster *RedisCluster
	// MetricsTenantLabels adds a tenant label to metrics
	// (RELAYOPS_METRICS_TENANT_LABELS, default false).
	MetricsTenantLabels bool
	// Extractor is the worker's extractor (RELAYOPS_EXTRACTOR, default
	// rules): ExtractorRules, ExtractorLLM or ExtractorRulesLLM.
	Extractor string
	// LLM is the model endpoint of the llm extractors (RELAYOPS_LLM_*).
	LLM LLM
	// Tenants is per-tenant fairness and quotas (RELAYOPS_TENANT_*).
	Tenants Tenants
	// Webhook configures webhook endpoints and deliveries
	// (RELAYOPS_WEBHOOK_*).
	Webhook Webhook
	// Documents is document intake and the read stage (file and page
	// limits, the PDF reader).
	Documents Documents
	// Pages bounds the API's page images and page counts per caller
	// (RELAYOPS_PAGE_*).
	Pages Pages
	// AllowUnknownSettings (RELAYOPS_ALLOW_UNKNOWN_SETTINGS, default false)
	// turns an unknown RELAYOPS_ variable from an error into a warning.
	AllowUnknownSettings bool
	// Warnings are problems that did not stop Load (unknown names under
	// AllowUnknownSettings), for the caller to log once it has a logger.
	Warnings []string
}

// Webhook configures webhook endpoints (api) and their deliveries (worker).
type Webhook struct {
	AllowInsecure bool          // RELAYOPS_WEBHOOK_ALLOW_INSECURE, default false: https only
	AllowPrivate  bool          // RELAYOPS_WEBHOOK_ALLOW_PRIVATE, default false: public addresses only
	Timeout       time.Duration // RELAYOPS_WEBHOOK_TIMEOUT, default 10s: one delivery attempt (> 0)
	Window        time.Duration // RELAYOPS_WEBHOOK_WINDOW, default 24h: retries before a delivery is dead (> 0)
	RetryBase     time.Duration // RELAYOPS_WEBHOOK_RETRY_BASE, default 5s (> 0)
	RetryMax      time.Duration // RELAYOPS_WEBHOOK_RETRY_MAX, default 1h (>= RetryBase)
	DisableAfter  int           // RELAYOPS_WEBHOOK_DISABLE_AFTER, default 100 failed attempts in a row; 0 never
	RotationGrace time.Duration // RELAYOPS_WEBHOOK_ROTATION_GRACE, default 24h: both secrets sign after a rotation
	CacheTTL      time.Duration // RELAYOPS_WEBHOOK_CACHE_TTL, default 5s: how late a new endpoint is seen
	Concurrency   int           // RELAYOPS_WEBHOOK_CONCURRENCY, default 10: deliveries a worker runs at once (1..10000)
}

// Extractor choices (RELAYOPS_EXTRACTOR).
const (
	// ExtractorRules: the rules extractor alone, no network (the default).
	ExtractorRules = "rules"
	// ExtractorLLM: every document goes to the model.
	ExtractorLLM = "llm"
	// ExtractorRulesLLM: rules first; the model only for documents the
	// rules reject for a reason other than not_an_invoice.
	ExtractorRulesLLM = "rules,llm"
)

// UsesModel reports whether the configured extractor calls the model.
func (c *Config) UsesModel() bool {
	return c.Extractor == ExtractorLLM || c.Extractor == ExtractorRulesLLM
}

// LLM is an OpenAI-compatible Chat Completions endpoint. BaseURL and Model
// are required when the extractor uses the model.
type LLM struct {
	BaseURL   string        // RELAYOPS_LLM_BASE_URL, default none (e.g. http://127.0.0.1:11434/v1)
	Model     string        // RELAYOPS_LLM_MODEL, default none
	APIKey    Secret        // RELAYOPS_LLM_API_KEY, default none (local servers need none)
	Timeout   time.Duration // RELAYOPS_LLM_TIMEOUT, default 60s: one model call (>= 1s)
	MaxTokens int           // RELAYOPS_LLM_MAX_TOKENS, default 2048 (16..1000000)
	// Vision sends a document without a text layer to the model as page
	// images (RELAYOPS_LLM_VISION, default false).
	Vision bool
	// ImageMaxPixels bounds each page image sent (RELAYOPS_LLM_IMAGE_MAX_PIXELS,
	// default 2500000, 100000..40000000).
	ImageMaxPixels int
}

// Secret is a value that must never be printed: its String, GoString,
// LogValue and MarshalJSON methods hide it (an empty Secret prints as "").
type Secret string

// String returns "***", or "" when the secret is empty.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "***"
}

// GoString hides the secret from %#v.
func (s Secret) GoString() string { return fmt.Sprintf("config.Secret(%q)", s.String()) }

// LogValue hides the secret from log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON hides the secret from encoding/json.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Reveal returns the secret itself, for the one place that sends it.
func (s Secret) Reveal() string { return string(s) }

// Credential is one named bearer token (see package credential, which the
// API and the dashboard share without importing this package).
type Credential = credential.Credential

// Rate is Count events per Per.
type Rate struct {
	Count int
	Per   time.Duration
}

// String returns the rate in the variable's syntax, e.g. "10/1m0s".
func (r Rate) String() string { return fmt.Sprintf("%d/%s", r.Count, r.Per) }

// Retention holds the TTL of each class of data. Zero means "keep forever" and
// is allowed only for Ledger.
type Retention struct {
	Input  time.Duration // RELAYOPS_RETENTION_INPUT, default 7d
	Result time.Duration // RELAYOPS_RETENTION_RESULT, default 30d
	Outbox time.Duration // RELAYOPS_RETENTION_OUTBOX, default 24h
	Audit  time.Duration // RELAYOPS_RETENTION_AUDIT, default 400d
	Ledger time.Duration // RELAYOPS_RETENTION_LEDGER, default 400d; 0 = forever
}

// Var describes one environment variable. Default is "" when there is none.
type Var struct {
	Name        string
	Default     string
	Description string
}

// vars is the single source of names and defaults: FromEnv takes its defaults
// from here, so docs generated from Vars cannot drift from the code.
var vars = []Var{
	{"RELAYOPS_REDIS_URL", "redis://127.0.0.1:6379/0", "one Redis (redis://, rediss:// or unix:// URL) or a Redis Cluster (redis-cluster://[user:password@]host:port,host:port/)"},
	{"RELAYOPS_DASHBOARD_REDIS_URL", "", "the dashboard's Redis, as RELAYOPS_REDIS_URL (the same Redis, as another ACL user); default RELAYOPS_REDIS_URL"},
	{"RELAYOPS_HTTP_ADDR", ":8080", "listen address of the HTTP API"},
	{"RELAYOPS_METRICS_ADDR", ":9090", "listen address of the worker's /metrics, /healthz and /readyz"},
	{"RELAYOPS_RELAY_STALL_TIMEOUT", "1m", "a worker whose relay made no progress for this long is not ready (>= 1s)"},
	{"RELAYOPS_METRICS_TOKEN", "", "bearer token that /metrics of the api and the workers requires (none: open); at least 16 characters"},
	{"RELAYOPS_TENANT_TOKENS", "", "tenant bearer tokens as name:token,name:token, tokens of at least 16 characters (none: dev mode prints demo ones)"},
	{"RELAYOPS_OPERATOR_TOKENS", "", "operator bearer tokens as name:token,name:token, tokens of at least 16 characters"},
	{"RELAYOPS_SHARDS", "16", "number of Redis shards (1..16384); fixed per deployment, api and worker must match"},
	{"RELAYOPS_QUEUES", "auto", "number of Asynq queues extraction tasks are spread over, shard mod queues (1..RELAYOPS_SHARDS); auto: 16 (at most RELAYOPS_SHARDS) on a Redis Cluster, 1 on one Redis; api and workers must match"},
	{"RELAYOPS_REDIS_WAIT_REPLICAS", "0", "replicas that must have a write before a submit, commit, reprocess or review decision is acknowledged (0..100; 0: no WAIT)"},
	{"RELAYOPS_REDIS_WAIT_TIMEOUT", "1s", "how long such a write waits for RELAYOPS_REDIS_WAIT_REPLICAS replicas before it is answered as unavailable (1ms..1.5s)"},
	{"RELAYOPS_MAX_ATTEMPTS", "3", "business attempts per job (1..100), stamped on the job at submission"},
	{"RELAYOPS_MAX_RECOVERIES", "5", "crash recoveries per job before crash_loop (0..100), stamped at submission"},
	{"RELAYOPS_DEFAULT_DEADLINE", "24h", "absolute job deadline when the request sets none (>= 1s, whole seconds)"},
	{"RELAYOPS_CONCURRENCY", "20", "tasks a worker process runs at once (1..10000)"},
	{"RELAYOPS_ASYNQ_SERVERS", "auto", "Asynq servers a worker process runs its extraction tasks on, sharing RELAYOPS_CONCURRENCY: auto (2, at most RELAYOPS_CONCURRENCY) or 1..64, at most RELAYOPS_CONCURRENCY"},
	{"RELAYOPS_ATTEMPT_TIMEOUT", "5m", "time limit of one handler attempt (>= 1s)"},
	{"RELAYOPS_RETRY_BASE", "1s", "first retry backoff (> 0)"},
	{"RELAYOPS_RETRY_MAX", "5m", "largest retry backoff (>= RELAYOPS_RETRY_BASE)"},
	{"RELAYOPS_RECONCILE_INTERVAL", "1m", "how often each worker's reconciler looks for open jobs whose Asynq task is gone (>= 100ms)"},
	{"RELAYOPS_RECONCILE_AFTER", "auto", "age from which the reconciler checks an open job: auto (10m, or when longer the attempt timeout + 10s + 1m or RELAYOPS_RETRY_MAX + 1m) or >= 1s"},
	{"RELAYOPS_TASK_CHECK_INTERVAL", "auto", "how often an idle worker polls for tasks (> 0); auto: 2.5ms per queue it serves, at least 5ms (5ms on one Redis, about 42ms on a cluster's 16 queues)"},
	{"RELAYOPS_REPROCESS_RATE", "10/1m", "rate limit per tenant of reprocesses without corrections (bulk retries) as count/duration"},
	{"RELAYOPS_CORRECTION_RATE", "120/1m", "rate limit per tenant of reprocesses with corrections (a person's work) as count/duration"},
	{"RELAYOPS_SUPPLIER_PROFILES", "on", "on: the worker reads each document with its supplier's profile first and learns profiles from corrections and approvals; off: neither (stored profiles are kept, and still listed and deletable)"},
	{"RELAYOPS_ACCEPT_DOCUMENTS", "invoice,creditNote,correctiveInvoice", "document types booked, comma-separated (invoice, creditNote, correctiveInvoice); another type is rejected document_not_accepted; api and worker must match"},
	{"RELAYOPS_DATA_KEY", "", "standard base64 of a 32-byte key; enables AES-256-GCM for stored document data and webhook secrets (a one-key ring, key ID \"default\"; not with RELAYOPS_DATA_KEYS)"},
	{"RELAYOPS_DATA_KEYS", "", "data key ring as id:base64,id:base64 (32-byte keys): the first encrypts, every one decrypts; for key rotation (not with RELAYOPS_DATA_KEY)"},
	{"RELAYOPS_FAULTS", "", "fault injection points for tests and chaos (point=action,...)"},
	{"RELAYOPS_LOG_LEVEL", "info", "log level: debug, info, warn or error"},
	{"RELAYOPS_RETENTION_INPUT", "7d", "TTL of stored inputs after a job ends (> 0)"},
	{"RELAYOPS_RETENTION_RESULT", "30d", "TTL of results and checkpoints after a job ends (> 0)"},
	{"RELAYOPS_RETENTION_OUTBOX", "24h", "age past which published outbox rows are trimmed (> 0)"},
	{"RELAYOPS_RETENTION_AUDIT", "400d", "age past which audit entries are trimmed (> 0)"},
	{"RELAYOPS_RETENTION_LEDGER", "400d", "TTL of the idempotency ledger (job records); 0 keeps them forever"},
	{"RELAYOPS_PROMETHEUS_URL", "", "Prometheus base URL for asynqmon's charts (http or https)"},
	{"RELAYOPS_METRICS_TENANT_LABELS", "false", "add a tenant label to metrics (true or false)"},
	{"RELAYOPS_EXTRACTOR", "rules", "the worker's extractor: rules, llm, or rules,llm (rules first, the model for what they reject)"},
	{"RELAYOPS_LLM_BASE_URL", "", "OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (required by llm extractors)"},
	{"RELAYOPS_LLM_MODEL", "", "model name sent to the endpoint (required by llm extractors)"},
	{"RELAYOPS_LLM_API_KEY", "", "bearer key of the endpoint; never logged (local servers need none)"},
	{"RELAYOPS_LLM_TIMEOUT", "60s", "time limit of one model call (>= 1s, below RELAYOPS_ATTEMPT_TIMEOUT)"},
	{"RELAYOPS_LLM_MAX_TOKENS", "2048", "largest answer the model may write, in tokens (16..1000000)"},
	{"RELAYOPS_LLM_VISION", "false", "send a document without a text layer (a scan, a photo) to the model as page images (true or false; needs an llm extractor and a model that reads images)"},
	{"RELAYOPS_LLM_IMAGE_MAX_PIXELS", "2500000", "largest page image sent to the model, width × height (100000..40000000); larger pages are scaled down"},
	{"RELAYOPS_WEBHOOK_ALLOW_INSECURE", "false", "allow http:// webhook URLs (true or false)"},
	{"RELAYOPS_WEBHOOK_ALLOW_PRIVATE", "false", "allow webhook targets on private, loopback, link-local and metadata addresses (true or false; tests and local demos)"},
	{"RELAYOPS_WEBHOOK_TIMEOUT", "10s", "time limit of one webhook delivery attempt (> 0)"},
	{"RELAYOPS_WEBHOOK_WINDOW", "24h", "how long a webhook delivery is retried before it is dead (> 0)"},
	{"RELAYOPS_WEBHOOK_RETRY_BASE", "5s", "first webhook retry backoff (> 0)"},
	{"RELAYOPS_WEBHOOK_RETRY_MAX", "1h", "largest webhook retry backoff (>= RELAYOPS_WEBHOOK_RETRY_BASE)"},
	{"RELAYOPS_WEBHOOK_DISABLE_AFTER", "100", "failed attempts in a row that disable a webhook endpoint (0..1000000; 0 never)"},
	{"RELAYOPS_WEBHOOK_ROTATION_GRACE", "24h", "how long a rotated-out webhook secret keeps signing beside the new one (>= 0)"},
	{"RELAYOPS_WEBHOOK_CACHE_TTL", "5s", "how long a worker reuses a tenant's webhook endpoint list (> 0)"},
	{"RELAYOPS_WEBHOOK_CONCURRENCY", "10", "webhook deliveries a worker process runs at once, beside RELAYOPS_CONCURRENCY's extraction tasks (1..10000)"},
	{"RELAYOPS_TENANT_MAX_INFLIGHT", "100", "jobs of one tenant enqueued or running at once (0..1000000); 0 turns fair admission off"},
	{"RELAYOPS_TENANT_LIMITS", "", "per-tenant in-flight caps overriding RELAYOPS_TENANT_MAX_INFLIGHT, as tenant=n,tenant=n (0: no cap for that tenant)"},
	{"RELAYOPS_TENANT_SUBMIT_RATE", "", "new jobs per tenant as count/duration, e.g. 1000/1s (none: no rate limit)"},
	{"RELAYOPS_TENANT_MAX_BACKLOG", "0", "open jobs (queued, running, retrying) per tenant (0..100000000); 0: no cap"},
	{"RELAYOPS_TENANT_MAX_BACKLOG_BYTES", "0", "input bytes of a tenant's open jobs, e.g. 268435456 or 256MiB; 0: no cap"},
	{"RELAYOPS_MAX_FILE_BYTES", "10MiB", "largest submitted file (1KiB..100MiB); a submission carrying one may be a third larger in base64"},
	{"RELAYOPS_MAX_PAGES", "50", "most pages of a submitted PDF (1..1000): more is 413 at the API and too_many_pages in the worker"},
	{"RELAYOPS_OCR_COMMAND", "tesseract", "the OCR command that reads scans and images (tesseract 5, a name on the PATH or a path); when it is missing, scans are rejected no_text_layer"},
	{"RELAYOPS_OCR_LANGUAGES", "eng+deu+fra+nld+spa+ita", "tesseract languages joined by +; only the installed ones are used (fewer is faster)"},
	{"RELAYOPS_OCR_PAGE_TIMEOUT", "60s", "time limit of OCR on one page (>= 1s); a page over it is unreadable_document"},
	{"RELAYOPS_OCR_MIN_CONFIDENCE", "60", "tesseract word confidence (0..100) below which a word is marked uncertain in the evidence"},
	{"RELAYOPS_OCR_MAX_PAGES", "10", "most pages of a scan that OCR reads (1..1000, capped at RELAYOPS_MAX_PAGES): a scan with more is too_many_pages before any page is read"},
	{"RELAYOPS_READ_MEMORY", "1GiB", "memory the worker's read stage may hold at once, over all its jobs (256MiB..1TiB): decoded images, rendered pages, OCR processes; a document that needs more than all of it is too_large_to_read"},
	{"RELAYOPS_PDF_INSTANCES", "2", "PDFium (WebAssembly) instances a process keeps for reading and rendering PDFs (1..64); each holds up to a few hundred MiB while busy"},
	{"RELAYOPS_PAGE_RENDER_RATE", "120/1m", "page images (GET /v1/jobs/{jobId}/document/pages/{page}, the console) one tenant or operator may render per period in an API process, as count/duration; a cached page costs none"},
	{"RELAYOPS_PAGE_RENDER_CONCURRENCY", "1", "page images one tenant or operator renders at once in an API process (1..64); further ones wait up to 10s, then 429"},
	{"RELAYOPS_PAGE_COUNT_CONCURRENCY", "1", "page counts of one tenant's submitted PDFs run at once in an API process (1..64); further ones wait up to 10s, then 429"},
	{"RELAYOPS_PAGE_RENDER_INSTANCES", "1", "page renderer processes an API process runs for page images (1..64), each with one PDFium instance, apart from the RELAYOPS_PDF_INSTANCES that count submitted PDFs' pages"},
	{"RELAYOPS_PAGE_CACHE_BYTES", "64MiB", "rendered pages an API process keeps, per tenant, job, page and size, for 10 minutes, e.g. 256MiB (0: none; at most 16GiB)"},
	{"RELAYOPS_TENANT_MAX_SUPPLIER_BYTES", "16MiB", "supplier profiles a tenant may have stored (learned from corrections and approvals), e.g. 64MiB; past it nothing more is learned; 0: no cap"},
	{"RELAYOPS_TENANT_MAX_STORED_BYTES", "0", "input bytes a tenant may have stored over the input retention (open and ended jobs' inputs until they expire), e.g. 1GiB; 0: no cap"},
	{AllowUnknownSettings, "false", "true (or 1) makes an unknown RELAYOPS_ variable a warning instead of an error, for a rollout of mixed versions"},
}

// Vars returns every RELAYOPS_ variable that Load reads, with its default and
// a one-line description, in a stable order.
func Vars() []Var {
	out := make([]Var, len(vars))
	copy(out, vars)
	return out
}

// Load reads the configuration from the process environment. A RELAYOPS_
// variable it does not know is an error naming it and the closest known
// name (a warning in Config.Warnings under RELAYOPS_ALLOW_UNKNOWN_SETTINGS).
func Load() (*Config, error) { return FromEnviron(os.Environ()) }

// FromEnviron is Load over environ, a list of "NAME=value" entries in
// os.Environ's form (a later entry of a name wins, as in os.Getenv).
func FromEnviron(environ []string) (*Config, error) {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		m[name] = value
	}
	l := &loader{getenv: func(name string) string { return m[name] }}
	c := l.load()
	if !l.failed(AllowUnknownSettings) {
		l.unknownNames(c, environ)
	}
	if err := errors.Join(l.errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// FromEnv reads the configuration through getenv, so tests can pass a map.
// It cannot list the environment, so it does not look for unknown names
// (FromEnviron does). On error it returns every problem found, joined, and
// no Config.
func FromEnv(getenv func(string) string) (*Config, error) {
	l := &loader{getenv: getenv}
	c := l.load()
	if err := errors.Join(l.errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// load reads every variable; problems are left in l.errs.
func (l *loader) load() *Config {
	c := &Config{
		RedisURL:          l.redisURL("RELAYOPS_REDIS_URL"),
		RedisCluster:      l.redisCluster("RELAYOPS_REDIS_URL"),
		HTTPAddr:          l.addr("RELAYOPS_HTTP_ADDR"),
		MetricsAddr:       l.addr("RELAYOPS_METRICS_ADDR"),
		RelayStallTimeout: l.duration("RELAYOPS_RELAY_STALL_TIMEOUT", atLeast(time.Second), "a duration of at least 1s"),
		MetricsToken:      l.secret("RELAYOPS_METRICS_TOKEN"),
		TenantTokens:      l.credentials("RELAYOPS_TENANT_TOKENS"),
		OperatorTokens:    l.credentials("RELAYOPS_OPERATOR_TOKENS"),
		Shards:            l.intRange("RELAYOPS_SHARDS", 1, 16384),
		Queues:            l.queueCount("RELAYOPS_QUEUES"),
		RedisWaitReplicas: l.intRange("RELAYOPS_REDIS_WAIT_REPLICAS", 0, 100),
		RedisWaitTimeout:  l.duration("RELAYOPS_REDIS_WAIT_TIMEOUT", between(time.Millisecond, 1500*time.Millisecond), "a duration from 1ms to 1.5s"),
		MaxAttempts:       l.intRange("RELAYOPS_MAX_ATTEMPTS", 1, 100),
		MaxRecoveries:     l.intRange("RELAYOPS_MAX_RECOVERIES", 0, 100),
		DefaultDeadline:   l.duration("RELAYOPS_DEFAULT_DEADLINE", atLeastWholeSeconds, "a duration of at least 1s in whole seconds"),
		Concurrency:       l.intRange("RELAYOPS_CONCURRENCY", 1, 10000),
		AsynqServers:      l.asynqServers("RELAYOPS_ASYNQ_SERVERS"),
		AttemptTimeout:    l.duration("RELAYOPS_ATTEMPT_TIMEOUT", atLeast(time.Second), "a duration of at least 1s"),
		RetryBase:         l.duration("RELAYOPS_RETRY_BASE", atLeast(1), "a positive duration"),
		RetryMax:          l.duration("RELAYOPS_RETRY_MAX", atLeast(1), "a positive duration"),
		ReconcileInterval: l.duration("RELAYOPS_RECONCILE_INTERVAL", atLeast(100*time.Millisecond), "a duration of at least 100ms"),
		ReconcileAfter:    l.autoDuration("RELAYOPS_RECONCILE_AFTER", atLeast(time.Second), "auto or a duration of at least 1s"),
		TaskCheckInterval: l.autoDuration("RELAYOPS_TASK_CHECK_INTERVAL", atLeast(1), "auto or a positive duration"),
		ReprocessRate:     l.rate("RELAYOPS_REPROCESS_RATE"),
		CorrectionRate:    l.rate("RELAYOPS_CORRECTION_RATE"),
		AcceptDocuments:   l.documentTypes("RELAYOPS_ACCEPT_DOCUMENTS"),
		SupplierProfiles:  l.onOff("RELAYOPS_SUPPLIER_PROFILES"),
		DataKeys:          l.dataKeys("RELAYOPS_DATA_KEYS", "RELAYOPS_DATA_KEY"),
		Faults:            l.raw("RELAYOPS_FAULTS"),
		LogLevel:          l.logLevel("RELAYOPS_LOG_LEVEL"),
		Retention: Retention{
			Input:  l.duration("RELAYOPS_RETENTION_INPUT", atLeast(1), "a positive duration"),
			Result: l.duration("RELAYOPS_RETENTION_RESULT", atLeast(1), "a positive duration"),
			Outbox: l.duration("RELAYOPS_RETENTION_OUTBOX", atLeast(1), "a positive duration"),
			Audit:  l.duration("RELAYOPS_RETENTION_AUDIT", atLeast(1), "a positive duration"),
			Ledger: l.duration("RELAYOPS_RETENTION_LEDGER", atLeast(0), "0 (forever) or a positive duration"),
		},
		PrometheusURL:       l.httpURL("RELAYOPS_PROMETHEUS_URL"),
		MetricsTenantLabels: l.boolean("RELAYOPS_METRICS_TENANT_LABELS"),
		Extractor:           l.extractor("RELAYOPS_EXTRACTOR"),
		LLM: LLM{
			BaseURL:        l.httpURL("RELAYOPS_LLM_BASE_URL"),
			Model:          l.raw("RELAYOPS_LLM_MODEL"),
			APIKey:         l.apiKey("RELAYOPS_LLM_API_KEY"),
			Timeout:        l.duration("RELAYOPS_LLM_TIMEOUT", atLeast(time.Second), "a duration of at least 1s"),
			MaxTokens:      l.intRange("RELAYOPS_LLM_MAX_TOKENS", 16, 1_000_000),
			Vision:         l.boolean("RELAYOPS_LLM_VISION"),
			ImageMaxPixels: l.intRange("RELAYOPS_LLM_IMAGE_MAX_PIXELS", 100_000, 40_000_000),
		},
		Webhook: Webhook{
			AllowInsecure: l.boolean("RELAYOPS_WEBHOOK_ALLOW_INSECURE"),
			AllowPrivate:  l.boolean("RELAYOPS_WEBHOOK_ALLOW_PRIVATE"),
			Timeout:       l.duration("RELAYOPS_WEBHOOK_TIMEOUT", atLeast(time.Millisecond), "a duration of at least 1ms"),
			Window:        l.duration("RELAYOPS_WEBHOOK_WINDOW", atLeast(time.Millisecond), "a duration of at least 1ms"),
			RetryBase:     l.duration("RELAYOPS_WEBHOOK_RETRY_BASE", atLeast(time.Millisecond), "a duration of at least 1ms"),
			RetryMax:      l.duration("RELAYOPS_WEBHOOK_RETRY_MAX", atLeast(time.Millisecond), "a duration of at least 1ms"),
			DisableAfter:  l.intRange("RELAYOPS_WEBHOOK_DISABLE_AFTER", 0, 1_000_000),
			RotationGrace: l.duration("RELAYOPS_WEBHOOK_ROTATION_GRACE", atLeast(0), "0 or a positive duration"),
			CacheTTL:      l.duration("RELAYOPS_WEBHOOK_CACHE_TTL", atLeast(time.Millisecond), "a duration of at least 1ms"),
			Concurrency:   l.intRange("RELAYOPS_WEBHOOK_CONCURRENCY", 1, 10000),
		},
	}
	l.dashboardRedis(c)
	c.Tenants = l.tenants()
	c.Documents = l.documents()
	c.Pages = l.pages()
	c.AllowUnknownSettings = l.boolean(AllowUnknownSettings)
	l.crossCheck(c)
	return c
}

// LogWarnings logs each of c.Warnings at warn level, once a process has its
// logger (Load runs before there is one).
func (c *Config) LogWarnings(logger *slog.Logger) {
	for _, w := range c.Warnings {
		logger.Warn("configuration: " + w)
	}
}

// NewLogger returns a JSON logger writing to w at c.LogLevel, tagged with
// component (e.g. "outbox.relay").
func (c *Config) NewLogger(w io.Writer, component string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: c.LogLevel})
	return slog.New(h).With("component", component)
}

// crossCheck validates rules that span variables. It only judges variables
// that parsed, so one typo is reported once.
func (l *loader) crossCheck(c *Config) {
	if c.LLM.Vision && !c.UsesModel() {
		l.fail("RELAYOPS_LLM_VISION", "needs a model: set RELAYOPS_EXTRACTOR to llm or rules,llm (it is %q)", c.Extractor)
	}
	if !l.failed("RELAYOPS_RETRY_BASE") && !l.failed("RELAYOPS_RETRY_MAX") && c.RetryMax < c.RetryBase {
		l.fail("RELAYOPS_RETRY_MAX", "must be at least RELAYOPS_RETRY_BASE (%s), got %q", c.RetryBase, l.raw("RELAYOPS_RETRY_MAX"))
	}
	if w := c.Webhook; !l.failed("RELAYOPS_WEBHOOK_RETRY_BASE") && !l.failed("RELAYOPS_WEBHOOK_RETRY_MAX") && w.RetryMax < w.RetryBase {
		l.fail("RELAYOPS_WEBHOOK_RETRY_MAX", "must be at least RELAYOPS_WEBHOOK_RETRY_BASE (%s), got %q", w.RetryBase, l.raw("RELAYOPS_WEBHOOK_RETRY_MAX"))
	}
	// The ledger is what dedupes a late duplicate: it must outlive the bulky
	// data it describes, or a job's input would outlast its own record.
	r := c.Retention
	if !l.failed("RELAYOPS_RETENTION_LEDGER") && r.Ledger != 0 &&
		!l.failed("RELAYOPS_RETENTION_INPUT") && !l.failed("RELAYOPS_RETENTION_RESULT") &&
		(r.Ledger < r.Input || r.Ledger < r.Result) {
		l.fail("RELAYOPS_RETENTION_LEDGER", "must be 0 (forever) or at least RELAYOPS_RETENTION_INPUT (%s) and RELAYOPS_RETENTION_RESULT (%s), got %q",
			r.Input, r.Result, l.raw("RELAYOPS_RETENTION_LEDGER"))
	}
	if !l.failed("RELAYOPS_ASYNQ_SERVERS") && !l.failed("RELAYOPS_CONCURRENCY") && c.AsynqServers > c.Concurrency {
		l.fail("RELAYOPS_ASYNQ_SERVERS", "must be at most RELAYOPS_CONCURRENCY (%d): each server needs a slot, got %q", c.Concurrency, l.raw("RELAYOPS_ASYNQ_SERVERS"))
	}
	l.queues(c)
	l.uniqueTokens(c)
	l.modelNeeds(c)
}

// asynqServers reads RELAYOPS_ASYNQ_SERVERS: "auto" is 0, which the worker
// resolves (worker.DefaultServers, at most its concurrency).
func (l *loader) asynqServers(name string) int {
	if strings.EqualFold(l.raw(name), "auto") {
		return 0
	}
	n, err := strconv.Atoi(l.raw(name))
	if err != nil || n < 1 || n > 64 {
		l.fail(name, "must be auto or an integer from 1 to 64, got %q", l.raw(name))
		return 0
	}
	return n
}

// queueCount reads RELAYOPS_QUEUES: "auto" is 0, which the api and the
// workers resolve from the connection (task.NewLayout).
func (l *loader) queueCount(name string) int {
	if strings.EqualFold(l.raw(name), "auto") {
		return 0
	}
	n, err := strconv.Atoi(l.raw(name))
	if err != nil || n < 1 || n > 16384 {
		l.fail(name, "must be auto or an integer from 1 to 16384, got %q", l.raw(name))
		return 0
	}
	return n
}

// queues refuses more queues than shards: a queue without a shard would
// stay empty.
func (l *loader) queues(c *Config) {
	if l.failed("RELAYOPS_QUEUES") || l.failed("RELAYOPS_SHARDS") || c.Queues <= c.Shards {
		return
	}
	l.fail("RELAYOPS_QUEUES", "must not exceed RELAYOPS_SHARDS (%d), got %q", c.Shards, l.raw("RELAYOPS_QUEUES"))
}

// modelNeeds checks what an extractor that calls the model requires.
func (l *loader) modelNeeds(c *Config) {
	if !c.UsesModel() {
		return
	}
	const why = "is required when RELAYOPS_EXTRACTOR is %q"
	if c.LLM.BaseURL == "" && !l.failed("RELAYOPS_LLM_BASE_URL") {
		l.fail("RELAYOPS_LLM_BASE_URL", why, c.Extractor)
	}
	if c.LLM.Model == "" {
		l.fail("RELAYOPS_LLM_MODEL", why, c.Extractor)
	}
	if !l.failed("RELAYOPS_LLM_TIMEOUT") && !l.failed("RELAYOPS_ATTEMPT_TIMEOUT") && c.LLM.Timeout >= c.AttemptTimeout {
		l.fail("RELAYOPS_LLM_TIMEOUT", "must be below RELAYOPS_ATTEMPT_TIMEOUT (%s), got %q", c.AttemptTimeout, l.raw("RELAYOPS_LLM_TIMEOUT"))
	}
}

func (l *loader) extractor(name string) string {
	s := strings.ReplaceAll(l.raw(name), " ", "")
	switch s {
	case ExtractorRules, ExtractorLLM, ExtractorRulesLLM:
		return s
	}
	l.fail(name, "must be rules, llm or rules,llm, got %q", s)
	return ""
}

// apiKey reads a bearer key. Messages never quote it.
func (l *loader) apiKey(name string) Secret {
	s := l.raw(name)
	if !printableToken(s) && s != "" {
		l.fail(name, "must be printable ASCII without spaces (value not shown)")
		return ""
	}
	return Secret(s)
}

// uniqueTokens rejects a token used twice, in one list or across both: the
// token alone identifies the caller, so a shared one would be ambiguous.
func (l *loader) uniqueTokens(c *Config) {
	type owner struct{ variable, name string }
	seen := map[string]owner{}
	check := func(variable string, creds []Credential) {
		for _, cr := range creds {
			if o, dup := seen[cr.Token]; dup {
				l.fail(variable, "token of %s is already used by %s in %s", cr.Name, o.name, o.variable)
				continue
			}
			seen[cr.Token] = owner{variable, cr.Name}
		}
	}
	check("RELAYOPS_TENANT_TOKENS", c.TenantTokens)
	check("RELAYOPS_OPERATOR_TOKENS", c.OperatorTokens)
}

// loader reads variables and collects one error per problem.
type loader struct {
	getenv func(string) string
	errs   []error
	bad    map[string]bool
}

// raw returns the trimmed value of name, or its default when empty. It panics
// on a name missing from vars: that is a bug caught by any test.
func (l *loader) raw(name string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	for _, v := range vars {
		if v.Name == name {
			return v.Default
		}
	}
	panic("config: variable " + name + " is not declared in vars")
}

func (l *loader) fail(name, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	if l.bad == nil {
		l.bad = map[string]bool{}
	}
	l.bad[name] = true
}

func (l *loader) failed(name string) bool { return l.bad[name] }

func (l *loader) intRange(name string, lo, hi int) int {
	s := l.raw(name)
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		l.fail(name, "must be an integer from %d to %d, got %q", lo, hi, s)
		return 0
	}
	return n
}

func atLeast(min time.Duration) func(time.Duration) bool {
	return func(d time.Duration) bool { return d >= min }
}

func between(lo, hi time.Duration) func(time.Duration) bool {
	return func(d time.Duration) bool { return d >= lo && d <= hi }
}

func atLeastWholeSeconds(d time.Duration) bool {
	return d >= time.Second && d%time.Second == 0
}

// duration parses name with ParseDuration and checks it with ok; rule says
// what ok demands, for the message.
func (l *loader) duration(name string, ok func(time.Duration) bool, rule string) time.Duration {
	s := l.raw(name)
	d, err := ParseDuration(s)
	if err != nil || !ok(d) {
		l.fail(name, "must be %s (Go syntax such as 90s or 5m, or days such as 7d), got %q", rule, s)
		return 0
	}
	return d
}

// autoDuration reads a duration that may also be "auto", which is 0: the
// package that uses it picks the value.
func (l *loader) autoDuration(name string, ok func(time.Duration) bool, rule string) time.Duration {
	if strings.EqualFold(l.raw(name), "auto") {
		return 0
	}
	return l.duration(name, ok, rule)
}

var daysRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?d$`)

// ParseDuration parses a Go duration (time.ParseDuration) or a number of days
// with a "d" suffix, such as "7d" or "1.5d".
func ParseDuration(s string) (time.Duration, error) {
	if !daysRE.MatchString(s) {
		return time.ParseDuration(s)
	}
	days, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
	if err != nil {
		return 0, fmt.Errorf("config: invalid duration %q: %w", s, err)
	}
	d := days * float64(24*time.Hour)
	if d >= math.MaxInt64 {
		return 0, fmt.Errorf("config: invalid duration %q: out of range", s)
	}
	return time.Duration(math.Round(d)), nil
}

func (l *loader) rate(name string) Rate {
	s := l.raw(name)
	count, per, ok := strings.Cut(s, "/")
	n, errN := strconv.Atoi(count)
	d, errD := ParseDuration(per)
	if !ok || errN != nil || errD != nil || n < 1 || n > 1_000_000 || d <= 0 {
		l.fail(name, "must be count/duration with count from 1 to 1000000 and a positive duration, e.g. \"10/1m\", got %q", s)
		return Rate{}
	}
	return Rate{Count: n, Per: d}
}

// BookedTypes are the document types RELAYOPS_ACCEPT_DOCUMENTS may name:
// extract.BookedTypes (a test holds the two equal; this package reads the
// environment and imports no pipeline package).
var BookedTypes = []string{"invoice", "creditNote", "correctiveInvoice"}

// documentTypes reads a comma-separated list of BookedTypes.
func (l *loader) documentTypes(name string) []string {
	var out []string
	for _, t := range strings.Split(l.raw(name), ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
		case !slices.Contains(BookedTypes, t):
			l.fail(name, "must name document types among %s, comma-separated, got %q", strings.Join(BookedTypes, ", "), t)
			return nil
		case !slices.Contains(out, t):
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		l.fail(name, "must name at least one document type among %s", strings.Join(BookedTypes, ", "))
	}
	return out
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{1,32}$`)

// credentials parses "name:token,name:token". Messages quote only names that
// are valid, never a token nor a malformed entry (which may be a token).
// A name may appear more than once, which allows rotating a tenant's token.
func (l *loader) credentials(name string) []Credential {
	s := l.raw(name)
	if s == "" {
		return nil
	}
	var creds []Credential
	for i, entry := range strings.Split(s, ",") {
		n := i + 1
		who, token, ok := strings.Cut(strings.TrimSpace(entry), ":")
		switch {
		case strings.TrimSpace(entry) == "":
			l.fail(name, "entry %d is empty", n)
		case !ok:
			l.fail(name, "entry %d must be name:token (value not shown)", n)
		case !nameRE.MatchString(who):
			l.fail(name, "entry %d: name must match %s (value not shown)", n, nameRE)
		case token == "":
			l.fail(name, "entry %d (%s): token is empty", n, who)
		case tokenProblem(token) != "":
			l.fail(name, "entry %d (%s): %s", n, who, tokenProblem(token))
		default:
			creds = append(creds, Credential{Name: who, Token: token})
		}
	}
	return creds
}

// MinTokenLength is the shortest bearer token accepted.
const MinTokenLength = credential.MinTokenLength

// tokenProblem says what is wrong with a bearer token, "" when nothing is.
// It never quotes the token.
func tokenProblem(t string) string {
	switch {
	case !printableToken(t):
		return "token must be printable ASCII without spaces"
	case len(t) < MinTokenLength:
		return fmt.Sprintf("token must be at least %d characters, got %d", MinTokenLength, len(t))
	}
	return ""
}

// secret reads an optional bearer token; messages never quote it.
func (l *loader) secret(name string) string {
	s := l.raw(name)
	if s == "" {
		return ""
	}
	if p := tokenProblem(s); p != "" {
		l.fail(name, "%s (value not shown)", p)
		return ""
	}
	return s
}

// printableToken reports whether t can travel in an Authorization header
// unchanged: visible ASCII only.
func printableToken(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] < 0x21 || t[i] > 0x7e {
			return false
		}
	}
	return true
}

// redisURL checks the URL with go-redis's own parser. Messages never quote
// the URL, which may hold a password.
func (l *loader) redisURL(name string) string {
	s := l.raw(name)
	if strings.HasPrefix(s, clusterScheme) {
		return s // redisCluster judges it
	}
	_, err := redis.ParseURL(s)
	var uerr *url.Error
	switch {
	case errors.As(err, &uerr):
		// net/url's message quotes pieces of the URL, password included.
		l.fail(name, "must be a redis://, rediss://, unix:// or redis-cluster:// URL; it does not parse as a URL (value not shown)")
	case err != nil:
		l.fail(name, "must be a redis://, rediss://, unix:// or redis-cluster:// URL (value not shown): %v", err)
	}
	return s
}

// dashboardRedis sets the dashboard's Redis: RELAYOPS_DASHBOARD_REDIS_URL,
// or RELAYOPS_REDIS_URL's when unset.
func (l *loader) dashboardRedis(c *Config) {
	const name = "RELAYOPS_DASHBOARD_REDIS_URL"
	if l.raw(name) == "" {
		c.DashboardRedisURL, c.DashboardRedisCluster = c.RedisURL, c.RedisCluster
		return
	}
	c.DashboardRedisURL, c.DashboardRedisCluster = l.redisURL(name), l.redisCluster(name)
}

func (l *loader) addr(name string) string {
	s := l.raw(name)
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		l.fail(name, "must be host:port or :port, got %q", s)
	}
	return s
}

func (l *loader) httpURL(name string) string {
	s := l.raw(name)
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		l.fail(name, "must be an absolute http:// or https:// URL (value not shown)")
	}
	return s
}

// dataKeys reads the data key ring from ringName (id:base64,…) or, for
// deployments configured before key rings, the single key of keyName (ID
// keyring.LegacyID): values it sealed name no key and are tried with every
// key of a ring, so it may later move into ringName under any ID.
func (l *loader) dataKeys(ringName, keyName string) []keyring.Key {
	ring, single := l.raw(ringName), l.raw(keyName)
	switch {
	case ring != "" && single != "":
		l.fail(ringName, "and %s are both set; set only %s (put the %s key in it, first to keep sealing with it)", keyName, ringName, keyName)
		return nil
	case single != "":
		if k, ok := l.dataKey(keyName, single); ok {
			return []keyring.Key{{ID: keyring.LegacyID, Secret: k}}
		}
		return nil
	case ring == "":
		return nil
	}
	var keys []keyring.Key
	seen := map[string]bool{}
	for i, entry := range strings.Split(ring, ",") {
		id, b64, ok := strings.Cut(strings.TrimSpace(entry), ":")
		switch {
		case !ok || !keyring.ValidID(id):
			l.fail(ringName, "entry %d must be id:base64 with an id of letters, digits, '.', '_' or '-' (at most 32) (value not shown)", i+1)
			continue
		case seen[id]:
			l.fail(ringName, "key ID %q is used twice", id)
			continue
		}
		seen[id] = true
		if k, ok := l.dataKey(fmt.Sprintf("%s (key %q)", ringName, id), b64); ok {
			keys = append(keys, keyring.Key{ID: id, Secret: k})
		}
	}
	return keys
}

// dataKey decodes one base64 data key; name says where it came from.
func (l *loader) dataKey(name, s string) ([]byte, bool) {
	key, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err != nil:
		l.fail(name, "must be standard base64 (value not shown)")
		return nil, false
	case len(key) != keyring.KeySize:
		l.fail(name, "must decode to exactly 32 bytes, got %d", len(key))
		return nil, false
	}
	return key, true
}

func (l *loader) logLevel(name string) slog.Level {
	s := l.raw(name)
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	l.fail(name, "must be debug, info, warn or error, got %q", s)
	return slog.LevelInfo
}

func (l *loader) onOff(name string) bool {
	switch s := l.raw(name); s {
	case "on":
		return true
	case "off":
		return false
	default:
		l.fail(name, "must be on or off, got %q", s)
		return false
	}
}

func (l *loader) boolean(name string) bool {
	s := l.raw(name)
	b, err := strconv.ParseBool(s)
	if err != nil {
		l.fail(name, "must be true or false, got %q", s)
	}
	return b
}
