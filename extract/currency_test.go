package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMinorUnits_CurrencyTable(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{"EUR": 2, "GBP": 2, "USD": 2, "JPY": 0, "KRW": 0, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3} {
		got, ok := MinorUnits(code)
		require.True(t, ok, code)
		require.Equal(t, want, got, code)
	}
	for _, bad := range []string{"XAU", "XTS", "eur", "EURO", ""} {
		_, ok := MinorUnits(bad)
		require.False(t, ok, bad)
	}
}

// currencyOf runs the evidence pass over a document.
func currencyOf(content string) string { return gatherEvidence(parseDocument(content)).currency() }

func TestEvidence_CurrencyFromTheDocument(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"a labelled code", "Currency: CHF\nTotal: 10.00", "CHF"},
		{"a labelled code in lower case", "Currency: eur\nTotal: 10.00", "EUR"},
		{"an unknown labelled code is kept for the validator", "Currency: EUX\nTotal: 10.00", "EUX"},
		{"a symbol before", "Total: £912.40", "GBP"},
		{"a symbol after", "Total: 1.234,56 €", "EUR"},
		{"a code after", "Total: 1,234.56 EUR", "EUR"},
		{"a code in a label", "Total (SEK)  12 500,00", "SEK"},
		{"the total line outweighs", "Deposit $10.00 CAD\nShipping £2.00\nShipping £3.00\nTotal: €5.00", "EUR"},
		{"a bare dollar is US", "Total: $10.00", "USD"},
		{"a dollar in Australia", "ABN 51 824 753 556\nSydney NSW 2000\nTotal: $10.00", "AUD"},
		{"a dollar in Canada", "GST/HST No. 1\nTotal: $10.00", "CAD"},
		{"a dollar named", "Total: C$10.00", "CAD"},
		{"a code before the dollar sign", "Total: MXN $21,692.00", "MXN"},
		{"euros written out", "Total: 1,234.00 euros", "EUR"},
		{"dollars written out in Canada", "Vancouver, British Columbia\nTotal: 1,234.00 dollars", "CAD"},
		{"a dollar in Canada written as USD", "Toronto, ON M5E 0A2\nCanada\nTotal: $49.00\nAmount due: $49.00 USD", "USD"},
		{"a dollar in Canada written as CAD and once USD", "Vancouver, BC\nTotal: $49.00 CAD\nDue: $49.00 CAD\nUS$1 = $1.38", "CAD"},
		{"krona from the domain", "billing@acme.se\nTotal: 100,00 kr", "SEK"},
		{"krona from a code", "NOK\nTotal: 100,00 kr", "NOK"},
		{"dinar words", "Total Due: KD 1,600.535", "KWD"},
		{"yen", "Total ¥178,200", "JPY"},
		{"no currency, a German vendor", "Lindner GmbH\nfinance@lindner.de\nTotal: 10,00", "EUR"},
		{"no currency, a US address", "Austin, TX 78701\nTotal: 10.00", "USD"},
		{"no currency at all", "Total: 10.00", ""},
		{"an English word is not a code", "ALL PRICES FINAL\nTotal: 10.00", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, currencyOf(tt.doc), tt.name)
	}
}
