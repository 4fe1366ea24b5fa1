package einvoice

import (
	"fmt"
	"math/big"
)

// stated is an amount as the document states it: absent (zero), a value,
// or malformed (reported as syntax; the rules that need it are skipped).
type stated struct {
	v       decimal
	present bool
	bad     bool
}

func statedOf(s string) stated {
	if s == "" {
		return stated{v: zero()}
	}
	d, ok := parseDecimal(s)
	if !ok {
		return stated{v: zero(), present: true, bad: true}
	}
	return stated{v: d, present: true}
}

// sum adds the stated amounts; bad when one is missing or malformed.
func sum(vals []string) (decimal, bool) {
	total := zero()
	for _, s := range vals {
		st := statedOf(s)
		if st.bad || !st.present {
			return total, false
		}
		total = total.add(st.v)
	}
	return total, true
}

func amountsOf(acs []AllowanceCharge) []string {
	out := make([]string, len(acs))
	for i, a := range acs {
		out[i] = a.Amount
	}
	return out
}

func (inv *Invoice) countedLines() []Line {
	var out []Line
	for _, l := range inv.Lines {
		if l.Counted() {
			out = append(out, l)
		}
	}
	return out
}

// totals applies BR-CO-10 … BR-CO-16.
func (c *checker) totals() {
	inv := c.inv
	lineTotal, allowTotal, chargeTotal := statedOf(inv.LineTotal), statedOf(inv.AllowanceTotal), statedOf(inv.ChargeTotal)
	exclusive, tax, inclusive := statedOf(inv.TaxExclusive), statedOf(inv.TaxTotal), statedOf(inv.TaxInclusive)
	prepaid, rounding, due := statedOf(inv.Prepaid), statedOf(inv.Rounding), statedOf(inv.DueAmount)
	usable := func(ss ...stated) bool {
		for _, s := range ss {
			if s.bad {
				return false
			}
		}
		return true
	}
	counted := inv.countedLines()
	var lineAmounts []string
	for _, l := range counted {
		lineAmounts = append(lineAmounts, l.NetAmount)
	}
	// BR-CO-10 sum of invoice line net amount = Σ invoice line net amount
	if lines, ok := sum(lineAmounts); ok && lineTotal.present && usable(lineTotal) {
		if lineTotal.v.cmp(lines.round2()) != 0 {
			c.fail("BR-CO-10", "BT-106", "BT-131")
		}
	}
	// BR-CO-11 / BR-CO-12 sums of allowances and charges on document level
	for _, r := range []struct {
		rule, total, each string
		stated            stated
		list              []AllowanceCharge
	}{
		{"BR-CO-11", "BT-107", "BT-92", allowTotal, inv.Allowances},
		{"BR-CO-12", "BT-108", "BT-99", chargeTotal, inv.Charges},
	} {
		s, ok := sum(amountsOf(r.list))
		if !ok || r.stated.bad || (!r.stated.present && len(r.list) == 0) {
			continue
		}
		if !r.stated.present || r.stated.v.cmp(s.round2()) != 0 {
			c.fail(r.rule, r.total, r.each)
		}
	}
	// BR-CO-13 total without VAT = Σ line net amounts − allowances + charges
	if exclusive.present && lineTotal.present && usable(exclusive, lineTotal, allowTotal, chargeTotal) {
		if exclusive.v.cmp(lineTotal.v.sub(allowTotal.v).add(chargeTotal.v).round2()) != 0 {
			c.fail("BR-CO-13", "BT-109", "BT-106", "BT-107", "BT-108")
		}
	}
	// BR-CO-15 total with VAT = total without VAT + total VAT
	if inclusive.present && exclusive.present && usable(inclusive, exclusive, tax) {
		if inclusive.v.cmp(exclusive.v.add(tax.v).round2()) != 0 {
			c.fail("BR-CO-15", "BT-112", "BT-109", "BT-110")
		}
	}
	// BR-CO-16 amount due = total with VAT − paid amount + rounding amount
	// (+ third party payments, XRechnung's extension BR-DEX-09)
	third, thirdOK := sum(inv.ThirdPartyPaid)
	if due.present && inclusive.present && thirdOK && usable(due, inclusive, prepaid, rounding) {
		if due.v.sub(rounding.v).round2().cmp(inclusive.v.sub(prepaid.v).add(third).round2()) != 0 {
			c.fail("BR-CO-16", "BT-115", "BT-112", "BT-113", "BT-114")
		}
	}
	c.taxTotal(tax)
}

// taxTotal applies BR-CO-14: total VAT = Σ VAT category tax amounts
// (Check sorts the violations into the order of Rules).
func (c *checker) taxTotal(tax stated) {
	if !tax.present || tax.bad || len(c.inv.VAT) == 0 {
		return
	}
	var each []string
	for _, v := range c.inv.VAT {
		each = append(each, v.TaxAmount)
	}
	s, ok := sum(each)
	if ok && tax.v.cmp(s.round2()) != 0 {
		c.fail("BR-CO-14", "BT-110", "BT-117")
	}
}

// breakdown applies BR-CO-17, BR-S-08 and BR-S-09 to each VAT breakdown.
func (c *checker) breakdown() {
	one := decimal{units: pow10(0), scale: 0}
	ubl := c.inv.Syntax == UBLInvoice || c.inv.Syntax == UBLCreditNote
	// within reports |a − b| < 1, or ≤ 1 when orEqual.
	within := func(a, b decimal, orEqual bool) bool {
		d := a.sub(b).abs().cmp(one)
		return d < 0 || (orEqual && d == 0)
	}
	for i, v := range c.inv.VAT {
		at := fmt.Sprintf("BG-23[%d]", i+1)
		basis, taxAmt, rate := statedOf(v.TaxableAmount), statedOf(v.TaxAmount), statedOf(v.Rate)
		if basis.bad || taxAmt.bad || rate.bad {
			continue
		}
		expected := basis.v.abs().percentOf(rate.v).round2()
		// BR-CO-17 VAT category tax amount = taxable amount × rate / 100
		if rate.present && !roundsToZero(rate.v) {
			if basis.present && !within(taxAmt.v.abs(), expected, !ubl) {
				c.fail("BR-CO-17", at, "BT-117", "BT-116", "BT-119")
			}
		} else if !roundsToZero(taxAmt.v) {
			c.fail("BR-CO-17", at, "BT-117", "BT-119")
		}
		if v.Category != "S" {
			continue
		}
		// BR-S-08 standard rated taxable amount = Σ lines + charges − allowances at that rate
		if lines, ok := c.standardRatedBasis(rate.v); ok {
			if (!ubl && lines.cmp(basis.v) != 0) || (ubl && !within(basis.v, lines, false)) {
				c.fail("BR-S-08", at, "BT-116")
			}
		}
		// BR-S-09 standard rated tax amount = taxable amount × rate
		if rate.present && !within(taxAmt.v.abs(), expected, false) {
			c.fail("BR-S-09", at, "BT-117")
		}
	}
}

// standardRatedBasis is Σ counted line net amounts + charges − allowances
// of category S at rate, each sum rounded to two decimals as in CII.
func (c *checker) standardRatedBasis(rate decimal) (decimal, bool) {
	atRate := func(cat, r string) bool {
		d, ok := parseDecimal(r)
		return cat == "S" && ok && d.cmp(rate) == 0
	}
	var lines, charges, allowances []string
	for _, l := range c.inv.countedLines() {
		if atRate(l.Category, l.Rate) {
			lines = append(lines, l.NetAmount)
		}
	}
	for _, a := range c.inv.Charges {
		if atRate(a.Category, a.Rate) {
			charges = append(charges, a.Amount)
		}
	}
	for _, a := range c.inv.Allowances {
		if atRate(a.Category, a.Rate) {
			allowances = append(allowances, a.Amount)
		}
	}
	l, ok1 := sum(lines)
	ch, ok2 := sum(charges)
	al, ok3 := sum(allowances)
	return l.round2().add(ch.round2()).sub(al.round2()), ok1 && ok2 && ok3
}

// roundsToZero reports whether fn:round (half towards positive infinity)
// takes d to 0: -0.5 <= d < 0.5.
func roundsToZero(d decimal) bool {
	half := decimal{units: big.NewInt(5), scale: 1}
	return d.cmp(half) < 0 && d.cmp(half.neg()) >= 0
}
