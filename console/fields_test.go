package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/jobs"
)

// earlyPaymentDiscount is an invoice whose early-payment discount, offered
// but not deducted, the rules read as a discount: total_mismatch.
const earlyPaymentDiscount = `Brightwater Print & Design Ltd
Unit 4, Canal Side Works, Leeds LS11 5QR
VAT Reg. No. GB 284 1937 55

INVOICE

Invoice No.: BPD-24-0917
Invoice Date: 2024-09-17
Due Date: 2024-10-17
Customer: Hollis & Grant Solicitors

Description                               Qty   Unit Price     Amount
Letterheads, 120gsm, 2-colour            2000         0.18     360.00
Business cards, 400gsm, 4 names           400         0.25     100.00
Design and proofing                         1       140.00     140.00

Subtotal                                                      600.00
Early payment discount 2% if paid within 10 days              -12.00
VAT 20%                                                       120.00
Total                                                   GBP   720.00
`

// rejectedByRules submits content and dead-letters it as the worker
// does: the rules' rejection, with what it kept.
func (b *bundle) rejectedByRules(t *testing.T, id, content string) jobs.Key {
	t.Helper()
	ctx := context.Background()
	var r rules.Rules
	c, err := r.Classify(ctx, content)
	require.NoError(t, err)
	x, err := r.Extract(ctx, content, c)
	require.NoError(t, err)
	_, err = r.Validate(ctx, x)
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej), "the rules reject it: %v", err)
	detail, err := json.Marshal(rej.Kept())
	require.NoError(t, err)
	k := b.submit(t, id, content)
	require.NoError(t, b.store.Reject(ctx, k, b.claim(t, k).Fence, rej.Reason, detail))
	return k
}

// reviewOf commits inv as the result of a new job and creates its review.
func (b *bundle) reviewOf(t *testing.T, id string, inv *extract.Invoice) jobs.Key {
	t.Helper()
	res, err := json.Marshal(inv)
	require.NoError(t, err)
	k := b.submit(t, id, "a document")
	c := b.claim(t, k)
	cr, err := b.store.Commit(context.Background(), k, c.Fence, c.PayloadHash, res)
	require.NoError(t, err)
	_, err = b.store.ApplyCommitted(context.Background(), k, cr.EventID)
	require.NoError(t, err)
	return k
}

// judged is x as the validator commits it.
func judged(t *testing.T, x extract.Extraction) *extract.Invoice {
	t.Helper()
	inv, err := extract.ValidateExtraction(x)
	require.NoError(t, err)
	return inv
}

// block is the part of a page from the element with the given id to the
// end of that element's first closing tag of the same name (good enough
// for the console's own markup, which does not nest a field in a field).
func block(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	require.Positive(t, i, "the page has #%s", id)
	start := strings.LastIndex(body[:i], "<")
	tag := regexp.MustCompile(`^<([a-z0-9]+)`).FindStringSubmatch(body[start:])[1]
	end := strings.Index(body[i:], "</"+tag+">")
	require.Positive(t, end)
	return body[start : i+end]
}

func TestConsole_CorrectionForm_HoldsEveryCorrectableField(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejectedByRules(t, "acme:inv-1:v1", earlyPaymentDiscount)
	p := b.get(t, "/console/jobs/"+k.String(), alice)
	require.Equal(t, http.StatusOK, p.status)
	for _, f := range extract.CorrectionFields {
		require.Contains(t, p.body, `id="field-`+f+`"`, "the form holds %s", f)
	}
	charges := block(t, p.body, "field-charges")
	require.Contains(t, charges, `name="ch-0-amount" value="-12.00"`, "the charge read")
	require.Contains(t, charges, `name="ch-0-remove"`, "a row read can be removed")
	require.Contains(t, charges, `name="ch-1-amount" value=""`, "an empty row to add one")
	require.Contains(t, charges, `<option value="discount" selected>`)
	require.Contains(t, p.body, `name="charges" value="3"`)
	require.Contains(t, p.body, `name="rates" value="2"`, "two empty rates to add")
	require.Contains(t, p.body, `id="c-accountingTax-currency"`)
	require.Contains(t, p.body, `id="reason-help"`, "what usually goes wrong with a total_mismatch")
}

// The operator removes the misread discount: the charges are sent as a
// list without it (nothing else changed is sent), and the new version
// is created; the audit records the list read and the empty one.
func TestConsole_Correct_RemovingAMisreadDiscount_SendsTheChargesWithoutIt(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejectedByRules(t, "acme:inv-2:v1", earlyPaymentDiscount)
	path := "/console/jobs/" + k.String()
	p := b.get(t, path, alice)
	form := formOf(t, p.body, "correct")
	form.Set("ch-0-remove", "1")
	form.Set("reason", "the discount is only offered")
	res := b.post(t, path+"/correct", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)

	audit, err := b.store.ListAudit(context.Background(), jobs.AuditOptions{Action: jobs.AuditReprocessed})
	require.NoError(t, err)
	require.Len(t, audit.Entries, 1)
	var changes []extract.FieldChange
	require.NoError(t, json.Unmarshal(audit.Entries[0].Changes, &changes))
	require.Len(t, changes, 1, "only what changed is sent: %+v", changes)
	require.Equal(t, "charges", changes[0].Field)
	require.Contains(t, changes[0].Old, `"-12.00"`)
	require.Empty(t, changes[0].New, "the list is removed")
}

// A charge row added, a rate row added and a value of another form: the
// refusal shows every row as typed (the removed one still ticked) and
// each error under its field.
func TestConsole_Correct_Refused_KeepsEveryRowAndShowsErrorsUnderTheirFields(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejectedByRules(t, "acme:inv-3:v1", earlyPaymentDiscount)
	path := "/console/jobs/" + k.String()
	form := formOf(t, b.get(t, path, alice).body, "correct")
	form.Set("ch-0-remove", "1")
	form.Set("ch-1-kind", "bribe") // not a kind a select offers: the JSON route's check answers
	form.Set("ch-1-amount", "5.00")
	form.Set("ch-1-reason", "handling")
	form.Set("tx-0-rate", "20")
	form.Set("tx-0-taxAmount", "120.00")
	form.Set("reason", "r")
	res := b.post(t, path+"/correct", form, alice)
	require.Equal(t, http.StatusBadRequest, res.status, res.body)
	charges := block(t, res.body, "field-charges")
	require.Contains(t, charges, `id="err-charges"`)
	require.Contains(t, charges, "charge 2, kind: must be one of", "the row as the form shows it, the first being removed")
	require.Contains(t, charges, `name="ch-0-remove" value="1" aria-label="remove charge 1" checked`, "the removed row stays ticked")
	require.Contains(t, charges, `name="ch-1-reason" value="handling"`)
	require.Contains(t, block(t, res.body, "field-taxBreakdown"), `name="tx-0-taxAmount" value="120.00"`)
	j, err := b.store.Get(context.Background(), k)
	require.NoError(t, err)
	require.Empty(t, j.ReprocessedAs, "nothing was created")
}

// A corrective invoice that takes money back prints negative amounts:
// the form takes them as printed.
func TestConsole_Correct_ACorrectiveInvoiceWithNegativeAmounts_IsAccepted(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:korr-1:v1", "Rechnungskorrektur\n", "missing_field:invoiceNumber")
	path := "/console/jobs/" + k.String()
	form := formOf(t, b.get(t, path, alice).body, "correct")
	for f, v := range map[string]string{"documentType": "correctiveInvoice", "invoiceNumber": "#RK_2024-17",
		"precedingInvoice": "RE 2024/0815", "vendor": "Hosting Nord GmbH", "issueDate": "2024-05-02", "currency": "EUR",
		"subtotal": "-7.39", "tax": "-1.40", "total": "-8.79"} {
		form.Set("f-"+f, v)
	}
	form.Set("reason", "from the PDF")
	res := b.post(t, path+"/correct", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
}

func TestConsole_StatusMarks_OnTheJobAndReviewPages(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.rejectedByRules(t, "acme:inv-4:v1", earlyPaymentDiscount)
	p := b.get(t, "/console/jobs/"+dead.String(), alice)
	require.Contains(t, p.body, `id="legend"`, "the marks are explained")
	for field, word := range map[string]string{"vendor": "read, not checked", "issueDate": "read, not checked",
		"total": "to check", "charges": "to check"} {
		require.Contains(t, block(t, p.body, "field-"+field), "</span> "+word+"</span>", field)
	}

	x := extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "INV-7", Vendor: "Acme Supplies",
		IssueDate: "2026-03-04", Currency: "EUR", Tax: "20.00", Total: "120.00", Source: extract.Source{Extractor: "rules"},
		LineItems: []extract.ExtractedLine{{Description: "Widgets", Quantity: "2", UnitPrice: "50.00", Amount: "100.00"}},
		Evidence:  map[string]extract.Evidence{"total": {Source: "text"}, "tax": {Source: "text"}, "vendor": {Source: "text"}}}
	k := b.reviewOf(t, "acme:inv-5:v1", judged(t, x))
	for _, path := range []string{"/console/reviews/", "/console/jobs/"} {
		p := b.get(t, path+k.String(), alice)
		require.Equal(t, http.StatusOK, p.status)
		require.Contains(t, p.body, `id="legend"`, path)
		require.Regexp(t, `id="f-vendor">Acme Supplies</dd><dd class="mark-cell"><span class="mark st-unchecked"`, p.body, path)
		require.Regexp(t, `id="f-total">120.00 EUR</td><td class="mark-cell"><span class="mark st-checked"`, p.body, path)
		require.Regexp(t, `id="f-subtotal">100.00</td><td class="mark-cell"><span class="mark st-computed"`, p.body, path)
	}
	review := b.get(t, "/console/reviews/"+k.String(), alice).body
	require.Contains(t, block(t, review, "field-vendor"), "read, not checked", "the approval form marks the same way")
}

// A credit note says what it is, which way it moves money and the
// invoice it corrects, on the review, the job and the list.
func TestConsole_CreditNote_SaysWhatItIsOnEveryPage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	inv := judged(t, extract.Extraction{DocumentType: extract.DocCreditNote, InvoiceNumber: "CN-0042",
		Vendor: "Harbour & Finch Office Supplies Ltd", IssueDate: "2026-03-12", Currency: "GBP", PrecedingInvoice: "50-1187",
		LineItems: []extract.ExtractedLine{{Description: "Ergonomic office chair (returned)", Quantity: "1", UnitPrice: "149.99", Amount: "149.99"}},
		Subtotal:  "149.99", Tax: "30.00", Total: "179.99", Source: extract.Source{Extractor: "rules"}})
	require.Equal(t, extract.DirectionCredit, inv.Direction)
	k := b.reviewOf(t, "acme:cn-42:v1", inv)

	review := b.get(t, "/console/reviews/"+k.String(), alice).body
	require.Contains(t, block(t, review, "doctype"), "credit note")
	require.Contains(t, block(t, review, "direction"), "credit −179.99 GBP")
	require.Contains(t, block(t, review, "preceding"), "50-1187")
	require.Contains(t, block(t, review, "review-doctype"), "credit note")
	job := b.get(t, "/console/jobs/"+k.String(), alice).body
	require.Contains(t, block(t, job, "job-doctype"), "credit −179.99 GBP")
	list := b.get(t, "/console/reviews", alice).body
	row := block(t, list, "reviews")
	require.Contains(t, row, "credit note")
	require.Contains(t, row, "−179.99 GBP", "the list shows the signed total of a credit")
}

// Every flag of a result is on the review and job pages in words.
func TestConsole_Flags_InWordsOnTheReviewAndJobPages(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	flags := []string{extract.FlagVisibleTotalMismatch, extract.FlagOCR, extract.FlagEInvoiceUnreadable,
		extract.FlagTaxRateMismatch, "einvoice_rule:BR-CO-10"}
	inv := judged(t, extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "INV-7", Vendor: "Acme Supplies",
		IssueDate: "2026-03-04", Currency: "EUR", Total: "120.00", Source: extract.Source{Extractor: "einvoice"}, Flags: flags})
	k := b.reviewOf(t, "acme:inv-6:v1", inv)
	for _, path := range []string{"/console/reviews/", "/console/jobs/"} {
		shown := block(t, b.get(t, path+k.String(), alice).body, "flags")
		for _, f := range flags {
			words, known := console.DescribeFlag(f)
			require.True(t, known, f)
			require.Contains(t, shown, `data-flag="`+f+`"`, "%s%s", path, f)
			require.Contains(t, shown, escaped(words), "%s%s", path, f)
		}
	}
}

func TestDescribeFlag_EveryFlagHasASentence(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, f := range []string{extract.FlagVisibleTotalMismatch, extract.FlagOCR, extract.FlagEInvoiceUnreadable,
		extract.FlagTaxRateMismatch, "einvoice_rule:BR-CO-10", "einvoice_rule:BR-99"} {
		s, ok := console.DescribeFlag(f)
		require.True(t, ok, f)
		require.NotContains(t, seen, s, "%s reads like %s", f, seen[s])
		seen[s] = f
	}
	require.Contains(t, must(console.DescribeFlag("einvoice_rule:BR-CO-10")), "the sum of the line net amounts")
	_, ok := console.DescribeFlag("no_such_flag")
	require.False(t, ok)
}

// The rejections a correction finishes say what usually went wrong.
func TestJobPage_RejectionsAFormFinishes_AreExplained(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for i, reason := range []string{extract.ReasonTaxMismatch, extract.ReasonAmountDueMismatch, extract.ReasonNotAccepted,
		extract.ReasonTotalMismatch} {
		k := b.rejected(t, "acme:r-"+string(rune('a'+i))+":v1", "INVOICE\n", reason)
		p := b.get(t, "/console/jobs/"+k.String(), alice)
		require.Contains(t, p.body, `id="reason-help"`, reason)
		require.Contains(t, block(t, p.body, "error-reason"), reason)
	}
}

// An approval gets the same fields: it removes a charge and adds a rate;
// the decided review lists both corrections in words.
func TestConsole_ApproveWithCorrections_ChargesAndRates(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	inv := judged(t, extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "INV-8", Vendor: "Acme Supplies",
		IssueDate: "2026-03-04", Currency: "EUR", Subtotal: "100.00", Tax: "19.00", Total: "109.00",
		Charges: []extract.Charge{{Kind: extract.ChargeDiscount, Amount: "-10.00", Reason: "Skonto 10 %"}},
		Source:  extract.Source{Extractor: "rules"}})
	k := b.reviewOf(t, "acme:inv-8:v1", inv)
	path := "/console/reviews/" + k.String()
	form := formOf(t, b.get(t, path, alice).body, "decide")
	form.Set("decision", "approve")
	form.Set("ch-0-remove", "1")
	form.Set("f-total", "119.00")
	form.Set("tx-0-rate", "19")
	form.Set("tx-0-taxableAmount", "100.00")
	form.Set("tx-0-taxAmount", "19.00")
	form.Set("tx-0-category", "S")
	res := b.post(t, path+"/decision", form, alice)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	decided := block(t, b.get(t, path, alice).body, "review-corrected")
	require.Contains(t, decided, `data-field="charges"`)
	require.Contains(t, decided, "discount -10.00 Skonto 10 %")
	require.Contains(t, decided, "19 100.00 19.00 S")
	require.Contains(t, decided, "119.00")
}

// formOf reads the named form of a page as a browser would send it
// unchanged: every input's value, each select's selected option,
// checkboxes only when checked.
func formOf(t *testing.T, body, id string) url.Values {
	t.Helper()
	f := block(t, body, id)
	out := url.Values{}
	for _, m := range regexp.MustCompile(`<input([^>]*)>`).FindAllStringSubmatch(f, -1) {
		name, value := attr(m[1], "name"), attr(m[1], "value")
		if name == "" || strings.Contains(m[1], `type="checkbox"`) && !strings.Contains(m[1], " checked") {
			continue
		}
		out.Add(name, value)
	}
	for _, m := range regexp.MustCompile(`(?s)<select([^>]*)>(.*?)</select>`).FindAllStringSubmatch(f, -1) {
		value := ""
		if sel := regexp.MustCompile(`<option value="([^"]*)" selected>`).FindStringSubmatch(m[2]); sel != nil {
			value = sel[1]
		} else if first := regexp.MustCompile(`<option value="([^"]*)"`).FindStringSubmatch(m[2]); first != nil {
			value = first[1]
		}
		out.Add(attr(m[1], "name"), unescape(value))
	}
	for _, m := range regexp.MustCompile(`(?s)<textarea[^>]*name="([^"]+)"[^>]*>\n?(.*?)</textarea>`).FindAllStringSubmatch(f, -1) {
		out.Add(m[1], unescape(m[2]))
	}
	return out
}

func attr(tag, name string) string {
	m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return unescape(m[1])
}

var unescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&#43;", "+")

func unescape(s string) string { return unescaper.Replace(s) }

// escaped is text as html/template writes it.
func escaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", `"`, "&#34;", "<", "&lt;", ">", "&gt;", "+", "&#43;").Replace(s)
}
