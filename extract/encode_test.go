package extract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkEncode requires the hand-written encoders to write what json.Marshal
// writes for c, x and inv.
func checkEncode(t *testing.T, c Classification, x Extraction, inv Invoice) {
	want, err := json.Marshal(c)
	require.NoError(t, err)
	got, err := MarshalClassification(c)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	want, err = json.Marshal(x)
	require.NoError(t, err)
	got, err = MarshalExtraction(x)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	want, err = json.Marshal(inv)
	require.NoError(t, err)
	got, err = marshalInvoice(inv)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// valuesOf fills every field of the three outputs from parts, in turn,
// leaving a field empty where its part is "" (so that omitempty is walked).
func valuesOf(parts []string, n int64) (Classification, Extraction, Invoice) {
	at := func(i int) string { return parts[i%len(parts)] }
	c := Classification{DocumentType: at(0)}
	if at(1) != "" {
		c.Signals = []string{at(1), at(2)}
	}
	x := Extraction{DocumentType: at(0), InvoiceNumber: at(1), Vendor: at(2), IssueDate: at(3), Currency: at(4),
		Subtotal: at(5), Tax: at(6), TaxIncluded: n%2 == 1, Total: at(7),
		Source: Source{Extractor: at(8), Model: at(9), PromptTokens: n, CompletionTokens: -n}}
	if at(10) != "" {
		x.LineItems = []ExtractedLine{{Description: at(10), Quantity: at(11), UnitPrice: at(12), Amount: at(13)}, {Amount: at(14)}, {}}
		x.Charges = []Charge{{Kind: at(15), Amount: at(16)}}
		x.Problems = []string{at(17)}
	}
	inv := Invoice{DocumentType: at(0), InvoiceNumber: at(1), Vendor: at(2), IssueDate: at(3), Currency: at(4),
		Subtotal: at(5), Tax: at(6), TaxIncluded: n%2 == 0, Total: at(7), Source: x.Source}
	switch n % 3 {
	case 1:
		inv.LineItems = []LineItem{}
	case 2:
		inv.LineItems = []LineItem{{Description: at(10), Quantity: at(11), UnitPrice: at(12), Amount: at(13)}}
		inv.Charges = []Charge{{Kind: at(15), Amount: at(16)}, {}}
	}
	return c, x, inv
}

func TestEncoders_WriteWhatJSONMarshalWrites(t *testing.T) {
	t.Parallel()
	for _, parts := range [][]string{
		{"invoice", "INV-1", "Acme GmbH", "2026-03-03", "EUR", "10.00", "1.90", "11.90", "rules", "", "Widget", "2", "5.00", "10.00"},
		{""}, {"a", ""}, {"<b>", "x&y", "\"q\"", "back\\slash", "tab\t", "\u2028", "\u2029", "\xff", "é", "€", "\u007f", "\ufffd"},
		{"Straße", "東京", "", "line\nbreak", "ok"},
	} {
		for n := int64(0); n < 6; n++ {
			c, x, inv := valuesOf(parts, n)
			checkEncode(t, c, x, inv)
		}
	}
}

func TestMarshalExtraction_KeepsThePaymentTermsAndThePrecedingInvoice(t *testing.T) {
	t.Parallel()
	for _, x := range []Extraction{
		{DocumentType: DocCreditNote, InvoiceNumber: "GS-7", PrecedingInvoice: "RE-6"},
		{DocumentType: DocInvoice, DueDate: "2026-04-01", PaidAmount: "1.00", Rounding: "0.01", AmountDue: "2.01"},
		{DocumentType: DocInvoice, TaxBreakdown: []TaxSubtotal{{Rate: "19", TaxAmount: "1.90"}}, AccountingTax: &AccountingTax{Currency: "EUR", Amount: "1.00"}},
		{DocumentType: DocInvoice, Seller: []PartyID{{Scheme: IDVAT, ID: "DE123456789"}}, Flags: []string{"f"}},
	} {
		want, err := json.Marshal(x)
		require.NoError(t, err)
		got, err := MarshalExtraction(x)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

func FuzzEncoders_MatchJSONMarshal(f *testing.F) {
	f.Add("invoice|INV-1|Acme|2026-03-03|EUR|10.00|1.90|11.90|rules||Widget|2|5.00|10.00", int64(3))
	f.Add("<a>|\"|\\|\x00|\xff|\u2028", int64(0))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		c, x, inv := valuesOf(strings.Split(s, "|"), n)
		checkEncode(t, c, x, inv)
	})
}
