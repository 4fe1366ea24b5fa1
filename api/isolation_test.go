package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTenantIsolation_EveryTenantRoute: globex's token on acme's resources
// answers exactly like a missing resource, and no list shows another
// tenant's items.
func TestTenantIsolation_EveryTenantRoute(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	succeeded := b.submit(t, tokAcme, "inv-1", 1, "acme's document")
	b.succeed(t, succeeded, `{"secret":"acme"}`)
	dead := b.submit(t, tokAcme, "inv-2", 1, "x")
	b.deadLetter(t, dead)
	mine := b.submit(t, tokGlobex, "inv-1", 1, "globex's document")
	b.succeed(t, mine, `{}`)

	t.Run("resources answer 404 like missing ones", func(t *testing.T) {
		for _, id := range []string{succeeded, dead} {
			for _, path := range []string{"/v1/jobs/" + id, "/v1/reviews/" + id} {
				foreign := b.do(t, call{method: "GET", path: path, token: tokGlobex})
				missing := b.do(t, call{method: "GET", path: strings.Replace(path, "acme:", "globex:", 1) + "0", token: tokGlobex})
				fe := foreign.requireError(t, http.StatusNotFound, CodeNotFound)
				me := missing.requireError(t, http.StatusNotFound, CodeNotFound)
				require.Equal(t, me["message"], fe["message"])
				require.NotContains(t, string(foreign.Body), "acme")
			}
		}
	})
	t.Run("the owner sees them", func(t *testing.T) {
		require.Equal(t, 200, b.do(t, call{method: "GET", path: "/v1/jobs/" + succeeded, token: tokAcme}).Status)
		require.Equal(t, 200, b.do(t, call{method: "GET", path: "/v1/reviews/" + succeeded, token: tokAcme}).Status)
	})
	t.Run("lists hold only the caller's items", func(t *testing.T) {
		for _, path := range []string{
			"/v1/jobs", "/v1/jobs?state=succeeded", "/v1/jobs?state=dead_lettered",
			"/v1/jobs?documentId=inv-1", "/v1/jobs?documentId=inv-2",
			"/v1/reviews", "/v1/reviews?status=pending",
		} {
			r := b.do(t, call{method: "GET", path: path, token: tokGlobex})
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
			for _, id := range jobIDs(t, r.json(t)) {
				require.True(t, strings.HasPrefix(id, "globex:"), "%s listed %s", path, id)
			}
			require.NotContains(t, string(r.Body), "acme")
		}
	})
	t.Run("naming another tenant is forbidden", func(t *testing.T) {
		for _, path := range []string{"/v1/jobs?tenant=acme", "/v1/reviews?tenant=acme"} {
			b.do(t, call{method: "GET", path: path, token: tokGlobex}).requireError(t, http.StatusForbidden, CodeForbidden)
		}
	})
	t.Run("operator routes are closed to tenants", func(t *testing.T) {
		for _, c := range []call{
			{method: "POST", path: "/v1/jobs/" + dead + "/reprocess", body: `{"reason":"r"}`},
			{method: "POST", path: "/v1/reviews/" + succeeded + "/decision", body: `{"decision":"reject"}`},
			{method: "GET", path: "/v1/dlq"},
			{method: "GET", path: "/v1/audit"},
		} {
			c.token = tokGlobex
			b.do(t, c).requireError(t, http.StatusForbidden, CodeForbidden)
		}
		require.Equal(t, "pending", b.do(t, call{method: "GET", path: "/v1/reviews/" + succeeded, token: tokAcme}).json(t)["status"])
	})
	t.Run("a cursor from another tenant shows nothing of it", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/jobs?limit=1", token: tokAcme}).json(t)
		cursor := v["nextCursor"].(string)
		r := b.do(t, call{method: "GET", path: "/v1/jobs?cursor=" + cursor, token: tokGlobex})
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		require.NotContains(t, string(r.Body), "acme")
	})
}
