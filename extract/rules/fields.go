package rules

import (
	"strings"
)

// Ranks of a field value by how it was found; lower is surer.
const (
	rankLabel   = iota // "Label: value", "Label   value", a header row with values below
	rankBelow          // a label alone on its line, the value on the next
	rankTitle          // "INVOICE No. 4471", "# Invoice 4471"
	rankSubject        // an e-mail subject
	rankProse          // "please find invoice 4471 attached"
	rankMail           // an e-mail header (From:, Date:)
	rankTop            // the unlabelled block at the top
)

// hit is a field value found in the document.
type hit struct {
	kind   labelKind
	phrase string
	// cells hold the value: the rest of the label's cell, then the cells
	// after it on the line up to the next label.
	cells []string
	// raw is the label's whole cell ("VAT 20% (included)").
	raw  string
	line int
	rank int
}

func (h hit) value() string { return strings.Join(h.cells, "  ") }

// scanFields finds every labelled value of d outside the item rows.
func scanFields(d *document) []hit {
	var hits []hit
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || l.blank() || l.rule {
			continue
		}
		if d.mail && i < d.mailEnd {
			hits = append(hits, mailHits(l, i)...)
			continue
		}
		if hs, ok := headerRowHits(d, i); ok {
			hits = append(hits, hs...)
			continue
		}
		hits = appendCellHits(hits, d, i)
	}
	return hits
}

// mailHits reads the From and Date headers of an e-mail.
func mailHits(l *line, i int) []hit {
	if v, ok := mailHeader(l.text, "from"); ok {
		return []hit{{kind: lkVendor, phrase: "mail from", cells: []string{v}, line: i, rank: rankMail}}
	}
	for _, name := range []string{"date", "sent"} {
		if v, ok := mailHeader(l.text, name); ok {
			return []hit{{kind: lkIssueDate, phrase: "mail date", cells: []string{v}, line: i, rank: rankMail}}
		}
	}
	return nil
}

// appendCellHits appends to hits the labels of line i: each cell that
// starts with a label gives a hit whose value is the rest of the cell, else
// the next cells, else the cell below.
func appendCellHits(hits []hit, d *document, i int) []hit {
	l := &d.lines[i]
	for j := 0; j < len(l.cells); j++ {
		c := &l.cells[j]
		m, ok := c.labelOf()
		if (!ok || m.kind == lkShipping || m.kind == lkFee) && j+1 < len(l.cells) {
			if q, qok := qualifiedTaxLabel(c.text); qok {
				m, ok = q, true // "Versandkosten USt. 19,00% auf 4,99 €": the shipping's tax
			}
		}
		if !ok || c.customer {
			continue
		}
		h := hit{kind: m.kind, phrase: m.phrase, raw: c.text, line: i, rank: rankLabel}
		if v := labelValue(c.text, m); v != "" && !pairedLabel(v) && !currencyQualifier(v) {
			h.cells = append(h.cells, v)
		}
		first := j + 1
		j = followingCells(l, j, &h)
		if len(h.cells) == 0 && !(m.kind.isAmount() && itemHeaderLine(l)) {
			if b, ok := cellBelow(d, i, c); ok && !(m.kind.isAmount() && describedBelow(d, i, b)) {
				h.cells, h.rank = []string{b.text}, rankBelow
			}
			if m.kind == lkVendor && (len(h.cells) == 0 || cleanVendor(h.cells[0]) == "") {
				if v, ok := nameBelow(d, i, c); ok {
					h.cells = []string{v}
				}
			}
		}
		if h.rank == rankBelow && len(h.cells) == 1 {
			hits = appendPairedBelow(hits, c.text, &h, i)
		}
		if m.kind == lkCustomer {
			markCustomerBlock(d, i, c)
			for k := first; k <= j; k++ { // "Buyer:      Nordlicht Media GmbH": the value's cells too
				markCustomerBlock(d, i, &l.cells[k])
			}
		}
		hits = append(hits, h)
	}
	return hits
}

// qualifiedTaxLabel reads a tax label after one word that says what the
// tax is on, with its rate: "Positionen USt. 19,00% auf 804,35 €",
// "Versandkosten MwSt. 19%". The rate is required, so that a description
// that merely mentions a tax word is no label.
func qualifiedTaxLabel(text string) (labelMatch, bool) {
	sp := strings.IndexByte(text, ' ')
	if sp <= 0 || hasDigit(text[:sp]) || !strings.Contains(text[sp:], "%") {
		return labelMatch{}, false
	}
	m, ok := matchLabel(text[sp+1:])
	if !ok || m.kind != lkTax {
		return labelMatch{}, false
	}
	m.end += sp + 1
	return m, true
}

// pairedLabel reports the rest of a header cell that is another label
// after " / " ("Rechnungsnummer / Datum"): the values are below.
func pairedLabel(rest string) bool {
	r, ok := strings.CutPrefix(strings.TrimSpace(rest), "/")
	if !ok {
		return false
	}
	m, ok := matchLabel(strings.TrimSpace(r))
	return ok && labelValue(strings.TrimSpace(r), m) == ""
}

// appendPairedBelow splits a header of labels joined by " / " over values
// joined so ("Rechnungsnummer / Datum" over "94165608 / 30.08.2018"): h
// keeps the first value, each further label gets its own hit.
func appendPairedBelow(hits []hit, label string, h *hit, i int) []hit {
	labs, vals := strings.Split(label, " / "), strings.Split(h.cells[0], " / ")
	if len(labs) < 2 || len(labs) != len(vals) {
		return hits
	}
	h.cells = []string{strings.TrimSpace(vals[0])}
	for k := 1; k < len(labs); k++ {
		if m, ok := matchLabel(strings.TrimSpace(labs[k])); ok {
			hits = append(hits, hit{kind: m.kind, phrase: m.phrase, raw: labs[k], cells: []string{strings.TrimSpace(vals[k])}, line: i, rank: rankBelow})
		}
	}
	return hits
}

// followingCells adds to h the cells after j up to the next label (all of
// them for an amount, the next one only for another field without a value
// yet; all of them for a payment's method or date, whose amount may
// follow) and returns the index of the last cell taken.
func followingCells(l *line, j int, h *hit) int {
	for k := j + 1; k < len(l.cells); k++ {
		c := &l.cells[k]
		if c.text == "" {
			continue
		}
		if startsLabel(c.text) && !(len(h.cells) == 0 && bracketed(c.text)) ||
			(!h.kind.isAmount() && !paymentPhrases[h.phrase] && len(h.cells) > 0 && !bareNumberWord(h.cells[len(h.cells)-1])) {
			return k - 1
		}
		h.cells = append(h.cells, c.text)
		j = k
	}
	return j
}

// currencyQualifier reports the rest of a label that only names the
// currency of its amount ("Total Due ($)", "Total (EUR)"): no value, the
// amount is elsewhere.
func currencyQualifier(v string) bool {
	t := strings.Trim(strings.TrimSpace(v), "()[] :")
	if t == "" || hasDigit(t) {
		return false
	}
	code, n := currencyAfter(t)
	return code != "" && n == len(t)
}

// bracketed reports a cell wrapped in brackets: right after a label
// without its value it qualifies that label ("Nettobetrag  (zzgl. 19,00%
// MwSt.)  376,37": the net, plus VAT), it is no label of its own.
func bracketed(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && strings.Count(s, "(") == 1 && strings.Count(s, ")") == 1
}

// bareNumberWord reports a cell that is a number word alone ("N°:",
// "No.", "#"): the label's value is the next cell ("Invoice   N°:
// V01/15000001").
func bareNumberWord(s string) bool {
	w := strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".:"))
	return w == "#" || w == "no" || w == "nr" || w == "n°" || w == "nº" || w == "№" || w == "number"
}

// startsLabel reports a cell that begins with a field label (a value such
// as "Net 30" after "Terms" is not one: it needs a colon or to be a
// known field kind).
func startsLabel(text string) bool {
	m, ok := matchLabel(text)
	return ok && (m.colon || m.kind != lkOtherRef && labelValue(text, m) == "" || m.kind.isAmount())
}

// cellBelow returns the cell under c on the next non-blank line (at most
// two lines down) when it is a value, not another label.
func cellBelow(d *document, i int, c *cell) (*cell, bool) {
	n := d.nextNonBlank(i)
	if n < 0 || n > i+2 || d.lines[n].used {
		return nil, false
	}
	b := alignedCell(&d.lines[n], c.start, c.end)
	if b == nil {
		b = stackedValue(&d.lines[i], &d.lines[n], c)
	}
	if b == nil || startsLabel(b.text) || strings.HasSuffix(b.text, ":") {
		return nil, false // another label ("Nummer:"), known or not
	}
	return b, true
}

// describedBelow reports a value cell b under a label of line i that
// follows a description on its line: an item's amount under a column
// header ("Preis / zzgl. MwSt." over "Webhosting Paket M  01.02.-29.02.
// 3,89 €"), never the labelled amount itself. A label and its value
// beside it ("Do zapłaty  148,83 PLN") describe nothing.
func describedBelow(d *document, i int, b *cell) bool {
	n := d.nextNonBlank(i)
	if n < 0 {
		return false
	}
	for k := range d.lines[n].cells {
		c := &d.lines[n].cells[k]
		if c == b || c.end > b.start || !hasLetter(c.text) || isCurrencyWord(strings.TrimSpace(c.text)) {
			continue
		}
		if _, ok := c.labelOf(); !ok && len(moneyTokens(c.text, numberFormat{decimal: '.'})) == 0 {
			return true
		}
	}
	return false
}

// nameBelow returns the first name-like cell under a vendor label that ends
// its line, past the labelled lines the block starts with:
//
//	Verkäufer:
//	Globale Nummer: 4000001123452 (GLN)
//	Lieferant GmbH
func nameBelow(d *document, i int, c *cell) (string, bool) {
	for k, n := 0, d.nextNonBlank(i); k < 3 && n >= 0 && !d.lines[n].used; k, n = k+1, d.nextNonBlank(n) {
		l := &d.lines[n]
		b := alignedCell(l, c.start, c.end)
		if b == nil {
			return "", false
		}
		next := cellIndex(l, b) + 1
		if next < len(l.cells) && strings.HasPrefix(l.cells[next].text, ":") {
			continue // "Nummer     : 549910": a label whose colon stands apart
		}
		if strings.HasSuffix(b.text, ":") {
			if nameLabels[strings.ToLower(strings.TrimSpace(strings.TrimSuffix(b.text, ":")))] && next < len(l.cells) {
				v := cleanVendor(l.cells[next].text) // "Name:      Rohstoff AG Salzgitter"
				return v, v != ""
			}
			continue // "Nummer:      12345676"
		}
		if label, rest, ok := strings.Cut(b.text, ": "); ok {
			if nameLabels[strings.ToLower(strings.TrimSpace(label))] {
				v := cleanVendor(rest) // "Nazwa: Bartkowiak, Dróżdż and Górecki"
				return v, v != ""
			}
			continue // "Globale Nummer: 4000001123452 (GLN)"
		}
		if addressHeadings[strings.ToLower(strings.TrimSpace(b.text))] {
			return "", false // the block's address follows: no name was given
		}
		if v := cleanVendor(b.text); v != "" {
			return v, true
		}
		return "", false
	}
	return "", false
}

// nameLabels label the name in a party's block of labelled lines.
var nameLabels = map[string]bool{"name": true, "firma": true, "company": true, "nom": true, "raison sociale": true,
	"naam": true, "bedrijfsnaam": true, "nome": true, "ragione sociale": true, "nombre": true, "razón social": true,
	"firmenname": true, "navn": true, "namn": true, "nimi": true, "nazwa": true, "nazwa firmy": true,
	"název": true, "nazev": true, "obchodní firma": true, "razão social": true, "denominação": true}

// addressHeadings head the address part of a party's block.
var addressHeadings = map[string]bool{"adres": true, "address": true, "anschrift": true, "adresse": true,
	"indirizzo": true, "dirección": true, "direccion": true, "adresa": true, "morada": true, "endereço": true}

func cellIndex(l *line, c *cell) int {
	for k := range l.cells {
		if &l.cells[k] == c {
			return k
		}
	}
	return -1
}

// stackedValue returns the value of a label that ends its line when the
// next line holds it right-aligned further right, as the last cell, past
// the label's start: a PDF's right-hand block of "Rechnungsnummer" over
// "471102".
func stackedValue(l, next *line, c *cell) *cell {
	if len(l.cells) == 0 || &l.cells[len(l.cells)-1] != c || len(next.cells) == 0 {
		return nil
	}
	b := &next.cells[len(next.cells)-1]
	if len(next.cells) == 1 && b.start < c.start && b.end > c.start-40 {
		return b // the one cell under a label that ends its line, longer than it: "Numer Faktury:" over "FA/YUCFO-4342344706/03/2026"
	}
	if b.start <= c.start || b.start-c.end > 60 || len(next.cells) > 1 && next.cells[len(next.cells)-2].end > c.start {
		return nil
	}
	return b
}

// alignedCell returns the cell of l that starts near column start or
// overlaps [start, end).
func alignedCell(l *line, start, end int) *cell {
	for k := range l.cells {
		b := &l.cells[k]
		if b.text == "" {
			continue
		}
		if abs(b.start-start) <= 2 || (b.start < end && start < b.end && !l.pipe) {
			return b
		}
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// markCustomerBlock marks the cells under a "Bill to" label, at its
// column, down to the next blank line, as the customer's. A label that
// heads its block alone ("Recipient", a blank line, then the name) marks
// the block after that one blank line.
func markCustomerBlock(d *document, i int, c *cell) {
	c.customer = true
	gap := labelValue(c.text, c.label) == "" && i+2 < len(d.lines) && d.lines[i+1].blank() && !d.lines[i+2].blank()
	for k := i + 1; k < len(d.lines) && k <= i+8; k++ {
		l := &d.lines[k]
		if gap && k == i+1 {
			continue
		}
		b := alignedCell(l, c.start, c.end)
		if l.blank() || b == nil {
			return
		}
		if m, ok := matchLabel(b.text); ok && (m.colon || m.kind.isAmount()) {
			return // the next field, or the totals of a document without blank lines
		}
		if _, ok := parseHeader(l); ok {
			return // the item table's header row
		}
		b.customer = true
	}
}

// headerRowHits reads a line of labels with their values on the line
// below ("Invoice No.   Date   Due") and marks both lines read.
func headerRowHits(d *document, i int) ([]hit, bool) {
	l := &d.lines[i]
	labels, ok := pureLabels(l)
	if !ok {
		return nil, false
	}
	n := valuesLine(d, i, l, labels)
	if n < 0 {
		return nil, false
	}
	vals := &d.lines[n]
	if anyLabel := isLabelRow(vals); anyLabel || countCells(vals) < 2 || hasLabelCell(vals) {
		return nil, false
	}
	var hits []hit
	// A row of as many values as labels pairs them in order, however far
	// each value sits from its label ("Kwota netto  Kwota podatku" over
	// "27 292,28  6 277,22", each right-aligned in a wide column).
	byIndex := l.pipe && len(vals.cells) == len(l.cells) || !l.pipe && len(vals.cells) == len(l.cells) && countCells(vals) == len(labels)
	for k, m := range labels {
		c := &l.cells[m.cell]
		v := valueUnder(vals, c, m.cell, byIndex)
		if v == nil {
			continue
		}
		hits = append(hits, hit{kind: labels[k].kind, phrase: labels[k].phrase, cells: []string{v.text}, raw: c.text, line: i, rank: rankLabel})
	}
	vals.used, vals.role = true, roleFieldHeader
	l.role = roleFieldHeader
	return hits, len(hits) > 0
}

// valuesLine returns the line of a header row's values: the next line,
// or, in a PDF that interleaves a left column's text with a right-hand
// table, the first of the next five lines with a number under every
// label; -1 when there is none.
func valuesLine(d *document, i int, l *line, labels []cellLabel) int {
	n := d.nextNonBlank(i)
	if n < 0 || d.lines[n].used {
		return -1
	}
	if n <= i+2 && (l.pipe || numbersUnder(&d.lines[n], l, labels)) {
		return n
	}
	for _, m := range labels {
		if m.kind == lkVendor || m.kind == lkCustomer {
			if n <= i+2 {
				return n // a party's name is the line right under its label
			}
			return -1 // never a line with numbers further down
		}
	}
	for k := n; k >= 0 && k <= i+5; k = d.nextNonBlank(k) {
		if d.lines[k].used || !numbersUnder(&d.lines[k], l, labels) {
			continue
		}
		return k
	}
	if n <= i+2 {
		return n
	}
	return -1
}

// numbersUnder reports a line with a number under each of the labels.
func numbersUnder(vals *line, l *line, labels []cellLabel) bool {
	for _, m := range labels {
		c := &l.cells[m.cell]
		v := valueUnder(vals, c, m.cell, false)
		if v == nil || !hasDigit(v.text) || max(v.end, c.end)-min(v.start, c.start) > (c.end-c.start)+(v.end-v.start)+4 {
			return false
		}
	}
	return len(labels) > 0
}

// cellLabel is a label that fills a whole cell.
type cellLabel struct {
	labelMatch
	cell int
}

// pureLabels returns the labels of a line whose every non-empty cell (two
// at least) is a label with nothing after it.
func pureLabels(l *line) ([]cellLabel, bool) {
	if !isLabelRow(l) {
		return nil, false
	}
	var out []cellLabel
	for k := range l.cells {
		c := &l.cells[k]
		if c.text == "" {
			continue
		}
		m, ok := c.labelOf()
		if !ok || !onlyRates(c.text[m.end:]) {
			return nil, false
		}
		out = append(out, cellLabel{labelMatch: m, cell: k})
	}
	return out, len(out) >= 2
}

// itemHeaderLine reports the header of an item table ("Menge  Produkt
// USt.  Preis  Gesamtbetrag"): three cells or more without a digit, not
// all of them labels. The amount under its "Gesamtbetrag" is a line's, not
// the invoice's total.
func itemHeaderLine(l *line) bool {
	return len(l.cells) >= 3 && !hasDigit(l.text) && !isLabelRow(l)
}

// isLabelRow is the verdict of pureLabels without its labels: the scans
// that only ask it make no slice.
func isLabelRow(l *line) bool {
	n := 0
	for k := range l.cells {
		c := &l.cells[k]
		if c.text == "" {
			continue
		}
		if m, ok := c.labelOf(); !ok || !onlyRates(c.text[m.end:]) {
			return false
		}
		n++
	}
	return n >= 2
}

// onlyRates: what follows a label in a header cell is no value, only a
// rate, its base, a currency or punctuation: "(25%)", "@ 19%", "(EUR)",
// "on 261.00".
func onlyRates(s string) bool {
	var buf [16]string
	words := appendFieldsFunc(buf[:0], s, func(r rune) bool { return strings.ContainsRune(" :()[]@", r) })
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], ".")
		switch {
		case w == "":
		case rateEnd(w, 0) == len(w), w == "%", isCurrencyWord(w):
		case (w == "on" || w == "of") && i+1 < len(words) && hasDigit(words[i+1]):
			for i+1 < len(words) && hasDigit(words[i+1]) { // the base, perhaps "105 255,92"
				i++
			}
		default:
			return false
		}
	}
	return true
}

func countCells(l *line) int {
	n := 0
	for _, c := range l.cells {
		if c.text != "" {
			n++
		}
	}
	return n
}

func hasLabelCell(l *line) bool {
	for i := range l.cells {
		if m, ok := l.cells[i].labelOf(); ok && m.colon {
			return true
		}
	}
	return false
}

// valueUnder returns the cell of vals under the label cell c.
func valueUnder(vals *line, c *cell, index int, byIndex bool) *cell {
	if byIndex {
		if vals.cells[index].text == "" {
			return nil
		}
		return &vals.cells[index]
	}
	best, bestScore := -1, -1<<30
	for k, b := range vals.cells {
		if b.text == "" {
			continue
		}
		overlap := min(b.end, c.end) - max(b.start, c.start)
		if overlap <= 0 {
			overlap = -min(abs(b.start-c.start), abs(b.end-c.end)) - 1000
		}
		if overlap > bestScore {
			best, bestScore = k, overlap
		}
	}
	if best < 0 || bestScore < -1004 {
		return nil
	}
	return &vals.cells[best]
}
