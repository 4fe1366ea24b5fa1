package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/jobs"
)

func TestNew_InvalidConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{})
	require.ErrorContains(t, err, "Config.Store")
}

func TestAuth_MissingOrUnknownToken_Answers401WithChallenge(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, h := range []string{"", "Bearer", "Bearer ", "Bearer nope", "Token " + tokAcme, "bearer-" + tokAcme} {
		c := call{method: "GET", path: "/v1/jobs"}
		if h != "" {
			c.header = map[string]string{"Authorization": h}
		}
		r := b.do(t, c)
		r.requireError(t, http.StatusUnauthorized, CodeUnauthorized)
		require.Equal(t, `Bearer realm="relayops"`, r.Header.Get("WWW-Authenticate"))
	}
	r := b.do(t, call{method: "GET", path: "/v1/jobs", header: map[string]string{"Authorization": "bearer " + tokAcme}})
	require.Equal(t, http.StatusOK, r.Status, "the scheme is case-insensitive")
}

func TestRequestID_EchoedOrGenerated(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "GET", path: "/v1/jobs/x", token: tokAcme, header: map[string]string{"X-Request-ID": "abc-123"}})
	require.Equal(t, "abc-123", r.Header.Get("X-Request-ID"))
	require.Equal(t, "abc-123", r.requireError(t, 404, CodeNotFound)["requestId"])
	require.Contains(t, b.logs.String(), `"request_id":"abc-123"`)

	for _, bad := range []string{"", "has space", strings.Repeat("a", 129), "semi;colon"} {
		r := b.do(t, call{method: "GET", path: "/healthz", header: map[string]string{"X-Request-ID": bad}})
		id := r.Header.Get("X-Request-ID")
		require.NotEqual(t, bad, id)
		require.Len(t, id, 36, "a UUID")
	}
}

func TestHealthz_And_Readyz(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.Equal(t, "ok", b.do(t, call{method: "GET", path: "/healthz"}).json(t)["status"])
	require.Equal(t, "ready", b.do(t, call{method: "GET", path: "/readyz"}).json(t)["status"])
	b.mini.Close()
	b.do(t, call{method: "GET", path: "/readyz"}).requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: "/healthz"}).Status, "the process is still up")
}

func TestOpenAPI_ServesTheDocument(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "GET", path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.Status)
	v := r.json(t)
	require.Equal(t, "3.1.0", v["openapi"])
	// Every route of the server is described, and nothing else. The
	// operator console's routes serve HTML pages to browsers, not the JSON
	// API the document describes.
	paths := v["paths"].(map[string]any)
	for _, rt := range b.srv.echo.Routes() {
		if rt.Method == echo.RouteNotFound || rt.Path == "/console" || strings.HasPrefix(rt.Path, "/console/") {
			continue
		}
		p := rt.Path
		for _, name := range []string{"jobId", "id", "webhookId", "page"} {
			p = strings.ReplaceAll(p, ":"+name, "{"+name+"}")
		}
		item, ok := paths[p].(map[string]any)
		require.True(t, ok, "route %s %s is not in openapi.json", rt.Method, rt.Path)
		require.Contains(t, item, strings.ToLower(rt.Method), "route %s %s", rt.Method, rt.Path)
	}
}

// TestSpec_CheckRejectsAnswersOutsideTheDocument proves the suite's OpenAPI
// check can fail.
func TestSpec_CheckRejectsAnswersOutsideTheDocument(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"x"}}
	for _, tt := range []struct {
		name, path string
		r          *resp
	}{
		{"wrong body", "/readyz", &resp{Status: 200, Header: h, Body: []byte(`{"status":"fine"}`)}},
		{"undocumented status", "/readyz", &resp{Status: 418, Header: h, Body: []byte(`{"error":{"code":"internal_error","message":"m","requestId":"x"}}`)}},
		{"unknown error code", "/readyz", &resp{Status: 503, Header: h, Body: []byte(`{"error":{"code":"oops","message":"m","requestId":"x"}}`)}},
		{"503 without Retry-After", "/readyz", &resp{Status: 503, Header: h, Body: []byte(`{"error":{"code":"unavailable","message":"m","requestId":"x"}}`)}},
		{"cursor of the wrong type", "/v1/jobs", &resp{Status: 200, Header: h, Body: []byte(`{"items":[],"nextCursor":5}`)}},
		{"cursor missing", "/v1/jobs", &resp{Status: 200, Header: h, Body: []byte(`{"items":[]}`)}},
		{"time without milliseconds", "/v1/jobs/acme:a:v1", &resp{Status: 200, Header: h, Body: []byte(`{"jobId":"acme:a:v1","tenant":"acme","documentId":"a","operationVersion":1,"state":"queued","attempt":0,"recoveries":0,"maxAttempts":3,"maxRecoveries":5,"deadlineSeconds":1,"updatedAt":"2026-01-01T00:00:00Z","resultExpired":false,"inputExpired":false,"links":{"self":"/v1/jobs/acme:a:v1"}}`)}},
		{"unknown member", "/v1/jobs/acme:a:v1", &resp{Status: 200, Header: h, Body: []byte(`{"jobId":"acme:a:v1","tenant":"acme","documentId":"a","operationVersion":1,"state":"queued","attempt":0,"recoveries":0,"maxAttempts":3,"maxRecoveries":5,"deadlineSeconds":1,"updatedAt":"2026-01-01T00:00:00.000Z","resultExpired":false,"inputExpired":false,"links":{"self":"/v1/jobs/acme:a:v1"},"content":"leak"}`)}},
		{"no request ID", "/healthz", &resp{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"status":"ok"}`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &failRecorder{TB: t}
			s.check(rec, newRequest(t, call{method: "GET", path: tt.path}), tt.r)
			require.True(t, rec.failed)
		})
	}
	t.Run("a valid answer passes", func(t *testing.T) {
		rec := &failRecorder{TB: t}
		s.check(rec, newRequest(t, call{method: "GET", path: "/v1/jobs"}), &resp{Status: 200, Header: h, Body: []byte(`{"items":[],"nextCursor":null}`)})
		require.False(t, rec.failed)
	})
}

type failRecorder struct {
	testing.TB
	failed bool
}

func (f *failRecorder) Errorf(string, ...any) { f.failed = true }
func (f *failRecorder) Helper()               {}

func TestMetrics_CountRequestsAndSubmissions(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-1", 1, "x")
	b.submit(t, tokAcme, "inv-1", 1, "x")
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"inv-1","operationVersion":1,"content":"y"}`})
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{}`})
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:x:v1", token: tokAcme})
	b.do(t, call{method: "BREW", path: "/v1/nope/" + strings.Repeat("x", 10)})

	r := b.do(t, call{method: "GET", path: "/metrics"})
	require.Equal(t, http.StatusOK, r.Status)
	m := string(r.Body)
	for _, want := range []string{
		`relayops_submissions_total{outcome="created"} 1`,
		`relayops_submissions_total{outcome="deduped"} 1`,
		`relayops_submissions_total{outcome="conflict"} 1`,
		`relayops_submissions_total{outcome="invalid"} 1`,
		`relayops_http_requests_total{method="POST",route="/v1/jobs",status="202"} 1`,
		`relayops_http_requests_total{method="GET",route="/v1/jobs/:jobId",status="404"} 1`,
		`relayops_http_requests_total{method="other",route="unmatched",status="404"} 1`,
		`relayops_http_request_duration_seconds_count{method="POST",route="/v1/jobs"} 4`,
	} {
		require.Contains(t, m, want)
	}
	require.NotContains(t, m, "acme:x:v1", "labels are route templates, never raw paths")
}

func TestRedisDown_EveryStoreRoute_Answers503(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.mini.Close()
	for _, c := range []call{
		{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"inv-2","operationVersion":1,"content":"x"}`},
		{method: "GET", path: "/v1/jobs/" + id, token: tokAcme},
		{method: "GET", path: "/v1/jobs", token: tokAcme},
		{method: "GET", path: "/v1/reviews", token: tokAcme},
		{method: "GET", path: "/v1/reviews/" + id, token: tokAcme},
		{method: "POST", path: "/v1/reviews/" + id + "/decision", token: tokAlice, body: `{"decision":"approve"}`},
		{method: "POST", path: "/v1/jobs/" + id + "/reprocess", token: tokAlice, body: `{"reason":"r"}`},
		{method: "GET", path: "/v1/dlq", token: tokAlice},
		{method: "GET", path: "/v1/audit", token: tokAlice},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := b.do(t, c)
			r.requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
			require.Equal(t, "1", r.Header.Get("Retry-After"))
		})
	}
	// Bad input is judged before Redis is asked: still 400, never 503.
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{}`}).requireError(t, 400, CodeInvalidRequest)
	require.NotContains(t, b.logs.String(), `"level":"ERROR"`, "an outage is not a bug")
}

// TestRedisUnresponsive_Answers503WithinTheStoreTimeout: a Redis that
// accepts connections but never answers must not hang a request.
func TestRedisUnresponsive_Answers503WithinTheStoreTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	rdb, err := newBlackholeClient(ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	b := setup(t, &setupOpts{rdb: rdb, modify: func(c *Config) { c.StoreTimeout = 200 * time.Millisecond }})

	done := make(chan *resp, 1)
	go func() {
		done <- b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1", token: tokAcme})
	}()
	select {
	case r := <-done:
		r.requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
	case <-time.After(30 * time.Second):
		t.Fatal("the request hung on an unresponsive Redis")
	}
}

func TestPanic_Answers500AndKeepsServing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.echo.GET("/boom", func(echo.Context) error { panic("boom") })
	b.do(t, call{method: "GET", path: "/boom"}).requireError(t, http.StatusInternalServerError, CodeInternal)
	require.Contains(t, b.logs.String(), `"msg":"handler panic"`)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: "/healthz"}).Status)
}

func TestDashboard_MountedAtMonitoring(t *testing.T) {
	t.Parallel()
	var paths []string
	b := setup(t, &setupOpts{modify: func(c *Config) {
		c.Dashboard = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.URL.Path)
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html></html>")
		})
	}})
	for _, p := range []string{"/monitoring", "/monitoring/", "/monitoring/api/queues"} {
		require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: p}).Status)
	}
	require.Equal(t, []string{"/monitoring", "/monitoring/", "/monitoring/api/queues"}, paths)
}

func TestRun_ServesUntilCancelled_ThenShutsDown(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- b.srv.Serve(ctx, ln) }()

	res, err := http.Get(fmt.Sprintf("http://%s/healthz", ln.Addr()))
	require.NoError(t, err)
	var v map[string]string
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v))
	require.NoError(t, res.Body.Close())
	require.Equal(t, "ok", v["status"])

	cancel()
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	_, err = http.Get(fmt.Sprintf("http://%s/healthz", ln.Addr()))
	require.Error(t, err, "the listener is closed")
}

func TestRun_BadAddress_Fails(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	err := b.srv.Run(context.Background(), "256.0.0.1:http")
	require.Error(t, err)
	var opErr *net.OpError
	require.True(t, errors.As(err, &opErr) || strings.Contains(err.Error(), "listen"))
}

// newBlackholeClient is the production client, pointed at addr.
func newBlackholeClient(addr string) (*redis.Client, error) {
	return jobs.NewRedisClient("redis://" + addr + "/0")
}

func TestNew_ShortToken_Refused(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	_, err := New(Config{Store: b.store, Tenants: []credential.Credential{{Name: "acme", Token: "acme-demo-token"}}})
	require.ErrorContains(t, err, "Config.Tenants[0] (acme): token must be at least 16 characters")
	_, err = New(Config{Store: b.store, Operators: []credential.Credential{{Name: "alice", Token: "x"}}})
	require.ErrorContains(t, err, "Config.Operators[0] (alice): token must be at least 16 characters")
}

// authFrom sends GET /v1/jobs from a client address with a token.
func (b *bundle) authFrom(t *testing.T, addr, token string) *httptest.ResponseRecorder {
	t.Helper()
	req := newRequest(t, call{method: "GET", path: "/v1/jobs", token: token})
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// Repeated authentication failures from one address are answered 429 for
// the rest of the window; valid tokens from that address, and other
// addresses, are not affected.
func TestAuth_RepeatedFailures_ThrottledPerAddress(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.AuthFailures = Rate{Count: 3, Per: time.Minute} }})
	const attacker, neighbour = "198.51.100.7:4242", "198.51.100.8:4242"
	for i := range 3 {
		require.Equal(t, http.StatusUnauthorized, b.authFrom(t, attacker, fmt.Sprintf("guess-%02d-0123456789", i)).Code)
	}
	b.clock.Advance(20 * time.Second)
	for _, tok := range []string{"guess-99-0123456789", ""} {
		rec := b.authFrom(t, attacker, tok)
		r := &resp{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
		r.requireError(t, http.StatusTooManyRequests, CodeRateLimited)
		require.Equal(t, "40", rec.Header().Get("Retry-After"))
	}
	require.Equal(t, http.StatusOK, b.authFrom(t, attacker, tokAcme).Code, "a valid token still works")
	require.Equal(t, http.StatusUnauthorized, b.authFrom(t, neighbour, "guess-00-0123456789").Code, "per address")

	b.clock.Advance(40 * time.Second)
	require.Equal(t, http.StatusUnauthorized, b.authFrom(t, attacker, "guess-00-0123456789").Code, "a new window")
}

// IPv6 clients are counted by /64 (one host can own a whole /64), and the
// table of addresses never grows past its bound.
func TestAuth_FailureThrottle_BoundedMemory(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.AuthFailures = Rate{Count: 2, Per: time.Minute} }})
	for i := range 3 {
		b.authFrom(t, fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1), "guess-0123456789abc")
	}
	require.Equal(t, http.StatusTooManyRequests, b.authFrom(t, "[2001:db8:1:2::ffff]:443", "guess-0123456789abc").Code)
	for i := range 3 * maxThrottledAddresses {
		b.authFrom(t, fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255), "guess-0123456789abc")
	}
	require.LessOrEqual(t, b.srv.authThrottle.size(), maxThrottledAddresses)
}
