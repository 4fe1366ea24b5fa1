package rules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
		{"no currency, an Argentine tax id", "CUIT 30-00000000-7\nTotal: 122,00", "ARS"},
		{"no currency, an Indian GSTIN", "GSTIN: 29ABCDE1234F1Z5\nTotal: 1,22,500.00", "INR"},
		{"no currency, a Belgian VAT id", "VAT : BE0000.000.196\nTotal: 484,00", "EUR"},
		{"no currency, an Austrian VAT id", "Unsere USt-ID-Nr.: ATU16090307\nGesamt: 10,00", "EUR"},
		{"no currency, a Swiss VAT id", "MWST-Nr. CHE-112.203.184 MWST\nTotal: 10.00", "CHF"},
		{"no currency, a UK VAT id first", "VAT Reg No: GB 123 4567 89\nCustomer VAT: DE123456789\nTotal: 10.00", "GBP"},
		{"no currency, a Canadian postal code", "8636 Sentinel Place\nNorth Saanich, BC V8L 4Z8\nTotal Due ($)  65.33", "CAD"},
		{"no currency at all", "Total: 10.00", ""},
		{"an English word is not a code", "ALL PRICES FINAL\nTotal: 10.00", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, currencyOf(tt.doc), tt.name)
	}
}

// The currency lookups as first written, scanning every symbol: the
// reference of the indexed ones.
func isCurrencyWordRef(w string) bool {
	if isCurrencyCode(strings.ToUpper(w)) && len(w) == 3 {
		return true
	}
	for _, c := range currencySymbols {
		if strings.TrimSuffix(c.sym, ".") == strings.TrimSuffix(w, ".") && isLetterByte(c.sym[0]) {
			return true
		}
	}
	return false
}

func currencyBeforeRef(t string) (string, int) {
	for _, c := range currencySymbols {
		if strings.HasSuffix(t, c.sym) && boundedBefore(t[:len(t)-len(c.sym)], c.sym) {
			if c.code == "$" {
				u := strings.TrimRight(t[:len(t)-1], " ")
				if code, n := currencyBeforeRef(u); n == 3 && isCurrencyCode(u[len(u)-3:]) {
					return code, len(t) - len(u) + n
				}
			}
			return c.code, len(c.sym)
		}
	}
	if len(t) >= 3 {
		code := t[len(t)-3:]
		if isCurrencyCode(code) && boundedBefore(t[:len(t)-3], code) {
			return code, 3
		}
	}
	return "", 0
}

func currencyAfterRef(s string) (string, int) {
	skip := 0
	if strings.HasPrefix(s, " ") {
		skip = 1
	} else if strings.HasPrefix(s, "\u00a0") {
		skip = len("\u00a0")
	}
	t := s[skip:]
	for _, c := range currencySymbols {
		if strings.HasPrefix(t, c.sym) && boundedAfter(t[len(c.sym):], c.sym) {
			return c.code, skip + len(c.sym)
		}
	}
	if len(t) >= 3 && isCurrencyCode(t[:3]) && boundedAfter(t[3:], "ABC") {
		return t[:3], skip + 3
	}
	return "", 0
}

func TestCurrencyLookups_AgreeWithTheFullScan(t *testing.T) {
	t.Parallel()
	pieces := []string{" ", "\u00a0", "$", "US", "€", "£", "kr", "Kr.", ".", "R", "S", "eur", "EUR", "usd", "Usd",
		"euros", "yen", "1", "a", "ſ", "ı", "K", "MXN", "₹", "Rs", "SFr", "zł", "¥", "JP", "x"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 30000 {
		s := randomText(r, pieces, r.IntN(5))
		require.Equal(t, isCurrencyWordRef(s), isCurrencyWord(s), "%q", s)
		wantCode, wantN := currencyBeforeRef(s)
		gotCode, gotN := currencyBefore(s)
		require.Equal(t, [2]any{wantCode, wantN}, [2]any{gotCode, gotN}, "%q", s)
		wantCode, wantN = currencyAfterRef(s)
		gotCode, gotN = currencyAfter(s)
		require.Equal(t, [2]any{wantCode, wantN}, [2]any{gotCode, gotN}, "%q", s)
	}
}
