package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// reviewMatched commits inv as a new job's result and creates its review
// with what the duplicate check found, as the review consumer does.
func (b *bundle) reviewMatched(t *testing.T, id string, inv *extract.Invoice, m *jobs.Match) jobs.Key {
	t.Helper()
	ctx := context.Background()
	res, err := json.Marshal(inv)
	require.NoError(t, err)
	k := b.submit(t, id, "a document")
	c := b.claim(t, k)
	cr, err := b.store.Commit(ctx, k, c.Fence, c.PayloadHash, res)
	require.NoError(t, err)
	shard := jobs.Shard(k.Tenant, k.DocumentID, b.store.Shards())
	_, err = b.store.ApplyCommittedBatch(ctx, shard,
		[]jobs.Event{{Key: k, EventID: cr.EventID, Type: jobs.EventExtractionCommitted, Match: m}}, nil)
	require.NoError(t, err)
	return k
}

var sameInvoice = extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "INV-7", Vendor: "Acme Supplies",
	IssueDate: "2026-03-04", Currency: "EUR", Tax: "20.00", Total: "120.00", Source: extract.Source{Extractor: "rules"}}

// The same invoice under another document ID: the review shows the first
// job and what matched, the list marks it, and an approval is refused
// until the operator confirms, naming the first job, that it is not a
// duplicate.
func TestConsole_StrongDuplicate_ShowsTheFirstJob_AndIsApprovedOnlyNamingIt(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	first := b.reviewOf(t, "acme:mail-4411:v1", judged(t, sameInvoice))
	second := b.reviewMatched(t, "acme:scan-0093:v1", judged(t, sameInvoice),
		&jobs.Match{Strength: jobs.DuplicateStrong, Of: first, Matched: []string{"number", "total", "date"}})
	path := "/console/reviews/" + second.String()
	p := b.get(t, path, alice)
	dup := block(t, p.body, "duplicate")
	require.Contains(t, dup, `href="/console/reviews/acme:mail-4411:v1" id="duplicate-of"`)
	require.Contains(t, dup, "the same number, total and date")
	require.Contains(t, block(t, p.body, "not-duplicate"), `name="notDuplicateOf" value="acme:mail-4411:v1"`)
	list := block(t, b.get(t, "/console/reviews", alice).body, "reviews")
	require.Regexp(t, `scan-0093</a> <span class="dup-mark strong"`, list, "the list marks it")
	require.NotRegexp(t, `mail-4411</a> <span class="dup-mark`, list, "not the first")

	form := formOf(t, p.body, "decide")
	form.Set("decision", "approve")
	form.Set("note", "two channels, one invoice?")
	res := b.post(t, path+"/decision", form, alice)
	require.Equal(t, http.StatusConflict, res.status, res.body)
	require.Contains(t, res.body, "may be a duplicate of acme:mail-4411:v1")
	require.Contains(t, res.body, "two channels, one invoice?", "the note is kept")
	rv, err := b.store.GetReview(context.Background(), second)
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewPending, rv.Status)

	form.Set("notDuplicateOf", first.String())
	res = b.post(t, path+"/decision", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	rv, err = b.store.GetReview(context.Background(), second)
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewApproved, rv.Status)
}

// A rejection of a possible duplicate needs no confirmation; a weak match
// is shown without blocking.
func TestConsole_Duplicate_RejectedFreely_AndAWeakMatchDoesNotBlock(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	first := b.reviewOf(t, "acme:a-1:v1", judged(t, sameInvoice))
	strong := b.reviewMatched(t, "acme:a-2:v1", judged(t, sameInvoice),
		&jobs.Match{Strength: jobs.DuplicateStrong, Of: first, Matched: []string{"number", "total"}})
	res := b.post(t, "/console/reviews/"+strong.String()+"/decision",
		url.Values{"csrf": {b.get(t, "/console/reviews/"+strong.String(), alice).csrf(t)}, "decision": {"reject"}, "notDuplicateOf": {first.String()}}, alice)
	require.Equal(t, http.StatusSeeOther, res.status, "the box belongs to an approval: a rejection ignores it: %s", res.body)

	weak := b.reviewMatched(t, "acme:a-3:v1", judged(t, sameInvoice),
		&jobs.Match{Strength: jobs.DuplicateWeak, Of: first, Matched: []string{"total", "date"}})
	p := b.get(t, "/console/reviews/"+weak.String(), alice)
	require.Contains(t, block(t, p.body, "duplicate"), "a weaker match")
	require.NotContains(t, p.body, `id="not-duplicate"`, "nothing to confirm")
	res = b.post(t, "/console/reviews/"+weak.String()+"/decision", url.Values{"csrf": {p.csrf(t)}, "decision": {"approve"}}, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
}

// A credit note whose invoice relayops has links it; a match naming
// another tenant's job is never shown.
func TestConsole_CreditNote_LinksTheInvoiceItCredits_NeverAnotherTenants(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	invoice := b.reviewOf(t, "acme:inv-50-1187:v1", judged(t, sameInvoice))
	credit := sameInvoice
	credit.DocumentType, credit.InvoiceNumber, credit.PrecedingInvoice = extract.DocCreditNote, "CN-0042", "INV-7"
	cn := b.reviewMatched(t, "acme:cn-42:v1", judged(t, credit), &jobs.Match{Credits: &invoice})
	require.Contains(t, block(t, b.get(t, "/console/reviews/"+cn.String(), alice).body, "credits"),
		`href="/console/reviews/acme:inv-50-1187:v1"`)

	other := key(t, "globex:inv-1:v1")
	leak := b.reviewMatched(t, "acme:cn-43:v1", judged(t, credit),
		&jobs.Match{Strength: jobs.DuplicateStrong, Of: other, Matched: []string{"number"}, Credits: &other})
	p := b.get(t, "/console/reviews/"+leak.String(), alice)
	require.NotContains(t, p.body, "globex:inv-1")
}
