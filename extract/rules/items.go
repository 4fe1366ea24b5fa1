package rules

import (
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// maxDescriptionRunes bounds a line's description; a longer one is cut.
const maxDescriptionRunes = 200

// items is what the line-item scan found.
type items struct {
	lines    []extract.ExtractedLine
	problems []string
	// firstRow and lastRow are the line indexes of the item rows (-1 when
	// none).
	firstRow, lastRow int
	// spaced: some items were read from rows one space apart by their
	// arithmetic alone; they stand only if they add up to the totals.
	spaced bool
}

func (it *items) add(l extract.ExtractedLine, row int) {
	if carryRow(l.Description) {
		return // a page's running total, already in the items above
	}
	l.Description = cutRunes(strings.TrimSpace(l.Description), maxDescriptionRunes)
	it.lines = append(it.lines, l)
	if it.firstRow < 0 {
		it.firstRow = row
	}
	it.lastRow = row
}

// carryPhrases name the running total a page carries to the next:
// "Carried forward 212.00" at the foot, "Brought forward 212.00" at the
// head.
var carryPhrases = []string{"carried forward", "brought forward", "carried over", "brought over",
	"c/f", "b/f", "c/fwd", "b/fwd", "übertrag", "transfer from previous page", "continued from previous page"}

func carryRow(desc string) bool {
	d := strings.ToLower(strings.TrimSpace(desc))
	for _, p := range carryPhrases {
		if strings.HasPrefix(d, p) {
			return true
		}
	}
	return false
}

func (it *items) problem(p string) {
	if !containsStr(it.problems, p) {
		it.problems = append(it.problems, p)
	}
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimSpace(s[:j])
		}
		i++
	}
	return s
}

// findItems finds the line items of d: tables under a header row first;
// without one, inline items ("3 x Widget @ 4.00 = 12.00"), numbered items
// whose numbers sit on the next line, and "description  amount" lines
// right above the totals.
func findItems(d *document, f numberFormat) items {
	it := items{firstRow: -1, lastRow: -1}
	for i := 0; i < len(d.lines); i++ {
		l := &d.lines[i]
		if l.used {
			continue
		}
		if cols, ok := parseHeader(l); ok {
			l.used, l.role = true, roleItemHeader
			i = readTable(d, i, cols, f, &it)
		}
	}
	if len(it.lines) == 0 {
		findInlineItems(d, f, &it)
		findListItems(d, f, &it)
	}
	if len(it.lines) == 0 {
		findProseItems(d, f, &it)
	}
	return it
}

// tableState carries a description line waiting for its numbers.
type tableState struct {
	pending string
	last    int // index in it.lines of the last item, -1 before the first
}

// readTable reads the rows under the header at line hi and returns the
// index of the last line it consumed.
func readTable(d *document, hi int, cols []column, f numberFormat, it *items) int {
	st := tableState{last: -1}
	for j := hi + 1; j < len(d.lines); j++ {
		l := &d.lines[j]
		switch {
		case l.rule:
			l.used = true
			continue
		case l.blank():
			if n := d.nextNonBlank(j); n < 0 || !continuesTable(&d.lines[n], cols, f) {
				return j
			}
			continue
		case endsTable(l):
			k, _, pure := amountLabelOf(l)
			if labelRow := isLabelRow(l); labelRow || !pure || !k.isCharge() {
				return j - 1
			}
			if r := parseRow(l, cols, f); r.nums < 2 {
				continue // a charge row inside the table: the totals scan reads it
			}
		}
		row := parseRow(l, cols, f)
		if !st.take(d, j, row, cols, f, it) {
			return j - 1
		}
		l.used, l.role = true, roleItem
	}
	return len(d.lines) - 1
}

// take records one row; false ends the table.
func (st *tableState) take(d *document, j int, row tableRow, cols []column, f numberFormat, it *items) bool {
	money := row.amount != "" || row.price != ""
	switch {
	case row.bad:
		it.problem(extract.FieldReason(extract.ReasonUnparseableAmount, "lineItems"))
	case money && row.text:
		it.add(extract.ExtractedLine{Description: row.desc, Quantity: row.qty, UnitPrice: row.price, Amount: row.amount}, j)
		st.pending, st.last = "", len(it.lines)-1
	case money:
		it.add(extract.ExtractedLine{Description: st.pending, Quantity: row.qty, UnitPrice: row.price, Amount: row.amount}, j)
		st.pending, st.last = "", len(it.lines)-1
	case row.text && st.nextIsNumbers(d, j, cols, f):
		st.pending = row.desc
	case row.text && st.last >= 0:
		it.lines[st.last].Description = cutRunes(it.lines[st.last].Description+" "+row.desc, maxDescriptionRunes)
	case row.text:
		st.pending = row.desc // a section heading inside the table
	default:
		return false
	}
	return true
}

// nextIsNumbers reports whether the next non-blank line is a row of
// numbers without text: the second line of a two-line item.
func (st *tableState) nextIsNumbers(d *document, j int, cols []column, f numberFormat) bool {
	n := d.nextNonBlank(j)
	if n < 0 || endsTable(&d.lines[n]) {
		return false
	}
	r := parseRow(&d.lines[n], cols, f)
	return !r.text && (r.amount != "" || r.price != "")
}

// continuesTable reports whether the line after a blank line is still a
// row of the table.
func continuesTable(l *line, cols []column, f numberFormat) bool {
	if labelRow := isLabelRow(l); labelRow {
		return false
	}
	if endsTable(l) {
		_, _, pure := amountLabelOf(l)
		return pure
	}
	r := parseRow(l, cols, f)
	return r.amount != "" || r.price != ""
}

// endsTable: a totals row, a row of labels (values below), or a "Label:
// value" field.
func endsTable(l *line) bool {
	if _, _, ok := amountLabelOf(l); ok {
		return true
	}
	if totalsCellAfterNote(l) {
		return true
	}
	if isLabelRow(l) {
		return true
	}
	c := firstCell(l)
	if c == nil {
		return false
	}
	m, ok := c.labelOf()
	return ok && m.colon && m.kind != lkOtherRef
}

// totalsCellAfterNote reports a totals row whose label is not the line's
// first cell: "18/08/2022: The bill is paid.   Subtotal without tax
// 165.00 EUR", a note written left of the totals block.
func totalsCellAfterNote(l *line) bool {
	for i := 1; i < len(l.cells); i++ {
		c := &l.cells[i]
		m, ok := c.labelOf()
		if !ok || !m.kind.isAmount() || m.kind == lkPaid || !pureRemainder(c.text[m.end:]) {
			continue
		}
		switch m.kind {
		case lkSubtotal, lkTotal, lkAmountDue:
			return true
		}
	}
	return false
}

func firstCell(l *line) *cell {
	for i := range l.cells {
		if l.cells[i].text != "" {
			return &l.cells[i]
		}
	}
	return nil
}

// amountLabelOf finds an amount label at the start of the first non-empty
// cell of l. pure: the label's cell holds nothing else than a rate, an
// amount or a bracketed note, so the row is a totals row and not an item
// described with the same word ("Tax preparation services").
func amountLabelOf(l *line) (labelKind, int, bool) {
	for i := range l.cells {
		c := &l.cells[i]
		if c.text == "" || allNonLatin(c.text) {
			continue // the other language of a bilingual label ("الإجمالي  Total")
		}
		m, ok := c.labelOf()
		if !ok || !m.kind.isAmount() {
			return lkNone, -1, false
		}
		return m.kind, i, pureRemainder(c.text[m.end:])
	}
	return lkNone, -1, false
}

// pureRemainder: no words left after a label but currency codes and the
// small words of a rate ("VAT @ 20% on 760.33", "Total (EUR)").
func pureRemainder(s string) bool {
	s = dropBrackets(dropTranslation(s))
	for pos := 0; pos < len(s); {
		w, _, end := nextWord(s, pos)
		if end <= pos {
			pos++
			continue
		}
		pos = end
		if w == "" || hasDigit(w) || isCurrencyWord(w) {
			continue
		}
		lw := strings.ToLower(w)
		switch lw {
		case "on", "at", "of", "rate", "due", "incl", "excl", "inc", "ex", "x", "is", "in", "to", "pay", "now", "amount",
			"by", "before": // "Balance due by 30/12/2026"
			continue
		}
		if slices.Contains(baseWords, lw) {
			continue // "19,00% auf 804,35 €"
		}
		return false
	}
	return true
}

// dropTranslation removes the other language of a bilingual label:
// "Subtotal / Sous-total 1,097.50" → " 1,097.50".
func dropTranslation(s string) string {
	t := strings.TrimLeft(s, " ")
	if !strings.HasPrefix(t, "/") {
		return s
	}
	t = t[1:]
	end := strings.IndexFunc(t, func(r rune) bool { return r >= '0' && r <= '9' || r == '(' || r == ':' })
	if end < 0 {
		return ""
	}
	return " " + t[end:]
}

// dropBrackets removes bracketed text that holds letters: "(20%)" stays,
// "(incl. VAT)" goes.
func dropBrackets(s string) string {
	if strings.IndexByte(s, '(') < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '(')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(s[i:], ')')
		}
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if hasLetter(s[i+1 : i+j]) {
			b.WriteByte(' ')
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
}

func (k labelKind) isCharge() bool {
	return k == lkShipping || k == lkDiscount || k == lkFee || k == lkRounding
}
