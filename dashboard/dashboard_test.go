package dashboard

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
)

const (
	opName  = "alice"
	opToken = "tok-alice-0123456789"
)

var operators = []credential.Credential{{Name: opName, Token: opToken}, {Name: "bob", Token: "tok-bob-0123456789"}}

// setup returns a dashboard over redisURL, served by a test server.
func setup(t *testing.T, redisURL string) *httptest.Server {
	t.Helper()
	d, err := New(Config{RedisURL: redisURL, Operators: operators})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	ts := httptest.NewServer(d)
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, method, url string, auth func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if auth != nil {
		auth(req)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

func basic(user, pass string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(user, pass) }
}

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func TestNew_InvalidConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "RedisURL"},
		{Config{RedisURL: "redis://x/0", RedisCluster: &redis.ClusterOptions{Addrs: []string{"x:1"}}}, "exactly one of Config.RedisURL and Config.RedisCluster"},
		{Config{RedisURL: "redis://x/0", RootPath: "monitoring"}, "RootPath"},
		{Config{RedisURL: "redis://x/0", RootPath: "/monitoring/"}, "RootPath"},
		{Config{RedisURL: "redis://x/0", Realm: `a"b`}, "Realm"},
		{Config{RedisURL: "http://user:secret@x"}, "RedisURL"},
	} {
		_, err := New(tt.cfg)
		require.ErrorContains(t, err, tt.want)
		require.NotContains(t, err.Error(), "secret")
	}
}

func TestAuth_WithoutOperatorCredentials_Answers401WithBasicChallenge(t *testing.T) {
	t.Parallel()
	m, _ := redistest.Mini(t)
	ts := setup(t, "redis://"+m.Addr()+"/0")
	for name, auth := range map[string]func(*http.Request){
		"none":             nil,
		"wrong password":   basic(opName, "nope"),
		"other's password": basic(opName, "tok-bob-0123456789"),
		"unknown user":     basic("mallory", opToken),
		"empty":            basic("", ""),
		"unknown bearer":   bearer("nope"),
		"malformed basic":  func(r *http.Request) { r.Header.Set("Authorization", "Basic !!!") },
		"basic without pass": func(r *http.Request) {
			r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(opName)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/monitoring", "/monitoring/", "/monitoring/api/queues", "/monitoring/static/js/x.js"} {
				res, body := get(t, "GET", ts.URL+path, auth)
				require.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
				require.Equal(t, `Basic realm="relayops", charset="UTF-8"`, res.Header.Get("WWW-Authenticate"))
				require.Contains(t, body, `"code":"unauthorized"`)
				require.NotContains(t, body, "asynqmon")
			}
		})
	}
}

func TestAuth_OperatorCredentials_ServeAsynqmon(t *testing.T) {
	t.Parallel()
	m, _ := redistest.Mini(t)
	ts := setup(t, "redis://"+m.Addr()+"/0")
	for name, auth := range map[string]func(*http.Request){
		"basic":        basic(opName, opToken),
		"second basic": basic("bob", "tok-bob-0123456789"),
		"bearer":       bearer(opToken),
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/monitoring", "/monitoring/", "/monitoring/queues/extract"} {
				res, body := get(t, "GET", ts.URL+path, auth)
				require.Equal(t, http.StatusOK, res.StatusCode, path)
				require.Contains(t, body, `window.FLAG_ROOT_PATH="\/monitoring"`)
				require.Contains(t, body, `window.FLAG_READ_ONLY="true"`, "the UI hides its write actions")
				require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
				require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
			}
		})
	}
}

// TestReadOnly_WritesRefused: every method but GET and HEAD is refused, for
// the API and the pages alike, and nothing changes in Asynq.
func TestReadOnly_WritesRefused(t *testing.T) {
	t.Parallel()
	m, rdb := redistest.Mini(t)
	ts := setup(t, "redis://"+m.Addr()+"/0")
	client := asynq.NewClientFromRedisClient(rdb)
	_, err := client.Enqueue(asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: "acme:inv-1:v1"}.Marshal()),
		asynq.Queue(task.QueueExtract), asynq.TaskID("acme:inv-1:v1"))
	require.NoError(t, err)
	keysBefore := m.Keys()

	for _, tt := range []struct{ method, path string }{
		{"POST", "/monitoring/api/queues/extract:pause"},
		{"DELETE", "/monitoring/api/queues/extract"},
		{"DELETE", "/monitoring/api/queues/extract/pending_tasks/acme:inv-1:v1"},
		{"POST", "/monitoring/api/queues/extract/pending_tasks/acme:inv-1:v1:archive"},
		{"POST", "/monitoring/api/queues/extract/pending_tasks:archive_all"},
		{"DELETE", "/monitoring/api/queues/extract/pending_tasks:delete_all"},
		{"PUT", "/monitoring/api/queues/extract"},
		{"PATCH", "/monitoring/"},
		{"POST", "/monitoring"},
	} {
		res, body := get(t, tt.method, ts.URL+tt.path, basic(opName, opToken))
		require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "%s %s", tt.method, tt.path)
		require.Equal(t, "GET, HEAD", res.Header.Get("Allow"))
		require.Contains(t, body, `"code":"method_not_allowed"`)
		// Unauthenticated writes are challenged first.
		res, _ = get(t, tt.method, ts.URL+tt.path, nil)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	}
	require.Equal(t, keysBefore, m.Keys(), "nothing changed in Redis")
	info, err := asynq.NewInspectorFromRedisClient(rdb).GetTaskInfo(task.QueueExtract, "acme:inv-1:v1")
	require.NoError(t, err)
	require.Equal(t, asynq.TaskStatePending, info.State)
}

// TestAsynqmonReadOnly_RefusesWritesItself checks the second layer: the
// asynqmon version in go.mod enforces ReadOnly on its own API.
func TestAsynqmonReadOnly_RefusesWritesItself(t *testing.T) {
	t.Parallel()
	m, _ := redistest.Mini(t)
	d, err := New(Config{RedisURL: "redis://" + m.Addr() + "/0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	mon := d.mon // bypasses the dashboard's own method guard and auth
	for _, tt := range []struct{ method, path string }{
		{"POST", "/monitoring/api/queues/extract:pause"},
		{"DELETE", "/monitoring/api/queues/extract"},
		{"POST", "/monitoring/api/queues/extract/archived_tasks:run_all"},
	} {
		rec := httptest.NewRecorder()
		mon.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		require.Equal(t, http.StatusMethodNotAllowed, rec.Code, "%s %s: %s", tt.method, tt.path, rec.Body)
		require.Contains(t, rec.Body.String(), "read-only")
	}
	var _ *asynqmon.HTTPHandler = mon
}

func TestResults_AreHidden(t *testing.T) {
	t.Parallel()
	require.Equal(t, "(12 bytes, hidden)", hideResult(task.TypeExtract, []byte(`{"iban":"x"}`)))
}

func TestAPI_ListsQueues_OnRealRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	ts := setup(t, srv.URL)
	requireOneQueuedTask(t, ts.URL, srv.Client(t))
}

func TestAPI_ListsQueues_OnRedisCluster(t *testing.T) {
	t.Parallel()
	cluster := redistest.Cluster(t)
	d, err := New(Config{RedisCluster: &redis.ClusterOptions{Addrs: cluster.Addrs}, Operators: operators})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	ts := httptest.NewServer(d)
	t.Cleanup(ts.Close)
	requireOneQueuedTask(t, ts.URL, cluster.Client)
}

// requireOneQueuedTask enqueues one extract task through rdb and checks
// that asynqmon's queue list, read through the dashboard at base with
// operator credentials, shows it pending in the extract queue.
func requireOneQueuedTask(t *testing.T, base string, rdb redis.UniversalClient) {
	t.Helper()
	client := asynq.NewClientFromRedisClient(rdb)
	_, err := client.Enqueue(asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: "acme:inv-1:v1"}.Marshal()),
		asynq.Queue(task.QueueExtract))
	require.NoError(t, err)

	res, body := get(t, "GET", base+"/monitoring/api/queues", basic(opName, opToken))
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	var v struct {
		Queues []struct {
			Queue   string `json:"queue"`
			Pending int    `json:"pending"`
		} `json:"queues"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	require.Len(t, v.Queues, 1)
	require.Equal(t, task.QueueExtract, v.Queues[0].Queue)
	require.Equal(t, 1, v.Queues[0].Pending)
}

// Two Authorization headers are refused before any credential is judged.
func TestAuth_TwoAuthorizationHeaders_Answers400(t *testing.T) {
	t.Parallel()
	ts := setup(t, redistest.Start(t, nil).URL)
	res, body := get(t, http.MethodGet, ts.URL+"/monitoring/", func(r *http.Request) {
		r.SetBasicAuth(opName, opToken)
		r.Header.Add("Authorization", "Bearer "+opToken)
	})
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	var e map[string]map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &e))
	require.Equal(t, "invalid_request", e["error"]["code"])
}
