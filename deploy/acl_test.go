package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/dashboard"
	"github.com/relayops/relayops/internal/app"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

// aclFile is the deployment's Redis ACL users.
const aclFile = "redis-acl.conf"

// The test passwords of the ACL users, put where the file's placeholders
// are. They hold the characters a URL's userinfo must escape.
var aclPasswords = map[string]string{
	"relayops-api":       "api-p@ss/0:1,2%3",
	"relayops-worker":    "worker-p@ss/0:1,2%3",
	"relayops-dashboard": "dashboard-p@ss/0:1,2%3",
}

// userinfo is user:password as a URL writes them.
func userinfo(user string) string { return url.UserPassword(user, aclPasswords[user]).String() }

func aclUsers(t *testing.T) []string {
	t.Helper()
	return redistest.ACLUsers(t, aclFile, map[string]string{
		"#API_PASSWORD_SHA256":       ">" + aclPasswords["relayops-api"],
		"#WORKER_PASSWORD_SHA256":    ">" + aclPasswords["relayops-worker"],
		"#DASHBOARD_PASSWORD_SHA256": ">" + aclPasswords["relayops-dashboard"],
	})
}

const (
	aclTenantToken   = "acme-acl-token-0123"
	aclOperatorToken = "alice-acl-token-0123"
)

// aclEnv is the configuration of a deployment whose components connect as
// their users; user is the api's or the worker's.
func aclEnv(t *testing.T, user, redisURL, dashboardURL string, extra map[string]string) *config.Config {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	m := map[string]string{
		"RELAYOPS_REDIS_URL":              redisURL,
		"RELAYOPS_DASHBOARD_REDIS_URL":    dashboardURL,
		"RELAYOPS_SHARDS":                 "4",
		"RELAYOPS_TENANT_TOKENS":          "acme:" + aclTenantToken,
		"RELAYOPS_OPERATOR_TOKENS":        "alice:" + aclOperatorToken,
		"RELAYOPS_WEBHOOK_ALLOW_INSECURE": "true",
		"RELAYOPS_WEBHOOK_ALLOW_PRIVATE":  "true",
		"RELAYOPS_WEBHOOK_RETRY_BASE":     "50ms",
		"RELAYOPS_TASK_CHECK_INTERVAL":    "20ms",
		"RELAYOPS_RETRY_BASE":             "50ms",
		"RELAYOPS_RETRY_MAX":              "100ms",
		"RELAYOPS_METRICS_ADDR":           "127.0.0.1:0",
		"RELAYOPS_CONCURRENCY":            "4",
		"RELAYOPS_DATA_KEYS":              "k1:" + base64.StdEncoding.EncodeToString(key),
		// The quotas run their scripts at every submission.
		"RELAYOPS_TENANT_SUBMIT_RATE":       "1000/1s",
		"RELAYOPS_TENANT_MAX_BACKLOG":       "1000",
		"RELAYOPS_TENANT_MAX_BACKLOG_BYTES": "64MiB",
		// The stored cap's recount walks the job indexes and inputs.
		"RELAYOPS_TENANT_MAX_STORED_BYTES": "64MiB",
	}
	for k, v := range extra {
		m[k] = v
	}
	c, err := config.FromEnv(func(name string) string { return m[name] })
	require.NoError(t, err, user)
	return c
}

// aclDeployment is an api (with its dashboard) and a worker, in process,
// each on its own Redis user.
type aclDeployment struct {
	api         *httptest.Server
	client      *http.Client
	workerStore *jobs.Store
	workerAddr  string         // the worker's /metrics, /healthz and /readyz
	apiConfig   *config.Config // the api's configuration (its data keys)
}

func startACLDeployment(t *testing.T, redisURL func(user string) string, extra map[string]string) *aclDeployment {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())

	// The api and its dashboard.
	ac := aclEnv(t, "api", redisURL("relayops-api"), redisURL("relayops-dashboard"), extra)
	require.NoError(t, app.CheckRedis(ctx, ac), "the api's start check, as its user")
	ardb, err := app.StoreRedis(ac)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ardb.Close() })
	astore, err := jobs.NewStore(app.Jobs(ac, ardb))
	require.NoError(t, err)
	dcfg, err := app.Dashboard(ac, log)
	require.NoError(t, err)
	dash, err := dashboard.New(dcfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dash.Close() })
	srv, err := api.New(app.API(ac, astore, ardb, dash, nil, log))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	// The worker, with the api's data keys.
	wc := aclEnv(t, "worker", redisURL("relayops-worker"), "", extra)
	wc.DataKeys = ac.DataKeys
	require.NoError(t, app.CheckRedis(ctx, wc), "the worker's start check, as its user")
	wrdb, err := app.StoreRedis(wc)
	require.NoError(t, err)
	t.Cleanup(func() { _ = wrdb.Close() })
	wstore, err := jobs.NewStore(app.Jobs(wc, wrdb))
	require.NoError(t, err)
	asynqRedis, err := app.AsynqRedis(wc)
	require.NoError(t, err)
	t.Cleanup(func() { _ = asynqRedis.Close() })
	wcfg, err := app.Worker(wc, wstore, asynqRedis, nil, nil, log)
	require.NoError(t, err)
	w, err := worker.New(wcfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done, "the worker stops cleanly")
	})
	return &aclDeployment{api: ts, client: &http.Client{Timeout: 10 * time.Second}, workerStore: wstore, workerAddr: w.MetricsAddr(), apiConfig: ac}
}

// call sends a JSON request with a bearer token and returns the status and body.
func (d *aclDeployment) call(t *testing.T, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.api.URL+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := d.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out
}

func (d *aclDeployment) expect(t *testing.T, want int, method, path, token string, body any) map[string]any {
	t.Helper()
	status, out := d.call(t, method, path, token, body)
	require.Equal(t, want, status, "%s %s: %s", method, path, out)
	var v map[string]any
	_ = json.Unmarshal(out, &v)
	return v
}

// awaitState polls a job until it reaches state.
func (d *aclDeployment) awaitState(t *testing.T, id, state string) {
	t.Helper()
	redistest.Eventually(t, 30*time.Second, func() bool {
		status, out := d.call(t, http.MethodGet, "/v1/jobs/"+id, aclTenantToken, nil)
		var v map[string]any
		_ = json.Unmarshal(out, &v)
		return status == http.StatusOK && v["state"] == state
	}, "job %s to be %s", id, state)
}

func sampleInvoice(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "invoices", name))
	require.NoError(t, err)
	return string(b)
}

// exercise runs what every component does in a job's life: webhook
// registration, submission, extraction, review, decision, a dead letter and
// its reprocess, the audit trail, /metrics, the dashboard, a webhook
// delivery.
func (d *aclDeployment) exercise(t *testing.T) {
	t.Helper()
	var delivered atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delivered.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	ep := d.expect(t, http.StatusCreated, http.MethodPost, "/v1/webhooks", aclOperatorToken,
		map[string]any{"tenant": "acme", "url": receiver.URL + "/hook", "events": []string{"job.succeeded", "job.dead_lettered"}})
	d.expect(t, http.StatusOK, http.MethodPost, "/v1/webhooks/"+ep["id"].(string)+"/rotate", aclOperatorToken, nil)

	d.expect(t, http.StatusAccepted, http.MethodPost, "/v1/jobs", aclTenantToken,
		map[string]any{"documentId": "inv-ok", "operationVersion": 1, "content": sampleInvoice(t, "valid-basic-eur.txt")})
	d.awaitState(t, "acme:inv-ok:v1", "succeeded")
	redistest.Eventually(t, 30*time.Second, func() bool {
		status, _ := d.call(t, http.MethodGet, "/v1/reviews/acme:inv-ok:v1", aclTenantToken, nil)
		return status == http.StatusOK
	}, "the review")
	d.expect(t, http.StatusOK, http.MethodPost, "/v1/reviews/acme:inv-ok:v1/decision", aclOperatorToken,
		map[string]any{"decision": "approve", "note": "checked"})
	d.expect(t, http.StatusOK, http.MethodGet, "/v1/reviews", aclTenantToken, nil)

	d.expect(t, http.StatusAccepted, http.MethodPost, "/v1/jobs", aclTenantToken,
		map[string]any{"documentId": "inv-bad", "operationVersion": 1, "content": sampleInvoice(t, "invalid-total-mismatch.txt")})
	d.awaitState(t, "acme:inv-bad:v1", "dead_lettered")
	d.expect(t, http.StatusOK, http.MethodGet, "/v1/dlq", aclOperatorToken, nil)
	d.expect(t, http.StatusCreated, http.MethodPost, "/v1/jobs/acme:inv-bad:v1/reprocess", aclOperatorToken,
		map[string]any{"reason": "corrected", "content": sampleInvoice(t, "corrected-total-mismatch.txt")})
	d.awaitState(t, "acme:inv-bad:v2", "succeeded")
	d.expect(t, http.StatusOK, http.MethodGet, "/v1/audit", aclOperatorToken, nil)
	d.expect(t, http.StatusOK, http.MethodGet, "/v1/jobs?state=succeeded", aclTenantToken, nil)
	redistest.Eventually(t, 30*time.Second, func() bool { return delivered.Load() >= 3 }, "webhook deliveries")
	d.expect(t, http.StatusOK, http.MethodGet, "/v1/webhooks/"+ep["id"].(string)+"/deliveries", aclOperatorToken, nil)

	status, out := d.call(t, http.MethodGet, "/metrics", "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	require.Contains(t, string(out), "asynq_queue_size", "the inspector read the queues")
	d.expect(t, http.StatusOK, http.MethodGet, "/readyz", "", nil)
	for _, path := range []string{"/metrics", "/readyz"} {
		resp, err := d.client.Get("http://" + d.workerAddr + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "the worker's %s: %s", path, body)
	}
	req, err := http.NewRequest(http.MethodGet, d.api.URL+"/monitoring/api/queues", nil)
	require.NoError(t, err)
	req.SetBasicAuth("alice", aclOperatorToken)
	resp, err := d.client.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Contains(t, string(body), `"queues"`)
	for _, path := range []string{"/monitoring/api/redis_info", "/monitoring/api/queue_stats"} {
		req, err := http.NewRequest(http.MethodGet, d.api.URL+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth("alice", aclOperatorToken)
		resp, err := d.client.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, body)
	}
}

// aclLog is Redis's record of refused commands and keys, one line each.
func aclLog(t *testing.T, admin *redis.Client) []string {
	t.Helper()
	entries, err := admin.Do(context.Background(), "ACL", "LOG").Slice()
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// userClient is a client of addr that authenticates as user.
func userClient(t *testing.T, addr, user string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: aclPasswords[user], MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// requireRefused checks that user may not run any of cmds.
func requireRefused(t *testing.T, c *redis.Client, user string, cmds ...[]any) {
	t.Helper()
	for _, cmd := range cmds {
		err := c.Do(context.Background(), cmd...).Err()
		require.Error(t, err, "%s ran %v", user, cmd)
		// A refusal inside a script has its own wording.
		refused := strings.Contains(err.Error(), "NOPERM") || strings.Contains(err.Error(), "user executing the script can't run this command")
		require.True(t, refused, "%s: %v: %v", user, cmd, err)
	}
}

// requireAllSealed checks that every document value the run stored names
// the deployment's key, as worker -data-key-usage counts them: as an
// administrator (adminURL), since the worker's user may not SCAN; as the
// worker's user the command says so.
func (d *aclDeployment) requireAllSealed(t *testing.T, adminURL string) {
	t.Helper()
	_, err := d.workerStore.DataKeyUsage(context.Background())
	require.ErrorContains(t, err, "SCAN, which this Redis user may not run")
	require.ErrorContains(t, err, "RELAYOPS_REDIS_URL")

	ac := aclEnv(t, "admin", adminURL, "", nil)
	ac.DataKeys = d.apiConfig.DataKeys
	rdb, err := app.StoreRedis(ac)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	admin, err := jobs.NewStore(app.Jobs(ac, rdb))
	require.NoError(t, err)
	usage, err := admin.DataKeyUsage(context.Background())
	require.NoError(t, err)
	require.Len(t, usage, 1, "%v", usage)
	require.Greater(t, usage["k1"], 0, "%v", usage)
}

// forbidden are the commands no component may run: Redis's @dangerous ones,
// the FUNCTION commands (LOAD, FLUSH, DELETE and RESTORE are @write, not
// @dangerous, in Redis 7.0) and the keyspace walks that show key names
// outside a user's patterns (SCAN, RANDOMKEY).
var forbidden = [][]any{
	{"FLUSHALL"}, {"FLUSHDB"}, {"CONFIG", "GET", "*"}, {"CONFIG", "SET", "appendonly", "no"},
	{"KEYS", "*"}, {"DEBUG", "SLEEP", "0"}, {"SHUTDOWN", "NOSAVE"}, {"ACL", "LIST"}, {"MONITOR"},
	{"FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f', function() return 1 end)"},
	{"FUNCTION", "FLUSH"}, {"FUNCTION", "DELETE", "x"}, {"FUNCTION", "RESTORE", "x"},
	{"FUNCTION", "DUMP"}, {"FUNCTION", "LIST"}, {"FUNCTION", "STATS"}, {"FCALL", "f", "0"}, {"FCALL_RO", "f", "0"},
	{"SCAN", "0"}, {"SCAN", "0", "MATCH", "ro:*"}, {"RANDOMKEY"},
}

func TestRedisACL_EachComponentRunsAsItsOwnUser_AndIsRefusedTheRest(t *testing.T) {
	// DEBUG is off by default since Redis 7 whoever asks: turned on, its
	// refusal is the ACL's.
	srv := redistest.Start(t, &redistest.Options{Config: append(aclUsers(t), "enable-debug-command yes")})
	admin := srv.Client(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ACL LOG (refusals): %s", strings.Join(aclLog(t, admin), "\n"))
		}
	})
	d := startACLDeployment(t, func(user string) string {
		return "redis://" + userinfo(user) + "@" + srv.Addr + "/0"
	}, nil)
	d.exercise(t)
	require.Empty(t, aclLog(t, admin), "no command or key of a real run was refused")
	d.requireAllSealed(t, "redis://"+srv.Addr+"/0")

	for user := range aclPasswords {
		requireRefused(t, userClient(t, srv.Addr, user), user, forbidden...)
	}
	requireRefused(t, userClient(t, srv.Addr, "relayops-api"), "relayops-api", []any{"SET", "other:key", "x"}, []any{"GET", "other:key"})
	requireRefused(t, userClient(t, srv.Addr, "relayops-worker"), "relayops-worker", []any{"SET", "other:key", "x"})
	dash := userClient(t, srv.Addr, "relayops-dashboard")
	requireRefused(t, dash, "relayops-dashboard",
		[]any{"SET", "asynq:x", "1"}, []any{"DEL", "asynq:queues"}, []any{"GET", "ro:{00}:x"},
		[]any{"EVAL", "return redis.call('SET', KEYS[1], '1')", "1", "asynq:x"})
	require.NoError(t, dash.SMembers(context.Background(), "asynq:queues").Err(), "the dashboard reads Asynq's keys")
}

func TestRedisACL_OnACluster_URLUsersWorkOnEveryNode(t *testing.T) {
	c := redistest.Cluster(t)
	c.SetUsers(t, aclUsers(t))
	// The default user stays on for the helper; the components use theirs.
	t.Cleanup(func() {
		if t.Failed() {
			for _, addr := range c.Addrs {
				node := redis.NewClient(&redis.Options{Addr: addr})
				t.Logf("ACL LOG of %s: %s", addr, strings.Join(aclLog(t, node), "\n"))
				_ = node.Close()
			}
		}
	})
	d := startACLDeployment(t, func(user string) string {
		return "redis-cluster://" + userinfo(user) + "@" + strings.Join(c.Addrs, ",") + "/"
	}, map[string]string{"RELAYOPS_REDIS_WAIT_REPLICAS": "1"}) // every master has a replica: WAIT runs
	d.exercise(t)
	for _, addr := range c.Addrs {
		node := redis.NewClient(&redis.Options{Addr: addr})
		require.Empty(t, aclLog(t, node), "no command or key of a real run was refused on %s", addr)
		_ = node.Close()
	}
	d.requireAllSealed(t, "redis-cluster://"+strings.Join(c.Addrs, ",")+"/")
	wrong := aclEnv(t, "api", "redis-cluster://relayops-api:wrong-password@"+strings.Join(c.Addrs, ",")+"/", "", nil)
	err := app.CheckRedis(context.Background(), wrong)
	require.ErrorContains(t, err, "RELAYOPS_REDIS_URL")
	require.NotContains(t, err.Error(), "wrong-password")
}
