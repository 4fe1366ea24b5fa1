package extract

import (
	"regexp"
	"strings"
)

// numberedRe matches the description line of a numbered item: "1. Design",
// "2) Hosting", "#3 Support", "Item 4: Travel".
var numberedRe = regexp.MustCompile(`^\s*(?:\d{1,3}[.)]|\(\d{1,3}\)|#\d{1,3}|(?i:item|pos\.?|line)\s*\d{1,3}[.:)]?)\s+(.*\S)\s*$`)

// findInlineItems reads items written on one line ("3 x Widget @ 4.00 =
// 12.00", "Widget  3 x 4.00") and numbered items whose numbers are on the
// line after the description.
func findInlineItems(d *document, f numberFormat, it *items) {
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || l.blank() || l.rule {
			continue
		}
		if _, _, ok := amountLabelOf(l); ok {
			continue
		}
		x, ok := parseInline(l.text, f)
		numbersOnly := false
		if !ok {
			x, ok = parseNumbersLine(l.text, f)
			numbersOnly = true
		}
		if !ok {
			continue
		}
		if x.Description == "" {
			x.Description = descriptionAbove(d, i)
		}
		if numbersOnly && x.Description == "" {
			continue // bare numbers belong to a description line above
		}
		it.add(x, i)
		l.used, l.role = true, roleItem
	}
}

// descriptionAbove returns the text of the line above i when it is a
// numbered or plain description line without numbers.
func descriptionAbove(d *document, i int) string {
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		l := &d.lines[j]
		if l.blank() {
			continue
		}
		if l.used || hasMoney(stripNumbering(l.text)) {
			return ""
		}
		if _, ok := matchLabel(firstCellText(l)); ok {
			return ""
		}
		l.used = true
		return stripNumbering(l.text)
	}
	return ""
}

// hasMoney reports a number written as money (decimals or a currency).
func hasMoney(s string) bool {
	for _, t := range scanNumbers(s, false) {
		if looksLikeMoney(t) {
			return true
		}
	}
	return false
}

func firstCellText(l *line) string {
	if c := firstCell(l); c != nil {
		return c.text
	}
	return ""
}

// stripNumbering removes "1.", "2)", "#3", "Item 4:" from the start.
func stripNumbering(s string) string {
	if m := numberedRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return strings.TrimSpace(s)
}

// moneyTokens returns the numbers of s that may be quantities or money:
// not percentages, not parts of dates.
func moneyTokens(s string, f numberFormat) []numTok {
	dates := findDates(s)
	var out []numTok
	for _, t := range scanNumbers(s, f.decimal == ',') {
		if t.pct || overlaps(dates, t.start, t.end) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// spaceMarkers separates '×', '@' and '=' and a glued "x3" from their
// neighbours so that the numbers around them read as numbers.
var spaceMarkers = regexp.MustCompile(`(?i)(^|[\s(])x(\d)|[×@=]`)

func spaceInline(s string) string {
	if !strings.ContainsAny(s, "×@=xX") {
		return s
	}
	return spaceMarkers.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) >= 2 && (m[len(m)-1] >= '0' && m[len(m)-1] <= '9') {
			return m[:len(m)-1] + " " + m[len(m)-1:]
		}
		return " " + m + " "
	})
}

// parseInline reads "Q x P", "Q x DESC @ P", "Q DESC at P", "DESC Q @ P",
// each optionally followed by "= A" or an amount, the description before
// or between the numbers.
func parseInline(text string, f numberFormat) (ExtractedLine, bool) {
	s := spaceInline(text)
	toks := moneyTokens(s, f)
	for i := 0; i+1 < len(toks); i++ {
		between := s[toks[i].end:toks[i+1].start]
		desc, ok := multiplies(between, toks[i])
		if !ok {
			continue
		}
		qty, price := toks[i], toks[i+1]
		if qty.cur != "" && price.cur == "" { // "€4.00 x 3"
			qty, price = price, qty
		}
		if qty.cur != "" || qty.neg {
			continue
		}
		return inlineLine(s, toks, i, desc, qty, price, f)
	}
	return ExtractedLine{}, false
}

// multiplies reports whether the text between two numbers makes the first
// a quantity and the second a unit price, and returns the description it
// holds ("x Widget @" → "Widget").
func multiplies(between string, first numTok) (string, bool) {
	t := strings.TrimSpace(between)
	words := strings.Fields(t)
	if len(words) > 0 && unitWords[strings.ToLower(words[0])] && strings.ToLower(words[0]) != "x" {
		words = words[1:] // "40 hrs x 95.00"
	}
	switch {
	case len(words) == 0:
		return "", first.unit == "x"
	case len(words) == 1 && isMulSign(words[0]):
		return "", true
	case isAtSign(words[len(words)-1]):
		inner := words[:len(words)-1]
		if len(inner) > 0 && isMulSign(inner[0]) {
			inner = inner[1:]
		}
		return strings.Trim(strings.Join(inner, " "), " ,:-–—"), true
	}
	return "", false
}

func isMulSign(w string) bool { return w == "x" || w == "X" || w == "×" || w == "*" }

func isAtSign(w string) bool { return w == "@" || strings.EqualFold(w, "at") }

// inlineLine builds the item from the quantity and price at toks[i] and
// toks[i+1]: the amount is the number after '=' or the last one after the
// price; the description, when not between the numbers, is the text before
// the quantity.
func inlineLine(s string, toks []numTok, i int, desc string, qty, price numTok, f numberFormat) (ExtractedLine, bool) {
	q, badQ := canonicalTok(qty, f)
	p, badP := canonicalTok(price, f)
	if badQ || badP {
		return ExtractedLine{}, false
	}
	x := ExtractedLine{Quantity: q, UnitPrice: p}
	if i+2 < len(toks) {
		a := toks[len(toks)-1]
		if v, bad := canonicalTok(a, f); !bad && !strings.HasPrefix(strings.TrimSpace(s[toks[i+1].end:a.start]), "/") {
			x.Amount = v
		}
	}
	if desc == "" {
		desc = strings.Trim(s[:toks[i].start], " ,:-–—(")
	}
	if desc == "" && i+2 >= len(toks) {
		desc = strings.Trim(s[toks[i+1].end:], " ,:-–—)=")
	}
	x.Description = strings.Join(strings.Fields(desc), " ")
	return x, true
}

// parseNumbersLine reads the second line of a numbered item: labelled
// numbers ("Qty: 40  Rate: 95.00  Amount: 3,800.00") or bare numbers
// ("40  95.00  3,800.00": quantity, unit price, amount).
func parseNumbersLine(text string, f numberFormat) (ExtractedLine, bool) {
	toks := moneyTokens(text, f)
	if len(toks) < 2 || len(toks) > 4 || hasWordsOutside(text, toks) && !labelledNumbers(text, toks) {
		return ExtractedLine{}, false
	}
	var x ExtractedLine
	if labelledNumbers(text, toks) {
		return labelledLine(text, toks, f)
	}
	vals := make([]string, 0, len(toks))
	for _, t := range toks {
		v, bad := canonicalTok(t, f)
		if bad {
			return x, false
		}
		vals = append(vals, v)
	}
	if len(vals) == 2 {
		return ExtractedLine{Quantity: vals[0], Amount: vals[1]}, true
	}
	n := len(vals)
	return ExtractedLine{Quantity: vals[n-3], UnitPrice: vals[n-2], Amount: vals[n-1]}, true
}

// hasWordsOutside reports letters outside the numbers (units aside).
func hasWordsOutside(text string, toks []numTok) bool {
	prev := 0
	for _, t := range toks {
		if hasLetter(text[prev:t.start]) {
			return true
		}
		prev = t.end
	}
	return hasLetter(text[prev:])
}

// labelledNumbers: every number is preceded by a column word.
func labelledNumbers(text string, toks []numTok) bool {
	prev := 0
	for _, t := range toks {
		if precedingRole(text[prev:t.start]) == colOther {
			return false
		}
		prev = t.end
	}
	return true
}

// precedingRole returns the column role named by the words right before a
// number ("Unit price:" → price).
func precedingRole(s string) colRole {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z') && r != '#'
	})
	for n := min(3, len(words)); n > 0; n-- {
		if role, ok := columnWords[strings.Join(words[len(words)-n:], " ")]; ok {
			return role
		}
	}
	return colOther
}

func labelledLine(text string, toks []numTok, f numberFormat) (ExtractedLine, bool) {
	var x ExtractedLine
	prev := 0
	for _, t := range toks {
		v, bad := canonicalTok(t, f)
		if bad {
			return x, false
		}
		switch precedingRole(text[prev:t.start]) {
		case colQty:
			x.Quantity = v
		case colPrice:
			x.UnitPrice = v
		case colAmount:
			x.Amount = v
		}
		prev = t.end
	}
	return x, x.Amount != "" || (x.Quantity != "" && x.UnitPrice != "")
}

// findListItems reads "description  amount" lines right above the first
// totals row when nothing else was found.
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
		if !listLine(l, f) {
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
	if m, ok := matchLabel(firstCellText(l)); ok && (m.colon || m.kind != lkOtherRef) {
		return false
	}
	_, ok := listItem(l, f)
	return ok
}

// listItem reads a line whose last cell is an amount written as money
// (decimals or a currency) and whose first cell is text.
func listItem(l *line, f numberFormat) (ExtractedLine, bool) {
	last := classifyCell(l.cells[len(l.cells)-1], f)
	first := classifyCell(l.cells[0], f)
	if !last.num || last.missing || last.bad || first.num || !looksLikeMoney(last.tok) {
		return ExtractedLine{}, false
	}
	x := ExtractedLine{Description: first.text, Amount: last.canon}
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
