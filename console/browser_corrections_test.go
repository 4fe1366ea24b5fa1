package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/browsertest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// noNumberWrongTotal is an invoice without an invoice number whose stated
// total is not the sum of its lines (4,500.00 + 1,500.00).
const noNumberWrongTotal = `INVOICE
Vendor: Contoso Office Supplies
Issue Date: 2024-07-01
Currency: USD

Items:
Paper A4, 10 reams  10 x 450.00
Stapler  1 x 1500.00

Total: 6500.00
`

// submitText posts text content as tenant acme through the API.
func (l *live) submitText(t *testing.T, doc, content string) jobs.Key {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"documentId": doc, "operationVersion": 1, "content": content})
	req, _ := http.NewRequest(http.MethodPost, l.url+"/v1/jobs", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+tokAcme)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusAccepted, res.StatusCode)
	return key(t, "acme:"+doc+":v1")
}

// An operator turns a rejected invoice into a reviewed one without
// touching the document: the form holds what was read, a wrong correction
// is refused in place with the typed values kept, the right one creates
// the new version, whose review is approved; the audit shows each field.
func TestBrowser_Console_CorrectFieldsOfARejectedInvoice(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second, chromedp.WindowSize(1280, 1000))
	l := startLive(t)
	dead := l.submitText(t, "inv-contoso", noNumberWrongTotal)
	l.await(t, dead, jobs.StateDeadLettered)

	var external atomic.Int64
	signIn(t, ctx, strings.TrimPrefix(l.url, "http://"), alice, &external)
	text, do := browserSteps(t, ctx)
	value := func(id string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").value`))
		require.NoError(t, err, id)
		return v
	}
	class := func(id string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").className`))
		require.NoError(t, err, id)
		return v
	}

	// The dead-letter list shows what a reviewer scans for.
	do(chromedp.Navigate(l.url + "/console/dlq"))
	row := text("#dlq tbody tr:first-child")
	require.Contains(t, row, "Contoso Office Supplies")
	require.Contains(t, row, "6,500.00 USD", "amounts grouped as the currency writes them")
	require.Contains(t, row, "the invoice number was not found")

	// The job page: the original beside the form, the failing field marked.
	do(chromedp.Click(chromedp.CSS("#dlq tbody tr:first-child a")), chromedp.WaitVisible(chromedp.ID("correct")))
	require.Contains(t, text("#document"), "Stapler  1 x 1500.00")
	require.Equal(t, "Contoso Office Supplies", value("c-vendor"))
	require.Equal(t, "6500.00", value("c-total"))
	require.Equal(t, "", value("c-invoiceNumber"))
	require.Contains(t, class("field-invoiceNumber"), "failing")
	require.Contains(t, text("#why-invoiceNumber"), "the invoice number was not found")
	require.Contains(t, class("field-total"), "failing", "every check that fails is shown at once, not only the first")
	require.Contains(t, text("#why-total"), "the total does not equal")
	shoot(t, ctx, "correct-form")

	// A correction that does not add up is refused in place; nothing is created.
	do(chromedp.SendKeys(chromedp.ID("c-invoiceNumber"), "CT-2024-118"),
		chromedp.SetValue(chromedp.ID("c-total"), "6400.00"),
		chromedp.SendKeys(chromedp.ID("correct-reason"), "number and total from the supplier's PDF"),
		chromedp.Click(chromedp.ID("correct-submit")), chromedp.WaitVisible(chromedp.ID("err-total")))
	require.Contains(t, text("#err-total"), "does not add up")
	require.Contains(t, text("#err-total"), "total_mismatch")
	require.Contains(t, class("field-total"), "invalid")
	require.Equal(t, "CT-2024-118", value("c-invoiceNumber"), "typed values survive the error")
	require.Equal(t, "6400.00", value("c-total"))
	require.Equal(t, "number and total from the supplier's PDF", value("correct-reason"))
	j, err := l.store.Get(context.Background(), dead)
	require.NoError(t, err)
	require.Empty(t, j.ReprocessedAs, "nothing was created")
	shoot(t, ctx, "correct-error")

	// The right correction creates the next version, which the page follows.
	do(chromedp.SetValue(chromedp.ID("c-total"), "6000.00"), chromedp.Click(chromedp.ID("correct-submit")))
	redistest.Eventually(t, 30*time.Second, func() bool {
		h1, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("h1") || {}).textContent || ""`))
		return err == nil && strings.Contains(h1, "acme:inv-contoso:v2")
	}, "the page follows to the new version")
	require.Contains(t, text(".notice"), "Corrected")
	redistest.Eventually(t, 30*time.Second, func() bool {
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("state") || {}).textContent || ""`))
		return err == nil && state == "succeeded"
	}, "the new version succeeds (the page reloads itself while it runs)")
	require.Equal(t, "6000.00 USD", text("#f-total"), "the job page shows the fields as the review page does")

	// Its review: listed with number and total, then approved.
	redistest.Eventually(t, 30*time.Second, func() bool {
		_, err := l.store.GetReview(context.Background(), key(t, "acme:inv-contoso:v2"))
		return err == nil
	}, "review created")
	do(chromedp.Navigate(l.url + "/console/reviews"))
	row = text("#reviews tbody tr:first-child")
	require.Contains(t, row, "CT-2024-118")
	require.Contains(t, row, "6,000.00 USD")
	do(chromedp.Click(chromedp.CSS("#reviews tbody tr:first-child a")), chromedp.WaitVisible(chromedp.ID("approve")))
	keys, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["approve","reject","next-review"].map(id => document.getElementById(id).accessKey)`))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "r", "n"}, keys, "approve, reject and next review have keys")
	do(chromedp.SendKeys(chromedp.ID("note"), "checked against the PDF"),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("decided")))
	require.Contains(t, text("#decided"), "approved")

	// The audit page shows each field's change and the decision's note.
	do(chromedp.Navigate(l.url + "/console/audit?operator=alice"))
	number := text(`#audit .change[data-field="invoiceNumber"]`)
	require.Contains(t, number, "(none)")
	require.Contains(t, number, "CT-2024-118")
	total := text(`#audit .change[data-field="total"]`)
	require.Contains(t, total, "6500.00")
	require.Contains(t, total, "6000.00")
	audit := text("#audit tbody")
	require.Contains(t, audit, "approved")
	require.Contains(t, audit, "checked against the PDF")
	require.Contains(t, audit, "acme:inv-contoso:v1 → acme:inv-contoso:v2")
	shoot(t, ctx, "correct-audit")

	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	require.NoError(t, err)
	require.Empty(t, violations, "nothing the policy refused")
	require.Zero(t, external.Load(), "no request left the test server")
}

// An operator finishes an invoice whose early-payment discount, offered
// but not deducted, was read as a discount: the charge is removed with
// its remove box, the tax per rate added in an empty row, a wrong total
// is refused in place with every row as typed, and the right one makes
// a new version that succeeds, its values marked.
func TestBrowser_Console_CorrectAMisreadDiscount(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second, chromedp.WindowSize(1280, 1000))
	l := startLive(t)
	dead := l.submitText(t, "inv-brightwater", earlyPaymentDiscount)
	l.await(t, dead, jobs.StateDeadLettered)

	var external atomic.Int64
	signIn(t, ctx, strings.TrimPrefix(l.url, "http://"), alice, &external)
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return v
	}
	value := func(name string) string { return eval(`document.querySelector('[name="` + name + `"]').value`) }
	checked := func(name string) bool {
		return eval(`String(document.querySelector('[name="`+name+`"]').checked)`) == "true"
	}
	text := func(sel string) string {
		return eval(`(document.querySelector("` + sel + `") || {}).textContent || ""`)
	}
	_, do := browserSteps(t, ctx)
	byName := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }

	do(chromedp.Navigate(l.url+"/console/jobs/"+dead.String()), chromedp.WaitVisible(chromedp.ID("correct")))
	require.Equal(t, "-12.00", value("ch-0-amount"), "the discount read is a row of the charges")
	require.Equal(t, "discount", value("ch-0-kind"))
	require.Contains(t, text("#field-charges legend"), "to check")
	require.Contains(t, text("#field-vendor"), "read, not checked")
	require.Contains(t, text("#reason-help"), "early-payment discount")
	shoot(t, ctx, "charges-form")

	// Remove the discount, add the tax per rate, and a total typed wrong.
	do(chromedp.Click(byName("ch-0-remove")),
		chromedp.SetValue(byName("tx-0-rate"), "20"), chromedp.SetValue(byName("tx-0-taxableAmount"), "600.00"),
		chromedp.SetValue(byName("tx-0-taxAmount"), "120.00"), chromedp.SetValue(byName("tx-0-category"), "S"),
		chromedp.SetValue(chromedp.ID("c-total"), "708.00"),
		chromedp.SendKeys(chromedp.ID("correct-reason"), "the 2% is only offered for early payment"),
		chromedp.Click(chromedp.ID("correct-submit")), chromedp.WaitVisible(chromedp.ID("err-total")))
	require.Contains(t, text("#err-total"), "total_mismatch")
	require.True(t, checked("ch-0-remove"), "the removed row stays ticked")
	require.Equal(t, "120.00", value("tx-0-taxAmount"), "the rate typed survives the error")
	require.Equal(t, "S", value("tx-0-category"))
	j, err := l.store.Get(context.Background(), dead)
	require.NoError(t, err)
	require.Empty(t, j.ReprocessedAs, "nothing was created")
	shoot(t, ctx, "charges-refused")

	// The true total: the new version succeeds without the discount.
	do(chromedp.SetValue(chromedp.ID("c-total"), "720.00"), chromedp.Click(chromedp.ID("correct-submit")))
	redistest.Eventually(t, 30*time.Second, func() bool {
		return strings.Contains(text("h1"), "acme:inv-brightwater:v2") && text("#state") == "succeeded"
	}, "the new version succeeds (the page reloads itself while it runs)")
	require.Equal(t, "720.00 GBP", text("#f-total"))
	require.NotContains(t, text("#result-lines tfoot"), "Discount", "the discount is gone")
	require.Contains(t, text("#f-charges"), "removed by a correction")
	require.Contains(t, text("#result-rates"), "20 %")
	require.Contains(t, text("#result-rates caption"), "corrected")
	require.Contains(t, text("#result-lines tfoot"), "checked", "the total's check vouches for the amounts read")
	shoot(t, ctx, "charges-succeeded")

	redistest.Eventually(t, 30*time.Second, func() bool {
		_, err := l.store.GetReview(context.Background(), key(t, "acme:inv-brightwater:v2"))
		return err == nil
	}, "review created")
	do(chromedp.Navigate(l.url+"/console/reviews/acme:inv-brightwater:v2"), chromedp.WaitVisible(chromedp.ID("approve")))
	require.Contains(t, text("#legend"), "read, not checked")
	require.Contains(t, text("#doctype"), "debit 720.00 GBP")
	do(chromedp.Click(chromedp.CSS("#correct-review summary")), chromedp.WaitVisible(chromedp.ID("field-taxBreakdown")))
	require.Equal(t, "120.00", value("tx-0-taxAmount"), "the approval's form holds the same fields")
	require.Contains(t, text("#field-taxBreakdown legend"), "corrected")
	shoot(t, ctx, "charges-review")
	do(chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("decided")))

	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	require.NoError(t, err)
	require.Empty(t, violations, "nothing the policy refused")
	require.Zero(t, external.Load(), "no request left the test server")
}

// The same supplier PDF arrives twice, under two document IDs: the second
// review shows the first and what matched, the list marks it, and the
// operator approves it only by confirming, in the box that names the
// first, that it is not a duplicate.
func TestBrowser_Console_PossibleDuplicate(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second, chromedp.WindowSize(1280, 1000))
	l := startLive(t)
	first := l.submit(t, "mail-4411", "valid-basic-eur.txt")
	l.await(t, first, jobs.StateSucceeded)
	redistest.Eventually(t, 30*time.Second, func() bool {
		_, err := l.store.GetReview(context.Background(), first)
		return err == nil
	}, "the first review")
	second := l.submit(t, "scan-0093", "valid-basic-eur.txt")
	var rv *jobs.Review
	redistest.Eventually(t, 30*time.Second, func() bool {
		var err error
		rv, err = l.store.GetReview(context.Background(), second)
		return err == nil
	}, "the second review")
	require.NotNil(t, rv.Match, "the second is marked")
	require.Equal(t, jobs.DuplicateStrong, rv.Match.Strength)

	var external atomic.Int64
	signIn(t, ctx, strings.TrimPrefix(l.url, "http://"), alice, &external)
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("`+sel+`") || {}).textContent || ""`))
		require.NoError(t, err, sel)
		return v
	}
	_, do := browserSteps(t, ctx)

	do(chromedp.Navigate(l.url + "/console/reviews"))
	require.Contains(t, text("#reviews tbody tr:nth-child(2)"), "possible duplicate", "the list marks the second")
	require.NotContains(t, text("#reviews tbody tr:nth-child(1)"), "duplicate")
	do(chromedp.Click(chromedp.CSS("#reviews tbody tr:nth-child(2) a")), chromedp.WaitVisible(chromedp.ID("duplicate")))
	require.Equal(t, first.String(), text("#duplicate-of"))
	require.Contains(t, text("#duplicate"), "number")
	shoot(t, ctx, "duplicate-review")

	do(chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.CSS(".problem")))
	require.Contains(t, text(".problem"), "may be a duplicate of "+first.String())
	do(chromedp.Click(chromedp.CSS(`[name="notDuplicateOf"]`)), chromedp.Click(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("decided")))
	require.Contains(t, text("#decided"), "approved")

	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	require.NoError(t, err)
	require.Empty(t, violations, "nothing the policy refused")
	require.Zero(t, external.Load(), "no request left the test server")
}
