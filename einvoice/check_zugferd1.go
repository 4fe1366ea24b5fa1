package einvoice

import "fmt"

// zugferd1Rules are the requirements of ZUGFeRD 1.0 (FeRD, June 2014)
// that Check applies to a ZUGFeRD 1.0 invoice, in place of EN 16931's
// rules, which came in 2017. ZUGFeRD 1.0 has no rule identifiers: its
// Schematron (one for BASIC, COMFORT and EXTENDED) states which elements
// an invoice must carry, and its specification's monetary summation the
// sums its totals make. Each rule is named here after what it checks:
//
//   - ZF1-NUMBER, ZF1-DATE, ZF1-TYPE, ZF1-PROFILE, ZF1-CURRENCY,
//     ZF1-SELLER, ZF1-BUYER, ZF1-LINES: the invoice number (BT-1), issue
//     date (BT-2), type code (BT-3), profile (BT-24), currency (BT-5:
//     InvoiceCurrencyCode, or the currencyID every total carries), the
//     seller's and the buyer's names (BT-27, BT-44) and at least one line
//     (BG-25) are stated.
//   - ZF1-TOTALS: the totals that decide the payment are stated: the
//     total without VAT (TaxBasisTotalAmount, BT-109), the VAT
//     (TaxTotalAmount, BT-110) and the total with VAT (GrandTotalAmount,
//     BT-112).
//   - ZF1-SUMS: the sums of the details are stated: the line total
//     (LineTotalAmount, BT-106), the allowance and charge totals
//     (AllowanceTotalAmount BT-107, ChargeTotalAmount BT-108).
//   - ZF1-VAT: each VAT breakdown states its tax, basis and rate
//     (CalculatedAmount BT-117, BasisAmount BT-116, ApplicablePercent
//     BT-119).
//   - syntax: as for EN 16931 (amounts are decimals, dates calendar
//     dates); ZUGFeRD 1.0 sets no limit on decimals.
//   - ZF1-LINE-TOTAL: BT-106 is the sum of the lines' totals.
//   - ZF1-ALLOWANCE-TOTAL, ZF1-CHARGE-TOTAL: BT-107 and BT-108 are the
//     sums of the document allowances and of the charges (logistics
//     service charges included).
//   - ZF1-TAX-BASIS: BT-109 = BT-106 − BT-107 + BT-108.
//   - ZF1-TAX-TOTAL: BT-110 is the sum of the breakdown's tax amounts.
//   - ZF1-TAX-RATE: each breakdown's tax is its basis times its rate,
//     within one currency unit (the tolerance EN 16931 later set).
//   - ZF1-GRAND-TOTAL: BT-112 = BT-109 + BT-110.
//   - ZF1-DUE: the amount due (DuePayableAmount BT-115), where stated,
//     is BT-112 less the amount prepaid (TotalPrepaidAmount, BT-113).
//     ZUGFeRD 1.0 BASIC has no amount due: BT-112 is what is owed.
//
// Sums are rounded to two decimals as for EN 16931, then compared
// exactly.
var zugferd1Rules = []string{
	"ZF1-NUMBER", "ZF1-DATE", "ZF1-TYPE", "ZF1-PROFILE", "ZF1-CURRENCY", "ZF1-SELLER", "ZF1-BUYER",
	"ZF1-LINES", "ZF1-TOTALS", "ZF1-SUMS", "ZF1-VAT",
	"ZF1-LINE-TOTAL", "ZF1-ALLOWANCE-TOTAL", "ZF1-CHARGE-TOTAL", "ZF1-TAX-BASIS", "ZF1-TAX-TOTAL",
	"ZF1-TAX-RATE", "ZF1-GRAND-TOTAL", "ZF1-DUE",
}

func (c *checker) zugferd1() {
	c.zugferd1Required()
	c.formats()
	c.zugferd1Totals()
	c.zugferd1Breakdown()
}

func (c *checker) zugferd1Required() {
	inv := c.inv
	for _, r := range []struct {
		rule, term string
		present    bool
	}{
		{"ZF1-NUMBER", "BT-1", inv.Number != ""},
		{"ZF1-DATE", "BT-2", inv.IssueDate != ""},
		{"ZF1-TYPE", "BT-3", inv.TypeCode != ""},
		{"ZF1-PROFILE", "BT-24", inv.Specification != ""},
		{"ZF1-CURRENCY", "BT-5", inv.Currency != ""},
		{"ZF1-SELLER", "BT-27", inv.SellerName != ""},
		{"ZF1-BUYER", "BT-44", inv.BuyerName != ""},
		{"ZF1-LINES", "BG-25", len(inv.Lines) > 0},
	} {
		if !r.present {
			c.fail(r.rule, r.term)
		}
	}
	missing := func(rule string, terms []string, vals ...string) {
		var at []string
		for i, v := range vals {
			if v == "" {
				at = append(at, terms[i])
			}
		}
		if len(at) > 0 {
			c.fail(rule, at...)
		}
	}
	missing("ZF1-TOTALS", []string{"BT-109", "BT-110", "BT-112"}, inv.TaxExclusive, inv.TaxTotal, inv.TaxInclusive)
	missing("ZF1-SUMS", []string{"BT-106", "BT-107", "BT-108"}, inv.LineTotal, inv.AllowanceTotal, inv.ChargeTotal)
	for i, v := range inv.VAT {
		missing("ZF1-VAT", []string{fmt.Sprintf("BG-23[%d]", i+1) + "/BT-117", fmt.Sprintf("BG-23[%d]", i+1) + "/BT-116",
			fmt.Sprintf("BG-23[%d]", i+1) + "/BT-119"}, v.TaxAmount, v.TaxableAmount, v.Rate)
	}
}

// zugferd1Totals checks the monetary summation. A total not stated is
// reported by ZF1-TOTALS or ZF1-SUMS; the sums that need it are skipped,
// but for the allowance and charge totals, which count as zero.
func (c *checker) zugferd1Totals() {
	inv := c.inv
	lineTotal, allowTotal, chargeTotal := statedOf(inv.LineTotal), statedOf(inv.AllowanceTotal), statedOf(inv.ChargeTotal)
	basis, tax, grand := statedOf(inv.TaxExclusive), statedOf(inv.TaxTotal), statedOf(inv.TaxInclusive)
	prepaid, due := statedOf(inv.Prepaid), statedOf(inv.DueAmount)
	// equals reports whether total is the sum of parts rounded to two
	// decimals; a malformed amount is reported as syntax, not here.
	equals := func(total stated, parts ...stated) bool {
		s := zero()
		for _, p := range parts {
			if p.bad {
				return true
			}
			s = s.add(p.v)
		}
		return total.bad || total.v.cmp(s.round2()) == 0
	}
	var lineAmounts []string
	for _, l := range inv.countedLines() {
		lineAmounts = append(lineAmounts, l.NetAmount)
	}
	if lines, ok := sum(lineAmounts); ok && lineTotal.present && !equals(lineTotal, stated{v: lines, present: true}) {
		c.fail("ZF1-LINE-TOTAL", "BT-106", "BT-131")
	}
	for _, r := range []struct {
		rule, total, each string
		stated            stated
		list              []AllowanceCharge
	}{
		{"ZF1-ALLOWANCE-TOTAL", "BT-107", "BT-92", allowTotal, inv.Allowances},
		{"ZF1-CHARGE-TOTAL", "BT-108", "BT-99", chargeTotal, inv.Charges},
	} {
		if s, ok := sum(amountsOf(r.list)); ok && r.stated.present && !equals(r.stated, stated{v: s, present: true}) {
			c.fail(r.rule, r.total, r.each)
		}
	}
	if basis.present && lineTotal.present && !equals(basis, lineTotal, stated{v: allowTotal.v.neg(), bad: allowTotal.bad}, chargeTotal) {
		c.fail("ZF1-TAX-BASIS", "BT-109", "BT-106", "BT-107", "BT-108")
	}
	if grand.present && basis.present && tax.present && !equals(grand, basis, tax) {
		c.fail("ZF1-GRAND-TOTAL", "BT-112", "BT-109", "BT-110")
	}
	if due.present && grand.present && !equals(due, grand, stated{v: prepaid.v.neg(), bad: prepaid.bad}) {
		c.fail("ZF1-DUE", "BT-115", "BT-112", "BT-113")
	}
	if tax.present && !tax.bad && len(inv.VAT) > 0 {
		var each []string
		for _, v := range inv.VAT {
			each = append(each, v.TaxAmount)
		}
		if s, ok := sum(each); ok && tax.v.cmp(s.round2()) != 0 {
			c.fail("ZF1-TAX-TOTAL", "BT-110", "BT-117")
		}
	}
}

// zugferd1Breakdown checks each VAT breakdown's tax against its basis and
// rate, within one currency unit.
func (c *checker) zugferd1Breakdown() {
	one := decimal{units: pow10(0), scale: 0}
	for i, v := range c.inv.VAT {
		basis, tax, rate := statedOf(v.TaxableAmount), statedOf(v.TaxAmount), statedOf(v.Rate)
		if !basis.present || !tax.present || !rate.present || basis.bad || tax.bad || rate.bad {
			continue
		}
		expected := basis.v.abs().percentOf(rate.v).round2()
		if tax.v.abs().sub(expected).abs().cmp(one) > 0 {
			c.fail("ZF1-TAX-RATE", fmt.Sprintf("BG-23[%d]", i+1), "BT-117", "BT-116", "BT-119")
		}
	}
}
