package rules

import (
	"strings"
)

// unitWords may follow a number in a numeric cell: "9.5 hrs", "3 pcs".
var unitWords = map[string]bool{
	"h": true, "hr": true, "hrs": true, "hour": true, "hours": true, "pcs": true, "pc": true,
	"kb": true, "mb": true, "gb": true, "tb": true, "gib": true, "tib": true, // storage sold by size: "1TB"
	"x": true, "ea": true, "each": true, "unit": true, "units": true, "days": true, "day": true,
	"d": true, "kg": true, "g": true, "m": true, "l": true, "set": true, "sets": true, "box": true,
	"boxes": true, "month": true, "months": true, "mo": true, "wk": true, "wks": true, "weeks": true,
	"week": true, "licence": true, "licences": true, "license": true, "licenses": true, "seats": true,
	"seat": true, "users": true, "user": true, "nights": true, "night": true, "pax": true, "lot": true,
	"pieces": true, "piece": true, "items": true, "item": true, "stk": true, "std": true, "min": true,
	"mins": true, "km": true, "sqm": true, "t": true, "pack": true, "packs": true, "rolls": true,
	"kwh": true, "mwh": true, "therms": true, "litres": true, "liters": true,
}

// rowCell is a cell of a table row: a number (with its canonical value),
// a placeholder ("-", "n/a") or text.
type rowCell struct {
	cell
	num     bool
	tok     numTok
	canon   string
	bad     bool // looks like a number in no consistent format
	missing bool // a placeholder for an empty value
}

// classifyCell reads a cell as a number (a single number, perhaps with a
// currency, a '%' or a unit word), a placeholder or text.
func classifyCell(c cell, f numberFormat) rowCell {
	rc := rowCell{cell: c}
	switch strings.ToLower(c.text) {
	case "", "-", "–", "—", "n/a", "na", "--":
		rc.missing, rc.num = true, true
		return rc
	}
	toks := scanNumbers(c.text, f.spaces())
	if len(toks) == 1 && toks[0].garbled && numericResidue(c.text, numTok{start: toks[0].start, end: toks[0].end}) {
		rc.num, rc.bad, rc.tok = true, true, toks[0]
		return rc
	}
	if len(toks) != 1 || !numericResidue(c.text, toks[0]) {
		return rc
	}
	rc.num, rc.tok = true, toks[0]
	rc.canon, rc.bad = canonicalTok(toks[0], f)
	return rc
}

// appendNumberCell appends a cell to out, split into one cell per number
// when it holds nothing but several numbers ("4 001,00 SEK 24 006,00 SEK",
// a price and an amount one space apart).
func appendNumberCell(out []rowCell, c cell, f numberFormat) []rowCell {
	toks := scanNumbers(c.text, f.spaces())
	if len(toks) < 2 || !onlyNumbers(c.text, toks) {
		return append(out, classifyCell(c, f))
	}
	for _, t := range toks {
		start := c.start + runeCount(c.text[:t.start])
		sub := cell{text: c.text[t.start:t.end], start: start, end: start + runeCount(c.text[t.start:t.end])}
		out = append(out, classifyCell(sub, f))
	}
	return out
}

// onlyNumbers reports text with nothing but spaces outside its numbers.
func onlyNumbers(text string, toks []numTok) bool {
	prev := 0
	for _, t := range toks {
		if strings.TrimSpace(text[prev:t.start]) != "" {
			return false
		}
		prev = t.end
	}
	return strings.TrimSpace(text[prev:]) == ""
}

// canonicalTok returns the canonical value of a token, or bad.
func canonicalTok(t numTok, f numberFormat) (string, bool) {
	v, ok := f.canonical(t.raw, t.neg)
	return v, !ok
}

// numericResidue reports whether what surrounds the number in text is at
// most a unit word (a currency and '%' are part of the token).
func numericResidue(text string, t numTok) bool {
	rest := strings.TrimSpace(text[:t.start] + " " + text[t.end:])
	rest = strings.Trim(rest, " .:/")
	if rest == "" {
		return t.unit == "" || unitWords[t.unit]
	}
	return t.unit == "" && unitWords[strings.ToLower(rest)]
}

// tableRow is a row of an item table, its values by role.
type tableRow struct {
	desc               string
	qty, price, amount string
	nums               int  // numeric values found
	bad                bool // a money or quantity cell in no consistent format
	text               bool // has text cells
}

// parseRow reads a row under the table's columns. Pipe rows with as many
// cells as the header map cell to column; other rows map numbers to the
// numeric columns in order when the counts agree, else each to the
// nearest column by position.
func parseRow(l *line, cols []column, f numberFormat) tableRow {
	cells := make([]rowCell, 0, len(l.cells))
	for _, c := range l.cells {
		cells = appendNumberCell(cells, c, f)
	}
	if l.pipe && len(cells) == len(cols) {
		return rowByIndex(cells, cols)
	}
	cells = peelNumbers(cells, cols, f)
	return rowByPosition(cells, cols)
}

// rowByIndex maps the i-th cell to the i-th column.
func rowByIndex(cells []rowCell, cols []column) tableRow {
	var r tableRow
	for i, c := range cells {
		r.put(cols[i].role, c)
	}
	return r
}

// rowByPosition maps numbers to numeric columns (in order when the counts
// agree, else by position, left to right) and text to the description.
func rowByPosition(cells []rowCell, cols []column) tableRow {
	var r tableRow
	numCols := numericColumns(cols)
	var nums []rowCell
	for _, c := range cells {
		if c.num && !c.missing && underTextColumn(c, cols) {
			c.num = false // an article number, or a number in the description
		}
		switch {
		case c.num && !(c.missing && c.text == ""):
			nums = append(nums, c)
		case c.text != "" && describes(c.cell, cols):
			r.addText(c.text)
		}
	}
	if len(nums) == len(numCols) {
		for i, c := range nums {
			r.put(numCols[i].role, c)
		}
		return r
	}
	next := 0
	for _, c := range nums {
		k := nearestFitting(c, numCols[next:])
		if k < 0 {
			break
		}
		r.put(numCols[next+k].role, c)
		next += k + 1
	}
	return r
}

// nearestFitting returns the nearest column whose kind fits the number: a
// number with a unit ("6 pcs") is a quantity, one with a currency is money.
func nearestFitting(c rowCell, cols []column) int {
	fits := make([]column, len(cols))
	copy(fits, cols)
	any := false
	for i, col := range fits {
		ok := true
		switch {
		case c.tok.unit != "" || c.tok.cur == "" && unitWords[strings.ToLower(residueWord(c))]:
			ok = col.role == colQty
		case c.tok.cur != "":
			ok = col.role != colQty && col.role != colIndex
		}
		if !ok {
			fits[i].start, fits[i].end = -1<<20, -1<<20 // out of reach
		}
		any = any || ok
	}
	if !any {
		return nearestColumn(c.cell, cols)
	}
	return nearestColumn(c.cell, fits)
}

// residueWord is the word beside the number of a numeric cell.
func residueWord(c rowCell) string {
	return strings.TrimSpace(c.text[:c.tok.start] + c.text[c.tok.end:])
}

// underTextColumn reports a plain number (no currency, no decimals) that
// sits under a code, description or date column.
func underTextColumn(c rowCell, cols []column) bool {
	k := nearestColumn(c.cell, cols)
	if k < 0 || cols[k].role.numeric() || c.tok.cur != "" || strings.ContainsAny(c.tok.raw, ".,") ||
		c.tok.unit != "" || residueWord(c) != "" {
		return false // money, or a quantity with its unit ("1 pcs" under "Description / Qty")
	}
	return min(c.end, cols[k].end)-max(c.start, cols[k].start) > 0
}

// describes reports whether a text cell sits nearest a description (or
// unknown) column rather than an item number, code, unit or date column.
func describes(c cell, cols []column) bool {
	k := nearestColumn(c, cols)
	return k < 0 || cols[k].role == colDesc || cols[k].role == colOther || cols[k].role.numeric() && cols[k].role != colIndex
}

func numericColumns(cols []column) []column {
	var out []column
	for _, c := range cols {
		if c.role.numeric() {
			out = append(out, c)
		}
	}
	return out
}

// nearestColumn returns the index of the column c overlaps most, else the
// one closest to it, or -1 when there is none.
func nearestColumn(c cell, cols []column) int {
	best, bestScore := -1, -1<<30
	for i, col := range cols {
		overlap := min(c.end, col.end) - max(c.start, col.start)
		score := overlap
		if overlap <= 0 {
			score = overlap - 1000 // a gap: closer is better, any overlap wins
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// put records a cell's value under a role.
func (r *tableRow) put(role colRole, c rowCell) {
	if !c.num {
		if role == colDesc || role == colOther {
			r.addText(c.text)
		}
		return
	}
	if c.missing {
		return
	}
	dst := map[colRole]*string{colQty: &r.qty, colPrice: &r.price, colAmount: &r.amount}[role]
	if dst == nil {
		if role == colDesc {
			r.addText(c.text)
		}
		return
	}
	r.nums++
	if c.bad {
		r.bad = true
		return
	}
	*dst = c.canon
}

func (r *tableRow) addText(t string) {
	r.text = true
	if r.desc != "" {
		r.desc += " "
	}
	r.desc += t
}

// peelNumbers splits numbers off the ends of text cells when the row has
// fewer numbers than numeric columns: "Widget blue 3" under single-space
// alignment.
func peelNumbers(cells []rowCell, cols []column, f numberFormat) []rowCell {
	n := 0
	for _, c := range cells {
		if c.num {
			n++
		}
	}
	if n >= len(numericColumns(cols)) {
		return cells
	}
	out := make([]rowCell, 0, len(cells)+2)
	for _, c := range cells {
		if c.num {
			out = append(out, c)
			continue
		}
		out = append(out, splitTextCell(c, cols, f)...)
	}
	return out
}

// underNumericColumn reports a word that overlaps a numeric column, give
// or take one character: "Product description 1" two characters short of
// "UNIT PRICE" keeps its "1".
func underNumericColumn(c cell, cols []column) bool {
	for _, col := range cols {
		if col.role.numeric() && c.start <= col.end+1 && col.start <= c.end+1 {
			return true
		}
	}
	return false
}

// splitTextCell cuts off a text cell the single-space separated numbers
// at its ends that sit under a numeric column ("Widget blue 3"; not the
// year of "Annual accounts 2025" far left of the quantities).
func splitTextCell(c rowCell, cols []column, f numberFormat) []rowCell {
	words := strings.Split(c.text, " ")
	at := make([]int, len(words)+1)
	for i, w := range words {
		at[i+1] = at[i] + runeCount(w) + 1
	}
	peel := func(i int) bool {
		sub := cell{start: c.start + at[i], end: c.start + at[i] + runeCount(words[i])}
		return isNumberWord(words[i], f) && underNumericColumn(sub, cols)
	}
	lead, tail := 0, len(words)
	for lead < tail && peel(lead) {
		lead++
	}
	for tail > lead && peel(tail-1) {
		tail--
	}
	if lead == 0 && tail == len(words) || lead == tail {
		return []rowCell{c}
	}
	var out []rowCell
	col := c.start
	for i, w := range words {
		sub := cell{text: w, start: col, end: col + runeCount(w)}
		col = sub.end + 1
		if i >= lead && i < tail {
			continue
		}
		out = append(out, classifyCell(sub, f))
	}
	mid := strings.Join(words[lead:tail], " ")
	text := rowCell{cell: cell{text: mid, start: c.start, end: c.end}}
	return append(append(out[:lead:lead], text), out[lead:]...)
}

func isNumberWord(w string, _ numberFormat) bool {
	toks := scanNumbers(w, false)
	return len(toks) == 1 && toks[0].start == 0 && toks[0].end == len(w) && toks[0].unit == ""
}
