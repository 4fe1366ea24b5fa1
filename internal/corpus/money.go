package corpus

import (
	"fmt"
	"math/big"
	"strings"
)

// currency is an ISO 4217 currency as invoices write it.
type currency struct {
	code     string
	decimals int
	// symbol is what suppliers put next to an amount instead of the code;
	// glued symbols ("£912.40") have glued set, word symbols ("BD 1.250",
	// "1 234,00 kr") are written with a space.
	symbol string
	glued  bool
	// milli scales a price in euros to a plausible price in this currency
	// (thousandths: 860 makes €1.00 into £0.86); step is the smallest step,
	// in minor units, prices are quoted in.
	milli int64
	step  int64
}

// currencies are the currencies the generator writes invoices in.
var currencies = map[string]currency{
	"GBP": {code: "GBP", decimals: 2, symbol: "£", glued: true, milli: 860, step: 1},
	"EUR": {code: "EUR", decimals: 2, symbol: "€", glued: true, milli: 1000, step: 1},
	"USD": {code: "USD", decimals: 2, symbol: "$", glued: true, milli: 1080, step: 1},
	"AUD": {code: "AUD", decimals: 2, symbol: "$", glued: true, milli: 1650, step: 1},
	"CAD": {code: "CAD", decimals: 2, symbol: "$", glued: true, milli: 1470, step: 1},
	"SGD": {code: "SGD", decimals: 2, symbol: "S$", glued: true, milli: 1450, step: 1},
	"JPY": {code: "JPY", decimals: 0, symbol: "¥", glued: true, milli: 160000, step: 10},
	"BHD": {code: "BHD", decimals: 3, symbol: "BD", milli: 410, step: 5},
	"KWD": {code: "KWD", decimals: 3, symbol: "KD", milli: 330, step: 5},
	"CHF": {code: "CHF", decimals: 2, symbol: "CHF", milli: 950, step: 5},
	"SEK": {code: "SEK", decimals: 2, symbol: "kr", milli: 11400, step: 100},
	"DKK": {code: "DKK", decimals: 2, symbol: "kr.", milli: 7460, step: 25},
	"PLN": {code: "PLN", decimals: 2, symbol: "zł", milli: 4300, step: 1},
	// Known to the truth of hand-written documents only.
	"INR": {code: "INR", decimals: 2, symbol: "₹", glued: true, milli: 90000, step: 100},
}

// currencyDecimals returns the minor-unit digits of an ISO code the corpus
// knows, and whether it knows it.
func currencyDecimals(code string) (int, bool) {
	c, ok := currencies[code]
	return c.decimals, ok
}

// pow10 returns 10^n for the small n of minor units and quantities.
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// divRound divides n by d (d > 0) rounding half away from zero: the
// commercial rounding of tax and line amounts.
func divRound(n, d int64) int64 {
	if n < 0 {
		return -divRound(-n, d)
	}
	return (n + d/2) / d
}

// canonical writes minor units as the truth's decimal string: an optional
// '-', digits, and exactly decimals fraction digits ("912.40", "20420",
// "396.250").
func canonical(minor int64, decimals int) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	if decimals == 0 {
		return fmt.Sprintf("%s%d", sign, minor)
	}
	p := pow10(decimals)
	return fmt.Sprintf("%s%d.%0*d", sign, minor/p, decimals, minor%p)
}

// canonicalQty writes a quantity in hundredths without trailing zeros
// ("3", "9.5", "5.25").
func canonicalQty(q100 int64) string {
	s := canonical(q100, 2)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// numStyle is how a document groups thousands and marks decimals.
type numStyle struct {
	group string // "," "." " " or "" (no grouping)
	dec   string // "." or ","
}

var (
	numEnglish     = numStyle{group: ",", dec: "."}
	numPlain       = numStyle{group: "", dec: "."}
	numContinental = numStyle{group: ".", dec: ","}
	numSpaced      = numStyle{group: " ", dec: ","}
)

// amount writes |minor| in the style, with decimals fraction digits.
func (s numStyle) amount(minor int64, decimals int) string {
	if minor < 0 {
		minor = -minor
	}
	p := pow10(decimals)
	whole := fmt.Sprintf("%d", minor/p)
	if s.group != "" {
		var b strings.Builder
		for i, c := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteString(s.group)
			}
			b.WriteRune(c)
		}
		whole = b.String()
	}
	if decimals == 0 {
		return whole
	}
	return fmt.Sprintf("%s%s%0*d", whole, s.dec, decimals, minor%p)
}

// qty writes a quantity in hundredths as suppliers do: "3", "9.5", "5,25".
func (s numStyle) qty(q100 int64) string {
	return strings.Replace(canonicalQty(q100), ".", s.dec, 1)
}

// rate writes a tax rate in basis points: "20", "8.25", "8,1".
func (s numStyle) rate(bp int64) string {
	return s.qty(bp)
}

// placement is where a document puts the currency next to an amount.
type placement int

const (
	placeBare        placement = iota // 912.40
	placeSymbol                       // £912.40, BD 912.400
	placeSymbolSpace                  // € 912,40
	placeSymbolAfter                  // 912,40 €, 1 234,00 kr
	placeCodeBefore                   // GBP 912.40
	placeCodeAfter                    // 912.40 GBP
)

// money is one document's way of writing amounts.
type money struct {
	cur    currency
	num    numStyle
	place  placement
	parens bool // negative amounts in parentheses (US accounting style)
}

// format writes minor units with the document's currency placement.
func (m money) format(minor int64) string {
	n := m.num.amount(minor, m.cur.decimals)
	var s string
	switch m.place {
	case placeSymbol:
		if m.cur.glued {
			s = m.cur.symbol + n
		} else {
			s = m.cur.symbol + " " + n
		}
	case placeSymbolSpace:
		s = m.cur.symbol + " " + n
	case placeSymbolAfter:
		s = n + " " + m.cur.symbol
	case placeCodeBefore:
		s = m.cur.code + " " + n
	case placeCodeAfter:
		s = n + " " + m.cur.code
	default:
		s = n
	}
	if minor >= 0 {
		return s
	}
	if m.parens {
		return "(" + s + ")"
	}
	return "-" + s
}

// bare is the same document's number without any currency mark.
func (m money) bare(minor int64) string {
	c := m
	c.place = placeBare
	return c.format(minor)
}

// showsCurrency reports whether format marks the currency.
func (m money) showsCurrency() bool { return m.place != placeBare }

// showsCode reports whether format writes the ISO code.
func (m money) showsCode() bool { return m.place == placeCodeBefore || m.place == placeCodeAfter }

// decimal is an exact decimal number read from a truth string.
type decimal struct {
	unscaled *big.Int
	scale    int
}

// parseDecimal reads a canonical decimal string: an optional '-', digits,
// and optionally '.' and digits.
func parseDecimal(s string) (decimal, error) {
	body := strings.TrimPrefix(s, "-")
	whole, frac, hasDot := strings.Cut(body, ".")
	if whole == "" || (hasDot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return decimal{}, fmt.Errorf("%q is not a canonical decimal", s)
	}
	u, _ := new(big.Int).SetString(whole+frac, 10)
	if strings.HasPrefix(s, "-") {
		u.Neg(u)
	}
	return decimal{unscaled: u, scale: len(frac)}, nil
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseMinor reads a canonical amount with exactly decimals fraction digits
// into minor units.
func parseMinor(s string, decimals int) (*big.Int, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return nil, err
	}
	if d.scale != decimals {
		return nil, fmt.Errorf("%q has %d decimals, the currency %d", s, d.scale, decimals)
	}
	return d.unscaled, nil
}
