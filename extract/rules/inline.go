package rules

import (
	"regexp"
	"strings"

	"github.com/relayops/relayops/extract"
)

// numberedRe matches the description line of a numbered item: "1. Design",
// "2) Hosting", "#3 Support", "Item 4: Travel".
var numberedRe = regexp.MustCompile(`^\s*(?:\d{1,3}[.)]|\(\d{1,3}\)|#\d{1,3}|(?i:item|pos\.?|line)\s*\d{1,3}[.:)]?)\s+(.*\S)\s*$`)

// findInlineItems reads items written on one line ("3 x Widget @ 4.00 =
// 12.00", "Widget  3 x 4.00") and numbered items whose numbers are on the
// line after the description. In an e-mail only list lines count: items
// in running prose are not read (a wrong line costs the invoice, a missing
// one only its line count).
func findInlineItems(d *document, f numberFormat, it *items) {
	for i := 0; i < len(d.lines); i++ {
		l := &d.lines[i]
		if !inlineCandidate(d, i) {
			continue
		}
		if j, x, ok := numberedPair(d, i, f); ok {
			it.add(x, j)
			l.used, l.role = true, roleItem
			d.lines[j].used, d.lines[j].role = true, roleItem
			i = j
			continue
		}
		x, ok := parseInline(l.text, f)
		if !ok && len(l.cells) == 1 {
			x, ok = arithmeticRow(l.text, f)
			it.spaced = it.spaced || ok
		}
		if !ok {
			continue
		}
		if x.Description == "" {
			x.Description = descriptionAbove(d, i)
		}
		it.add(x, i)
		l.used, l.role = true, roleItem
	}
}

// inlineCandidate: a line not yet read that is not a totals row, and in an
// e-mail a list line.
func inlineCandidate(d *document, i int) bool {
	l := &d.lines[i]
	if l.used || l.blank() || l.rule {
		return false
	}
	if _, _, ok := amountLabelOf(l); ok {
		return false
	}
	return !d.mail || l.bullet || numberedRe.MatchString(l.text) && !wrapsSentence(d, i)
}

// wrapsSentence reports a line that carries on the sentence of the line
// above ("… hex bolts M8x40 (box of" then "100) at $26.50 …"): that line
// is running text, not a list item, and does not end a sentence.
func wrapsSentence(d *document, i int) bool {
	if i == 0 {
		return false
	}
	p := &d.lines[i-1]
	if p.blank() || p.bullet || numberedRe.MatchString(p.text) {
		return false
	}
	t := strings.TrimRight(p.text, " ")
	return !strings.ContainsAny(t[len(t)-1:], ".:;!?")
}

// numberedPair reads a numbered description line i whose quantity, price
// and amount are on the next line.
func numberedPair(d *document, i int, f numberFormat) (int, extract.ExtractedLine, bool) {
	l := &d.lines[i]
	if !numberedRe.MatchString(l.text) || hasMoney(stripNumbering(l.text)) {
		return 0, extract.ExtractedLine{}, false
	}
	j := d.nextNonBlank(i)
	if j < 0 || j > i+2 || !inlineCandidate(d, j) || numberedRe.MatchString(d.lines[j].text) {
		return 0, extract.ExtractedLine{}, false
	}
	x, ok := parseInline(d.lines[j].text, f)
	if !ok || x.Description != "" {
		x, ok = parseNumbersLine(d.lines[j].text, f)
	}
	if !ok {
		return 0, extract.ExtractedLine{}, false
	}
	x.Description = stripNumbering(l.text)
	return j, x, true
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
		if _, ok := firstCellLabel(l); ok {
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

// firstCellLabel is matchLabel of the first non-empty cell of l.
func firstCellLabel(l *line) (labelMatch, bool) {
	if c := firstCell(l); c != nil {
		return c.labelOf()
	}
	return matchLabel("")
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
	return numbersOf(s, f, false)
}

// numbersOf returns the numbers of s that are not rates or parts of
// dates; garbled ones ("1,O99.2O") only when asked.
func numbersOf(s string, f numberFormat, garbled bool) []numTok {
	dates := findDates(s)
	var out []numTok
	for _, t := range scanNumbers(s, f.spaces()) {
		if t.pct || overlaps(dates, t.start, t.end) || t.garbled && !garbled {
			continue
		}
		out = append(out, t)
	}
	return out
}

// spaceInline separates '×', '@' and '=' and a glued "x3" from their
// neighbours so that the numbers around them read as numbers: every match m
// of the regular expression
//
//	(?i)(^|[\s(])x(\d)|[×@=]
//
// becomes " m ", or m with a space before its digit for the glued form. It
// is scanned by hand: it runs on most lines of a document.
func spaceInline(s string) string {
	var b []byte // nil until the first marker
	last := 0
	for p := 0; p < len(s); {
		n, glued := inlineMarkAt(s, p)
		if n == 0 {
			p++
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s)+8)
		}
		b = append(b, s[last:p]...)
		if m := s[p : p+n]; glued {
			b = append(append(append(b, m[:n-1]...), ' '), m[n-1])
		} else {
			b = append(append(append(b, ' '), m...), ' ')
		}
		p += n
		last = p
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// inlineMarkAt returns the length of the marker spaceInline separates at
// byte p of s, or 0; glued: the "x3" form.
func inlineMarkAt(s string, p int) (n int, glued bool) {
	c := s[p]
	switch {
	case p == 0 && isTimesX(c) && len(s) > 1 && isDigit(s[1]):
		return 2, true
	case (isRegexpSpace(c) || c == '(') && p+2 < len(s) && isTimesX(s[p+1]) && isDigit(s[p+2]):
		return 3, true
	case c == '@' || c == '=':
		return 1, false
	case strings.HasPrefix(s[p:], "×"):
		return len("×"), false
	}
	return 0, false
}

func isTimesX(c byte) bool { return c == 'x' || c == 'X' }

// parseInline reads an item written on one line. With '@' or "at" the
// price follows it and the quantity starts the line ("3 x Widget @ 4.00",
// "40 hours of design at $85/hour") or stands just before it ("Waiting
// staff (3.25 hours @ $31.95)"); otherwise a quantity and a price are
// joined by 'x' or '×' ("Widget  3 x 4.00"). The amount is the number after
// '=' or ':', else the last one after the price.
func parseInline(text string, f numberFormat) (extract.ExtractedLine, bool) {
	s := spaceInline(text)
	toks := moneyTokens(s, f)
	if len(toks) < 2 {
		return extract.ExtractedLine{}, false
	}
	if x, ok := inlineAt(s, toks, f); ok {
		return x, true
	}
	return inlineTimes(s, toks, f)
}

// lastAt returns the bounds of the last '@' or word "at" (in any case) in
// s, as [start, end], or false: the last match of the regular expression
// (?i)(?:@|\bat\b).
func lastAt(s string) ([2]int, bool) {
	for p := len(s) - 1; p >= 0; p-- {
		if s[p] == '@' {
			return [2]int{p, p + 1}, true
		}
		if p+2 <= len(s) && s[p]|0x20 == 'a' && s[p+1]|0x20 == 't' &&
			(p == 0 || !isWordByte(s[p-1])) && wordEnds(s, p+2) {
			return [2]int{p, p + 2}, true
		}
	}
	return [2]int{}, false
}

// inlineAt reads the '@' and "at" forms.
func inlineAt(s string, toks []numTok, f numberFormat) (extract.ExtractedLine, bool) {
	at, ok := lastAt(s)
	if !ok {
		return extract.ExtractedLine{}, false
	}
	p := firstAfter(toks, at[1])
	if p < 1 || strings.TrimSpace(s[at[1]:toks[p].start]) != "" {
		return extract.ExtractedLine{}, false
	}
	var q int
	var desc string
	switch {
	case isLineStart(s[:toks[0].start]) && toks[0].cur == "":
		q, desc = 0, s[toks[0].end:at[0]]
	default:
		q = p - 1
		if !onlyUnit(s[toks[q].end:at[0]]) {
			return extract.ExtractedLine{}, false
		}
		desc = s[:toks[q].start]
	}
	return buildInline(s, toks, q, p, cleanDesc(desc), f)
}

// inlineTimes reads "Q x P": the first pair of numbers joined by a
// multiplication sign that is not a dimension ("120 x 90 cm").
func inlineTimes(s string, toks []numTok, f numberFormat) (extract.ExtractedLine, bool) {
	for i := 0; i+1 < len(toks); i++ {
		if !multiplies(s[toks[i].end:toks[i+1].start], toks[i]) || isDimension(s, toks[i+1]) {
			continue
		}
		q, p := i, i+1
		if toks[q].cur != "" && toks[p].cur == "" { // "€4.00 x 3"
			q, p = p, q
		}
		if toks[q].cur != "" || toks[q].neg {
			continue
		}
		desc := s[:toks[min(q, p)].start]
		if isLineStart(desc) {
			desc = s[toks[max(q, p)].end:]
			if a := amountAfter(s, toks, max(q, p)); a >= 0 {
				desc = s[toks[a].end:]
			}
		}
		return buildInline(s, toks, q, p, cleanDesc(desc), f)
	}
	return extract.ExtractedLine{}, false
}

// multiplies reports a multiplication sign between two numbers, perhaps
// after a unit word ("40 hrs x 95.00").
func multiplies(between string, first numTok) bool {
	words := strings.Fields(between)
	if len(words) > 0 && unitWords[strings.ToLower(words[0])] && strings.ToLower(words[0]) != "x" {
		words = words[1:]
	}
	switch {
	case len(words) == 0:
		return first.unit == "x"
	case len(words) == 1:
		return isMulSign(words[0])
	}
	return false
}

func isMulSign(w string) bool { return w == "x" || w == "X" || w == "×" || w == "*" }

// dimensionUnits follow the second number of a size ("120 x 90 cm").
var dimensionUnits = map[string]bool{"cm": true, "mm": true, "m": true, "in": true, "inch": true, "ft": true, "\"": true, "px": true}

func isDimension(s string, t numTok) bool {
	if dimensionUnits[t.unit] {
		return true
	}
	rest := strings.TrimLeft(s[t.end:], " ")
	if strings.HasPrefix(rest, "\"") {
		return true
	}
	w := strings.ToLower(strings.Trim(firstWord(rest), ".,;:)"))
	return dimensionUnits[w] || isMulSign(w)
}

func firstAfter(toks []numTok, pos int) int {
	for i, t := range toks {
		if t.start >= pos {
			return i
		}
	}
	return -1
}

// isLineStart: nothing before but spaces, brackets and list numbering.
func isLineStart(s string) bool {
	return strings.Trim(stripNumbering(s), " ([-–—*•·") == "" || numberedRe.MatchString(s+" x")
}

// onlyUnit: the text between a quantity and '@' is at most a unit word.
func onlyUnit(s string) bool {
	w := strings.Fields(s)
	return len(w) == 0 || len(w) == 1 && unitWords[strings.ToLower(w[0])]
}

// cleanDesc trims a description of multiplication signs, unit words and
// punctuation at its ends: "x Widget @" → "Widget", "hours of design" →
// "design".
func cleanDesc(s string) string {
	words := strings.Fields(s)
	for len(words) > 0 {
		w := strings.ToLower(strings.Trim(words[0], "(),:"))
		if !isMulSign(w) && !unitWords[w] && w != "of" && w != "" {
			break
		}
		words = words[1:]
	}
	for len(words) > 0 {
		w := strings.ToLower(strings.Trim(words[len(words)-1], "(),:"))
		if !isMulSign(w) && w != "" && w != "@" && w != "at" {
			break
		}
		words = words[:len(words)-1]
	}
	return strings.Trim(strings.Join(words, " "), " ,:;-–—=(@")
}

// amountAfter returns the index of the line's amount after the price at
// p: the first number after '=' or ':', else the last one, or -1.
func amountAfter(s string, toks []numTok, p int) int {
	if p+1 >= len(toks) {
		return -1
	}
	if eq := strings.LastIndexAny(s, "=:"); eq > toks[p].end {
		if k := firstAfter(toks, eq); k > p {
			return k
		}
	}
	last := len(toks) - 1
	between := strings.TrimSpace(s[toks[p].end:toks[last].start])
	if strings.HasPrefix(between, "/") { // "$120/hour 360" reads past the unit
		between = strings.TrimSpace(strings.TrimLeft(between[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
	}
	if hasLetter(between) && !onlyWords(between, "each", "per", "ea", "hour", "hr", "day", "unit", "item") {
		return -1
	}
	return last
}

// onlyWords reports text whose words are all among allowed.
func onlyWords(text string, allowed ...string) bool {
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, "()[],:;=-–—")
		if w != "" && hasLetter(w) && !containsStr(allowed, w) {
			return false
		}
	}
	return true
}

// buildInline makes the item of quantity toks[q] and price toks[p].
func buildInline(s string, toks []numTok, q, p int, desc string, f numberFormat) (extract.ExtractedLine, bool) {
	qty, badQ := canonicalTok(toks[q], f)
	price, badP := canonicalTok(toks[p], f)
	if badQ || badP || toks[q].neg {
		return extract.ExtractedLine{}, false
	}
	x := extract.ExtractedLine{Description: strings.Join(strings.Fields(desc), " "), Quantity: qty, UnitPrice: price}
	if a := amountAfter(s, toks, max(q, p)); a >= 0 {
		if v, bad := canonicalTok(toks[a], f); !bad {
			x.Amount = v
		}
	}
	return x, true
}

// parseNumbersLine reads the second line of a numbered item: labelled
// numbers ("Qty: 40  Rate: 95.00  Amount: 3,800.00") or bare numbers
// ("40  95.00  3,800.00": quantity, unit price, amount).
func parseNumbersLine(text string, f numberFormat) (extract.ExtractedLine, bool) {
	toks := moneyTokens(text, f)
	if len(toks) < 2 || len(toks) > 4 || hasWordsOutside(text, toks) && !labelledNumbers(text, toks) {
		return extract.ExtractedLine{}, false
	}
	var x extract.ExtractedLine
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
		return extract.ExtractedLine{Quantity: vals[0], Amount: vals[1]}, true
	}
	n := len(vals)
	return extract.ExtractedLine{Quantity: vals[n-3], UnitPrice: vals[n-2], Amount: vals[n-1]}, true
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

func labelledLine(text string, toks []numTok, f numberFormat) (extract.ExtractedLine, bool) {
	var x extract.ExtractedLine
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
