package rules

import (
	"regexp"
	"strings"

	"github.com/relayops/relayops/extract"
)

// amountRow is an amount label's value in document order.
type amountRow struct {
	kind   labelKind
	phrase string
	raw    string
	amount string // canonical; "" when absent or bad
	bad    bool   // digits in no consistent format
	line   int
}

// countWords may follow a number that is a count, not money ("Net 30
// days", "3 items").
var countWords = map[string]bool{
	"days": true, "day": true, "months": true, "month": true, "weeks": true, "week": true,
	"years": true, "year": true, "items": true, "item": true, "hours": true, "hrs": true,
	"pcs": true, "units": true, "lines": true, "pages": true,
}

// readAmount reads the money value of a label's cells. Spread over cells,
// the value is the last number of the last cell that has one (aligned
// totals put it rightmost); in one cell it is the number after '=', else
// the first that is not a rate's base ("VAT 20% on 760.33: 152.07").
func readAmount(cells []string, f numberFormat) (string, bool) {
	var last []numTok
	var lastText string
	digits := false
	for _, c := range cells {
		text := dropBrackets(c)
		toks := amountTokens(text, f)
		digits = digits || hasDigit(text)
		if len(toks) > 0 && leadingWords(text, toks[0]) {
			return "", false // prose after the label, not its value
		}
		if len(toks) > 0 {
			last, lastText = toks, text
		}
	}
	if len(last) == 1 && isBase(lastText, last[0]) {
		return "", false // "Sales Tax on 261.00" with its amount elsewhere
	}
	if len(last) == 0 {
		return "", digits && !onlyRatesAndDates(cells, f)
	}
	t := pickAmount(last, lastText, len(cells) > 1)
	if t.garbled {
		return "", true
	}
	if isReference(t) {
		return "", false // "GST/TPS 812345678": a registration number
	}
	v, bad := canonicalTok(t, f)
	return v, bad
}

// amountTokens returns the numbers of text that may be money: not rates,
// not dates, not counts.
// A garbled number counts, so that a misread amount is unparseable, not
// absent.
func amountTokens(text string, f numberFormat) []numTok {
	var out []numTok
	for _, t := range numbersOf(text, f, true) {
		if countWords[t.unit] || countWords[strings.ToLower(firstWord(text[t.end:]))] {
			continue
		}
		out = append(out, t)
	}
	return out
}

// leadingWords reports words before a number that are not currency codes
// or the small words of an amount's phrase: "Please pay to IBAN NL91 0417"
// holds no amount.
func leadingWords(text string, t numTok) bool {
	return !pureRemainder(text[:t.start])
}

// isReference reports a long plain integer (seven digits or more, no
// separator, no currency): a registration or account number, not money.
func isReference(t numTok) bool {
	return t.cur == "" && len(t.raw) >= 7 && isDigits(t.raw)
}

// isBase reports a number that is a tax's base ("on 261.00", "auf 804,35
// €", "sur 100,00"), not its amount.
func isBase(text string, t numTok) bool {
	for _, w := range baseWords {
		if endsWithWord(text[:t.start], w) {
			return true
		}
	}
	return false
}

// baseWords introduce a tax's base: en, de, fr, it, nl, es, Nordic.
var baseWords = []string{"on", "auf", "sur", "su", "op", "over", "sobre", "på", "af"}

// endsWithWord reports whether s, trailing spaces aside, ends with the
// word w in any case. It looks at the end of s only, so that calling it
// for every number of a long text stays linear.
func endsWithWord(s, w string) bool {
	s = strings.TrimRight(s, " ")
	if len(s) < len(w) || !strings.EqualFold(s[len(s)-len(w):], w) {
		return false
	}
	return len(s) == len(w) || !isLetterByte(s[len(s)-len(w)-1])
}

func pickAmount(toks []numTok, text string, spread bool) numTok {
	if spread || len(toks) == 1 {
		return toks[len(toks)-1]
	}
	if eq := strings.LastIndexByte(text, '='); eq >= 0 {
		for _, t := range toks {
			if t.start > eq {
				return t
			}
		}
	}
	for _, t := range toks[:len(toks)-1] {
		if !isBase(text, t) {
			return t
		}
	}
	return toks[len(toks)-1]
}

// onlyRatesAndDates reports cells whose digits are all rates, dates or
// counts: no amount, but nothing unparseable either.
func onlyRatesAndDates(cells []string, f numberFormat) bool {
	for _, c := range cells {
		text := dropBrackets(c)
		dates := findDates(text)
		for _, t := range scanNumbers(text, f.spaces()) {
			if !t.pct && !overlaps(dates, t.start, t.end) && !countWords[t.unit] &&
				!countWords[strings.ToLower(firstWord(text[t.end:]))] {
				return false
			}
		}
		if hasBrokenNumber(text) {
			return false
		}
	}
	return true
}

// hasBrokenNumber reports digits that no number or date explains: "12.34.56".
func hasBrokenNumber(text string) bool {
	return brokenNumberRe.MatchString(text)
}

var brokenNumberRe = regexp.MustCompile(`\d[.,]\d{1,2}[.,]\d`)

// amountRows reads the amount labels among the hits, but for the lines of
// prose paragraphs (read by proseRows).
func amountRows(hits []hit, f numberFormat, prose map[int]bool) []amountRow {
	var rows []amountRow
	for _, h := range hits {
		if paymentPhrases[h.phrase] && !prose[h.line] {
			if v := paymentAmount(h.cells, f); v != "" { // "Paid by bank transfer on 02/12/2026  £1,234.00"
				rows = append(rows, amountRow{kind: lkPaid, phrase: h.phrase, raw: h.raw, amount: v, line: h.line})
			}
			continue
		}
		if !h.kind.isAmount() || prose[h.line] || paymentTerm(h) {
			continue
		}
		v, bad := readAmount(h.cells, f)
		if t, ok := taxOfTriple(h, f); ok {
			v = t // "19,00% MwSt.:  376,37  71,51  447,88": net, tax, gross
		}
		if v == "" && !bad && h.kind == lkPaid {
			v = paymentAmount(h.cells, f) // "Paid by bank transfer on 02/12/2026  £1,234.00"
		}
		if h.kind == lkPaid && v != "" && !paidMoney(h.cells, f) {
			continue // "Status  PAID": a state, and the number near it no payment
		}
		if v == "" && !bad {
			continue
		}
		rows = append(rows, amountRow{kind: h.kind, phrase: h.phrase, raw: h.raw, amount: v, bad: bad, line: h.line})
	}
	return rows
}

// paidMoney reports a payment's cells that write an amount as money (a
// currency or two decimals).
func paidMoney(cells []string, f numberFormat) bool {
	for _, c := range cells {
		for _, t := range amountTokens(c, f) {
			if looksLikeMoney(t) {
				return true
			}
		}
	}
	return false
}

// paymentPhrases are labels of a payment's method or date ("Paid by",
// "Paid on"): with an amount on their line they are a payment row.
var paymentPhrases = map[string]bool{"paid by": true, "paid on": true, "date paid": true, "payment method": true}

// paymentAmount returns the last amount written as money on a payment's
// line, whatever words describe the payment.
func paymentAmount(cells []string, f numberFormat) string {
	v := ""
	for _, c := range cells {
		for _, t := range amountTokens(c, f) {
			if looksLikeMoney(t) && !t.garbled {
				if x, bad := canonicalTok(t, f); !bad {
					v = x
				}
			}
		}
	}
	return v
}

// paymentTerm reports "Net 30" (as the value of "Terms"): after "Net", a
// bare whole number of at most three digits, without currency or
// decimals, is a number of days, not the net amount.
func paymentTerm(h hit) bool {
	if h.phrase != "net" {
		return false
	}
	var toks []numTok
	for _, c := range h.cells {
		toks = append(toks, scanNumbers(c, false)...)
	}
	return len(toks) == 1 && toks[0].cur == "" && toks[0].unit == "" && len(toks[0].raw) <= 3 && isDigits(toks[0].raw)
}

// mergeRows merges two lists of rows in document order.
func mergeRows(a, b []amountRow) []amountRow {
	out := make([]amountRow, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || i < len(a) && a[i].line <= b[j].line {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// totals are the document-level amounts as found.
type totals struct {
	subtotal, tax, total string
	taxIncluded          bool
	charges              []extract.Charge
	chargeRows           []amountRow
	subtotalLine         int
	problems             []string
}

// resolveTotals decides the total, subtotal, tax and charges from the
// amount rows. The total is the last total or amount-due row, except that
// rows after a payment ("Amount paid", "Deposit") are a balance, not the
// invoice's total. A total row followed by tax or charges before the final
// total is the subtotal when none is stated.
func resolveTotals(rows []amountRow) totals {
	rows = dropRunningNet(dropInnerLabels(rows))
	t := totals{subtotalLine: -1}
	final := finalTotal(rows)
	traceRows(rows, final)
	if final >= 0 {
		t.setAmount(&t.total, rows[final], "total")
	}
	t.resolveSubtotal(rows, final)
	t.resolveTax(rows, final)
	t.resolveCharges(rows, final)
	t.guardTotal(rows, final)
	return t
}

// dropRunningNet drops a discount row that restates the net after the
// discounts above it ("SUBTOTAL 1440 / DISCOUNT 4 / SUBTOTAL LESS DISCOUNT
// 1436"): its amount is the subtotal less those discounts, to the cent, so
// it is no further discount.
func dropRunningNet(rows []amountRow) []amountRow {
	sub := ""
	var discounts []string
	for i, r := range rows {
		switch {
		case r.kind == lkSubtotal && !r.bad:
			sub, discounts = r.amount, nil
		case r.kind == lkDiscount && !r.bad && sub != "" && len(discounts) > 0:
			if net, ok := lessDiscounts(sub, discounts); ok && sameDecimal(net, strings.TrimPrefix(r.amount, "-")) {
				return append(rows[:i:i], rows[i+1:]...)
			}
			discounts = append(discounts, strings.TrimPrefix(r.amount, "-"))
		case r.kind == lkDiscount && !r.bad && sub != "":
			discounts = append(discounts, strings.TrimPrefix(r.amount, "-"))
		}
	}
	return rows
}

// lessDiscounts returns sub minus the discounts (written without sign).
func lessDiscounts(sub string, discounts []string) (string, bool) {
	vals := []string{sub}
	for _, d := range discounts {
		vals = append(vals, "-"+d)
	}
	return addCanonical(vals)
}

func (t *totals) setAmount(dst *string, r amountRow, field string) {
	if r.bad {
		t.problem(extract.FieldReason(extract.ReasonUnparseableAmount, field))
		return
	}
	*dst = r.amount
}

func (t *totals) problem(p string) {
	if !containsStr(t.problems, p) {
		t.problems = append(t.problems, p)
	}
}

// finalTotal returns the index of the invoice's total row, or -1.
func finalTotal(rows []amountRow) int {
	final := -1
	for i, r := range rows {
		switch r.kind {
		case lkTotal, lkAmountDue:
			final = i
		case lkPaid, lkCarried:
			if final >= 0 {
				return final // the amount due after a payment or a balance carried in is not the invoice's total
			}
		}
	}
	return final
}

func (t *totals) resolveSubtotal(rows []amountRow, final int) {
	for _, r := range rows {
		if r.kind == lkSubtotal && (final < 0 || r.line <= rows[final].line) {
			t.setAmount(&t.subtotal, r, "subtotal")
			t.subtotalLine = r.line
			return
		}
	}
	if final < 0 {
		return
	}
	lastAdjust := -1 // the last tax or charge row before the final total
	for i, r := range rows[:final] {
		if r.kind == lkTax || r.kind.isCharge() {
			lastAdjust = i
		}
	}
	for _, r := range rows[:max(lastAdjust, 0)] {
		if (r.kind == lkTotal || r.kind == lkAmountDue) && r.amount != rows[final].amount {
			t.setAmount(&t.subtotal, r, "subtotal")
			t.subtotalLine = r.line
			return
		}
	}
}

// totalTaxPhrases name a row that sums the tax rows above it: the
// taxTotals of every language table.
var totalTaxPhrases = languageTaxTotals()

// resolveTax sums the tax rows up to the final total, once each amount; a
// "Total VAT" row, or a row equal to the sum of the others, is the sum.
// Without tax added on top, tax stated as included sets taxIncluded.
func (t *totals) resolveTax(rows []amountRow, final int) {
	var added, included []amountRow
	for _, r := range rows {
		switch {
		case r.kind == lkTax && (final < 0 || r.line <= rows[final].line) && !saysIncluded(r.raw):
			added = append(added, r)
		case r.kind == lkTaxIncluded || r.kind == lkTax && saysIncluded(r.raw):
			included = append(included, r)
		}
	}
	if len(added) == 0 && len(included) == 0 {
		if r, ok := taxAfterTotal(rows, final); ok {
			switch {
			case t.subtotal != "" && sumIs(t.subtotal, r.amount, rows[final].amount):
				added = []amountRow{r} // a tax summary under the total
			case rateIncludes(r.raw, rows[final].amount, r.amount):
				included = []amountRow{r}
			default:
				t.problem(extract.ReasonTotalMismatch) // a tax the total neither adds nor includes
				return
			}
		}
	}
	if len(added) == 0 && len(included) > 0 {
		added, t.taxIncluded = included, true
	}
	if len(added) == 0 {
		return
	}
	for _, r := range added {
		if r.bad {
			t.problem(extract.FieldReason(extract.ReasonUnparseableAmount, "tax"))
			return
		}
	}
	t.tax = sumTax(added)
}

func saysIncluded(raw string) bool {
	l := " " + strings.ToLower(raw) + " "
	for _, w := range []string{"incl", "included", "includes", "including", "inkl", "inc.", "of which", "enthalten"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// sumTax adds the tax rows (a row repeating the same label and amount,
// as a header row does, counts once), or takes the one that is the sum.
func sumTax(rows []amountRow) string {
	var vals []string
	seen := map[string]bool{}
	for i := len(rows) - 1; i >= 0; i-- {
		if totalTaxPhrases[rows[i].phrase] {
			return rows[i].amount // the last: a summary table's column header comes before the totals block
		}
	}
	for _, r := range rows {
		if key := r.phrase + "=" + r.amount; !seen[key] {
			seen[key] = true
			vals = append(vals, r.amount)
		}
	}
	if len(vals) == 1 {
		return vals[0]
	}
	last := vals[len(vals)-1]
	if s, ok := addCanonical(vals[:len(vals)-1]); ok && len(vals) > 2 && sameDecimal(s, last) {
		return last // two rates and their sum; two equal taxes (CGST, SGST) both count
	}
	if s, ok := addCanonical(vals); ok {
		return s
	}
	return vals[0]
}

// resolveCharges collects shipping, discount, fee and rounding rows up to
// the final total.
func (t *totals) resolveCharges(rows []amountRow, final int) {
	for _, r := range rows {
		if !r.kind.isCharge() || (final >= 0 && r.line > rows[final].line) {
			continue
		}
		if r.bad {
			t.problem(extract.FieldReason(extract.ReasonUnparseableAmount, "charges"))
			continue
		}
		t.chargeRows = append(t.chargeRows, r)
		t.charges = append(t.charges, extract.Charge{Kind: chargeKind(r.kind), Amount: r.amount})
	}
}

func chargeKind(k labelKind) string {
	switch k {
	case lkShipping:
		return extract.ChargeShipping
	case lkDiscount:
		return extract.ChargeDiscount
	case lkRounding:
		return extract.ChargeRounding
	}
	return extract.ChargeFee
}

// addCanonical adds canonical decimals exactly.
func addCanonical(vals []string) (string, bool) { return extract.AddDecimals(vals) }

// sameDecimal compares two canonical decimals by value.
func sameDecimal(a, b string) bool { return extract.SameDecimal(a, b) }

// absorbTableCharges moves charge rows that sit above the stated subtotal
// into the line items when only with them do the lines make the subtotal
// (a "Shipping" row inside the item table). A row is inside the table
// when no blank line parts it from the rows above it; one set apart below
// the table is a document-level charge, which settleNetCharges weighs.
func (t *totals) absorbTableCharges(d *document, it *items) {
	if t.subtotal == "" || len(it.lines) == 0 || len(t.chargeRows) == 0 {
		return
	}
	amounts := make([]string, 0, len(it.lines))
	for _, l := range it.lines {
		if l.Amount == "" {
			return
		}
		amounts = append(amounts, l.Amount)
	}
	if s, ok := addCanonical(amounts); ok && sameDecimal(s, t.subtotal) {
		return
	}
	var moved []amountRow
	for _, r := range t.chargeRows {
		if r.line < t.subtotalLine && r.line > it.firstRow && !blankAbove(d, r.line, it.lastRow) {
			moved = append(moved, r)
			amounts = append(amounts, signedCharge(r))
		}
	}
	if s, ok := addCanonical(amounts); !ok || len(moved) == 0 || !sameDecimal(s, t.subtotal) {
		return
	}
	for _, r := range moved {
		it.lines = append(it.lines, extract.ExtractedLine{Description: labelText(r.raw), Amount: signedCharge(r)})
	}
	t.charges = t.charges[:0]
	for _, r := range t.chargeRows {
		if !(r.line < t.subtotalLine && r.line > it.firstRow && !blankAbove(d, r.line, it.lastRow)) {
			t.charges = append(t.charges, extract.Charge{Kind: chargeKind(r.kind), Amount: r.amount})
		}
	}
	if len(t.charges) == 0 {
		t.charges = nil
	}
}

// blankAbove reports a blank line between the item rows that end at line
// last and line i below them.
func blankAbove(d *document, i, last int) bool {
	for k := last + 1; k < i; k++ {
		if d.lines[k].blank() {
			return true
		}
	}
	return false
}

// signedCharge is a charge's amount with a discount made negative.
func signedCharge(r amountRow) string {
	if r.kind == lkDiscount && !strings.HasPrefix(r.amount, "-") && strings.Trim(r.amount, "0.") != "" {
		return "-" + r.amount
	}
	return r.amount
}

// labelText is the label part of a row's cell ("Shipping" of
// "Shipping 12.00").
func labelText(raw string) string {
	if m, ok := matchLabel(raw); ok {
		return strings.TrimSpace(raw[:m.end])
	}
	return raw
}

// bareAmountLabels are labels too generic to be a total where a document
// has a real one ("Amount" heads an item column, "Due" introduces a date
// or a term): only "Amount: £1,450.00" or "Due: EUR 380.00", a colon and
// money alone on the line, is read, and only when no total is labelled.
var bareAmountLabels = []string{"amount", "due", "amount due"}

// bareAmountRows returns, for a document without any total row, the lines
// "Amount: <money>" or "Due: <money>" as amount-due rows. The value must be
// the only number of the line and written as money (a currency or two
// decimals): "Due: 30 days" and "Due: 14/12/2026" are not amounts.
func bareAmountRows(d *document, rows []amountRow, f numberFormat) []amountRow {
	if finalTotal(rows) >= 0 {
		return nil
	}
	var out []amountRow
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || l.rule {
			continue
		}
		label, rest, ok := strings.Cut(strings.TrimSpace(l.text), ":")
		if !ok || !containsStr(bareAmountLabels, strings.Join(strings.Fields(strings.ToLower(label)), " ")) {
			continue
		}
		if len(findDates(rest)) > 0 {
			continue
		}
		toks := scanNumbers(rest, f.spaces())
		if len(toks) != 1 || toks[0].pct || toks[0].unit != "" || toks[0].garbled || !looksLikeMoney(toks[0]) {
			continue
		}
		v, bad := canonicalTok(toks[0], f)
		out = append(out, amountRow{kind: lkAmountDue, phrase: "amount due", raw: label, amount: v, bad: bad, line: i})
	}
	return out
}

// soleAmountHeaders head the one amount of a form-like invoice, written
// under its column: "Invoice Number  Invoice Date  Charges" over
// "34278587  6/18/2017  $56,651.49".
// "Amount" and "Total" are not among them: they head an item's column,
// and the one item of a truncated invoice is no total.
var soleAmountHeaders = map[string]bool{"charges": true, "invoice amount": true, "amount due": true, "total charges": true, "total due": true}

// soleAmountRow returns, for a document without any total row, its only
// amount written as money when the header above it names it so: a form
// with one amount has nothing else it could be. Anything more (a second
// amount anywhere) leaves the document without a total.
func soleAmountRow(d *document, rows []amountRow, f numberFormat) []amountRow {
	if finalTotal(rows) >= 0 {
		return nil
	}
	var found *amountRow
	for i := range d.lines {
		l := &d.lines[i]
		for k := range l.cells {
			c := &l.cells[k]
			for _, t := range moneyTokens(c.text, f) {
				if !looksLikeMoney(t) {
					continue
				}
				if found != nil || l.used {
					return nil // a second amount, or an item's
				}
				head := headerAbove(d, i, c)
				if !soleAmountHeaders[strings.Join(strings.Fields(strings.ToLower(head)), " ")] {
					return nil
				}
				v, bad := canonicalTok(t, f)
				found = &amountRow{kind: lkAmountDue, phrase: "amount due", raw: head, amount: v, bad: bad, line: i}
			}
		}
	}
	if found == nil {
		return nil
	}
	return []amountRow{*found}
}

// sumRow returns, for a document without any total row, the amount that
// stands alone on the line after its tax row when it is the subtotal plus
// that tax to the cent ("Celkem bez DPH 1 000,00 Kč / DPH 21 % 210,00 Kč /
// 1 210,00 Kč"): the arithmetic names it the total, though no label does.
func sumRow(d *document, rows []amountRow, f numberFormat) []amountRow {
	if finalTotal(rows) >= 0 {
		return nil
	}
	var sub, tax *amountRow
	for i := range rows {
		switch rows[i].kind {
		case lkSubtotal:
			sub, tax = &rows[i], nil
		case lkTax:
			tax = &rows[i]
		}
	}
	if sub == nil || tax == nil || sub.bad || tax.bad || tax.line < sub.line {
		return nil
	}
	n := d.nextNonBlank(tax.line)
	if n < 0 || n > tax.line+2 || d.lines[n].used || countCells(&d.lines[n]) != 1 {
		return nil
	}
	toks := moneyTokens(firstCell(&d.lines[n]).text, f)
	if len(toks) != 1 || !looksLikeMoney(toks[0]) || toks[0].garbled {
		return nil
	}
	v, bad := canonicalTok(toks[0], f)
	if sum, ok := addCanonical([]string{sub.amount, tax.amount}); bad || !ok || !sameDecimal(sum, v) {
		return nil
	}
	return []amountRow{{kind: lkTotal, phrase: "total", raw: "", amount: v, line: n}}
}

// headerAbove returns the text of the header over cell c of line i: on
// the nearest non-blank line above (at most three lines up), the cell of
// the same rank when both lines have as many cells (a header row over its
// values, each value placed as it likes), else the cell aligned with c.
func headerAbove(d *document, i int, c *cell) string {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		l := &d.lines[j]
		if l.blank() || l.rule {
			continue
		}
		if vals := &d.lines[i]; len(l.cells) == len(vals.cells) {
			return l.cells[cellIndex(vals, c)].text
		}
		if b := alignedCell(l, c.start, c.end); b != nil {
			return b.text
		}
		return ""
	}
	return ""
}

// inBrackets reports inner written inside the brackets of outer.
func inBrackets(outer, inner string) bool {
	open := strings.IndexByte(outer, '(')
	return open >= 0 && strings.Contains(outer[open:], inner)
}

// dropInnerLabels drops a row whose label is a word inside another row's
// label, in its brackets, on the same line with the same amount: the "USt" of "Rechnungssumme
// Netto (excl. USt.)" is no tax row of its own.
func dropInnerLabels(rows []amountRow) []amountRow {
	inner := func(i int) bool {
		for j, o := range rows {
			if j != i && o.line == rows[i].line && o.amount == rows[i].amount && inBrackets(o.raw, rows[i].raw) {
				return true
			}
		}
		return false
	}
	for i := range rows {
		if inner(i) {
			out := make([]amountRow, 0, len(rows))
			for k := range rows {
				if !inner(k) {
					out = append(out, rows[k])
				}
			}
			return out
		}
	}
	return rows
}

// taxOfTriple reads a tax row that states the net, the tax and the gross
// (net + tax = gross): its tax is the middle amount, not the last.
func taxOfTriple(h hit, f numberFormat) (string, bool) {
	if h.kind != lkTax {
		return "", false
	}
	var vals []string
	for _, c := range h.cells {
		for _, t := range amountTokens(dropBrackets(c), f) {
			if v, bad := canonicalTok(t, f); !bad && v != "" && !t.pct {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) != 3 {
		return "", false
	}
	if sum, ok := addCanonical(vals[:2]); ok && sameDecimal(sum, vals[2]) {
		return vals[1], true
	}
	return "", false
}
