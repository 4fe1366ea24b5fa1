package rules

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func readTestdata(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	require.NoError(t, err)
	return string(b)
}

// TestRules_TemptingDocuments_NeverCommitAWrongAmount runs documents built
// to tempt a false success (testdata/tempt, a regression suite written for
// the purpose, not real documents): each either succeeds with its true
// number and total or is rejected, never committed with another amount.
func TestRules_TemptingDocuments_NeverCommitAWrongAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, number, total string // total "" : must be rejected
	}{
		// the item table misses a line: 2,100 + 200 is not the stated 2,650
		{"partial-table.txt", "HL-2291", ""},
		// a deposit above "Amount due" and no total: the total is unknown
		{"deposit-paid-no-total.txt", "KJ-1042", ""},
		// the same with its total stated: the total, not the balance; a
		// retention-of-title clause and "Accounts Payable Dept." in the
		// address do not make it a receipt or a report
		{"deposit-paid-with-total.txt", "KJ-1043", "13200.00"},
		// "Summe dieser Seite" on page 1 of 2 is not the invoice's total
		{"page-total.txt", "NE-2026-118", ""},
		// the total is written in words only: the taxable value is no total
		{"sum-in-words.txt", "SGT/2025-26/0412", ""},
	}
	for _, tt := range tests {
		inv, err := run(t, readTestdata(t, "tempt", tt.file))
		if tt.total == "" {
			require.Error(t, err, tt.file)
			continue
		}
		require.NoError(t, err, tt.file)
		require.Equal(t, tt.number, inv.InvoiceNumber, tt.file)
		require.Equal(t, tt.total, inv.Total, tt.file)
	}
}

// TestRules_RealDocuments_NamedDefects runs the visible pages of real
// hybrid invoices (testdata/real: pdftotext -layout of the PDFs under
// testdata/einvoice, whose embedded XML gives the truth).
func TestRules_RealDocuments_NamedDefects(t *testing.T) {
	t.Parallel()
	t.Run("a totals block's first amount is never the total (Summe inkl. USt 571,04)", func(t *testing.T) {
		// Gnuaccounting's invoice once succeeded with 160.00, its first line.
		inv, err := run(t, readTestdata(t, "real", "MustangGnuaccountingBeispielRE-20170509_505.txt"))
		if err == nil {
			require.Equal(t, "571.04", inv.Total)
			return
		}
		requirePartial(t, err, "RE-20170509/505")
	})
	t.Run("NET A PAYER after an Acompte is not the total TTC", func(t *testing.T) {
		inv, err := run(t, readTestdata(t, "real", "Facture_F20180027.txt"))
		if err == nil {
			require.Equal(t, "110.00", inv.Total)
			return
		}
		requirePartial(t, err, "F20180027")
	})
	t.Run("a German visualisation titled HANDELSRECHNUNG (380) Nr. … vom … is read whole", func(t *testing.T) {
		inv, err := run(t, readTestdata(t, "real", "pdf_zf_en16931_1.txt"))
		require.NoError(t, err)
		require.Equal(t, "471102", inv.InvoiceNumber)
		require.Equal(t, "2018-03-05", inv.IssueDate)
		require.Equal(t, "529.87", inv.Total)
		require.Equal(t, "56.87", inv.Tax)
		ev := inv.Evidence["total"]
		require.Equal(t, extract.EvidenceText, ev.Source)
		require.Equal(t, 2, ev.Page) // the Belegsummen open page 2
		require.Equal(t, "Bruttosumme", ev.Label)
		require.Equal(t, 91, ev.Line)
	})
	for _, f := range []string{"EN16931_1_Teilrechnung.txt"} {
		t.Run("Bestellung Nr. Kunde: is a field, not a purchase order's title: "+f, func(t *testing.T) {
			inv, err := run(t, readTestdata(t, "real", f))
			if err == nil {
				require.Equal(t, "197.65", inv.Total)
				return
			}
			require.NotEqual(t, extract.ReasonNotAnInvoice, reasonOf(t, err))
		})
	}
}

// requirePartial requires err to be a content rejection that carries the
// partial extraction, with the invoice number read.
func requirePartial(t *testing.T, err error, number string) {
	t.Helper()
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej), "want a *Rejection, got %v", err)
	require.NotNil(t, rej.Extraction, "the rejection carries what was read")
	require.Equal(t, number, rej.Extraction.InvoiceNumber)
	require.NotEmpty(t, rej.Fields)
	require.NotEmpty(t, rej.Extraction.Evidence["invoiceNumber"].Label)
}
