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

// settleGrossSubtotal reads a subtotal row that already holds the tax: a
// row above the tax that states the total's very amount ("Zwischensumme
// 367,71 € / MwSt. 58,71 € / Gesamtbetrag 367,71 €", lines priced with
// their tax), where the tax is the part of the total a rate on the page
// includes. That row is no net: the subtotal is left for the validator to
// derive (total − tax, marked computed), and item lines that add up to
// the total are gross, so they are dropped rather than checked as net.
func (t *totals) settleGrossSubtotal(d *document, rows []amountRow, it *items) {
	if t.total == "" || t.tax == "" || isZero(t.tax) || t.taxIncluded || len(t.charges) > 0 ||
		t.subtotal != "" && !sameDecimal(t.subtotal, t.total) {
		return // a net stated apart from the total is the net
	}
	final := finalTotal(rows)
	gross := -1
	for i, r := range rows[:max(final, 0)] {
		switch {
		case r.kind == lkTax && gross < 0:
			return // a tax row before any gross sum: the usual net, tax, total
		case (r.kind == lkSubtotal || r.kind == lkTotal) && !r.bad && sameDecimal(r.amount, t.total) && gross < 0:
			gross = i
		}
	}
	if gross < 0 || !pageRateIncludes(d, t.total, t.tax) {
		return
	}
	for _, r := range rows[gross:final] {
		if r.kind == lkTax && saysIncluded(r.raw) {
			return
		}
	}
	t.subtotal = ""
	if it.lines != nil && linesMake(it.lines, t.total) {
		it.lines = nil
	}
}

// pageRateIncludes reports a rate written on the page (up to 30%) whose
// share of total, as included tax, is tax.
func pageRateIncludes(d *document, total, tax string) bool {
	seen := map[string]bool{}
	for i := range d.lines {
		for _, n := range scanNumbers(d.lines[i].text, false) {
			if !n.pct || seen[n.raw] {
				continue
			}
			seen[n.raw] = true
			if r := rateOf(n.raw + "%"); r != nil && r.Cmp(big.NewRat(30, 1)) <= 0 && rateIncludes(n.raw+"%", total, tax) {
				return true
			}
		}
	}
	return false
}

// linesMake reports lines whose amounts add up to v.
func linesMake(lines []extract.ExtractedLine, v string) bool {
	amounts := make([]string, 0, len(lines))
	for _, l := range lines {
		if l.Amount == "" {
			return false
		}
		amounts = append(amounts, l.Amount)
	}
	s, ok := addCanonical(amounts)
	return ok && sameDecimal(s, v)
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
