package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// keptTotalMismatch is what the validator keeps of an invoice whose lines
// (12.00 + 1140.00) and tax do not add up to its stated total.
func keptTotalMismatch(t *testing.T) ([]byte, extract.Extraction) {
	t.Helper()
	x := extract.Extraction{
		DocumentType: extract.DocInvoice, InvoiceNumber: "INV-1", Vendor: "Acme Ltd", IssueDate: "2026-03-03", Currency: "EUR",
		LineItems: []extract.ExtractedLine{{Description: "Widget", Quantity: "3", UnitPrice: "4.00"}, {Description: "Consulting", Quantity: "9.5", UnitPrice: "120"}},
		Subtotal:  "1152.00", Tax: "230.40", Total: "1382.41", Source: extract.Source{Extractor: "rules"},
		Evidence: map[string]extract.Evidence{"total": {Source: extract.EvidenceText, Line: 9, Label: "Total"}},
	}
	_, err := extract.ValidateExtraction(x)
	var rej *extract.Rejection
	require.ErrorAs(t, err, &rej)
	b, err := json.Marshal(rej.Kept())
	require.NoError(t, err)
	return b, x
}

// rejectWith drives a job to dead_lettered as the worker does for a
// content rejection that kept detail.
func (b *bundle) rejectWith(t *testing.T, id, reason string, detail []byte) {
	t.Helper()
	k, c := b.claim(t, id)
	require.NoError(t, b.store.Reject(context.Background(), k, c.Fence, reason, detail))
}

func TestGetJob_Rejected_ShowsWhatWasReadToItsTenantAndOperators(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "Invoice INV-1")
	detail, _ := keptTotalMismatch(t)
	b.rejectWith(t, dead, extract.ReasonTotalMismatch, detail)

	for _, tok := range []string{tokAcme, tokAlice} {
		v := b.do(t, call{method: "GET", path: "/v1/jobs/" + dead, token: tok}).json(t)
		require.Equal(t, "total_mismatch", v["errorReason"])
		x := v["extraction"].(map[string]any)
		require.Equal(t, "1382.41", x["fields"].(map[string]any)["total"])
		require.Equal(t, "Total", x["fields"].(map[string]any)["evidence"].(map[string]any)["total"].(map[string]any)["label"])
		require.Contains(t, x["failed"], map[string]any{"field": "total", "check": "total_mismatch"})
	}
	b.do(t, call{method: "GET", path: "/v1/jobs/" + dead, token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
}

func TestReprocess_WithCorrections_CreatesVersionAuditsEachFieldAndIsIdempotent(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "Invoice INV-1")
	detail, _ := keptTotalMismatch(t)
	b.rejectWith(t, dead, extract.ReasonTotalMismatch, detail)
	body := `{"reason":"total misread","corrections":{"total":"1382.40","dueDate":"2026-04-02"}}`

	r := b.do(t, reprocessCall(dead, body))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	nk := mustKey(t, "acme:inv-1:v2")
	in, err := b.store.Input(t.Context(), nk)
	require.NoError(t, err)
	require.Equal(t, "Invoice INV-1", in, "the same input")
	c, err := b.store.Claim(t.Context(), nk, "tok")
	require.NoError(t, err)
	require.JSONEq(t, `{"total":"1382.40","dueDate":"2026-04-02"}`, string(c.Corrections), "the worker gets the corrections")

	again := b.do(t, reprocessCall(dead, body))
	require.Equal(t, http.StatusOK, again.Status, "the same corrections again: the same job")
	require.Equal(t, "acme:inv-1:v2", again.json(t)["jobId"])
	b.do(t, reprocessCall(dead, `{"reason":"r","corrections":{"total":"1382.40"}}`)).
		requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	b.do(t, reprocessCall(dead, `{"reason":"r"}`)).requireError(t, http.StatusConflict, CodeIdempotencyConflict)

	audit := b.do(t, call{method: "GET", path: "/v1/audit?action=reprocessed", token: tokAlice}).json(t)
	e := audit["items"].([]any)[0].(map[string]any)
	require.Equal(t, "total misread", e["reason"])
	require.ElementsMatch(t, []any{
		map[string]any{"field": "dueDate", "new": "2026-04-02"},
		map[string]any{"field": "total", "old": "1382.41", "new": "1382.40"},
	}, e["corrections"])
	require.NotEqual(t, e["oldPayloadHash"], e["newPayloadHash"], "the hash covers the corrections")
}

// Corrections the API refuses are 400 naming the field, and create
// nothing; a tenant token is 403 whichever tenant's job it names.
func TestReprocess_BadCorrections_AreRefusedNamingTheFieldAndCreateNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "Invoice INV-1")
	detail, _ := keptTotalMismatch(t)
	b.rejectWith(t, dead, extract.ReasonTotalMismatch, detail)
	keys := b.dbsize(t)

	tests := []struct {
		name, body string
		field      string
		problem    string
	}{
		{"a number, not a string", `{"reason":"r","corrections":{"total":1382.40}}`, "corrections.total", "must be a string"},
		{"null", `{"reason":"r","corrections":{"vendor":null}}`, "corrections.vendor", "must be a string"},
		{"not an object", `{"reason":"r","corrections":"total=1"}`, "corrections", "must be an object"},
		{"lines not an array", `{"reason":"r","corrections":{"lineItems":{"amount":"1"}}}`, "corrections.lineItems", "must be an array"},
		{"line field of another type", `{"reason":"r","corrections":{"lineItems":[{"amount":12}]}}`, "corrections.lineItems[0].amount", "must be a string"},
		{"unknown field", `{"reason":"r","corrections":{"iban":"DE00"}}`, "corrections.iban", "is not a field a correction may set"},
		{"unknown line field", `{"reason":"r","corrections":{"lineItems":[{"sku":"A"}]}}`, "corrections.lineItems[0].sku", "is not one of description, quantity, unitPrice, amount"},
		{"empty", `{"reason":"r","corrections":{}}`, "corrections", "at least one field"},
		{"does not add up", `{"reason":"r","corrections":{"total":"1400.00"}}`, "corrections.total", "check total_mismatch"},
		{"lines do not add up", `{"reason":"r","corrections":{"subtotal":"1152.00","lineItems":[{"description":"A","amount":"10.00"}]}}`, "corrections.subtotal", "check subtotal_mismatch"},
		{"charge of an unknown kind", `{"reason":"r","corrections":{"charges":[{"kind":"tip","amount":"1.00"}]}}`, "corrections.charges[0].kind", "must be one of shipping, discount, fee, rounding"},
		{"charge member unknown", `{"reason":"r","corrections":{"charges":[{"amount":"1.00","vat":"S"}]}}`, "corrections.charges[0].vat", "is not one of kind, amount, reason"},
		{"tax breakdown does not add up", `{"reason":"r","corrections":{"total":"1382.40","taxBreakdown":[{"rate":"20","taxAmount":"200.00"}]}}`, "corrections.taxBreakdown", "check tax_mismatch"},
		{"taxIncluded not a boolean", `{"reason":"r","corrections":{"taxIncluded":"yes"}}`, "corrections.taxIncluded", "must be true or false"},
		{"accounting tax not an object", `{"reason":"r","corrections":{"accountingTax":"12.00"}}`, "corrections.accountingTax", "must be an object of currency and amount"},
		{"accounting tax in no currency", `{"reason":"r","corrections":{"total":"1382.40","accountingTax":{"currency":"XYZ","amount":"1.00"}}}`, "corrections.accountingTax", "check invalid_field:accountingTax"},
		{"amount due does not add up", `{"reason":"r","corrections":{"total":"1382.40","paidAmount":"100.00","amountDue":"1382.40"}}`, "corrections.amountDue", "check amount_due_mismatch"},
		{"number with a bidi override", `{"reason":"r","corrections":{"total":"1382.40","invoiceNumber":"INV\u202e1"}}`, "corrections.invoiceNumber", "no control or invisible characters"},
		{"unknown document type", `{"reason":"r","corrections":{"total":"1382.40","documentType":"receipt"}}`, "corrections.documentType", "must be one of invoice, creditNote, correctiveInvoice"},
		{"not an amount", `{"reason":"r","corrections":{"total":"1.382,40"}}`, "corrections.total", "check unparseable_amount:total"},
		{"impossible date", `{"reason":"r","corrections":{"total":"1382.40","issueDate":"2026-02-30"}}`, "corrections.issueDate", "check invalid_field:issueDate"},
		{"removes a required field", `{"reason":"r","corrections":{"total":"1382.40","vendor":""}}`, "corrections.vendor", "check missing_field:vendor"},
		{"removes the issue date", `{"reason":"r","corrections":{"total":"1382.40","issueDate":""}}`, "corrections.issueDate", "booked under the date you give (its delivery or tax point date)"},
		{"with content", `{"reason":"r","content":"x","corrections":{"total":"1382.40"}}`, "corrections", "cannot be combined with content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := b.do(t, reprocessCall(dead, tt.body)).requireError(t, http.StatusBadRequest, CodeInvalidRequest)
			require.Contains(t, fieldNames(e), tt.field)
			require.Contains(t, string(mustJSON(t, e)), tt.problem)
			require.NotContains(t, string(mustJSON(t, e)), "Acme Ltd", "an error never quotes the document")
		})
	}
	for _, tok := range []string{tokAcme, tokGlobex} {
		b.do(t, call{method: "POST", path: "/v1/jobs/" + dead + "/reprocess", token: tok,
			body: `{"reason":"r","corrections":{"total":"1382.40"}}`}).requireError(t, http.StatusForbidden, CodeForbidden)
	}
	require.Equal(t, keys, b.dbsize(t), "nothing was created")
	j, err := b.store.Get(t.Context(), mustKey(t, dead))
	require.NoError(t, err)
	require.Empty(t, j.ReprocessedAs)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// An operator overrules not_an_invoice with the fields, audited as such;
// the fields must make a whole invoice.
func TestReprocess_CorrectionsOverruleNotAnInvoice(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "memo", 1, "a memo that is an invoice")
	b.reject(t, dead, extract.ReasonNotAnInvoice)

	e := b.do(t, reprocessCall(dead, `{"reason":"it is an invoice","corrections":{"total":"10.00"}}`)).
		requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Contains(t, fieldNames(e), "corrections.invoiceNumber")

	r := b.do(t, reprocessCall(dead, `{"reason":"it is an invoice","corrections":{"invoiceNumber":"M-1","vendor":"Corner Shop",`+
		`"issueDate":"2026-03-03","currency":"GBP","total":"10.00"}}`))
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	audit := b.do(t, call{method: "GET", path: "/v1/audit?action=reprocessed", token: tokAlice}).json(t)
	entry := audit["items"].([]any)[0].(map[string]any)
	require.Equal(t, "not_an_invoice", entry["overruled"])
	require.Len(t, entry["corrections"], 5)
}

func TestReprocess_CorrectionsOfACancelledJob_Conflict(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	c := b.submit(t, tokAcme, "c", 1, "x")
	b.cancel(t, c)
	b.do(t, reprocessCall(c, `{"reason":"r","corrections":{"total":"1.00"}}`)).requireError(t, http.StatusConflict, CodeJobCancelled)
}

// An approval may correct fields: validated over the result, held by the
// review, audited per field; the job's result stays the extractor's.
func TestDecide_ApproveWithCorrections_ReviewHoldsThemResultStaysReadable(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "Invoice INV-1")
	inv, err := extract.ValidateExtraction(extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "INV-1", Vendor: "Acme Ltd",
		IssueDate: "2026-03-03", Currency: "EUR", Total: "10.00"})
	require.NoError(t, err)
	b.succeed(t, id, string(mustJSON(t, inv)))
	path := "/v1/reviews/" + id + "/decision"

	e := b.do(t, call{method: "POST", path: path, token: tokAlice, body: `{"decision":"approve","corrections":{"issueDate":"2026-13-01"}}`}).
		requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Contains(t, fieldNames(e), "corrections.issueDate")
	e = b.do(t, call{method: "POST", path: path, token: tokAlice, body: `{"decision":"reject","corrections":{"issueDate":"2026-03-04"}}`}).
		requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Contains(t, fieldNames(e), "corrections")
	rv, err := b.store.GetReview(t.Context(), mustKey(t, id))
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewPending, rv.Status, "a refused decision decides nothing")

	r := b.do(t, call{method: "POST", path: path, token: tokAlice, body: `{"decision":"approve","note":"date from the PDF","corrections":{"invoiceNumber":"INV-1A","issueDate":"2026-03-04"}}`})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	v := r.json(t)
	require.Equal(t, []any{"invoiceNumber", "issueDate"}, v["correctedFields"])
	require.Equal(t, "2026-03-04", v["correctedResult"].(map[string]any)["issueDate"])

	got := b.do(t, call{method: "GET", path: "/v1/reviews/" + id, token: tokAcme}).json(t)
	require.Equal(t, "INV-1A", got["correctedResult"].(map[string]any)["invoiceNumber"], "the tenant reads the corrected values")
	job := b.do(t, call{method: "GET", path: "/v1/jobs/" + id, token: tokAcme}).json(t)
	require.Equal(t, "INV-1", job["result"].(map[string]any)["invoiceNumber"], "the original result stays readable")

	audit := b.do(t, call{method: "GET", path: "/v1/audit?action=review_decided", token: tokAlice}).json(t)
	entry := audit["items"].([]any)[0].(map[string]any)
	require.Equal(t, "approved", entry["decision"])
	require.Equal(t, "date from the PDF", entry["note"])
	require.Contains(t, entry["corrections"], map[string]any{"field": "issueDate", "old": "2026-03-03", "new": "2026-03-04"})

	var decided []jobs.Event
	for sh := range b.store.Shards() {
		rows, err := b.rdb.XRange(t.Context(), b.store.OutboxStream(sh), "-", "+").Result()
		require.NoError(t, err)
		for _, m := range rows {
			ev, err := jobs.ParseEvent(sh, m)
			require.NoError(t, err)
			if ev.Type == jobs.EventReviewDecided {
				decided = append(decided, ev)
				require.False(t, strings.Contains(fmt.Sprint(m.Values), "INV-1A"), "the event carries names, never values")
			}
		}
	}
	require.Len(t, decided, 1)
	require.Equal(t, []string{"invoiceNumber", "issueDate"}, decided[0].CorrectedFields, "review.decided says fields were corrected")
}
