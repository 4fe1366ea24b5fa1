package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// currencySymbols maps the symbols written beside amounts to their codes,
// longest first so that "US$" wins over "$". A bare "$" stays "$": the
// document decides which dollar (resolveDollar).
var currencySymbols = []struct{ sym, code string }{
	{"US$", "USD"}, {"AU$", "AUD"}, {"CA$", "CAD"}, {"NZ$", "NZD"}, {"HK$", "HKD"}, {"SG$", "SGD"},
	{"MX$", "MXN"}, {"JP¥", "JPY"}, {"CN¥", "CNY"}, {"A$", "AUD"}, {"C$", "CAD"}, {"S$", "SGD"},
	{"R$", "BRL"}, {"Rs.", "INR"}, {"RMB", "CNY"}, {"zł", "PLN"}, {"Kč", "CZK"}, {"Rs", "INR"},
	{"Ft", "HUF"}, {"€", "EUR"}, {"£", "GBP"}, {"¥", "JPY"}, {"円", "JPY"}, {"₹", "INR"}, {"₩", "KRW"},
	{"₽", "RUB"}, {"₺", "TRY"}, {"₪", "ILS"}, {"₫", "VND"}, {"₱", "PHP"}, {"$", "$"},
	{"SFr.", "CHF"}, {"Fr.", "CHF"}, {"Dhs", "AED"}, {"BD", "BHD"}, {"KD", "KWD"}, {"RO", "OMR"},
	{"JD", "JOD"}, {"QR", "QAR"}, {"SR", "SAR"}, {"DT", "TND"}, {"kr.", "kr"}, {"kr", "kr"}, {"Kr", "kr"},
	// written out after an amount: "1,234.00 euros"
	{"euros", "EUR"}, {"Euros", "EUR"}, {"euro", "EUR"}, {"Euro", "EUR"}, {"EUROS", "EUR"}, {"EURO", "EUR"},
	{"dollars", "$"}, {"Dollars", "$"}, {"DOLLARS", "$"}, {"yen", "JPY"}, {"rupees", "INR"}, {"Rupees", "INR"},
	// last, so that "R$", "SR" and "QR" win: the South African rand ("R 1 234,56")
	{"R", "ZAR"},
}

// symbolsByFirst and symbolsByLast list, for each byte, the indexes in
// currencySymbols of the symbols that start or end with it, in the order of
// currencySymbols: a symbol is looked for among those alone.
var symbolsByFirst, symbolsByLast = func() (first, last [256][]int) {
	for i, c := range currencySymbols {
		first[c.sym[0]] = append(first[c.sym[0]], i)
		last[c.sym[len(c.sym)-1]] = append(last[c.sym[len(c.sym)-1]], i)
	}
	return first, last
}()

// letterSymbols are the symbols written in letters, without a final '.'.
var letterSymbols = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range currencySymbols {
		if isLetterByte(c.sym[0]) {
			m[strings.TrimSuffix(c.sym, ".")] = true
		}
	}
	return m
}()

// isCurrencyWord reports a word that names a currency beside an amount: an
// ISO code in any case or a symbol written in letters ("kr", "KD").
func isCurrencyWord(w string) bool {
	// Three runes at least make a code: a word of three bytes that is not
	// ASCII has fewer, and strings.ToUpper keeps the number of runes.
	if len(w) == 3 && isASCII(w) {
		var upper [3]byte
		for i := range upper {
			upper[i] = w[i]
			if isLowerByte(w[i]) {
				upper[i] -= 'a' - 'A'
			}
		}
		if isCurrencyCode(string(upper[:])) {
			return true
		}
	}
	return letterSymbols[strings.TrimSuffix(w, ".")]
}

// currencyBefore finds a currency symbol or code that ends t (the text
// right before an amount, spaces trimmed) and returns its code and length.
func currencyBefore(t string) (string, int) {
	if t == "" {
		return "", 0
	}
	for _, i := range symbolsByLast[t[len(t)-1]] {
		c := currencySymbols[i]
		if strings.HasSuffix(t, c.sym) && boundedBefore(t[:len(t)-len(c.sym)], c.sym) {
			if c.code == "$" { // "MXN $4,500.00": the code names the dollar
				u := strings.TrimRight(t[:len(t)-1], " ")
				if code, n := currencyBefore(u); n == 3 && isCurrencyCode(u[len(u)-3:]) {
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

// currencyAfter finds a currency symbol or code at the start of s (the
// text right after an amount, at most one space before it) and returns its
// code and the bytes it spans.
func currencyAfter(s string) (string, int) {
	skip := 0
	if strings.HasPrefix(s, " ") {
		skip = 1
	} else if strings.HasPrefix(s, "\u00a0") {
		skip = len("\u00a0")
	}
	t := s[skip:]
	if t == "" {
		return "", 0
	}
	for _, i := range symbolsByFirst[t[0]] {
		c := currencySymbols[i]
		if strings.HasPrefix(t, c.sym) && boundedAfter(t[len(c.sym):], c.sym) {
			return c.code, skip + len(c.sym)
		}
	}
	if len(t) >= 3 && isCurrencyCode(t[:3]) && boundedAfter(t[3:], "ABC") {
		return t[:3], skip + 3
	}
	return "", 0
}

// isCurrencyCode reports an upper-case ISO 4217 code.
func isCurrencyCode(s string) bool {
	if len(s) != 3 || !isUpperASCII(s) {
		return false
	}
	_, ok := extract.MinorUnits(s)
	return ok
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// boundedBefore: a symbol made of letters must not be the end of a word.
func boundedBefore(prefix, sym string) bool {
	if !isLetterByte(sym[0]) || prefix == "" {
		return true
	}
	return !isLetterByte(prefix[len(prefix)-1])
}

// boundedAfter: a symbol made of letters must not be the start of a word.
func boundedAfter(rest, sym string) bool {
	if !isLetterByte(sym[len(sym)-1]) || rest == "" {
		return true
	}
	return !isLetterByte(rest[0])
}
