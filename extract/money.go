package extract

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// Bounds that keep every sum and product of amounts inside int64: an amount
// is at most maxMinorUnits minor units (10^15, e.g. 10 trillion euros), a
// running sum at most maxSumUnits, and a decimal string at most
// maxDecimalDigits digits long.
const (
	maxMinorUnits    = int64(1e15)
	maxSumUnits      = int64(1e17)
	maxDecimalDigits = 24
	// maxQuantityScale bounds a quantity's or a unit price's decimals.
	maxQuantityScale = 6
)

// Errors of parsing a canonical decimal. They are internal: the validator
// maps them to reason codes naming the field, never quoting the value.
var (
	errNotDecimal   = errors.New("not a canonical decimal")
	errTooPrecise   = errors.New("more decimals than the currency has")
	errTooLarge     = errors.New("amount too large")
	errOverflowSum  = errors.New("sum too large")
	errNegativeZero = errors.New("negative zero")
)

// decimal is an exact decimal number: units / 10^scale.
type decimal struct {
	units int64
	scale int
}

// parseDecimal parses a canonical decimal string ("-1234.50", "9.5", "912"):
// an optional '-', digits, and an optional '.' followed by digits.
func parseDecimal(s string) (decimal, error) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	whole, frac, hasDot := strings.Cut(body, ".")
	if whole == "" || (hasDot && frac == "") || len(body) > maxDecimalDigits ||
		!allDigits(whole) || !allDigits(frac) {
		return decimal{}, errNotDecimal
	}
	digits := strings.TrimLeft(whole+frac, "0")
	if len(digits) > 18 {
		return decimal{}, errTooLarge
	}
	n := int64(0)
	if digits != "" {
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return decimal{}, errTooLarge
		}
		n = v
	}
	if neg {
		if n == 0 {
			return decimal{}, errNegativeZero
		}
		n = -n
	}
	return decimal{units: n, scale: len(frac)}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// toMinor converts a decimal to minor units of a currency with `minor`
// decimals. Extra decimals are accepted only when they are zeros.
func (d decimal) toMinor(minor int) (int64, error) {
	n, scale := d.units, d.scale
	for scale > minor {
		if n%10 != 0 {
			return 0, errTooPrecise
		}
		n /= 10
		scale--
	}
	for ; scale < minor; scale++ {
		if n > maxMinorUnits || n < -maxMinorUnits {
			return 0, errTooLarge
		}
		n *= 10
	}
	if n > maxMinorUnits || n < -maxMinorUnits {
		return 0, errTooLarge
	}
	return n, nil
}

// normalized drops trailing fractional zeros: 9.50 → 9.5, 3.000 → 3.
func (d decimal) normalized() decimal {
	for d.scale > 0 && d.units%10 == 0 {
		d.units /= 10
		d.scale--
	}
	return d
}

// String writes d with exactly d.scale decimals.
func (d decimal) String() string { return formatMinor(d.units, d.scale) }

// formatMinor writes n minor units with `minor` decimals: 91240, 2 → "912.40".
func formatMinor(n int64, minor int) string {
	neg := n < 0
	s := strconv.FormatInt(n, 10)
	if neg {
		s = s[1:]
	}
	if minor > 0 {
		if len(s) <= minor {
			s = strings.Repeat("0", minor-len(s)+1) + s
		}
		s = s[:len(s)-minor] + "." + s[len(s)-minor:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// addChecked adds b to a, failing past maxSumUnits either way.
func addChecked(a, b int64) (int64, error) {
	if (b > 0 && a > maxSumUnits-b) || (b < 0 && a < -maxSumUnits-b) {
		return 0, errOverflowSum
	}
	return a + b, nil
}

// product is quantity × unit price, exact: units / 10^scale currency units.
// big.Int keeps it exact for any bounded inputs.
type product struct {
	units *big.Int
	scale int
}

func mulDecimal(qty, price decimal) product {
	u := new(big.Int).Mul(big.NewInt(qty.units), big.NewInt(price.units))
	return product{units: u, scale: qty.scale + price.scale}
}

// pow10 returns 10^n as a big integer.
func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// withinHalfMinor reports whether amount (minor units of a currency with
// `minor` decimals) is at most half a minor unit away from p.
func (p product) withinHalfMinor(amount int64, minor int) bool {
	units, scale := p.units, p.scale
	if scale < minor { // bring p to at least the amount's precision
		units = new(big.Int).Mul(units, pow10(minor-scale))
		scale = minor
	}
	k := pow10(scale - minor) // p in minor units = units / k
	diff := new(big.Int).Mul(big.NewInt(amount), k)
	diff.Sub(diff, units).Abs(diff)
	return diff.Lsh(diff, 1).Cmp(k) <= 0
}

// roundMinor returns p rounded half away from zero to whole minor units, or
// an error past maxMinorUnits.
func (p product) roundMinor(minor int) (int64, error) {
	units, scale := new(big.Int).Set(p.units), p.scale
	if scale < minor {
		units.Mul(units, pow10(minor-scale))
		scale = minor
	}
	neg := units.Sign() < 0
	units.Abs(units)
	k := pow10(scale - minor)
	q, r := new(big.Int).QuoRem(units, k, new(big.Int))
	if r.Lsh(r, 1).Cmp(k) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() || q.Int64() > maxMinorUnits {
		return 0, errTooLarge
	}
	if neg {
		return -q.Int64(), nil
	}
	return q.Int64(), nil
}

// MaxDecimalDigits is the length of the longest canonical decimal string
// the validator accepts.
const MaxDecimalDigits = maxDecimalDigits

// AddDecimals adds canonical decimals ("12.50", "-3", "0.125") exactly, at
// the largest scale among them. It is false when a value is not a
// canonical decimal or the sum leaves the validator's bounds.
func AddDecimals(vals []string) (string, bool) {
	scale := 0
	ds := make([]decimal, 0, len(vals))
	for _, v := range vals {
		d, err := parseDecimal(v)
		if err != nil {
			return "", false
		}
		ds = append(ds, d)
		scale = max(scale, d.scale)
	}
	var sum int64
	for _, d := range ds {
		n, err := d.toMinor(scale)
		if err != nil {
			return "", false
		}
		if sum, err = addChecked(sum, n); err != nil {
			return "", false
		}
	}
	return formatMinor(sum, scale), true
}

// SameDecimal reports whether two canonical decimals have the same value
// ("12.5" and "12.50").
func SameDecimal(a, b string) bool {
	da, errA := parseDecimal(a)
	db, errB := parseDecimal(b)
	return errA == nil && errB == nil && da.normalized() == db.normalized()
}

// ProductMatches reports whether qty × price is amount to within half of
// amount's last written digit, the test the validator applies to a line.
func ProductMatches(qty, price, amount string) bool {
	q, err1 := parseDecimal(qty)
	p, err2 := parseDecimal(price)
	a, err3 := parseDecimal(amount)
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	return mulDecimal(q, p).withinHalfMinor(a.units, a.scale)
}
