package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// Tokens of the test deployment.
const (
	tokAcme   = "tok-acme-0123456789"
	tokGlobex = "tok-globex-0123456789"
	tokAlice  = "tok-alice-0123456789"
)

var (
	testTenants   = []credential.Credential{{Name: "acme", Token: tokAcme}, {Name: "globex", Token: tokGlobex}}
	testOperators = []credential.Credential{{Name: "alice", Token: tokAlice}}
	// t0 is near the wall clock: Redis stream IDs (server time) and script
	// "now" (stub time) stay close, as in production.
	t0 = time.Now().UTC().Truncate(time.Millisecond)
)

// bundle is one API server over its own Redis.
type bundle struct {
	srv   *Server
	store *jobs.Store
	rdb   *redis.Client
	mini  *miniredis.Miniredis // nil on a real Redis
	clock *clock.Stub
	reg   *prometheus.Registry
	logs  *syncBuffer
	spec  *spec
}

type setupOpts struct {
	rdb    *redis.Client // default: a fresh miniredis
	modify func(*Config)
}

func setup(t testing.TB, opts *setupOpts) *bundle {
	t.Helper()
	if opts == nil {
		opts = &setupOpts{}
	}
	rdb := opts.rdb
	var mini *miniredis.Miniredis
	if rdb == nil {
		mini, rdb = redistest.Mini(t)
	}
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4})
	require.NoError(t, err)
	logs := &syncBuffer{}
	reg := prometheus.NewRegistry()
	cfg := Config{
		Store:     store,
		Tenants:   testTenants,
		Operators: testOperators,
		Logger:    slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Clock:     clk,
		Registry:  reg,
	}
	if opts.modify != nil {
		opts.modify(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	return &bundle{srv: srv, store: store, rdb: rdb, mini: mini, clock: clk, reg: reg, logs: logs, spec: loadSpec(t)}
}

// call is one request of a test.
type call struct {
	method string
	path   string // may hold a query string and escapes, sent as written
	token  string // bearer token; "" sends none
	body   string
	ctype  string // default application/json when body is set; "-" sends none
	header map[string]string
}

// resp is a received answer.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends c to the server in-process and checks the answer against the
// OpenAPI document before returning it.
func (b *bundle) do(t testing.TB, c call) *resp {
	t.Helper()
	req := newRequest(t, c)
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, req)
	r := &resp{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	b.spec.check(t, newRequest(t, c), r)
	return r
}

func newRequest(t testing.TB, c call) *http.Request {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req := httptest.NewRequest(c.method, c.path, body)
	switch {
	case c.ctype == "-":
	case c.ctype != "":
		req.Header.Set("Content-Type", c.ctype)
	case c.body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return req
}

// json decodes the body into a generic value.
func (r *resp) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &v), "body: %s", r.Body)
	return v
}

// requireError checks an error answer's status and code, and that its
// requestId echoes the X-Request-ID header.
func (r *resp) requireError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	e, ok := r.json(t)["error"].(map[string]any)
	require.True(t, ok, "body: %s", r.Body)
	require.Equal(t, code, e["code"], "body: %s", r.Body)
	require.NotEmpty(t, r.Header.Get("X-Request-ID"))
	require.Equal(t, r.Header.Get("X-Request-ID"), e["requestId"])
	return e
}

// fieldNames lists the fields of an invalid_request answer.
func fieldNames(e map[string]any) []string {
	var out []string
	fs, _ := e["fields"].([]any)
	for _, f := range fs {
		out = append(out, f.(map[string]any)["field"].(string))
	}
	return out
}

// submit submits a job through the API and returns its ID.
func (b *bundle) submit(t testing.TB, token, doc string, version int, content string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"documentId": doc, "operationVersion": version, "content": content})
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: token, body: string(body)})
	require.Contains(t, []int{http.StatusAccepted, http.StatusOK}, r.Status, "body: %s", r.Body)
	return r.json(t)["jobId"].(string)
}

func mustKey(t testing.TB, id string) jobs.Key {
	t.Helper()
	k, err := jobs.ParseKey(id)
	require.NoError(t, err)
	return k
}

// claim starts an attempt of a job, as a worker would.
func (b *bundle) claim(t testing.TB, id string) (jobs.Key, *jobs.Claim) {
	t.Helper()
	k := mustKey(t, id)
	c, err := b.store.Claim(context.Background(), k, "test-"+id+"-"+time.Now().Format(time.RFC3339Nano))
	require.NoError(t, err)
	require.Equal(t, jobs.StateRunning, c.State)
	return k, c
}

// succeed drives a job to succeeded with result and creates its review, as
// the worker and the review consumer would.
func (b *bundle) succeed(t testing.TB, id, result string) {
	t.Helper()
	k, c := b.claim(t, id)
	cr, err := b.store.Commit(context.Background(), k, c.Fence, c.PayloadHash, []byte(result))
	require.NoError(t, err)
	_, err = b.store.ApplyCommitted(context.Background(), k, cr.EventID)
	require.NoError(t, err)
}

// deadLetter drives a job to dead_lettered with a permanent error.
func (b *bundle) deadLetter(t testing.TB, id string) {
	t.Helper()
	k, c := b.claim(t, id)
	require.NoError(t, b.store.DeadLetter(context.Background(), k, c.Fence, jobs.CodePermanent))
}

// reject drives a job to dead_lettered as a rejected document with reason.
func (b *bundle) reject(t testing.TB, id, reason string) {
	t.Helper()
	k, c := b.claim(t, id)
	require.NoError(t, b.store.Reject(context.Background(), k, c.Fence, reason, nil))
}

// cancel drives a job to cancelled.
func (b *bundle) cancel(t testing.TB, id string) {
	t.Helper()
	k, c := b.claim(t, id)
	require.NoError(t, b.store.Cancel(context.Background(), k, c.Fence, jobs.CodeDeadlineExceeded))
}

// dbsize counts Redis keys.
func (b *bundle) dbsize(t testing.TB) int64 {
	t.Helper()
	n, err := b.rdb.DBSize(context.Background()).Result()
	require.NoError(t, err)
	return n
}

// spec holds the served OpenAPI document and checks answers against it.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

// loadSpec loads and validates /openapi.json once per test binary.
func loadSpec(t testing.TB) *spec {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(openAPI)
		if err != nil {
			specErr = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = err
			return
		}
		router, err := gorillamux.NewRouter(doc)
		specVal, specErr = &spec{doc: doc, router: router}, err
	})
	require.NoError(t, specErr, "openapi.json")
	return specVal
}

// check validates one answer. A request the document has no operation for
// (an unknown path, a wrong method) must still answer the Error schema; the
// dashboard's own pages under /monitoring/ are asynqmon's and not described.
func (s *spec) check(t testing.TB, req *http.Request, r *resp) {
	t.Helper()
	if r.Header.Get("X-Request-ID") == "" {
		t.Errorf("openapi: %s %s answered %d without X-Request-ID", req.Method, req.URL, r.Status)
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		if strings.HasPrefix(req.URL.Path, "/monitoring/") && r.Status < 400 {
			return
		}
		s.checkError(t, req, r)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.Status,
		Header:                 r.Header,
		Body:                   io.NopCloser(bytes.NewReader(r.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("openapi: %s %s answered %d, which the document does not allow: %v\nbody: %s",
			req.Method, req.URL, r.Status, err, truncate(string(r.Body), 2000))
	}
}

func (s *spec) checkError(t testing.TB, req *http.Request, r *resp) {
	t.Helper()
	if r.Status < 400 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Errorf("openapi: %s %s is not in the document, and answered %d %q", req.Method, req.URL, r.Status, r.Header.Get("Content-Type"))
		return
	}
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Errorf("openapi: %s %s: error body is not JSON: %v", req.Method, req.URL, err)
		return
	}
	if err := s.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("openapi: %s %s answered %d with a body that is not an Error: %v\nbody: %s", req.Method, req.URL, r.Status, err, r.Body)
	}
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
