package rules

import (
	"math/big"
	"strings"

	"github.com/relayops/relayops/extract"
)

// What the net and tax rows of a read mean once the lines are known: the
// net after document-level charges, a gross sum that holds the tax, a tax
// nobody read. Each either commits what the page states or leaves the
// value to the validator (marked computed), or refuses the read.

// settleNetCharges decides what a net total written below charge rows
// is, when the net and the tax alone make the total: the net after the
// document-level allowances and charges above it ("REMISE … -5,00",
// "CHARGE … 10,00"; EN 16931 BT-109), not the lines' sum (BT-106). When
// the lines read and those charges make the net, the subtotal is the
// lines' (left for the validator to derive, marked computed) and the
// charges stay; else the read is not whole, and the charges stay beside
// the net for the total's check to refuse: a net is never committed as
// the lines' sum. A charge row that is an item (its quantity times its
// price on its line: "Spedizione corriere  € 15,00  3  € 45,00") is one
// of the lines the net sums, not a charge.
func (t *totals) settleNetCharges(d *document, lines []extract.ExtractedLine, f numberFormat) {
	if len(t.charges) == 0 || t.subtotal == "" || t.tax == "" || t.total == "" || t.taxIncluded || t.subtotalLine < 0 {
		return
	}
	if sum, ok := addCanonical([]string{t.subtotal, t.tax}); !ok || !sameDecimal(sum, t.total) {
		return
	}
	var above []string
	var rows []amountRow
	var charges []extract.Charge
	for i, r := range t.chargeRows {
		switch {
		case r.line >= t.subtotalLine:
			rows, charges = append(rows, r), append(charges, t.charges[i])
		case !itemShaped(d.lines[r.line].text, f):
			rows, charges = append(rows, r), append(charges, t.charges[i])
			above = append(above, signedAmount(t.charges[i]))
		}
	}
	t.chargeRows, t.charges = rows, charges
	if len(t.charges) == 0 {
		t.charges = nil
	}
	if len(above) == 0 || len(lines) == 0 {
		return
	}
	amounts := make([]string, 0, len(lines)+len(above))
	for _, l := range lines {
		if l.Amount == "" {
			return
		}
		amounts = append(amounts, l.Amount)
	}
	if sum, ok := addCanonical(append(amounts, above...)); ok && sameDecimal(sum, t.subtotal) {
		t.subtotal = "" // the lines state the lines' sum; the net counts the charges too
	}
}

// itemShaped reports a row that holds a quantity, a price and their
// product: an item of the table, whatever its description says.
func itemShaped(text string, f numberFormat) bool {
	toks := moneyTokens(text, f)
	vals := make([]string, 0, len(toks))
	for _, tok := range toks {
		if v, bad := canonicalTok(tok, f); !bad && v != "" && !tok.neg {
			vals = append(vals, v)
		}
	}
	for k := 2; k < len(vals); k++ {
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				if !isZero(vals[k]) && (timesEquals(vals[i], vals[j], vals[k]) || timesEquals(vals[j], vals[i], vals[k])) {
					return true
				}
			}
		}
	}
	return false
}

// guardUnreadTax refuses what the validator would otherwise derive from
// a read without tax: a zero tax on a document that labels a tax at a
// positive rate ("MwSt. 19 %") whose amount was not read, and a tax that
// is the whole total. Either is a guess, not a read.
func (t *totals) guardUnreadTax(hits []hit) {
	if t.total == "" || isZero(t.total) {
		return
	}
	if t.tax != "" && t.subtotal == "" && sameDecimal(strings.TrimPrefix(t.tax, "-"), strings.TrimPrefix(t.total, "-")) {
		t.problem(extract.ReasonTotalMismatch) // the tax is the whole total: no net was read
		return
	}
	if t.tax != "" {
		return
	}
	for _, h := range hits {
		if h.kind == lkTax && rateOf(h.raw) != nil && !saysIncluded(h.raw) {
			t.problem(extract.FieldReason(extract.ReasonMissingField, "tax"))
			return
		}
	}
}

// signedAmount is a charge's amount with a discount made negative, as
// the validator counts it.
func signedAmount(c extract.Charge) string {
	if c.Kind == extract.ChargeDiscount && !strings.HasPrefix(c.Amount, "-") && !isZero(c.Amount) {
		return "-" + c.Amount
	}
	return c.Amount
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
