package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/jobs"
)

func requireSecurityHeaders(t *testing.T, path string, p *page) {
	t.Helper()
	require.Equal(t, console.Policy, p.header.Get("Content-Security-Policy"), path)
	require.Contains(t, p.header.Get("Content-Security-Policy"), "default-src 'none'", path)
	require.NotContains(t, p.header.Get("Content-Security-Policy"), "unsafe-inline", path)
	require.Equal(t, "DENY", p.header.Get("X-Frame-Options"), path)
	require.Equal(t, "nosniff", p.header.Get("X-Content-Type-Options"), path)
	require.NotEmpty(t, p.header.Get("Referrer-Policy"), path)
}

func TestConsole_EveryPage_SendsTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rv := b.pendingReview(t, "acme:inv-1:v1", "Invoice INV-7")
	dead := b.rejected(t, "acme:inv-2:v1", "not an invoice", "not_an_invoice")
	for _, c := range []struct {
		path   string
		a      auth
		status int
	}{
		{"/console/reviews", alice, http.StatusOK},
		{"/console/reviews?status=all&tenant=acme", alice, http.StatusOK},
		{"/console/reviews/" + rv.String(), alice, http.StatusOK},
		{"/console/dlq", alice, http.StatusOK},
		{"/console/jobs/" + dead.String(), alice, http.StatusOK},
		{"/console/jobs/" + rv.String(), alice, http.StatusOK},
		{"/console/audit", alice, http.StatusOK},
		{"/console/static/console.css", alice, http.StatusOK},
		{"/console/", alice, http.StatusSeeOther},
		{"/console/no-such-page", alice, http.StatusNotFound},
		{"/console/reviews?status=bogus", alice, http.StatusBadRequest},
		{"/console/reviews", auth{}, http.StatusUnauthorized},
		{"/console/reviews", auth{token: tokAcme}, http.StatusForbidden},
	} {
		p := b.get(t, c.path, c.a)
		require.Equal(t, c.status, p.status, "%s: %s", c.path, p.body)
		requireSecurityHeaders(t, c.path, p)
	}
}

func TestConsole_Authentication_LikeTheDashboard(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p := b.get(t, "/console/reviews", auth{})
	require.Equal(t, http.StatusUnauthorized, p.status)
	require.Equal(t, `Basic realm="relayops", charset="UTF-8"`, p.header.Get("WWW-Authenticate"), "a browser prompts")

	require.Equal(t, http.StatusOK, b.get(t, "/console/reviews", alice).status, "Basic: operator name and token")
	require.Equal(t, http.StatusOK, b.get(t, "/console/reviews", auth{token: tokAlice}).status, "bearer operator token")
	require.Equal(t, http.StatusUnauthorized, b.get(t, "/console/reviews", auth{"bob", tokAlice}).status, "another operator's name")
	require.Equal(t, http.StatusUnauthorized, b.get(t, "/console/reviews", auth{"alice", "wrong-token-0123456789"}).status)

	for _, a := range []auth{{token: tokAcme}, {"acme", tokAcme}} {
		p := b.get(t, "/console/reviews", a)
		require.Equal(t, http.StatusForbidden, p.status, "a tenant token")
		require.Contains(t, p.body, "for operators")
	}
}

func TestConsole_AuthFailures_AreThrottledPerAddress(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *api.Config) { c.AuthFailures = api.Rate{Count: 2, Per: time.Minute} })
	for range 2 {
		require.Equal(t, http.StatusUnauthorized, b.get(t, "/console/reviews", auth{"alice", "wrong-token-0123456789"}).status)
	}
	p := b.get(t, "/console/reviews", auth{"alice", "wrong-token-0123456789"})
	require.Equal(t, http.StatusTooManyRequests, p.status)
	require.NotEmpty(t, p.header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, b.get(t, "/console/reviews", alice).status, "the right credentials still work")
}

func TestConsole_Decide_WithoutOrWithAWrongCSRFToken_IsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.pendingReview(t, "acme:inv-1:v1", "Invoice INV-7")
	path := "/console/reviews/" + k.String()
	token := b.get(t, path, alice).csrf(t)
	bobs := b.get(t, path, bob).csrf(t)
	before := b.snapshot(t)
	for name, form := range map[string]url.Values{
		"without a token":               {"decision": {"approve"}},
		"with a wrong token":            {"decision": {"approve"}, "csrf": {token + "x"}},
		"with a made-up token":          {"decision": {"approve"}, "csrf": {"1.AAAA"}},
		"with another operator's token": {"decision": {"approve"}, "csrf": {bobs}},
	} {
		p := b.post(t, path+"/decision", form, alice)
		require.Equal(t, http.StatusForbidden, p.status, name)
		require.Contains(t, p.body, "nothing was changed", name)
		requireSecurityHeaders(t, name, p)
	}
	// A token from the page, sent from another site.
	req := formRequest(path+"/decision", url.Values{"decision": {"approve"}, "csrf": {token}})
	req.Header.Set("Origin", "https://evil.example")
	require.Equal(t, http.StatusForbidden, b.send(t, req, alice).status, "another origin")
	// An expired token: two windows later.
	b.clock.Advance(5 * time.Hour)
	require.Equal(t, http.StatusForbidden, b.post(t, path+"/decision", url.Values{"decision": {"approve"}, "csrf": {token}}, alice).status, "expired")
	require.Equal(t, before, b.snapshot(t), "nothing changed in Redis")
	// GET never decides.
	require.Equal(t, http.StatusMethodNotAllowed, b.get(t, path+"/decision?decision=approve", alice).status)

	fresh := b.get(t, path, alice).csrf(t)
	p := b.post(t, path+"/decision", url.Values{"decision": {"approve"}, "csrf": {fresh}, "note": {"totals match"}}, alice)
	require.Equal(t, http.StatusSeeOther, p.status, p.body)
	rv, err := b.store.GetReview(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewApproved, rv.Status)
	require.Equal(t, "alice", rv.Operator)
	require.Equal(t, "totals match", rv.Note)
}

func formRequest(path string, form url.Values) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, "http://example.com"+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = "192.0.2.1:1234"
	return req
}

func TestConsole_Reprocess_WithoutOrWithAWrongCSRFToken_IsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:inv-2:v1", "Invoice total 10", "total_mismatch")
	path := "/console/jobs/" + k.String()
	token := b.get(t, path, alice).csrf(t)
	before := b.snapshot(t)
	for _, form := range []url.Values{
		{"reason": {"fixed"}, "content": {"Invoice total 12"}},
		{"reason": {"fixed"}, "content": {"Invoice total 12"}, "csrf": {token[:len(token)-2]}},
	} {
		require.Equal(t, http.StatusForbidden, b.post(t, path+"/reprocess", form, alice).status)
	}
	require.Equal(t, before, b.snapshot(t))
}

func TestConsole_Document_WithMarkup_RendersAsText(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	doc := "Invoice <script>alert('x')</script> <img src=x onerror=alert(1)> total 120.00"
	k := b.pendingReview(t, "acme:inv-1:v1", doc)
	path := "/console/reviews/" + k.String()
	token := b.get(t, path, alice).csrf(t)
	require.Equal(t, http.StatusSeeOther, b.post(t, path+"/decision",
		url.Values{"decision": {"reject"}, "csrf": {token}, "note": {"</blockquote><script>alert(2)</script>"}}, alice).status)
	dead := b.rejected(t, "acme:inv-2:v1", doc, "total_mismatch")

	for _, p := range []string{path, "/console/jobs/" + dead.String(), "/console/jobs/" + k.String()} {
		page := b.get(t, p, alice)
		require.Equal(t, http.StatusOK, page.status)
		require.NotContains(t, page.body, "<script", p)
		require.NotContains(t, page.body, "<img", p)
		require.Contains(t, page.body, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", p)
	}
	require.Contains(t, b.get(t, path, alice).body, "&lt;/blockquote&gt;&lt;script&gt;alert(2)", "the note too")
}

func TestConsole_BadInput_AnswersFourXX_NamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rv := b.pendingReview(t, "acme:inv-1:v1", "Invoice")
	dead := b.rejected(t, "acme:inv-2:v1", "Invoice", "total_mismatch")
	for _, c := range []struct {
		path, field string
		status      int
	}{
		{"/console/reviews?status=bogus", "status", 400},
		{"/console/reviews?tenant=Not%20A%20Tenant", "tenant", 400},
		{"/console/reviews?cursor=%21%21%21", "cursor", 400},
		{"/console/reviews?cursor=" + strings.Repeat("a", 600), "cursor", 400},
		{"/console/dlq?include=everything", "include", 400},
		{"/console/dlq?tenant=ACME", "tenant", 400},
		{"/console/audit?jobId=acme:x", "jobId", 400},
		{"/console/audit?action=deleted", "action", 400},
		{"/console/audit?operator=Alice!", "operator", 400},
		{"/console/jobs/not-a-job", "jobId", 404},
		{"/console/reviews/acme:nothing:v1", "", 404},
		{"/console/jobs/acme:nothing:v1", "", 404},
	} {
		p := b.get(t, c.path, alice)
		require.Equal(t, c.status, p.status, "%s: %s", c.path, p.body)
		if c.field != "" {
			require.Contains(t, p.body, "<code>"+c.field+"</code>", c.path)
		}
	}

	rvPath := "/console/reviews/" + rv.String()
	token := b.get(t, rvPath, alice).csrf(t)
	before := b.snapshot(t)
	for _, c := range []struct {
		path  string
		form  url.Values
		field string
	}{
		{rvPath + "/decision", url.Values{"decision": {"maybe"}}, "decision"},
		{rvPath + "/decision", url.Values{"decision": {"approve"}, "note": {"bell \a"}}, "note"},
		{rvPath + "/decision", url.Values{"decision": {"approve"}, "note": {strings.Repeat("n", api.MaxNoteLength+1)}}, "note"},
		{"/console/jobs/" + dead.String() + "/reprocess", url.Values{"reason": {"  "}}, "reason"},
		{"/console/jobs/" + dead.String() + "/reprocess", url.Values{"reason": {strings.Repeat("r", api.MaxReasonLength+1)}}, "reason"},
	} {
		c.form.Set("csrf", token)
		p := b.post(t, c.path, c.form, alice)
		require.Equal(t, http.StatusBadRequest, p.status, "%s %v: %s", c.path, c.form, p.body)
		require.Contains(t, p.body, "<code>"+c.field+"</code>")
	}
	require.Equal(t, before, b.snapshot(t), "refused input changes nothing")
}

func TestConsole_Review_ShowsExtractedFieldsBesideTheDocument(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.pendingReview(t, "acme:inv-1:v1", "ACME SUPPLIES\nInvoice INV-7\nTotal EUR 120.00")
	p := b.get(t, "/console/reviews/"+k.String(), alice)
	require.Equal(t, http.StatusOK, p.status)
	for _, want := range []string{"Acme Supplies", "INV-7", "2026-03-04", "EUR", "Widgets", "50.00", "100.00", "20.00",
		`id="f-total">120.00 EUR`, "ACME SUPPLIES\nInvoice INV-7\nTotal EUR 120.00", `value="approve"`, `value="reject"`} {
		require.Contains(t, p.body, want)
	}
}

func TestConsole_DecidingTwice_IsRefused_ShowingTheExistingDecision(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.pendingReview(t, "acme:inv-1:v1", "Invoice")
	path := "/console/reviews/" + k.String()
	form := url.Values{"decision": {"approve"}, "note": {"fine"}, "csrf": {b.get(t, path, alice).csrf(t)}}
	bobs := b.get(t, path, bob).csrf(t) // bob opened the review too
	require.Equal(t, http.StatusSeeOther, b.post(t, path+"/decision", form, alice).status)
	decided := b.get(t, path, alice)
	require.Contains(t, decided.body, `id="decided"`)
	require.Regexp(t, `approved</span>\s*by <strong>alice</strong>`, decided.body)
	require.Contains(t, decided.body, "fine")
	require.NotContains(t, decided.body, `value="approve"`, "no form once decided")

	p := b.post(t, path+"/decision", url.Values{"decision": {"reject"}, "csrf": {bobs}}, bob)
	require.Equal(t, http.StatusConflict, p.status)
	require.Contains(t, p.body, "already decided")
	require.Regexp(t, `approved</span>\s*by <strong>alice</strong>`, p.body)
	rv, err := b.store.GetReview(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewApproved, rv.Status)
	require.Equal(t, "alice", rv.Operator)

	// The same decision again is the API's idempotent repeat.
	require.Equal(t, http.StatusSeeOther, b.post(t, path+"/decision", form, alice).status)
	audit, err := b.store.ListAudit(context.Background(), jobs.AuditOptions{Action: jobs.AuditReviewDecided})
	require.NoError(t, err)
	require.Len(t, audit.Entries, 1, "one decision, one audit entry")
}

func TestConsole_StoreUnreachable_AnswersServiceUnavailable_NotAnInternalError(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *api.Config) { c.StoreTimeout = 500 * time.Millisecond })
	k := b.pendingReview(t, "acme:inv-1:v1", "Invoice")
	b.mini.Close()
	for _, path := range []string{"/console/reviews", "/console/reviews/" + k.String(), "/console/dlq", "/console/audit", "/console/jobs/" + k.String()} {
		p := b.get(t, path, alice)
		require.Equal(t, http.StatusServiceUnavailable, p.status, path)
		require.Contains(t, p.body, "The job store is unavailable")
		requireSecurityHeaders(t, path, p)
	}
}
