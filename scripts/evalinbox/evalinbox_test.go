package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/scripts/realcorpus"
)

// TestInboxReplay_TwoSuppliers_MeetTheTargets replays two suppliers of the
// real corpus through the real api and worker binaries on a throwaway
// redis-server, with supplier profiles on and off, as `make eval-inbox`
// replays them all: kelpie-hosting-au (five invoices, one a deliberate
// duplicate) and tinyzimmertech-us (an invoice the rules reject, whose
// clerk types its discount and tax). Every target holds in both runs: no
// correction refused, none accepted that failed, no 429, no committed
// field that differs from the truth, no unexpected answer, and with
// profiles the later documents go through untouched. It builds the
// binaries and starts processes: skipped with -short, and loudly without
// redis-server or pdfdetach (a failure instead under
// RELAYOPS_REQUIRE_REDIS=1 or RELAYOPS_REQUIRE_QPDF=1).
func TestInboxReplay_TwoSuppliers_MeetTheTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the api and worker and replays real PDFs through them: skipped with -short")
	}
	requireTool(t, "redis-server", "redis-server", "RELAYOPS_REQUIRE_REDIS")
	requireTool(t, "pdfdetach", "poppler-utils", "RELAYOPS_REQUIRE_QPDF")
	opt := options{root: "../..", only: []string{"kelpie-hosting-au", "tinyzimmertech-us"}, profiles: []string{"on", "off"},
		verbose: true, timeout: time.Minute, learnWait: 2 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var report, progress strings.Builder
	runs, err := replays(ctx, opt, &progress)
	stopAll(runs)
	require.NoError(t, err, progress.String())
	require.Len(t, runs, 2)
	met := printReport(&report, opt, runs)
	t.Log("\n" + progress.String() + report.String())
	require.True(t, met, "a target is MISSED:\n%s", report.String())
	for _, r := range runs {
		var total tally
		for _, o := range r.outcomes {
			total.add(o)
		}
		require.Equal(t, 6, total.docs, "profiles %s", r.profiles)
		require.Equal(t, 1, total.corrections, "profiles %s: the rejected invoice is corrected", r.profiles)
		require.Zero(t, total.refused, "profiles %s", r.profiles)
		require.Zero(t, total.failed, "profiles %s", r.profiles)
		require.Zero(t, total.falseSuccesses, "profiles %s", r.profiles)
		require.Zero(t, total.rateLimited, "profiles %s", r.profiles)
		require.Zero(t, total.problems, "profiles %s", r.profiles)
		require.Equal(t, 1, total.caught, "profiles %s: the duplicate is marked and rejected", r.profiles)
		require.Equal(t, total.booked, total.approved+total.caught, "profiles %s: every booked document ends approved or a caught duplicate", r.profiles)
	}
}

// requireTool skips the test when the program is missing, loudly, or
// fails it when the variable requires the tool.
func requireTool(t *testing.T, name, pkg, requireEnv string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	msg := fmt.Sprintf("%s not found on PATH; install it (apt-get install -y %s)", name, pkg)
	if required, _ := strconv.ParseBool(os.Getenv(requireEnv)); required {
		t.Fatalf("%s and %s=1", msg, requireEnv)
	}
	fmt.Fprintln(os.Stderr, "WARNING: "+msg+" — SKIPPING the inbox replay test")
	t.Skip(msg + " — SKIPPING")
}

// TestInbox_OrdersBySupplier_MarksLaterAndFollowedDocuments: the inbox
// keeps a supplier's documents together in file order; a booked document
// after the supplier's first is later, one a booked document of its
// supplier follows is next; a non-invoice is neither.
func TestInbox_OrdersBySupplier_MarksLaterAndFollowedDocuments(t *testing.T) {
	t.Parallel()
	doc := func(file, supplier, typ string) realcorpus.Document {
		return realcorpus.Document{File: file, Truth: realcorpus.Truth{DocumentType: typ, Supplier: supplier}}
	}
	docs := []realcorpus.Document{
		doc("testdata/real/a/acme-01.pdf", "acme", realcorpus.DocInvoice),
		doc("testdata/real/a/blue-01.pdf", "blue", realcorpus.DocInvoice),
		doc("testdata/real/a/acme-02.pdf", "acme", realcorpus.DocInvoice),
		doc("testdata/real/a/receipt.pdf", "", "receipt"),
		doc("testdata/real/a/acme-03.pdf", "acme", realcorpus.DocCreditNote),
	}
	items, err := inbox(docs, nil)
	require.NoError(t, err)
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s later=%t next=%t", it.documentID, it.later, it.next))
	}
	require.Equal(t, []string{
		"real.a.acme-01 later=false next=true",
		"real.a.acme-02 later=true next=true",
		"real.a.acme-03 later=true next=false",
		"real.a.blue-01 later=false next=false",
		"real.a.receipt later=false next=false",
	}, got)

	_, err = inbox(docs, []string{"nobody"})
	require.ErrorContains(t, err, `"nobody"`)
	items, err = inbox(docs, []string{"blue"})
	require.NoError(t, err)
	require.Len(t, items, 1)
}

// TestTruthCorrections_TypesWhatThePagePrints: the clerk's correction holds
// every value the truth gives, a vouched field the page does not state as
// a removal, the charges, and the type of a corrective invoice.
func TestTruthCorrections_TypesWhatThePagePrints(t *testing.T) {
	t.Parallel()
	tr := realcorpus.Truth{DocumentType: realcorpus.DocCorrectiveInvoice, InvoiceNumber: "#A_17", Total: "-8.79",
		Tax: "-1.40", Fields: []string{"invoiceNumber", "total", "issueDate"}}
	tr.Charges = append(tr.Charges, struct {
		Kind   string `json:"kind,omitempty"`
		Amount string `json:"amount"`
		Reason string `json:"reason,omitempty"`
	}{Kind: "discount", Amount: "1.00"})
	c := truthCorrections(tr)
	require.Equal(t, map[string]any{"invoiceNumber": "#A_17", "total": "-8.79", "tax": "-1.40", "issueDate": "",
		"charges": []map[string]string{{"kind": "discount", "amount": "1.00"}}, "documentType": realcorpus.DocCorrectiveInvoice}, c)
}
