package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// setupReal is setup on a real redis-server (skipped without one unless
// RELAYOPS_REQUIRE_REDIS=1), through the production client.
func setupReal(t *testing.T) (*bundle, *redistest.Server) {
	t.Helper()
	srv := redistest.Start(t, nil)
	rdb, err := jobs.NewRedisClient(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	return setup(t, &setupOpts{rdb: rdb}), srv
}

func TestRealRedis_CoreFlows(t *testing.T) {
	t.Parallel()
	b, _ := setupReal(t)
	id := b.submit(t, tokAcme, "inv-1", 1, "Invoice 42")
	require.Equal(t, true, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"Invoice 42"}`}).json(t)["deduped"])
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"other"}`}).requireError(t, 409, CodeIdempotencyConflict)

	b.succeed(t, id, `{"total":42}`)
	v := b.do(t, call{method: "GET", path: "/v1/jobs/" + id, token: tokAcme}).json(t)
	require.Equal(t, "succeeded", v["state"])
	require.Equal(t, map[string]any{"total": float64(42)}, v["result"])
	require.Equal(t, []string{id}, jobIDs(t, b.do(t, call{method: "GET", path: "/v1/reviews", token: tokAcme}).json(t)))
	require.Equal(t, 200, b.do(t, call{method: "POST", path: "/v1/reviews/" + id + "/decision", token: tokAlice,
		body: `{"decision":"approve","note":"ok"}`}).Status)

	dead := b.submit(t, tokAcme, "inv-2", 1, "broken")
	b.deadLetter(t, dead)
	require.Equal(t, []string{dead}, jobIDs(t, b.do(t, call{method: "GET", path: "/v1/dlq", token: tokAlice}).json(t)))
	r := b.do(t, reprocessCall(dead, `{"reason":"corrected","content":"fixed"}`))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	require.Equal(t, "acme:inv-2:v2", r.json(t)["jobId"])
	require.Equal(t, http.StatusOK, b.do(t, reprocessCall(dead, `{"reason":"corrected","content":"fixed"}`)).Status)

	cancelled := b.submit(t, tokAcme, "inv-3", 1, "x")
	b.cancel(t, cancelled)
	b.do(t, reprocessCall(cancelled, `{"reason":"r"}`)).requireError(t, 409, CodeJobCancelled)
}

func TestRealRedis_BadInputCatalogue_WritesNothing(t *testing.T) {
	t.Parallel()
	b, _ := setupReal(t)
	b.submit(t, tokAcme, "inv-0", 1, "x")
	before := b.dbsize(t)
	for _, tt := range badInputs() {
		b.do(t, tt.c).requireError(t, tt.status, tt.code)
	}
	require.Equal(t, before, b.dbsize(t))
}

// TestRealRedis_Down_Answers503_ThenRecovers: with redis-server stopped,
// every request answers 503 unavailable (never a hang, never a 500), and
// nothing half-written shows once it is back.
func TestRealRedis_Down_Answers503_ThenRecovers(t *testing.T) {
	t.Parallel()
	b, srv := setupReal(t)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	srv.Stop(t)

	for _, c := range []call{
		{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"inv-2","operationVersion":1,"content":"x"}`},
		{method: "GET", path: "/v1/jobs/" + id, token: tokAcme},
		{method: "GET", path: "/v1/jobs", token: tokAcme},
		{method: "GET", path: "/readyz"},
	} {
		done := make(chan *resp, 1)
		go func() { done <- b.do(t, c) }()
		select {
		case r := <-done:
			r.requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
		case <-time.After(30 * time.Second):
			t.Fatalf("%s %s hung with Redis down", c.method, c.path)
		}
	}

	srv.Restart(t) // without AOF it comes back empty: the point is recovery
	redistest.Eventually(t, 10*time.Second, func() bool {
		return b.do(t, call{method: "GET", path: "/readyz"}).Status == http.StatusOK
	}, "readyz after restart")
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-2","operationVersion":1,"content":"x"}`})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
}
