package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func jobIDs(t testing.TB, v map[string]any) []string {
	t.Helper()
	require.Contains(t, v, "items", "not a list: %v", v)
	var ids []string
	for _, it := range v["items"].([]any) {
		ids = append(ids, it.(map[string]any)["jobId"].(string))
	}
	return ids
}

func TestReviews_ListGetDecide(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	a1 := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.succeed(t, a1, `{}`)
	a2 := b.submit(t, tokAcme, "inv-2", 1, "x")
	b.succeed(t, a2, `{}`)
	g1 := b.submit(t, tokGlobex, "inv-1", 1, "x")
	b.succeed(t, g1, `{}`)

	t.Run("tenant lists its own", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/reviews", token: tokAcme}).json(t)
		require.ElementsMatch(t, []string{a1, a2}, jobIDs(t, v))
		item := v["items"].([]any)[0].(map[string]any)
		require.Equal(t, "pending", item["status"])
		require.NotEmpty(t, item["eventId"])
	})
	t.Run("operator names the tenant", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/reviews?tenant=globex", token: tokAlice}).json(t)
		require.Equal(t, []string{g1}, jobIDs(t, v))
		v = b.do(t, call{method: "GET", path: "/v1/reviews?tenant=acme", token: tokAlice}).json(t)
		require.ElementsMatch(t, []string{a1, a2}, jobIDs(t, v))
		e := b.do(t, call{method: "GET", path: "/v1/reviews", token: tokAlice}).requireError(t, 400, CodeInvalidRequest)
		require.Equal(t, []string{"tenant"}, fieldNames(e))
	})
	t.Run("get one", func(t *testing.T) {
		r := b.do(t, call{method: "GET", path: "/v1/reviews/" + a1, token: tokAcme})
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		require.Equal(t, "/v1/jobs/"+a1, r.json(t)["links"].(map[string]any)["job"])
	})
	t.Run("tenant cannot decide", func(t *testing.T) {
		b.do(t, call{method: "POST", path: "/v1/reviews/" + a1 + "/decision", token: tokAcme,
			body: `{"decision":"approve"}`}).requireError(t, http.StatusForbidden, CodeForbidden)
	})

	decide := func(decision, note string) *resp {
		body := `{"decision":"` + decision + `"`
		if note != "" {
			body += `,"note":"` + note + `"`
		}
		return b.do(t, call{method: "POST", path: "/v1/reviews/" + a1 + "/decision", token: tokAlice, body: body + "}"})
	}
	t.Run("approve", func(t *testing.T) {
		r := decide("approve", "looks right")
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		v := r.json(t)
		require.Equal(t, "approved", v["status"])
		require.Equal(t, "alice", v["operator"])
		require.Equal(t, "looks right", v["note"])
		require.Equal(t, t0.Format(timeFormat), v["decidedAt"])
	})
	t.Run("same decision again is idempotent", func(t *testing.T) {
		r := decide("approve", "looks right")
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		require.Equal(t, "approved", r.json(t)["status"])
	})
	t.Run("other decision conflicts", func(t *testing.T) {
		decide("reject", "").requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	})
	t.Run("status filter", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/reviews?status=approved", token: tokAcme}).json(t)
		require.Equal(t, []string{a1}, jobIDs(t, v))
		v = b.do(t, call{method: "GET", path: "/v1/reviews?status=pending", token: tokAcme}).json(t)
		require.Equal(t, []string{a2}, jobIDs(t, v))
	})
	t.Run("audit records the decision", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/audit?jobId=" + a1, token: tokAlice}).json(t)
		var actions []string
		for _, it := range v["items"].([]any) {
			e := it.(map[string]any)
			actions = append(actions, e["action"].(string))
			if e["action"] == "review_decided" {
				require.Equal(t, "alice", e["operator"])
				require.Equal(t, "approved", e["decision"], "the decision has its own field")
				require.NotContains(t, e, "reason", "a decision is not a reason")
			}
		}
		require.Contains(t, actions, "review_decided")
	})
}

func TestReviews_Errors(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	queued := b.submit(t, tokAcme, "inv-1", 1, "x")
	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"no review yet", call{method: "GET", path: "/v1/reviews/" + queued, token: tokAcme}, 404, CodeNotFound},
		{"decide without review", call{method: "POST", path: "/v1/reviews/" + queued + "/decision", token: tokAlice, body: `{"decision":"approve"}`}, 404, CodeNotFound},
		{"decide malformed id", call{method: "POST", path: "/v1/reviews/x/decision", token: tokAlice, body: `{"decision":"approve"}`}, 404, CodeNotFound},
		{"unknown decision", call{method: "POST", path: "/v1/reviews/" + queued + "/decision", token: tokAlice, body: `{"decision":"approved"}`}, 400, CodeInvalidRequest},
		{"missing decision", call{method: "POST", path: "/v1/reviews/" + queued + "/decision", token: tokAlice, body: `{"note":"x"}`}, 400, CodeInvalidRequest},
		{"note with control", call{method: "POST", path: "/v1/reviews/" + queued + "/decision", token: tokAlice, body: `{"decision":"approve","note":"a\u0007"}`}, 400, CodeInvalidRequest},
		{"decision not JSON", call{method: "POST", path: "/v1/reviews/" + queued + "/decision", token: tokAlice, body: `approve`, ctype: "text/plain"}, 415, CodeUnsupportedMediaType},
		{"bad status filter", call{method: "GET", path: "/v1/reviews?status=done", token: tokAcme}, 400, CodeInvalidRequest},
		{"bad tenant filter", call{method: "GET", path: "/v1/reviews?tenant=A", token: tokAlice}, 400, CodeInvalidRequest},
		{"bad cursor", call{method: "GET", path: "/v1/reviews?cursor=zz", token: tokAcme}, 400, CodeInvalidCursor},
		{"tenant names another", call{method: "GET", path: "/v1/reviews?tenant=globex", token: tokAcme}, 403, CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.do(t, tt.c).requireError(t, tt.status, tt.code)
		})
	}
}

// A tenant learns that its document was decided, how and when, and that an
// operator decided it, never which person nor the operator's note, which
// is an internal remark. Operators see both.
func TestReviews_TenantSeesTheDecisionNotTheOperator(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.succeed(t, id, `{}`)
	pending := b.do(t, call{method: "GET", path: "/v1/reviews/" + id, token: tokAcme}).json(t)
	require.NotContains(t, pending, "decidedBy", "nobody decided yet")

	b.clock.Advance(time.Minute)
	r := b.do(t, call{method: "POST", path: "/v1/reviews/" + id + "/decision", token: tokAlice,
		body: `{"decision":"reject","note":"vendor on the watch list"}`})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)

	for _, tenantView := range []map[string]any{
		b.do(t, call{method: "GET", path: "/v1/reviews/" + id, token: tokAcme}).json(t),
		b.do(t, call{method: "GET", path: "/v1/reviews", token: tokAcme}).json(t)["items"].([]any)[0].(map[string]any),
	} {
		require.Equal(t, "rejected", tenantView["status"])
		require.Equal(t, "operator", tenantView["decidedBy"])
		require.Equal(t, t0.Add(time.Minute).Format(timeFormat), tenantView["decidedAt"])
		require.NotContains(t, tenantView, "operator")
		require.NotContains(t, tenantView, "note")
	}
	for _, opView := range []map[string]any{
		r.json(t),
		b.do(t, call{method: "GET", path: "/v1/reviews/" + id, token: tokAlice}).json(t),
		b.do(t, call{method: "GET", path: "/v1/reviews?tenant=acme", token: tokAlice}).json(t)["items"].([]any)[0].(map[string]any),
	} {
		require.Equal(t, "operator", opView["decidedBy"])
		require.Equal(t, "alice", opView["operator"])
		require.Equal(t, "vendor on the watch list", opView["note"])
	}
}
