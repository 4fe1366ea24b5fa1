package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

func reprocessCall(id, body string) call {
	return call{method: "POST", path: "/v1/jobs/" + id + "/reprocess", token: tokAlice, body: body}
}

func TestReprocess_DeadLetteredJob_CreatesNextVersion(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "Invoice 42")
	b.deadLetter(t, dead)

	r := b.do(t, reprocessCall(dead, `{"reason":"extractor fixed"}`))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	require.Equal(t, "/v1/jobs/acme:inv-1:v2", r.Header.Get("Location"))
	v := r.json(t)
	require.Equal(t, "acme:inv-1:v2", v["jobId"])
	require.Equal(t, "queued", v["state"])
	require.Equal(t, dead, v["reprocessedFrom"])
	require.Equal(t, "/v1/jobs/"+dead, v["links"].(map[string]any)["reprocessedFrom"])

	old := b.do(t, call{method: "GET", path: "/v1/jobs/" + dead, token: tokAcme}).json(t)
	require.Equal(t, "dead_lettered", old["state"], "the dead job stays as it was")
	require.Equal(t, "acme:inv-1:v2", old["reprocessedAs"])

	t.Run("repeat answers the same new job", func(t *testing.T) {
		keys := b.dbsize(t)
		r := b.do(t, reprocessCall(dead, `{"reason":"again"}`))
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		require.Equal(t, "acme:inv-1:v2", r.json(t)["jobId"])
		require.Equal(t, keys, b.dbsize(t))
	})
	t.Run("repeat with other content conflicts", func(t *testing.T) {
		b.do(t, reprocessCall(dead, `{"reason":"x","content":"other"}`)).requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	})
	t.Run("audit names the operator and the reason", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/audit?operator=alice", token: tokAlice}).json(t)
		items := v["items"].([]any)
		require.Len(t, items, 1)
		e := items[0].(map[string]any)
		require.Equal(t, "reprocessed", e["action"])
		require.Equal(t, dead, e["jobId"])
		require.Equal(t, "acme:inv-1:v2", e["newJobId"])
		require.Equal(t, "alice", e["operator"])
		require.Equal(t, "extractor fixed", e["reason"])
		require.Equal(t, jobs.PayloadHash("Invoice 42"), e["oldPayloadHash"])
		require.Equal(t, jobs.PayloadHash("Invoice 42"), e["newPayloadHash"])
	})
}

func TestReprocess_WithContent_UsesCorrectedInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "broken")
	b.deadLetter(t, dead)
	r := b.do(t, reprocessCall(dead, `{"reason":"corrected document","content":"fixed"}`))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	in, err := b.store.Input(t.Context(), mustKey(t, "acme:inv-1:v2"))
	require.NoError(t, err)
	require.Equal(t, "fixed", in)
}

func TestReprocess_Refusals(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	queued := b.submit(t, tokAcme, "q", 1, "x")
	cancelled := b.submit(t, tokAcme, "c", 1, "x")
	b.cancel(t, cancelled)
	expired := b.submit(t, tokAcme, "e", 1, "x")
	b.deadLetter(t, expired)
	b.mini.FastForward(jobs.DefaultRetention.Input + time.Hour)

	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"not dead-lettered", reprocessCall(queued, `{"reason":"r"}`), 409, CodeNotDeadLettered},
		{"cancelled", reprocessCall(cancelled, `{"reason":"r"}`), 409, CodeJobCancelled},
		{"input expired", reprocessCall(expired, `{"reason":"r"}`), 409, CodeInputExpired},
		{"missing", reprocessCall("acme:nope:v1", `{"reason":"r"}`), 404, CodeNotFound},
		{"malformed", reprocessCall("acme:nope", `{"reason":"r"}`), 404, CodeNotFound},
		{"tenant token", call{method: "POST", path: "/v1/jobs/" + queued + "/reprocess", token: tokAcme, body: `{"reason":"r"}`}, 403, CodeForbidden},
		{"no reason", reprocessCall(queued, `{}`), 400, CodeInvalidRequest},
		{"blank reason", reprocessCall(queued, `{"reason":"   "}`), 400, CodeInvalidRequest},
		{"long reason", reprocessCall(queued, `{"reason":"`+strings.Repeat("é", 501)+`"}`), 400, CodeInvalidRequest},
		{"empty content", reprocessCall(queued, `{"reason":"r","content":""}`), 400, CodeInvalidRequest},
		{"operator in body", reprocessCall(queued, `{"reason":"r","operator":"mallory"}`), 400, CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.do(t, tt.c).requireError(t, tt.status, tt.code)
		})
	}
	t.Run("expired input with content", func(t *testing.T) {
		r := b.do(t, reprocessCall(expired, `{"reason":"r","content":"new"}`))
		require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	})
	t.Run("reason of 500 characters", func(t *testing.T) {
		d := b.submit(t, tokAcme, "d", 1, "x")
		b.deadLetter(t, d)
		r := b.do(t, reprocessCall(d, `{"reason":"`+strings.Repeat("é", 500)+`"}`))
		require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	})
}

func TestReprocess_RateLimit_PerTenant_RepeatsAreFree(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.ReprocessRate = Rate{Count: 2, Per: time.Minute} }})
	var dead []string
	for _, doc := range []string{"a", "b", "c", "d"} {
		id := b.submit(t, tokAcme, doc, 1, "x")
		b.deadLetter(t, id)
		dead = append(dead, id)
	}
	other := b.submit(t, tokGlobex, "a", 1, "x")
	b.deadLetter(t, other)
	queued := b.submit(t, tokAcme, "q", 1, "x")

	require.Equal(t, 201, b.do(t, reprocessCall(dead[0], `{"reason":"r"}`)).Status)
	// Refused calls take nothing from the budget.
	b.do(t, reprocessCall(queued, `{"reason":"r"}`)).requireError(t, 409, CodeNotDeadLettered)
	require.Equal(t, 201, b.do(t, reprocessCall(dead[1], `{"reason":"r"}`)).Status)

	r := b.do(t, reprocessCall(dead[2], `{"reason":"r"}`))
	r.requireError(t, http.StatusTooManyRequests, CodeRateLimited)
	require.Equal(t, "30", r.Header.Get("Retry-After"))

	require.Equal(t, 200, b.do(t, reprocessCall(dead[0], `{"reason":"r"}`)).Status, "a repeat is not rate limited")
	require.Equal(t, 201, b.do(t, reprocessCall(other, `{"reason":"r"}`)).Status, "budgets are per tenant")

	b.clock.Advance(30 * time.Second)
	require.Equal(t, 201, b.do(t, reprocessCall(dead[2], `{"reason":"r"}`)).Status)
	b.do(t, reprocessCall(dead[3], `{"reason":"r"}`)).requireError(t, http.StatusTooManyRequests, CodeRateLimited)
}

// Identical reprocess calls at once: one creates the new version, every
// other one is a repeat, and no repeat is refused by the rate limit, even
// though more calls than the budget run at the same time. On miniredis and
// on a real Redis (whose client runs the calls in parallel).
func TestReprocess_ConcurrentIdenticalCalls_OneCreatedRestRepeats(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"miniredis", "redis"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			opts := &setupOpts{modify: func(c *Config) { c.ReprocessRate = Rate{Count: 10, Per: time.Minute} }}
			if backend == "redis" {
				rdb, err := jobs.NewRedisClient(redistest.Start(t, nil).URL)
				require.NoError(t, err)
				t.Cleanup(func() { _ = rdb.Close() })
				opts.rdb = rdb
			}
			b := setup(t, opts)
			dead := b.submit(t, tokAcme, "inv-1", 1, "x")
			b.deadLetter(t, dead)

			const calls = 30
			statuses := make(chan int, calls)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range calls {
				wg.Go(func() {
					<-start
					req := newRequest(t, reprocessCall(dead, `{"reason":"vendor resent"}`))
					rec := httptest.NewRecorder()
					b.srv.Handler().ServeHTTP(rec, req)
					statuses <- rec.Code
				})
			}
			close(start)
			wg.Wait()
			close(statuses)
			count := map[int]int{}
			for s := range statuses {
				count[s]++
			}
			require.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusOK: calls - 1}, count)

			// The one creation took one token: nine are left of ten.
			for i := range 9 {
				id := b.submit(t, tokAcme, fmt.Sprintf("other-%d", i), 1, "x")
				b.deadLetter(t, id)
				require.Equal(t, http.StatusCreated, b.do(t, reprocessCall(id, `{"reason":"r"}`)).Status, "call %d", i)
			}
			last := b.submit(t, tokAcme, "last", 1, "x")
			b.deadLetter(t, last)
			b.do(t, reprocessCall(last, `{"reason":"r"}`)).requireError(t, http.StatusTooManyRequests, CodeRateLimited)
		})
	}
}

func TestDLQ_ListsDeadLetteredJobsWithReasonCodes(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	d1 := b.submit(t, tokAcme, "a", 1, "x")
	b.deadLetter(t, d1)
	d2 := b.submit(t, tokGlobex, "b", 1, "x")
	b.reject(t, d2, "missing_field:invoiceNumber")
	b.submit(t, tokAcme, "q", 1, "x")

	v := b.do(t, call{method: "GET", path: "/v1/dlq", token: tokAlice}).json(t)
	require.ElementsMatch(t, []string{d1, d2}, jobIDs(t, v))
	reasons := map[string]any{}
	for _, it := range v["items"].([]any) {
		item := it.(map[string]any)
		require.Equal(t, jobs.CodePermanent, item["errorCode"])
		reasons[item["jobId"].(string)] = item["errorReason"]
	}
	require.Equal(t, map[string]any{d1: nil, d2: "missing_field:invoiceNumber"}, reasons,
		"a rejected document's reason says what to correct; other failures have none")
	v = b.do(t, call{method: "GET", path: "/v1/dlq?tenant=acme", token: tokAlice}).json(t)
	require.Equal(t, []string{d1}, jobIDs(t, v))

	require.Equal(t, 201, b.do(t, reprocessCall(d1, `{"reason":"r"}`)).Status)
	v = b.do(t, call{method: "GET", path: "/v1/dlq", token: tokAlice}).json(t)
	require.Equal(t, []string{d2}, jobIDs(t, v), "reprocessed jobs leave the DLQ")
	v = b.do(t, call{method: "GET", path: "/v1/dlq?include=reprocessed", token: tokAlice}).json(t)
	require.ElementsMatch(t, []string{d1, d2}, jobIDs(t, v))

	b.do(t, call{method: "GET", path: "/v1/dlq?include=all", token: tokAlice}).requireError(t, 400, CodeInvalidRequest)
	b.do(t, call{method: "GET", path: "/v1/dlq", token: tokAcme}).requireError(t, 403, CodeForbidden)
	b.do(t, call{method: "GET", path: "/v1/dlq?limit=0", token: tokAlice}).requireError(t, 400, CodeInvalidRequest)
}

func TestAudit_FiltersAndPages(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	a := b.submit(t, tokAcme, "a", 1, "x")
	b.submit(t, tokAcme, "b", 1, "x")
	b.submit(t, tokGlobex, "a", 1, "x")

	all := b.do(t, call{method: "GET", path: "/v1/audit", token: tokAlice}).json(t)
	require.Len(t, all["items"], 3)
	for _, it := range all["items"].([]any) {
		require.Equal(t, "submitted", it.(map[string]any)["action"])
	}
	v := b.do(t, call{method: "GET", path: "/v1/audit?tenant=acme", token: tokAlice}).json(t)
	require.Len(t, v["items"], 2)
	v = b.do(t, call{method: "GET", path: "/v1/audit?jobId=" + a, token: tokAlice}).json(t)
	require.Equal(t, []string{a}, jobIDs(t, v))
	v = b.do(t, call{method: "GET", path: "/v1/audit?limit=2", token: tokAlice}).json(t)
	require.Len(t, v["items"], 2)
	next := v["nextCursor"].(string)
	v = b.do(t, call{method: "GET", path: "/v1/audit?limit=2&cursor=" + next, token: tokAlice}).json(t)
	require.Len(t, v["items"], 1)

	tests := []struct {
		path, code string
		status     int
	}{
		{"/v1/audit?jobId=acme:a", CodeInvalidRequest, 400},
		{"/v1/audit?operator=Alice!", CodeInvalidRequest, 400},
		{"/v1/audit?tenant=", CodeInvalidRequest, 400},
		{"/v1/audit?cursor=@@", CodeInvalidCursor, 400},
		{"/v1/audit?tenant=acme&tenant=globex", CodeInvalidRequest, 400},
	}
	for _, tt := range tests {
		b.do(t, call{method: "GET", path: tt.path, token: tokAlice}).requireError(t, tt.status, tt.code)
	}
	b.do(t, call{method: "GET", path: "/v1/audit", token: tokAcme}).requireError(t, 403, CodeForbidden)
}
