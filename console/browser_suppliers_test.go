package console_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/browsertest"
)

// An operator finds a supplier's profile from the header, reads where it
// finds each field, and forgets it; the list then says so and the
// supplier audit holds the deletion with the operator's name.
func TestBrowser_Console_SupplierProfile_OpenAndForget(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second, chromedp.WindowSize(1280, 900))
	l := startLive(t)
	id := learned(t, l.suppliers, "acme", kuehnKeys, "acme:inv-7:v2", "acme:inv-9:v1")

	var external atomic.Int64
	signIn(t, ctx, strings.TrimPrefix(l.url, "http://"), alice, &external)
	text, do := browserSteps(t, ctx)

	// The header leads to the tenants; acme's list holds the profile.
	do(chromedp.Navigate(l.url+"/console/"), chromedp.WaitVisible(chromedp.ID("nav-suppliers")),
		chromedp.Click(chromedp.ID("nav-suppliers")), chromedp.WaitVisible(chromedp.ID("choose-tenant")),
		chromedp.Click(chromedp.CSS(`#choose-tenant a[href$="tenant=acme"]`)), chromedp.WaitVisible(chromedp.ID("suppliers")))
	row := text("#suppliers tbody tr:first-child")
	require.Contains(t, row, id)
	require.Contains(t, row, "Kühn Metallbau GmbH")
	require.Contains(t, row, "not flagged")
	shoot(t, ctx, "suppliers")

	// The profile says where each field is, in words, and what it learned from.
	do(chromedp.Click(chromedp.CSS("#suppliers tbody tr:first-child a")), chromedp.WaitVisible(chromedp.ID("anchors")))
	require.Equal(t, id, text("#supplier-id"))
	require.Contains(t, text(`#anchors li[data-field="total"]`),
		"total: right of 'Gesamtbetrag', on page 1, right side, written 1.234,56 €, learned from job acme:inv-7:v2, confirmed 1 time")
	require.Contains(t, text("#learned tbody"), "acme:inv-9:v1")
	shoot(t, ctx, "supplier")

	// Forget it: the box confirms, the button posts with the page's token.
	do(chromedp.Click(chromedp.ID("confirm-delete")), chromedp.Click(chromedp.ID("delete-submit")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, text(".notice"), "The profile "+id+" is forgotten")
	require.Contains(t, text("#suppliers tbody"), "No supplier profiles")
	deleted := text(`#supplier-audit tr[data-action="profile_deleted"]`)
	require.Contains(t, deleted, id)
	require.Contains(t, deleted, "alice")
	shoot(t, ctx, "supplier-deleted")

	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	require.NoError(t, err)
	require.Empty(t, violations, "nothing the policy refused")
	require.Zero(t, external.Load(), "no request left the test server")
}
