package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// numTok is a number found in a text, with what is attached to it.
type numTok struct {
	// start and end are byte offsets of the whole token: sign, currency
	// and '%' included.
	start, end int
	// raw is the number as written: digits and separators (. , ' and
	// spaces between digit groups).
	raw string
	// neg: a leading '-' or '−', or accounting brackets "(10.00)".
	neg bool
	// pct: followed by '%'.
	pct bool
	// cur is the currency attached before or after: an ISO code, or "$"
	// for a bare dollar sign.
	cur string
	// unit is a word glued to the number ("9.5h", "3x") in lower case.
	unit string
	// garbled: letters glued to it that are no unit or currency ("29.4O",
	// a misread zero): a number no format explains.
	garbled bool
}

// groupSpaces are the characters that may group digits ("1 234,56"): an
// ordinary space only when the document's format allows it.
func isGroupSpace(r rune, plain bool) bool {
	return r == '\u00a0' || r == '\u202f' || r == '\u2009' || (plain && r == ' ')
}

// scanNumbers finds the numbers of s. A run of letters and digits that
// starts with a letter ("INV2024", "A4") or holds '/', '-' or '_'
// ("50-1187", "03/03/2026") is an identifier or a date, not a number.
// spaceGroups lets an ordinary space group digits.
func scanNumbers(s string, spaceGroups bool) []numTok {
	var out []numTok
	for i := 0; i < len(s); {
		c := s[i]
		glued := len(out) > 0 && out[len(out)-1].end == i // "SEK122 238,00": after the last one's currency
		if !isASCIIAlnum(c) || (i > 0 && continuesRun(s, i) && !glued) {
			i++
			continue
		}
		if i+3 < len(s) && isDigit(s[i+3]) && isCurrencyCode(s[i:i+3]) && !plainIdentifier(s, i+3) {
			i += 3 // "EUR1,234.56"
		} else if gluedRand(s, i, spaceGroups) {
			i++ // "R12 450.00"
		}
		end := runEnd(s, i)
		if tok, ok := numberRun(s, i, end, spaceGroups); ok {
			attachAround(s, &tok)
			if n := len(out); n > 0 && tok.start < out[n-1].end {
				tok.start = out[n-1].end // a symbol between two numbers belongs to the first
			}
			if out == nil {
				// Each number holds a run of digits of its own: room for
				// them all at once rather than growing one by one.
				out = make([]numTok, 0, digitRuns(s[i:]))
			}
			out = append(out, tok)
			end = max(end, tok.end)
		}
		i = end
	}
	return out
}

// plainIdentifier reports five digits or more without a separator at
// s[i:], after a currency code written against them: "LKR824191" is a
// document's number, not an amount in rupees ("EUR1,234.56" is one).
func plainIdentifier(s string, i int) bool {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j-i >= 5 && (j == len(s) || s[j] != '.' && s[j] != ',' && s[j] != '\'')
}

// digitRuns counts the runs of ASCII digits in s.
func digitRuns(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) && (i == 0 || !isDigit(s[i-1])) {
			n++
		}
	}
	return n
}

// gluedRand reports a rand sign glued to an amount at s[i] ("R12 450.00",
// "R250.00"). An 'R' before digits is as often a reference ("R16", "R2D2"),
// so only a number written as money follows it: digits and separators
// alone, with two decimals or digit groups.
func gluedRand(s string, i int, spaceGroups bool) bool {
	if s[i] != 'R' || i+1 >= len(s) || !isDigit(s[i+1]) {
		return false
	}
	tok, ok := numberRun(s, i+1, runEnd(s, i+1), spaceGroups)
	if !ok || tok.unit != "" || tok.garbled || tok.cur != "" {
		return false
	}
	d := strings.LastIndexAny(tok.raw, ".,")
	return (d >= 0 && len(tok.raw)-d-1 == 2) || strings.IndexByte(tok.raw, ' ') > 0
}

// continuesRun reports whether s[i] continues a word that started before.
func continuesRun(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isASCIIAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isRunByte: the bytes a number-or-identifier run is made of.
func isRunByte(c byte) bool {
	return isASCIIAlnum(c) || c == '.' || c == ',' || c == '\'' || c == '/' || c == '-' || c == '_'
}

func runEnd(s string, i int) int {
	for i < len(s) && isRunByte(s[i]) {
		i++
	}
	return i
}

// numberRun reads the run s[start:end] as a number: digits and separators,
// then optionally letters (a unit). Trailing punctuation is not part of it.
func numberRun(s string, start, end int, spaceGroups bool) (numTok, bool) {
	for end > start && strings.IndexByte(".,'-/_", s[end-1]) >= 0 {
		end--
	}
	run := s[start:end]
	if i := strings.IndexByte(run, '/'); i > 0 && isAllLetters(run[i+1:]) {
		run, end = run[:i], start+i // "45/hr": a price per unit
	}
	if run == "" || run[0] < '0' || run[0] > '9' || containsASCII(run, "/-_") {
		return numTok{}, false
	}
	k := 0
	for k < len(run) && (isDigit(run[k]) || run[k] == '.' || run[k] == ',' || run[k] == '\'') {
		k++
	}
	num, unit := run[:k], run[k:]
	if hasDigit(unit) {
		// digits and letters mixed ("1,O99.2O"): a misread number
		return numTok{start: start, end: end, raw: run, garbled: true}, true
	}
	for !isDigit(num[len(num)-1]) { // "12.x" → "12"
		num = num[:len(num)-1]
		unit = ""
	}
	tok := numTok{start: start, end: start + len(num), raw: num, unit: strings.ToLower(unit)}
	switch {
	case unit != "" && isCurrencyWord(unit):
		tok.cur, tok.unit, tok.end = strings.ToUpper(unit), "", end // "12.00EUR"
	case unit != "":
		tok.end = end
		tok.garbled = !unitWords[tok.unit] && !countWords[tok.unit] && !isOrdinal(tok.unit) && tok.unit != "x"
	default:
		extendGroups(s, &tok, spaceGroups)
	}
	return tok, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAllLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

// extendGroups joins digit groups separated by a grouping space to a
// number whose first group has at most three digits: "1 234 567,89".
func extendGroups(s string, tok *numTok, plain bool) {
	if groupLen(tok.raw) > 3 {
		return
	}
	for tok.end < len(s) {
		r, n := utf8.DecodeRuneInString(s[tok.end:])
		if !isGroupSpace(r, plain) {
			return
		}
		j := tok.end + n
		if j+3 > len(s) || !isDigit(s[j]) || !isDigit(s[j+1]) || !isDigit(s[j+2]) ||
			(j+3 < len(s) && (isDigit(s[j+3]) || isLetterByte(s[j+3]))) {
			return
		}
		end := j + 3
		for end < len(s) && (isDigit(s[end]) || ((s[end] == '.' || s[end] == ',') && end+1 < len(s) && isDigit(s[end+1]))) {
			end++
		}
		if end < len(s) && (isLetterByte(s[end]) && !codeEnds(s, end) || s[end] == '/' || s[end] == '-') {
			return
		}
		tok.raw += " " + s[j:end]
		tok.end = end
	}
}

// codeEnds reports a currency code written against the amount it ends
// ("17 115,45PLN"), which the amount's own scan reads as its currency.
func codeEnds(s string, i int) bool {
	return i+3 <= len(s) && isCurrencyCode(s[i:i+3]) && (i+3 == len(s) || !isLetterByte(s[i+3]))
}

func isLetterByte(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// groupLen is the length of the leading digit group of a number.
func groupLen(raw string) int {
	n := 0
	for n < len(raw) && isDigit(raw[n]) {
		n++
	}
	return n
}

// attachAround records the sign, brackets, currency and '%' around tok and
// widens its span over them.
func attachAround(s string, tok *numTok) {
	after := s[tok.end:]
	if t := strings.TrimLeft(after, " "); strings.HasPrefix(t, "%") {
		tok.pct = true
		tok.end += len(after) - len(t) + 1
		return
	}
	if code, n := currencyAfter(after); code != "" {
		tok.cur, tok.end = code, tok.end+n
	}
	before := s[:tok.start]
	if t := strings.TrimRight(before, " "); len(before)-len(t) <= 1 {
		if code, n := currencyBefore(t); code != "" {
			if tok.cur == "" {
				tok.cur = code
			}
			tok.start = len(t) - n
			before = s[:tok.start]
		}
	}
	attachSign(s, before, tok)
}

// attachSign records a '-' or '−' before the number (or before its
// currency), or brackets around it.
func attachSign(s, before string, tok *numTok) {
	t := strings.TrimRight(before, " ")
	switch {
	case strings.HasSuffix(before, "-") && !precededByWord(t[:len(t)-1]):
		tok.neg, tok.start = true, len(t)-1
	case strings.HasSuffix(before, "−"):
		tok.neg, tok.start = true, len(t)-len("−")
	case strings.HasSuffix(t, "(") && strings.HasPrefix(strings.TrimLeft(s[tok.end:], " "), ")"):
		tok.neg = true
		tok.start = len(t) - 1
		tok.end += len(s[tok.end:]) - len(strings.TrimLeft(s[tok.end:], " ")) + 1
	}
	if tok.neg {
		// a currency written after the sign: "-€10.00" is seen above;
		// "€-10.00" is "€" then "-10.00"
		if code, n := currencyBefore(strings.TrimRight(s[:tok.start], " ")); code != "" && tok.cur == "" {
			tok.cur = code
			tok.start -= n
		}
	}
}

// precededByWord reports a letter or digit right before a '-': a hyphen
// inside "Net-30" or "A-4" is not a sign.
func precededByWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// numberFormat is a document's way of writing numbers.
type numberFormat struct {
	// decimal is '.' or ','.
	decimal byte
	// voted: decimal comes from the document's own unambiguous numbers,
	// not a default.
	voted bool
	// minor is the currency's decimals (2 when unknown).
	minor int
	// spaceGroups: a document with a decimal point that groups thousands
	// with spaces ("$1 234.56"); a decimal comma always may ("1 234,56").
	spaceGroups bool
}

// spaces reports whether an ordinary space may group digits.
func (f numberFormat) spaces() bool { return f.decimal == ',' || f.spaceGroups }

// formatVotes counts the evidence for each decimal separator.
type formatVotes struct{ dot, comma int }

// vote adds the evidence of one number: "1,234.56", "12,50" and
// "1.234.567" tell; "1,234" does not.
func (v *formatVotes) vote(raw string) {
	raw = strings.ReplaceAll(raw, " ", "")
	lastSep, count := lastSeparator(raw)
	if lastSep == 0 {
		return
	}
	other := byte('.')
	if lastSep == '.' {
		other = ','
	}
	tail := len(raw) - strings.LastIndexByte(raw, lastSep) - 1
	switch {
	case strings.IndexByte(raw, other) >= 0 && count == 1:
		v.add(lastSep) // both kinds: the last is the decimal mark
	case count >= 2:
		if validGroups(raw, lastSep) {
			v.add(other)
		}
	case tail != 3 || groupLen(raw) == 1 && raw[0] == '0':
		v.add(lastSep)
	}
}

func (v *formatVotes) add(sep byte) {
	if sep == '.' {
		v.dot++
	} else {
		v.comma++
	}
}

// decide returns the format the votes support (dot by default).
func (v formatVotes) decide(minor int) numberFormat {
	switch {
	case v.comma > v.dot:
		return numberFormat{decimal: ',', voted: true, minor: minor}
	case v.dot > v.comma:
		return numberFormat{decimal: '.', voted: true, minor: minor}
	}
	return numberFormat{decimal: '.', minor: minor}
}

// lastSeparator returns the last '.' or ',' of raw and how often it occurs.
func lastSeparator(raw string) (byte, int) {
	i := strings.LastIndexAny(raw, ".,")
	if i < 0 {
		return 0, 0
	}
	return raw[i], strings.Count(raw, raw[i:i+1])
}

// validGroups reports whether raw, grouped by sep, has a first group of
// one to three digits and then groups of three (or two, Indian style,
// before the last).
func validGroups(raw string, sep byte) bool {
	groups := strings.Split(raw, string(sep))
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for i, g := range groups[1:] {
		last := i == len(groups)-2
		if len(g) != 3 && (last || len(g) != 2) {
			return false
		}
	}
	return true
}

// canonical turns a number as written into a canonical decimal string
// ("1.234,56" → "1234.56") under the document's format. It fails on a
// number no consistent format explains ("12.34.56", "1,23").
func (f numberFormat) canonical(raw string, neg bool) (string, bool) {
	raw = dropGroupMarks(raw)
	whole, frac, ok := f.split(raw)
	if !ok {
		return "", false
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s, len(s) <= extract.MaxDecimalDigits
}

// dropGroupMarks removes spaces and apostrophes that group digits.
func dropGroupMarks(raw string) string {
	if !strings.ContainsAny(raw, " '’") {
		return raw
	}
	b := make([]byte, 0, len(raw))
	for _, r := range raw {
		if r != ' ' && r != '\'' && r != '’' {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// split returns the integer digits and the decimals of raw.
func (f numberFormat) split(raw string) (whole, frac string, ok bool) {
	sep, count := lastSeparator(raw)
	if sep == 0 {
		return raw, "", true
	}
	other := byte('.')
	if sep == '.' {
		other = ','
	}
	i := strings.LastIndexByte(raw, sep)
	head, tail := raw[:i], raw[i+1:]
	switch {
	case strings.IndexByte(raw, other) >= 0: // "1,234.56": sep is decimal, other groups
		if count != 1 || !validGroups(head, other) {
			return "", "", false
		}
		return strings.ReplaceAll(head, string(other), ""), tail, true
	case count >= 2: // "1.234.567": grouping only
		if !validGroups(raw, sep) {
			return "", "", false
		}
		return strings.ReplaceAll(raw, string(sep), ""), "", true
	case f.isDecimal(sep, head, tail):
		return head, tail, true
	}
	return head + tail, "", true
}

// isDecimal decides the one separator of "head<sep>tail": a tail of other
// than three digits, a leading "0" or a head too long for a group make it
// decimal; a three-digit tail follows the document's format, and without
// evidence the currency (decimal for three-decimal currencies).
func (f numberFormat) isDecimal(sep byte, head, tail string) bool {
	switch {
	case len(tail) != 3, head == "0", len(head) > 3:
		return true
	case f.voted:
		return sep == f.decimal
	}
	return f.minor == 3
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
