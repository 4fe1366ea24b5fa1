package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// guardTotal proves the committed total against every other amount the
// document labels a total, an amount due or a gross sum: each must be the
// total itself or be explained (the subtotal, the tax, a charge, an amount
// paid, or the balance a payment leaves). A payment above an amount due
// with no total stated leaves the invoice's total unknown. Either way the
// read is not whole, and the invoice is rejected total_mismatch rather
// than committed with a wrong amount.
func (t *totals) guardTotal(rows []amountRow, final int) {
	if final < 0 || t.total == "" {
		return
	}
	if rows[final].kind == lkAmountDue && paidBefore(rows, final) {
		t.problem(extract.ReasonTotalMismatch) // "Deposit 10.00 … Amount due 100.00": the total is not the amount due
		return
	}
	explained := map[string]bool{t.total: true, t.subtotal: true, t.tax: true}
	var paid, carried []string
	for _, r := range rows {
		if r.kind == lkCarried && r.amount != "" && !r.bad {
			carried = append(carried, r.amount)
		}
		switch {
		case r.kind == lkPaid, r.kind == lkSubtotal, r.kind == lkTax, r.kind == lkTaxIncluded, r.kind.isCharge():
			explained[r.amount] = true
			if r.kind == lkPaid && r.amount != "" {
				paid = append(paid, strings.TrimPrefix(r.amount, "-")) // "Paid -5,000.00"
			}
		}
	}
	for _, r := range rows {
		if (r.kind != lkTotal && r.kind != lkAmountDue) || r.amount == "" || r.bad || isZero(r.amount) || explained[r.amount] || sameAsAny(r.amount, explained) {
			continue
		}
		if r.kind == lkAmountDue && balanceAfter(t.total, paid, r.amount) {
			continue // the balance a payment leaves
		}
		if r.kind == lkAmountDue && len(carried) > 0 && withCarried(t.total, carried, r.amount) {
			continue // "TOTAL 110.00 / PREVIOUS BALANCE 500.00 / TOTAL DUE 610.00"
		}
		traceGuard(r, t)
		t.problem(extract.ReasonTotalMismatch)
		return
	}
}

// paidBefore reports a payment row before the final row with no total row
// before that payment.
func paidBefore(rows []amountRow, final int) bool {
	for _, r := range rows[:final] {
		switch r.kind {
		case lkTotal:
			return false
		case lkPaid:
			if r.amount != "" && !isZero(r.amount) {
				return true
			}
		}
	}
	return false
}

func sameAsAny(v string, set map[string]bool) bool {
	for s := range set {
		if s != "" && sameDecimal(s, v) {
			return true
		}
	}
	return false
}

// balanceAfter reports due = total − one of the payments, or − all of them.
func balanceAfter(total string, paid []string, due string) bool {
	neg := make([]string, 0, len(paid)+1)
	for _, p := range paid {
		if sum, ok := addCanonical([]string{due, p}); ok && sameDecimal(sum, total) {
			return true
		}
		neg = append(neg, p)
	}
	sum, ok := addCanonical(append(neg, due))
	return ok && len(paid) > 1 && sameDecimal(sum, total)
}

// withCarried reports due = total + the balances carried in.
func withCarried(total string, carried []string, due string) bool {
	sum, ok := addCanonical(append([]string{total}, carried...))
	return ok && sameDecimal(sum, due)
}

func isZero(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= '1' && v[i] <= '9' {
			return false
		}
	}
	return true
}

// guardValuesRow rejects a total read from a row of values under a
// header of totals ("Warenwert … Nettobetrag  MwSt-Betrag  Endbetrag" over
// "1062,60 … 1256,70") that is not the largest of them: a column read out
// of place. It applies only when the total's label line holds no digit and
// the row under it three amounts or more.
func guardValuesRow(d *document, rows []amountRow, t *totals, f numberFormat) {
	final := finalTotal(rows)
	if final < 0 || t.total == "" || strings.HasPrefix(t.total, "-") || hasDigit(d.lines[rows[final].line].text) {
		return
	}
	n := d.nextNonBlank(rows[final].line)
	if n < 0 || n > rows[final].line+2 {
		return
	}
	toks := amountTokens(d.lines[n].text, f)
	if len(toks) < 3 {
		return
	}
	for _, tok := range toks {
		v, bad := canonicalTok(tok, f)
		if !bad && v != "" && !tok.pct && !strings.HasPrefix(v, "-") && larger(v, t.total) {
			t.problem(extract.ReasonTotalMismatch)
			return
		}
	}
}

// larger reports a > b for canonical decimals.
func larger(a, b string) bool {
	diff, ok := addCanonical([]string{a, "-" + b})
	return ok && !strings.HasPrefix(diff, "-") && !isZero(diff)
}
