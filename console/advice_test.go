package console

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
)

func TestNotInvoiceAdvice_SaysWhatTheClassifierFoundAndMissed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, doc string
		want      []string
		not       []string
	}{
		{"a memo with a number label", "Memo\nRef: 77-4410\nInvoice No.: 77-4410\nPaper 10.00\n",
			[]string{"found a title that names it another kind of document"},
			nil},
		{"nothing at all", "Hello,\nplease find the documents attached.\nRegards\n",
			[]string{"no invoice title in its first lines; no invoice-number label with a value; no total."},
			nil},
		{"a receipt", "RECEIPT\nCoffee 3.50\nTotal 3.50\nCash tendered 5.00\nChange due 1.50\n",
			[]string{"a title that names it a receipt, not an invoice", "wording typical of a receipt"},
			[]string{"no total"}},
		{"an invoice title overruled", "INVOICE\nInvoice No.: 7\nStatement period: March\nOpening balance 10.00\nClosing balance 0.00\nTotal 10.00\n",
			[]string{"an invoice title", "wording typical of a statement"},
			nil},
		{"empty", "  \n\t\n", []string{"The document is empty"}, []string{"The classifier takes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := rules.ClassifyText(tt.doc)
			require.NotEqual(t, extract.DocInvoice, c.DocumentType, "the case is a rejection: %+v", c)
			got := notInvoiceAdvice(c)
			for _, w := range tt.want {
				require.Contains(t, got, w)
			}
			for _, w := range tt.not {
				require.NotContains(t, got, w)
			}
			// The advice is made of fixed phrases: no word of the document
			// that the fixed text lacks (these documents' own words).
			for _, w := range []string{"Memo", "77-4410", "Coffee", "Hello", "March", "3.50"} {
				require.NotContains(t, got, w)
			}
		})
	}
}

func TestNotInvoiceAdvice_WithoutATitle_NamesEachLabelFoundOrMissing(t *testing.T) {
	t.Parallel()
	for signals, want := range map[string]string{
		"invoice_number_label": "no invoice title in its first lines; an invoice-number label with a value; no total.",
		"total_label":          "no invoice title in its first lines; no invoice-number label with a value; a total.",
		"marker_quote":         "no invoice title in its first lines; no invoice-number label with a value; no total; wording typical of a quote.",
	} {
		got := notInvoiceAdvice(extract.Classification{DocumentType: extract.DocOther, Signals: []string{signals}})
		require.Contains(t, got, "In this document it found "+want, signals)
	}
}
