//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
)

// The deployment every test runs: the same tokens, shards and fast retry
// settings for every process, as one .env would give them.
const (
	shards   = 4
	tokA     = "acme-e2e-token-0123"   // tenant acme
	tokB     = "globex-e2e-token-0123" // tenant globex
	tokC     = "alice-e2e-token-0123"  // operator alice
	operator = "alice"

	maxAttempts = 3 // RELAYOPS_MAX_ATTEMPTS, which scenario 3 counts

	jobTimeout = 30 * time.Second // submission → terminal state or review
)

// TestMain removes the binaries proctest built.
func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }

// system is one test's deployment: a redis-server (or a Redis Cluster), an
// api process and the worker processes started so far. Every process is stopped with SIGTERM
// when the test ends (proctest.Options.StopAtCleanup) and must exit 0.
type system struct {
	t       *testing.T
	redis   *redistest.Server       // nil on a cluster
	cluster *redistest.RedisCluster // nil on one redis-server
	// extraEnv is options.env.
	extraEnv []string
	// redisURL is RELAYOPS_REDIS_URL: redis.URL, or the cluster's
	// redis-cluster:// URL.
	redisURL string
	api      *proctest.Process
	worker   *proctest.Process   // the first worker; nil with options.noWorker
	workers  []*proctest.Process // every worker setup started, the first one first
	client   *http.Client
	spec     *spec
}

// options vary a test's deployment.
type options struct {
	reprocessRate string   // RELAYOPS_REPROCESS_RATE; default 10/1m
	faults        string   // RELAYOPS_FAULTS of the first worker
	noWorker      bool     // start the api only
	aof           bool     // Redis keeps every acknowledged write across a restart (appendfsync always)
	cluster       bool     // a 3-master Redis Cluster (redistest.Cluster) instead of one redis-server
	workers       int      // worker processes to start (the others without faults); default 1
	env           []string // more RELAYOPS_ settings of every process
}

// setup deploys a system for t; every part is stopped in t.Cleanup,
// processes before Redis.
func setup(t *testing.T, o options) *system {
	t.Helper()
	skipShort(t)
	s := &system{t: t, client: &http.Client{Timeout: 10 * time.Second}, extraEnv: o.env}
	if o.cluster {
		s.cluster = redistest.Cluster(t)
		s.redisURL = "redis-cluster://" + strings.Join(s.cluster.Addrs, ",") + "/"
	} else {
		s.redis = redistest.Start(t, &redistest.Options{AOF: o.aof})
		s.redisURL = s.redis.URL
	}
	if o.reprocessRate == "" {
		o.reprocessRate = "10/1m"
	}
	s.api = proctest.Start(t, proctest.Options{
		Name: "api", Bin: proctest.Binary(t, "cmd/api"), Env: s.env("RELAYOPS_REPROCESS_RATE=" + o.reprocessRate),
		AddrVars: []string{"RELAYOPS_HTTP_ADDR"}, ReadyPath: "/readyz", StopAtCleanup: true,
	})
	s.spec = loadSpec(t, s.client, s.api.URL("/openapi.json"))
	if !o.noWorker {
		s.worker = s.startWorker("worker", o.faults)
		s.workers = append(s.workers, s.worker)
		for i := 2; i <= o.workers; i++ {
			s.workers = append(s.workers, s.startWorker(fmt.Sprintf("worker-%d", i), ""))
		}
	}
	return s
}

// workersMetric is the sum of a metric over every worker setup started.
func (s *system) workersMetric(name string, labels map[string]string) float64 {
	total := 0.0
	for _, w := range s.workers {
		total += w.MetricOrZero(name, labels)
	}
	return total
}

func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: starts redis-server, api and worker processes; skipped with -short")
	}
}

// startWorker starts a worker process; faults is its RELAYOPS_FAULTS.
func (s *system) startWorker(name, faults string) *proctest.Process {
	s.t.Helper()
	return proctest.Start(s.t, proctest.Options{
		Name: name, Bin: proctest.Binary(s.t, "cmd/worker"),
		Env:      s.env("RELAYOPS_FAULTS="+faults, "RELAYOPS_CONCURRENCY=4"),
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"}, StopAtCleanup: true,
	})
}

// env is the deployment's configuration, then extra, on top of the test's
// environment without any RELAYOPS_ variable of its own.
func (s *system) env(extra ...string) []string {
	return proctest.Env(append([]string{
		"RELAYOPS_REDIS_URL=" + s.redisURL,
		fmt.Sprintf("RELAYOPS_SHARDS=%d", shards),
		"RELAYOPS_TENANT_TOKENS=acme:" + tokA + ",globex:" + tokB,
		"RELAYOPS_OPERATOR_TOKENS=" + operator + ":" + tokC,
		fmt.Sprintf("RELAYOPS_MAX_ATTEMPTS=%d", maxAttempts),
		"RELAYOPS_RETRY_BASE=100ms",
		"RELAYOPS_RETRY_MAX=200ms",
		"RELAYOPS_TASK_CHECK_INTERVAL=20ms",
		"RELAYOPS_LOG_LEVEL=debug",
	}, append(s.extraEnv[:len(s.extraEnv):len(s.extraEnv)], extra...)...)...)
}

// waitReady polls p's /readyz until it answers want.
func (s *system) waitReady(t *testing.T, p *proctest.Process, want int) {
	t.Helper()
	redistest.Eventually(t, jobTimeout, func() bool {
		resp, err := s.client.Get(p.URL("/readyz"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == want
	}, "%s's /readyz to answer %d", p.Name, want)
}
