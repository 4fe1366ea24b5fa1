package rules

import (
	"math/big"
	"strings"

	"github.com/relayops/relayops/extract"
)

// taxAfterTotal returns the one tax row written after the final total
// with a rate in its label ("Invoice total £45.97", then "VAT 20%  £7.66"),
// when no tax row comes before it: the tax is either included in the
// total, or summarised under it, or left out of it.
func taxAfterTotal(rows []amountRow, final int) (amountRow, bool) {
	if final < 0 || rows[final].bad || rows[final].amount == "" {
		return amountRow{}, false
	}
	var found []amountRow
	for _, r := range rows[final+1:] {
		if r.kind == lkTax && !r.bad && r.amount != "" && rateOf(r.raw) != nil {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return amountRow{}, false
	}
	return found[0], true
}

// rateOf returns the first percentage written in label, or nil.
func rateOf(label string) *big.Rat {
	for _, n := range scanNumbers(label, false) {
		if n.pct {
			r, ok := new(big.Rat).SetString(strings.ReplaceAll(n.raw, ",", "."))
			if ok && r.Sign() > 0 {
				return r
			}
			return nil
		}
	}
	return nil
}

// sumIs reports a + b = c for canonical amounts.
func sumIs(a, b, c string) bool {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	z, ok3 := new(big.Rat).SetString(c)
	return ok1 && ok2 && ok3 && x.Add(x, y).Cmp(z) == 0
}

// rateIncludes reports whether tax is the part of total that the rate
// written in label includes (total × rate / (100 + rate)), to within one
// unit of tax's last digit.
func rateIncludes(label, total, tax string) bool {
	rate := rateOf(label)
	tt, ok1 := new(big.Rat).SetString(total)
	tx, ok2 := new(big.Rat).SetString(tax)
	if rate == nil || !ok1 || !ok2 {
		return false
	}
	inc := new(big.Rat).Mul(tt, rate)
	inc.Quo(inc, new(big.Rat).Add(big.NewRat(100, 1), rate))
	diff := inc.Sub(inc, tx)
	unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimalsOf(tax))), nil))
	return diff.Abs(diff).Cmp(unit) <= 0
}

// decimalsOf returns the digits after a canonical amount's point.
func decimalsOf(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// reconciles reports whether the lines' amounts add up to the stated
// subtotal, or to the total with or without the tax.
func (t *totals) reconciles(lines []extract.ExtractedLine) bool {
	sum := new(big.Rat)
	for _, l := range lines {
		a, ok := new(big.Rat).SetString(l.Amount)
		if !ok {
			return false
		}
		sum.Add(sum, a)
	}
	s := sum.RatString()
	if t.subtotal != "" {
		return sumIs(s, "0", t.subtotal)
	}
	return t.total != "" && (sumIs(s, "0", t.total) || t.tax != "" && sumIs(s, t.tax, t.total))
}
