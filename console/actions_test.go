package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

func TestConsole_Reprocess_WithCorrectedContent_CreatesTheNextVersion_AsTheAPIDoes(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:inv-2:v1", "Subtotal 100.00\nTax 20.00\nTotal 130.00\n", "total_mismatch")
	path := "/console/jobs/" + k.String()
	p := b.get(t, path, alice)
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, "the total does not equal subtotal &#43; charges &#43; tax")
	require.Contains(t, p.body, ">\nSubtotal 100.00\nTax 20.00\nTotal 130.00\n</textarea>", "the form holds the document for correction")

	// A browser sends textarea line breaks as CRLF.
	form := url.Values{"csrf": {p.csrf(t)}, "reason": {"total typo <fixed>"}, "content": {"Subtotal 100.00\r\nTax 20.00\r\nTotal 120.00\r\n"}}
	res := b.post(t, path+"/reprocess", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, path+"?reprocessed=1", res.header.Get("Location"))

	ctx := context.Background()
	old, err := b.store.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "acme:inv-2:v2", old.ReprocessedAs)
	next := key(t, old.ReprocessedAs)
	in, err := b.store.Input(ctx, next)
	require.NoError(t, err)
	require.Equal(t, "Subtotal 100.00\nTax 20.00\nTotal 120.00\n", in, "the corrected document, with its own line breaks")
	nj, err := b.store.Get(ctx, next)
	require.NoError(t, err)
	require.Equal(t, jobs.StateQueued, nj.State)
	require.Equal(t, k.String(), nj.ReprocessedFrom)

	audit, err := b.store.ListAudit(ctx, jobs.AuditOptions{Action: jobs.AuditReprocessed})
	require.NoError(t, err)
	require.Len(t, audit.Entries, 1)
	e := audit.Entries[0]
	require.Equal(t, "alice", e.Operator)
	require.Equal(t, "total typo <fixed>", e.Reason)
	require.Equal(t, next.String(), e.NewJobKey)
	require.NotEqual(t, e.OldPayloadHash, e.NewPayloadHash)

	after := b.get(t, path+"?reprocessed=1", alice)
	require.Contains(t, after.body, `href="/console/jobs/acme:inv-2:v2" id="reprocessed-as"`, "links to the new version")
	require.NotContains(t, after.body, `id="reprocess"`, "no second form")

	// Sending the form again is the API's repeat: the same new job.
	require.Equal(t, http.StatusSeeOther, b.post(t, path+"/reprocess", form, alice).status)
	audit, err = b.store.ListAudit(ctx, jobs.AuditOptions{Action: jobs.AuditReprocessed})
	require.NoError(t, err)
	require.Len(t, audit.Entries, 1)
	// A different document for the same dead letter is the API's conflict.
	form.Set("content", "Total 999")
	conflict := b.post(t, path+"/reprocess", form, alice)
	require.Equal(t, http.StatusConflict, conflict.status)
	require.Contains(t, conflict.body, "already reprocessed with a different document")
}

func TestConsole_Reprocess_UnchangedContent_ReusesTheStoredDocument(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:inv-2:v1", "Line one\nLine two", "ambiguous_date")
	path := "/console/jobs/" + k.String()
	form := url.Values{"csrf": {b.get(t, path, alice).csrf(t)}, "reason": {"extractor fixed"}, "content": {"Line one\r\nLine two"}}
	require.Equal(t, http.StatusSeeOther, b.post(t, path+"/reprocess", form, alice).status)
	audit, err := b.store.ListAudit(context.Background(), jobs.AuditOptions{Action: jobs.AuditReprocessed})
	require.NoError(t, err)
	require.Equal(t, audit.Entries[0].OldPayloadHash, audit.Entries[0].NewPayloadHash, "the same input again")
}

func TestConsole_Reprocess_OverTheRateLimit_ShowsAMessage_AndCreatesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *api.Config) { c.ReprocessRate = api.Rate{Count: 1, Per: time.Hour} })
	first := b.rejected(t, "acme:inv-1:v1", "doc one", "total_mismatch")
	second := b.rejected(t, "acme:inv-2:v1", "doc two", "total_mismatch")
	send := func(k jobs.Key, content string) *page {
		path := "/console/jobs/" + k.String()
		return b.post(t, path+"/reprocess", url.Values{"csrf": {b.get(t, path, alice).csrf(t)},
			"reason": {"retry please"}, "content": {content}}, alice)
	}
	require.Equal(t, http.StatusSeeOther, send(first, "doc one fixed").status)
	p := send(second, "doc two fixed")
	require.Equal(t, http.StatusTooManyRequests, p.status)
	require.NotEmpty(t, p.header.Get("Retry-After"))
	require.Contains(t, p.body, "reprocess rate limit of tenant acme is reached")
	require.Contains(t, p.body, `value="retry please"`, "the form keeps what was sent")
	require.Contains(t, p.body, "doc two fixed</textarea>")
	_, err := b.store.Get(context.Background(), key(t, "acme:inv-2:v2"))
	require.ErrorIs(t, err, jobs.ErrNotFound)
}

func TestConsole_Reprocess_ExpiredInputWithoutContent_AsksForTheDocument(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:inv-1:v1", "doc", "total_mismatch")
	path := "/console/jobs/" + k.String()
	token := b.get(t, path, alice).csrf(t)
	require.NoError(t, b.rdb.Del(context.Background(), inputKeyOf(t, b, k)).Err())
	p := b.get(t, path, alice)
	require.Contains(t, p.body, "the stored document has expired")
	res := b.post(t, path+"/reprocess", url.Values{"csrf": {token}, "reason": {"retry"}, "content": {""}}, alice)
	require.Equal(t, http.StatusConflict, res.status)
	require.Contains(t, res.body, "paste the document")
}

// inputKeyOf finds the Redis key of k's stored input.
func inputKeyOf(t *testing.T, b *bundle, k jobs.Key) string {
	t.Helper()
	keys, err := b.rdb.Keys(context.Background(), "*input:"+k.String()).Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	return keys[0]
}

var rowRe = regexp.MustCompile(`<a href="/console/reviews/([^"]+)">`)

func reviewIDs(p *page) []string {
	var out []string
	for _, m := range rowRe.FindAllStringSubmatch(p.body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestConsole_Reviews_PendingOldestFirst_AcrossTenants_FilteredAndPaged(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var want []string
	for i := range console.PageSize + 3 {
		tenant := []string{"acme", "globex"}[i%2]
		want = append(want, b.pendingReview(t, fmt.Sprintf("%s:inv-%02d:v1", tenant, i), "doc").String())
		b.clock.Advance(time.Second)
	}
	decided := key(t, want[0])
	_, err := b.store.Decide(context.Background(), decided, "bob", jobs.ReviewApproved, "")
	require.NoError(t, err)
	want = want[1:]

	first := b.get(t, "/console/reviews", alice)
	require.Equal(t, http.StatusOK, first.status)
	require.Equal(t, want[:console.PageSize], reviewIDs(first), "pending, oldest first, every tenant")
	require.Contains(t, first.body, `title="pending reviews">52</span>`, "the header counts the pending reviews")
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(first.body)
	require.NotNil(t, next)
	second := b.get(t, strings.ReplaceAll(next[1], "&amp;", "&"), alice)
	require.Equal(t, want[console.PageSize:], reviewIDs(second))
	require.NotContains(t, second.body, `rel="next"`)

	globex := reviewIDs(b.get(t, "/console/reviews?tenant=globex", alice))
	require.NotEmpty(t, globex)
	for _, id := range globex {
		require.True(t, strings.HasPrefix(id, "globex:"), id)
	}
	approved := b.get(t, "/console/reviews?status=approved", alice)
	require.Equal(t, []string{decided.String()}, reviewIDs(approved))
	require.Contains(t, approved.body, `<span class="operator">bob</span>`)
}

func TestConsole_DeadLetters_ListReasonsInWords_AndLinkTheJobs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.rejected(t, "acme:inv-1:v1", "doc", "missing_field:total")
	k := b.submit(t, "globex:inv-2:v1", "doc")
	require.NoError(t, b.store.DeadLetter(context.Background(), k, b.claim(t, k).Fence, jobs.CodeCrashLoop))
	p := b.get(t, "/console/dlq", alice)
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, "the total was not found in the document")
	require.Contains(t, p.body, "workers kept crashing while processing this job")
	require.Contains(t, p.body, `href="/console/jobs/acme:inv-1:v1"`)
	require.Contains(t, p.body, "1 of 3")
	require.Contains(t, p.body, `title="dead letters not yet reprocessed">2</span>`)
	only := b.get(t, "/console/dlq?tenant=globex", alice)
	require.NotContains(t, only.body, "acme:inv-1:v1")
	require.Contains(t, only.body, "globex:inv-2:v1")
}

func TestConsole_Audit_FiltersAndLinksTheJobs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rv := b.pendingReview(t, "acme:inv-1:v1", "doc")
	_, err := b.store.Decide(context.Background(), rv, "alice", jobs.ReviewRejected, "wrong vendor")
	require.NoError(t, err)
	b.submit(t, "globex:inv-9:v1", "doc")
	p := b.get(t, "/console/audit?action=review_decided&operator=alice", alice)
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, `<a href="/console/jobs/acme:inv-1:v1">acme:inv-1:v1</a>`)
	require.NotContains(t, p.body, "globex:inv-9:v1")
	all := b.get(t, "/console/audit?tenant=globex", alice)
	require.Contains(t, all.body, "globex:inv-9:v1")
	require.NotContains(t, all.body, "acme:inv-1:v1")
	byJob := b.get(t, "/console/audit?jobId=acme:inv-1:v1", alice)
	require.Equal(t, 2, strings.Count(byJob.body, `<a href="/console/jobs/acme:inv-1:v1">`), "submitted and decided")
}

func TestDescribe_EveryReasonAndErrorCode_HasASentence(t *testing.T) {
	t.Parallel()
	codes := append(extract.Reasons(), worker.ReasonOther,
		jobs.CodeDeadlineExceeded, jobs.CodeCrashLoop, jobs.CodeMaxAttemptsExceeded, jobs.CodePermanent,
		jobs.CodeInternal, jobs.CodeTransient,
		worker.CodeAttemptTimeout, worker.CodeUnavailable, worker.CodeInvalidTask, worker.CodeInputExpired,
		worker.CodeIdempotencyConflict, worker.CodeModelSetup,
		extract.CodeModelUnauthorized, extract.CodeModelNotFound, extract.CodeModelRateLimited,
		extract.CodeModelUnavailable, extract.CodeModelTimeout, extract.CodeModelUnreachable, extract.CodeModelBadRequest)
	seen := map[string]string{}
	for _, c := range codes {
		s, ok := console.Describe(c)
		require.True(t, ok, "code %q has no sentence", c)
		require.NotContains(t, s, "%s", c)
		if other, dup := seen[s]; dup {
			t.Errorf("codes %q and %q read the same: %q", other, c, s)
		}
		seen[s] = c
	}
	s, ok := console.Describe("no_such_code")
	require.False(t, ok)
	require.Equal(t, "unrecognised code", s)
	require.Equal(t, "the total does not equal subtotal + charges + tax", must(console.Describe(extract.ReasonTotalMismatch)))
}

func must(s string, _ bool) string { return s }

func TestConsole_AuditAndDeadLetters_PageWithCursors_KeepingTheFilters(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for i := range console.PageSize + 5 {
		b.rejected(t, fmt.Sprintf("acme:inv-%02d:v1", i), "doc", "not_an_invoice")
		b.submit(t, fmt.Sprintf("globex:inv-%02d:v1", i), "doc")
	}
	nextRe := regexp.MustCompile(`href="([^"]+)" rel="next"`)
	for _, c := range []struct{ path, row string }{
		{"/console/audit?tenant=acme&action=submitted", `<td><span class="action">submitted</span></td>`},
		{"/console/dlq?tenant=acme", `<td>acme</td>`},
	} {
		first := b.get(t, c.path, alice)
		require.Equal(t, http.StatusOK, first.status)
		require.Equal(t, console.PageSize, strings.Count(first.body, c.row), c.path)
		next := nextRe.FindStringSubmatch(first.body)
		require.NotNil(t, next, c.path)
		link := strings.ReplaceAll(next[1], "&amp;", "&")
		require.Contains(t, link, "tenant=acme", "the filters stay")
		second := b.get(t, link, alice)
		require.Equal(t, http.StatusOK, second.status)
		require.Equal(t, 5, strings.Count(second.body, c.row), c.path)
		require.NotContains(t, second.body, "globex")
		require.NotContains(t, second.body, `rel="next"`)
	}
}

func TestConsole_HeaderCounts_StopAtTheirBound(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for i := range 100 {
		b.pendingReview(t, fmt.Sprintf("acme:inv-%03d:v1", i), "doc")
	}
	b.rejected(t, "globex:bad-1:v1", "doc", "not_an_invoice")
	p := b.get(t, "/console/audit", alice)
	require.Contains(t, p.body, `title="pending reviews">99+</span>`)
	require.Contains(t, p.body, `title="dead letters not yet reprocessed">1</span>`)
}
