package rules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func classifyText(content string) string { return classifyContent(content).DocumentType }

func TestClassify_TitlesDecide(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"invoice title", "INVOICE\nTotal: 10.00", extract.DocInvoice},
		{"tax invoice with a number", "TAX INVOICE INV-0042\nTotal: 10.00", extract.DocInvoice},
		{"letter-spaced", "I N V O I C E\nTotal: 10.00", extract.DocInvoice},
		{"heading without its space", "# TAXINVOICE\n**Total:** 10.00", extract.DocInvoice},
		{"proforma invoice", "Proforma Invoice PF-7\nTotal: 10.00", extract.DocQuote},
		{"order confirmation", "Order confirmation\nOrder number: 400-2213\nOrder total: 10.00", extract.DocOther},
		{"markdown heading", "# Invoice INV-2026-014\n**Total:** 10.00", extract.DocInvoice},
		{"e-mail subject", "From: Acme <a@acme.example>\nSubject: Invoice 4471 from Acme Co.\n\nAmount due: 10.00", extract.DocInvoice},
		{"bilingual", "請求書 / INVOICE\nTotal ¥1,000", extract.DocInvoice},
		{"no title, number and total labels", "Acme Ltd\nInvoice No: 77\nTotal: 10.00", extract.DocInvoice},
		{"purchase order mentioning invoices", "PURCHASE ORDER PO-5521\nTotal: 628.97\nPlease quote the PO number on your invoice.", extract.DocPurchaseOrder},
		{"quote with a total", "QUOTATION Q-7\nTotal: $542.00\nThis quote is valid until 28 February 2026.", extract.DocQuote},
		{"pro forma invoice", "PRO FORMA INVOICE\nTotal: 10.00", extract.DocQuote},
		{"estimate", "Estimate #12\nTotal: 10.00", extract.DocQuote},
		{"credit note referring to an invoice", "CREDIT NOTE CN-0042\nOriginal invoice: 50-1187\nTotal credit: 10.00", extract.DocCreditNote},
		{"statement listing invoices", "STATEMENT OF ACCOUNT\nInvoice KL-1 288.00\nBalance due: 154.80", extract.DocStatement},
		{"receipt", "RECEIPT #41\nTOTAL 6.75\nCash tendered 10.00\nChange due 3.25", extract.DocReceipt},
		{"receipt for an invoice", "Payment receipt for invoice 4471\nAmount paid: 10.00", extract.DocReceipt},
		{"memo", "MEMO\nTo: All\nInvoices above a total of 5,000.00 need approval.", extract.DocOther},
		{"a reply about an invoice", "From: AP <ap@x.example>\nSubject: Re: Invoice 4471\n\nThe total of $10.00 is wrong?", extract.DocOther},
		{"an approval request for an invoice", "From: Jo <jo@x.example>\nSubject: Approval needed: invoice PN-1126 from Priya\n\nThe total is $3,900.00.", extract.DocOther},
		{"a query about an invoice", "Query about invoice 4471\nTotal: 10.00", extract.DocOther},
		{"an invoice about an approval", "Invoice 4471 – approval drawings\nTotal: 10.00", extract.DocInvoice},
		{"a list of open invoices", "OPEN INVOICES as at 30/11/2026\nSupplier   Invoice No.   Amount\nAcme   2041   £1,234.00\nTotal outstanding £1,234.00", extract.DocOther},
		{"an invoice summary", "INVOICE SUMMARY - NOVEMBER 2026\nInvoice No. 2041\nTotal invoiced: £1,234.00", extract.DocOther},
		{"a request for an invoice", "Invoice request - logo project\nPlease send us an invoice for £1,234.00.", extract.DocOther},
		{"an invoice from a mailbox named invoices", "ACME LTD\ninvoices@acme.example\n\nINVOICE\nInvoice No: 7\nTotal: 10.00", extract.DocInvoice},
		{"credit invoice", "CREDIT INVOICE CI-7\nOriginal invoice: 2041\nTotal: -10.00", extract.DocCreditNote},
		{"meeting notes mentioning an invoice", "Notes: procurement sync\nDate: 28/09/2025\n\n1. Supplier invoices\nInvoice INV-2025-0379 from Shannon DAC (total\n€2,322.66) is disputed.\n", extract.DocOther},
		{"a bill", "BILL\nBill No: 4471\nTotal: £730.00", extract.DocInvoice},
		{"a utility bill", "Your electricity bill\nBill number  BSE-77\nTotal amount due  £117.64", extract.DocInvoice},
		{"bill to is no title", "BILL TO\nAcme Ltd\nTotal: 10.00", extract.DocOther},
		{"an order summary", "Order summary\nOrder number: 400-2213\nInvoice No: 2041\nTotal: £10.00", extract.DocOther},
		{"payment reminder", "Reminder: overdue invoice\nInvoice: 2025/1413\nAmount outstanding: $2,163.81", extract.DocOther},
		{"empty", "", extract.DocOther},
		{"whitespace", " \n\t\n ", extract.DocOther},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, classifyText(tt.doc), tt.name)
	}
}

func TestClassify_StrongMarkersOverruleAnInvoiceTitle(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"a card slip that says invoice", "THE LANTERN BISTRO\nInvoice #: 88213\nTotal 37.50\nAUTH CODE: 093311\nPAID", extract.DocReceipt},
		{"an invoice stamped paid in full", "INVOICE 12\nTotal: 10.00\nPaid in full", extract.DocReceipt},
		{"an invoice with opening and closing balances", "INVOICE\nOpening balance 0.00\nClosing balance 10.00", extract.DocStatement},
		{"an invoice with a quote reference stays an invoice", "INVOICE 12\nQuote ref: Q-1\nTotal: 10.00", extract.DocInvoice},
		{"an invoice whose discount is valid until a date stays one", "INVOICE 12\nTotal: 10.00\nEarly payment discount valid until 1 May", extract.DocInvoice},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, classifyText(tt.doc), tt.name)
	}
}

func TestClassify_SignalsNeverQuoteTheDocument(t *testing.T) {
	t.Parallel()
	c := classifyContent("INVOICE SECRET-4711\nInvoice No: SECRET-4711\nTotal: 1.00\nChange due 0.00")
	for _, s := range c.Signals {
		require.NotContains(t, s, "SECRET")
		require.Regexp(t, `^[a-z_]+$`, s)
	}
}

// findMarkerByLine is findMarker as first written, line by line: the
// reference of the single-text search.
func findMarkerByLine(d *document) string {
	for i := range d.lines {
		t := strings.ToLower(strings.TrimSpace(d.lines[i].text))
		if t == "" {
			continue
		}
		if t == "paid" || t == "*** paid ***" || t == "status: paid" || t == "payment status: paid" {
			return extract.DocReceipt
		}
		padded := " " + t + " "
		for _, m := range markers {
			if containsWord(padded, m.phrase) {
				return m.docType
			}
		}
	}
	return ""
}

func TestFindMarker_AgreesWithTheLineByLineSearch(t *testing.T) {
	t.Parallel()
	docs := []string{
		"Invoice\nPAID\nChange due 1.00", "Change due 1.00\nPAID", "Valid until May\nOpening balance 3",
		"opening balance 1 valid until 2", "Status: PAID\nclosing balance", "x\n*** PAID ***", "statement\ndatechange due",
		"ÜBER change due", "tendered\n", "balance b/f 3", "quote validity", "", "\n\n",
		"Valid until May, change due 3", "Statement date 1\nAUTH CODE 2", "x\nthis quote: tendered\nchange due",
	}
	for _, g := range goldenDocs(t) {
		docs = append(docs, g.text)
	}
	for _, doc := range docs {
		d := parseDocument(doc)
		require.Equal(t, findMarkerByLine(d), findMarker(d, false), "%q", doc)
	}
}

// firstByWordIndex is the search phraseSet replaces: the smallest wordIndex
// of all phrases, ties to the phrase listed first.
func firstByWordIndex(s string, phrases []string) (int, int) {
	at, which := -1, -1
	for k, p := range phrases {
		if j := wordIndex(s, p); j >= 0 && (at < 0 || j < at) {
			at, which = j, k
		}
	}
	return at, which
}

func TestPhraseSet_FindsWhatOneSearchPerPhraseFinds(t *testing.T) {
	t.Parallel()
	for _, set := range []*phraseSet{docKeywordSet, markerSet} {
		pieces := []string{" ", "-", "x", "s", "é", "1", "\n"}
		for _, p := range set.phrases {
			pieces = append(pieces, p, p[:len(p)/2+1])
		}
		r := rand.New(rand.NewPCG(9, 10))
		for range 20000 {
			s := randomText(r, pieces, 1+r.IntN(8))
			wantAt, wantK := firstByWordIndex(s, set.phrases)
			gotAt, gotK := set.first(s)
			require.Equal(t, [2]int{wantAt, wantK}, [2]int{gotAt, gotK}, "%q", s)
		}
	}
}
