package corpus

import (
	"math/rand/v2"
	"strings"
)

// titleWithNumber returns the document title and whether it carries the
// invoice number ("INVOICE No. 4471"), in which case the fields do not
// repeat it.
func (inv *invoice) titleWithNumber(r *rand.Rand) (string, bool) {
	if !inv.showNumber || !chance(r, 20) {
		return inv.labels.title, false
	}
	t := strings.TrimPrefix(inv.labels.title, "TAX ")
	if t == "I N V O I C E" {
		t = "INVOICE"
	}
	return t + pick(r, []string{" No. ", " ", " #", " Number "}) + inv.number, true
}

// withoutNumber drops the invoice number from field pairs.
func (inv *invoice) withoutNumber(ps [][2]string) [][2]string {
	if len(ps) > 0 && inv.showNumber && ps[0][1] == inv.number {
		return ps[1:]
	}
	return ps
}

func tableStyleFor(r *rand.Rand) tableStyle {
	return pick(r, []tableStyle{
		{gap: "  ", rule: "-"},
		{gap: "   ", rule: "-", ruleSpan: true},
		{gap: "  ", rule: "=", ruleSpan: true},
		{gap: "    "},
		{gap: "  ", rule: "-", upper: true},
	})
}

// renderVendorBlock: the supplier's letterhead on top, a title, labelled
// fields, the bill-to block, an aligned item table and the totals under its
// amount column.
func renderVendorBlock(r *rand.Rand, inv *invoice) string {
	var p page
	title, numbered := inv.titleWithNumber(r)
	titleFirst := chance(r, 15)
	if titleFirst {
		p.add(title)
		p.blank()
	}
	p.add(inv.vendorHeader(r, chance(r, 30))...)
	p.blank()
	tb := inv.items(r, pick(r, columnOrders), inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	w := tableWidth(lines)
	if !titleFirst {
		if chance(r, 50) {
			p.add(center(title, w))
		} else {
			p.add(title)
		}
		p.blank()
	}
	ps := inv.fieldPairs(r)
	if numbered {
		ps = inv.withoutNumber(ps)
	}
	p.add(fields(pickFieldStyle(r), ps)...)
	p.blank()
	p.add(inv.labels.billTo)
	p.add(inv.customerBlock(r)...)
	p.blank()
	p.add(lines...)
	if chance(r, 50) {
		p.add(strings.Repeat("-", w))
	} else {
		p.blank()
	}
	p.add(summaryLines(inv.summaryRows(r, inv.money), w, chance(r, 60))...)
	p.blank()
	p.add(inv.paymentFooter(r)...)
	return p.String()
}

// renderTwoColumn: the bill-to block on the left and the invoice fields on
// the right of the same lines.
func renderTwoColumn(r *rand.Rand, inv *invoice) string {
	var p page
	p.add(inv.vendorHeader(r, chance(r, 40))...)
	p.blank()
	title, numbered := inv.titleWithNumber(r)
	p.add(title)
	p.blank()
	left := append([]string{inv.labels.billTo}, inv.customerBlock(r)...)
	ps := inv.fieldPairs(r)
	if numbered {
		ps = inv.withoutNumber(ps)
	}
	right := fields(pick(r, []fieldStyle{fieldColonAligned, fieldAligned, fieldColonAligned}), ps)
	lw := 0
	for _, l := range left {
		lw = max(lw, width(l))
	}
	p.add(sideBySide(left, right, lw+between(r, 4, 18))...)
	p.blank()
	tb := inv.items(r, pick(r, columnOrders), inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	p.add(lines...)
	p.blank()
	p.add(summaryLines(inv.summaryRows(r, inv.money), tableWidth(lines), chance(r, 50))...)
	p.blank()
	p.add(inv.paymentFooter(r)...)
	return p.String()
}

// labelRow writes label/value pairs as one row of labels and the values on
// the line below, each column as wide as its longer part.
func labelRow(ps [][2]string, gap int) []string {
	var labels, values strings.Builder
	for i, pr := range ps {
		w := max(width(pr[0]), width(pr[1])) + gap
		if i == len(ps)-1 {
			w = 0
		}
		labels.WriteString(padRight(pr[0], w))
		values.WriteString(padRight(pr[1], w))
	}
	return []string{labels.String(), values.String()}
}

// renderLabelRow: the invoice fields as a row of labels with the values on
// the line below, as ERP systems print them; sometimes the totals too.
func renderLabelRow(r *rand.Rand, inv *invoice) string {
	var p page
	if chance(r, 40) {
		v := inv.vendor
		p.add(strings.Join(append([]string{v.name}, v.address[:2]...), pick(r, []string{" · ", " | ", " - ", ", "})))
	} else {
		p.add(inv.vendorHeader(r, chance(r, 30))...)
	}
	p.blank()
	if chance(r, 60) {
		p.add(inv.customerBlock(r)...)
		p.blank()
	}
	p.add(inv.labels.title)
	p.blank()
	ps := inv.fieldPairs(r)
	gap := between(r, 3, 6)
	if len(ps) > 4 && chance(r, 60) {
		p.add(labelRow(ps[:3], gap)...)
		p.blank()
		p.add(labelRow(ps[3:], gap)...)
	} else {
		p.add(labelRow(ps, gap)...)
	}
	p.blank()
	tb := inv.items(r, pick(r, columnOrders), inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	p.add(lines...)
	p.blank()
	rows := inv.summaryRows(r, inv.money)
	if chance(r, 35) {
		p.add(labelRow(rows, gap)...)
	} else {
		p.add(summaryLines(rows, tableWidth(lines), chance(r, 50))...)
	}
	p.blank()
	p.add(inv.paymentFooter(r)...)
	return p.String()
}

// renderUSSalesTax: a US invoice: the company in capitals, two fields per
// line, bill-to beside ship-to, item numbers, shipping and sales tax, and a
// balance due.
func renderUSSalesTax(r *rand.Rand, inv *invoice) string {
	var p page
	v := inv.vendor
	p.add(strings.ToUpper(v.name))
	p.add(v.address[:2]...)
	p.add(v.phone)
	if chance(r, 50) {
		p.add(v.web)
	}
	p.blank()
	title, numbered := inv.titleWithNumber(r)
	p.add(padLeft(title, 64))
	p.blank()
	ps := inv.fieldPairs(r)
	if numbered {
		ps = inv.withoutNumber(ps)
	}
	ps = append(ps, [2]string{"Terms", "Net " + itoa(inv.termsDays)})
	for i := 0; i < len(ps); i += 2 {
		left := ps[i][0] + ": " + ps[i][1]
		if i+1 < len(ps) {
			p.add(padRight(left, 34) + ps[i+1][0] + ": " + ps[i+1][1])
		} else {
			p.add(left)
		}
	}
	p.blank()
	bill := append([]string{"Bill To:"}, inv.customerBlock(r)...)
	ship := []string{"Ship To:", inv.customer.name}
	if chance(r, 50) {
		ship = append(ship, inv.customer.address...)
	} else {
		ship = append(ship, "Same as billing address")
	}
	p.add(sideBySide(bill, ship, 34)...)
	p.blank()
	order := pick(r, [][]colKind{{colSKU, colDesc, colQty, colPrice, colAmount}, {colQty, colSKU, colDesc, colPrice, colAmount}, {colDesc, colQty, colPrice, colAmount}})
	tb := inv.items(r, order, inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	p.add(lines...)
	p.blank()
	rows := inv.summaryRows(r, inv.money)
	if inv.showTotal && chance(r, 40) {
		rows[len(rows)-1][0] = "Total"
		rows = append(rows, [2]string{"Payments/Credits", inv.money.format(0)}, [2]string{"Balance Due", inv.money.format(inv.total)})
	}
	p.add(summaryLines(rows, max(tableWidth(lines), 60), false)...)
	p.blank()
	p.add("Make all checks payable to " + v.name)
	if chance(r, 60) {
		p.add("Questions? Call " + v.phone + " or e-mail " + v.email)
	}
	p.add(pick(r, []string{"THANK YOU FOR YOUR BUSINESS!", "Thank you for your business!"}))
	return p.String()
}

// renderBoxed: an accounting system's text export: the items and the totals
// in one ASCII box, the totals as rows of the table.
func renderBoxed(r *rand.Rand, inv *invoice) string {
	var p page
	p.add(inv.vendorHeader(r, chance(r, 50))...)
	p.blank()
	title, numbered := inv.titleWithNumber(r)
	p.add(title)
	p.blank()
	ps := inv.fieldPairs(r)
	if numbered {
		ps = inv.withoutNumber(ps)
	}
	p.add(fields(pickFieldStyle(r), ps)...)
	p.blank()
	p.add(inv.labels.billTo)
	p.add(inv.customerBlock(r)...)
	p.blank()
	order := pick(r, [][]colKind{{colNo, colDesc, colQty, colPrice, colAmount}, {colNo, colSKU, colDesc, colQty, colPrice, colAmount}, {colDesc, colQty, colPrice, colAmount}})
	tb := inv.items(r, order, inv.cell)
	p.add(box(tb, inv.summaryRows(r, inv.money))...)
	p.blank()
	p.add(inv.paymentFooter(r)...)
	return p.String()
}

// box draws the item table and the summary rows in an ASCII box, each
// summary row a label spanning every column but the last and its amount in
// the last.
func box(tb itemTable, summary [][2]string) []string {
	n := len(tb.cols)
	widths := make([]int, n)
	for i, c := range tb.cols {
		widths[i] = width(c.head)
	}
	for _, row := range tb.rows {
		for i, cell := range row {
			widths[i] = max(widths[i], width(cell))
		}
	}
	for _, s := range summary {
		widths[n-1] = max(widths[n-1], width(s[1]))
	}
	span := -3 // the inner width of the merged columns
	for _, w := range widths[:n-1] {
		span += w + 3
	}
	for _, s := range summary {
		if extra := width(s[0]) - span; extra > 0 {
			widths[n-2] += extra
			span += extra
		}
	}
	rule := func(merged bool) string {
		if merged {
			return "+" + strings.Repeat("-", span+2) + "+" + strings.Repeat("-", widths[n-1]+2) + "+"
		}
		var b strings.Builder
		b.WriteString("+")
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "+")
		}
		return b.String()
	}
	row := func(cells []string) string {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			if tb.cols[i].right {
				b.WriteString(" " + padLeft(c, widths[i]) + " |")
			} else {
				b.WriteString(" " + padRight(c, widths[i]) + " |")
			}
		}
		return b.String()
	}
	heads := make([]string, n)
	for i, c := range tb.cols {
		heads[i] = c.head
	}
	out := []string{rule(false), row(heads), rule(false)}
	for _, cells := range tb.rows {
		out = append(out, row(cells))
	}
	out = append(out, rule(false))
	for _, s := range summary {
		out = append(out, "| "+padLeft(s[0], span)+" | "+padLeft(s[1], widths[n-1])+" |")
	}
	return append(out, rule(true))
}
