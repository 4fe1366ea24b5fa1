package console_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// approveForm is the review page's decision form with its correction part
// as the browser sends it: every field, changed or not.
func approveForm(csrf, decision string, fields map[string]string) url.Values {
	f := url.Values{"csrf": {csrf}, "decision": {decision}, "note": {"checked"}, "correcting": {"1"}}
	base := map[string]string{"vendor": "Acme Supplies", "invoiceNumber": "INV-7", "issueDate": "2026-03-04",
		"currency": "EUR", "subtotal": "100.00", "tax": "20.00", "total": "120.00"}
	for k, v := range fields {
		base[k] = v
	}
	for k, v := range base {
		f.Set("f-"+k, v)
	}
	return f
}

func TestConsole_ApproveWithCorrections_RefusedInPlaceThenHeldByTheReview(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.pendingReview(t, "acme:inv-3:v1", "Invoice INV-7")
	path := "/console/reviews/" + k.String()
	p := b.get(t, path, alice)
	require.Contains(t, p.body, `id="correct-review"`)
	require.Contains(t, p.body, `accesskey="a"`)

	res := b.post(t, path+"/decision", approveForm(p.csrf(t), "approve", map[string]string{"issueDate": "2026-02-30"}), alice)
	require.Equal(t, http.StatusBadRequest, res.status)
	require.Contains(t, res.body, `id="err-issueDate"`, "the error is beside its field")
	require.Contains(t, res.body, `value="2026-02-30"`, "the typed value is kept")
	rv, err := b.store.GetReview(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, jobs.ReviewPending, rv.Status)

	res = b.post(t, path+"/decision", approveForm(p.csrf(t), "approve", map[string]string{"issueDate": "2026-03-05"}), alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	decided := b.get(t, path, alice)
	require.Contains(t, decided.body, `id="review-corrected"`)
	require.Contains(t, decided.body, "2026-03-05")
	res2, err := b.store.Result(context.Background(), k)
	require.NoError(t, err)
	require.Contains(t, string(res2), `"issueDate":"2026-03-04"`, "the result stays readable as extracted")
	audit, err := b.store.ListAudit(context.Background(), jobs.AuditOptions{Action: jobs.AuditReviewDecided})
	require.NoError(t, err)
	require.JSONEq(t, `[{"field":"issueDate","old":"2026-03-04","new":"2026-03-05"}]`, string(audit.Entries[0].Changes))
}

func TestConsole_CorrectForm_NothingChanged_IsRefusedAndCreatesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:inv-4:v1", "Total 10.00\n", "missing_field:invoiceNumber")
	path := "/console/jobs/" + k.String()
	p := b.get(t, path, alice)
	require.Contains(t, p.body, `id="correct"`, "a rejected document offers the correction form")
	res := b.post(t, path+"/correct", url.Values{"csrf": {p.csrf(t)}, "reason": {"r"}}, alice)
	require.Equal(t, http.StatusBadRequest, res.status)
	require.Contains(t, res.body, "change at least one field")
	j, err := b.store.Get(context.Background(), k)
	require.NoError(t, err)
	require.Empty(t, j.ReprocessedAs)
}

// A file input (a PDF) is not shown as text; its fields are corrected all
// the same, and the new version reuses the stored file.
func TestConsole_RejectedFile_CorrectedFieldsReuseTheStoredFile(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	file := jobs.FileContent("application/pdf", "inv-5.pdf", []byte("%PDF-1.7 not really\x00\x01"))
	k := b.rejected(t, "acme:inv-5:v1", file, "missing_field:invoiceNumber")
	path := "/console/jobs/" + k.String()
	p := b.get(t, path, alice)
	require.Contains(t, p.body, `id="document-file"`)
	require.Contains(t, p.body, "inv-5.pdf")
	require.NotContains(t, p.body, "%PDF", "a file is not shown as text")
	require.NotContains(t, p.body, `id="content"`, "nobody edits a PDF's text")

	form := url.Values{"csrf": {p.csrf(t)}, "reason": {"from the PDF"}, "f-invoiceNumber": {"INV-5"}, "f-vendor": {"Acme"},
		"f-issueDate": {"2026-03-03"}, "f-currency": {"EUR"}, "f-total": {"10.00"}}
	res := b.post(t, path+"/correct", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	in, err := b.store.Input(context.Background(), key(t, "acme:inv-5:v2"))
	require.NoError(t, err)
	require.Equal(t, file, in, "the same file")
}
