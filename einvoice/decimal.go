package einvoice

import (
	"math/big"
	"strings"
)

// maxDecimalLen bounds the length of an amount or quantity string, so that
// arithmetic on hostile input stays cheap (xs:decimal has no bound of its own).
const maxDecimalLen = 40

// decimal is an exact decimal number, units / 10^scale. It never passes
// through a float.
type decimal struct {
	units *big.Int
	scale int
}

// canonicalDecimal returns the xs:decimal lexical form s in the canonical
// form the package stores (an optional '-', digits, an optional '.' and
// digits), keeping every decimal as written: "+12.50" → "12.50", ".5" →
// "0.5", "12." → "12", " 7 " → "7", "007" → "7". It reports false for anything that is not an
// xs:decimal ("12,50", "1e3", "").
func canonicalDecimal(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > maxDecimalLen {
		return "", false
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if (whole == "" && frac == "") || !digits(whole) || !digits(frac) {
		return "", false
	}
	if whole = strings.TrimLeft(whole, "0"); whole == "" {
		whole = "0"
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && strings.Trim(whole+frac, "0") != "" {
		out = "-" + out
	}
	return out, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseDecimal parses a canonical decimal (see canonicalDecimal).
func parseDecimal(s string) (decimal, bool) {
	c, ok := canonicalDecimal(s)
	if !ok {
		return decimal{}, false
	}
	whole, frac, _ := strings.Cut(c, ".")
	u, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return decimal{}, false
	}
	return decimal{units: u, scale: len(frac)}, true
}

func zero() decimal { return decimal{units: new(big.Int)} }

// rescale returns d with the given larger or equal scale.
func (d decimal) rescale(scale int) *big.Int {
	u := new(big.Int).Set(d.units)
	if scale > d.scale {
		u.Mul(u, pow10(scale-d.scale))
	}
	return u
}

func (d decimal) add(e decimal) decimal {
	s := max(d.scale, e.scale)
	return decimal{units: new(big.Int).Add(d.rescale(s), e.rescale(s)), scale: s}
}

func (d decimal) sub(e decimal) decimal { return d.add(e.neg()) }

func (d decimal) neg() decimal { return decimal{units: new(big.Int).Neg(d.units), scale: d.scale} }

func (d decimal) abs() decimal { return decimal{units: new(big.Int).Abs(d.units), scale: d.scale} }

func (d decimal) mul(e decimal) decimal {
	return decimal{units: new(big.Int).Mul(d.units, e.units), scale: d.scale + e.scale}
}

// cmp compares d and e as numbers: -1, 0 or +1.
func (d decimal) cmp(e decimal) int {
	s := max(d.scale, e.scale)
	return d.rescale(s).Cmp(e.rescale(s))
}

// round2 rounds to two decimals the way the EN 16931 Schematron does,
// round(x * 100) div 100 with XPath's fn:round: to the nearest, and a half
// towards positive infinity (2.345 → 2.35, -2.345 → -2.34).
func (d decimal) round2() decimal {
	if d.scale <= 2 {
		return decimal{units: d.rescale(2), scale: 2}
	}
	k := pow10(d.scale - 2)
	// floor((units + k/2) / k)
	n := new(big.Int).Add(d.units, new(big.Int).Rsh(k, 1))
	// big.Int's Div is Euclidean: for a positive divisor it is the floor.
	return decimal{units: n.Div(n, k), scale: 2}
}

// percentOf returns d × rate / 100.
func (d decimal) percentOf(rate decimal) decimal {
	p := d.mul(rate)
	p.scale += 2
	return p
}

func (d decimal) String() string {
	s := new(big.Int).Abs(d.units).String()
	if d.scale > 0 {
		if len(s) <= d.scale {
			s = strings.Repeat("0", d.scale-len(s)+1) + s
		}
		s = s[:len(s)-d.scale] + "." + s[len(s)-d.scale:]
	}
	if d.units.Sign() < 0 {
		return "-" + s
	}
	return s
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }
