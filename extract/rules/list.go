package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// findListItems reads "description  amount" lines right above the first
// totals row, among or instead of inline items.
func findListItems(d *document, f numberFormat, it *items) {
	first := firstTotalsRow(d)
	if first < 0 {
		return
	}
	var found []int
	for j := first - 1; j >= 0; j-- {
		l := &d.lines[j]
		if l.blank() || l.rule {
			if len(found) > 0 && j > 0 && d.lines[j-1].blank() {
				break
			}
			continue
		}
		if l.role == roleItem {
			continue // an inline item among the list
		}
		if !listLine(l, f) {
			if len(found) > 0 && sectionHeading(l) && listAbove(d, j, f) {
				continue // "LABOR" between the labour and the material lines
			}
			break
		}
		found = append(found, j)
	}
	for k := len(found) - 1; k >= 0; k-- {
		l := &d.lines[found[k]]
		x, _ := listItem(l, f)
		it.add(x, found[k])
		l.used, l.role = true, roleItem
	}
}

// sectionHeading: a short line of words alone ("LABOR", "Materials:")
// that groups the items under it.
func sectionHeading(l *line) bool {
	return len(l.cells) == 1 && !hasDigit(l.text) && countFields(l.text) <= 4
}

// listAbove reports a list line as the next non-blank line above j.
func listAbove(d *document, j int, f numberFormat) bool {
	for k := j - 1; k >= 0; k-- {
		if l := &d.lines[k]; !l.blank() && !l.rule {
			return listLine(l, f)
		}
	}
	return false
}

// firstTotalsRow returns the first line with an amount label, or -1.
func firstTotalsRow(d *document) int {
	for i := range d.lines {
		if _, _, ok := amountLabelOf(&d.lines[i]); ok && !d.lines[i].used {
			return i
		}
	}
	return -1
}

func listLine(l *line, f numberFormat) bool {
	if l.used || len(l.cells) < 2 {
		return false
	}
	if m, ok := firstCellLabel(l); ok && (m.colon || m.kind != lkOtherRef) {
		return false
	}
	_, ok := listItem(l, f)
	return ok
}

// listItem reads a line whose last cell is an amount written as money
// (decimals or a currency) and whose first cell is text.
func listItem(l *line, f numberFormat) (extract.ExtractedLine, bool) {
	last := classifyCell(l.cells[len(l.cells)-1], f)
	first := classifyCell(l.cells[0], f)
	if !last.num || last.missing || last.bad || first.num || !looksLikeMoney(last.tok) {
		return extract.ExtractedLine{}, false
	}
	x := extract.ExtractedLine{Description: first.text, Amount: last.canon}
	if len(l.cells) == 4 {
		q, p := classifyCell(l.cells[1], f), classifyCell(l.cells[2], f)
		if q.num && p.num && !q.bad && !p.bad && !q.missing && !p.missing {
			x.Quantity, x.UnitPrice = q.canon, p.canon
		}
	}
	return x, true
}

// looksLikeMoney: a currency, or decimals after the last separator.
func looksLikeMoney(t numTok) bool {
	if t.cur != "" {
		return true
	}
	i := strings.LastIndexAny(t.raw, ".,")
	return i >= 0 && len(t.raw)-i-1 == 2
}
