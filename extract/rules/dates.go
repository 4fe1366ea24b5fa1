package rules

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// dateStyle is how a date is written.
type dateStyle uint8

const (
	styleISO     dateStyle = iota + 1 // 2026-03-03, 2026/03/03
	styleNumeric                      // 03/03/2026, 03.03.2026, 3-3-26: day and month order unknown
	styleDayName                      // 3 March 2026, 03-Mar-2026
	styleNameDay                      // March 3, 2026
)

// dateTok is a date found in a text. For styleNumeric, a and b are the
// first two numbers; otherwise a is the day and b the month.
type dateTok struct {
	start, end int
	style      dateStyle
	sep        byte
	a, b, year int
}

// dateOrder is a document's order of day and month in numeric dates.
type dateOrder uint8

const (
	orderUnknown dateOrder = iota
	orderDMY
	orderMDY
)

// months maps month names and abbreviations of every language table to
// their number.
var months = monthNames()

func monthNumber(name string) int { return months[strings.ToLower(name)] }

// findDates returns the dates of s in order of position.
func findDates(s string) []dateTok {
	if !hasDigit(s) {
		return nil
	}
	var out []dateTok
	if hasNumericDateShape(s) {
		out = appendNumericDates(out, s)
	}
	for _, w := range monthWords(s) {
		out = appendNamedDates(out, s, w)
	}
	sortDates(out)
	return out
}

// hasNumericDateShape: a digit, a separator, a digit, and again (a cheap
// test before the regular expressions).
func hasNumericDateShape(s string) bool {
	n := 0
	for i := 1; i+1 < len(s); i++ {
		if (s[i] == '-' || s[i] == '/' || s[i] == '.') && isDigit(s[i-1]) && isDigit(s[i+1]) {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}

// monthWords returns where the words that name a month start and end.
func monthWords(s string) [][2]int {
	var out [][2]int
	var buf [12]byte
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && !isLetterByte(c) {
			i++ // most bytes: the ASCII test is enough
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j, k := i, 0
		for j < len(s) {
			if c := s[j]; c < utf8.RuneSelf {
				if !isLetterByte(c) {
					break
				}
				if k < len(buf) {
					buf[k] = lowerByte(c)
					k++
				} else {
					k = len(buf) + 1
				}
				j++
				continue
			}
			r, m := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) {
				break
			}
			if k+m <= len(buf) {
				k += utf8.EncodeRune(buf[k:], unicode.ToLower(r))
			} else {
				k = len(buf) + 1
			}
			j += m
		}
		if k >= 3 && k <= len(buf) && months[string(buf[:k])] > 0 {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func appendNumericDates(out []dateTok, s string) []dateTok {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || i > 0 && isWordByte(s[i-1]) {
			continue
		}
		if dt, ok := numericDateAt(s, i); ok && !overlaps(out, dt.start, dt.end) {
			out = append(out, dt)
			i = dt.end - 1
			continue
		}
		for i+1 < len(s) && isDigit(s[i+1]) {
			i++
		}
	}
	return out
}

// numericDateAt reads "2026-03-03" (ISO, also with / or .) or "03/03/2026",
// "3.3.26" (day and month in either order) at i, with the same separator
// twice and no word character either side.
func numericDateAt(s string, i int) (dateTok, bool) {
	a, j := digitsAt(s, i, 4)
	if j == i || j >= len(s) || strings.IndexByte("-/.", s[j]) < 0 {
		return dateTok{}, false
	}
	sep := s[j]
	b, k := digitsAt(s, j+1, 2)
	if k == j+1 || k >= len(s) || s[k] != sep {
		return dateTok{}, false
	}
	c, m := digitsAt(s, k+1, 4)
	n := m - k - 1
	if n == 0 || m < len(s) && isWordByte(s[m]) && !(j-i == 4 && timeFollows(s, m)) {
		return dateTok{}, false
	}
	switch {
	case j-i == 4 && n <= 2:
		return dateTok{start: i, end: m, style: styleISO, sep: sep, year: a, b: b, a: c}, true
	case j-i <= 2 && (n == 4 || n == 2) && plausibleDayMonth(a, b):
		return dateTok{start: i, end: m, style: styleNumeric, sep: sep, a: a, b: b, year: fullYear(c)}, true
	}
	return dateTok{}, false
}

// timeFollows reports a time of day at i: "T10:00" of an ISO timestamp,
// or ":30" of a time whose hour was read as a year.
func timeFollows(s string, i int) bool {
	if i < len(s) && s[i] == 'T' {
		i++
		_, e := digitsAt(s, i, 2)
		return e-i == 2 && e < len(s) && s[e] == ':'
	}
	return i < len(s) && (s[i] == ':' || s[i] == '.' && i+1 < len(s) && isDigit(s[i+1]))
}

// digitsAt reads at most max digits at i and returns their value and end.
func digitsAt(s string, i, max int) (int, int) {
	n, j := 0, i
	for j < len(s) && j-i < max && isDigit(s[j]) {
		n = n*10 + int(s[j]-'0')
		j++
	}
	return n, j
}

func isWordByte(c byte) bool { return isASCIIAlnum(c) || c == '_' }

// appendNamedDates reads the written date around the month word at w:
// "3 March 2026", "3rd of March, 2026", "03-Mar-2026" (day first) or "March
// 3, 2026", "Mar. 3rd 2026" (month first).
func appendNamedDates(out []dateTok, s string, w [2]int) []dateTok {
	mon := monthNumber(s[w[0]:w[1]])
	if start, day, ok := dayBefore(s, w[0]); ok {
		if end, year, ok := yearAfter(s, w[1], true); ok && !overlaps(out, start, end) {
			return append(out, dateTok{start: start, end: end, style: styleDayName, a: day, b: mon, year: year})
		}
	}
	if end, day, year, ok := dayYearAfter(s, w[1]); ok && !overlaps(out, w[0], end) && wordBounded(s, w[0], end) {
		out = append(out, dateTok{start: w[0], end: end, style: styleNameDay, a: day, b: mon, year: year})
	}
	return out
}

// dayBefore reads the day written before a month word at i.
func dayBefore(s string, i int) (int, int, bool) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '-') {
		j--
	}
	if j == i {
		return 0, 0, false
	}
	if j >= 3 && strings.EqualFold(s[j-2:j], "of") && s[j-3] == ' ' {
		for j = j - 2; j > 0 && s[j-1] == ' '; j-- {
		}
	}
	if j > 0 && s[j-1] == '.' {
		j--
	}
	if j >= 2 && isOrdinal(s[j-2:j]) {
		j -= 2
	}
	k := j
	for k > 0 && j-k < 2 && isDigit(s[k-1]) {
		k--
	}
	if k == j || k > 0 && isWordByte(s[k-1]) {
		return 0, 0, false
	}
	return k, atoi(s, k, j), true
}

func isOrdinal(s string) bool {
	switch strings.ToLower(s) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// yearAfter reads the four-digit year after a month word ending at i (two
// digits after a day-first date, "30 Nov 26", unless a time follows):
// an optional '.', an optional ',', then spaces (or '-' when dashes
// allowed).
func yearAfter(s string, i int, dashes bool) (int, int, bool) {
	j := i
	if j < len(s) && s[j] == '.' {
		j++
	}
	if j < len(s) && s[j] == ',' {
		j++
	}
	k := j
	for k < len(s) && (s[k] == ' ' || dashes && s[k] == '-') {
		k++
	}
	year, end := digitsAt(s, k, 4)
	if k == j || end < len(s) && isWordByte(s[end]) {
		return 0, 0, false
	}
	switch {
	case end-k == 4:
		return end, year, true
	case end-k == 2 && dashes && !timeFollows(s, end): // "30 Nov 26", "30-Nov-26"
		return end, fullYear(year), true
	}
	return 0, 0, false
}

// dayYearAfter reads " 3, 2026" or " 3rd 2026" after a month word.
func dayYearAfter(s string, i int) (int, int, int, bool) {
	j := i
	if j < len(s) && s[j] == '.' {
		j++
	}
	k := j
	for k < len(s) && s[k] == ' ' {
		k++
	}
	day, e := digitsAt(s, k, 2)
	if k == j || e == k {
		return 0, 0, 0, false
	}
	if e+2 <= len(s) && isOrdinal(s[e:e+2]) {
		e += 2
	}
	if e < len(s) && isWordByte(s[e]) {
		return 0, 0, 0, false
	}
	end, year, ok := yearAfter(s, e, false)
	return end, day, year, ok
}

// wordBounded: the match does not start or end inside a word of s (a
// window may cut one).
func wordBounded(s string, start, end int) bool {
	return (start == 0 || !isASCIIAlnum(s[start-1])) && (end == len(s) || !isASCIIAlnum(s[end]))
}

// plausibleDayMonth: both in 1..31 and one of them a month.
func plausibleDayMonth(a, b int) bool {
	return a >= 1 && b >= 1 && a <= 31 && b <= 31 && (a <= 12 || b <= 12)
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetterByte(s[i]) {
			return true
		}
	}
	return false
}

func atoi(s string, i, j int) int {
	n, _ := strconv.Atoi(s[i:j])
	return n
}

// fullYear reads a two-digit year as 20yy.
func fullYear(y int) int {
	if y < 100 {
		return 2000 + y
	}
	return y
}

func overlaps(ds []dateTok, start, end int) bool {
	for _, d := range ds {
		if start < d.end && d.start < end {
			return true
		}
	}
	return false
}

func sortDates(ds []dateTok) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].start < ds[j-1].start; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

// iso writes the date as YYYY-MM-DD under the document's order. It is
// shaped, not checked: "2023-02-30" comes out as written and the validator
// rejects it. ok is false for an ambiguous date with no order known.
func (d dateTok) iso(order dateOrder) (string, bool) {
	day, month := d.a, d.b
	if d.style == styleNumeric {
		switch {
		case d.sep == '.' || d.a > 12 || d.a == d.b:
		case d.b > 12 || order == orderMDY:
			day, month = d.b, d.a
		case order != orderDMY:
			return "", false
		}
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.year, month, day), true
}

// dateEvidence collects what tells a document's numeric date order.
type dateEvidence struct {
	dmy, mdy            int // unambiguous numeric dates each way
	strongDMY, strongUS int // conventions: VAT, comma decimals, a US state and ZIP, sales tax …
	weakDMY, weakUS     int // written dates: "3 March 2026" vs "March 3, 2026"
}

// addDate counts the evidence of one date.
func (e *dateEvidence) addDate(d dateTok) {
	switch {
	case d.style == styleNumeric && d.sep == '.':
		e.strongDMY++
	case d.style == styleNumeric && d.a > 12 && d.b <= 12:
		e.dmy++
	case d.style == styleNumeric && d.b > 12 && d.a <= 12:
		e.mdy++
	case d.style == styleDayName:
		e.weakDMY++
	case d.style == styleNameDay:
		e.weakUS++
	}
}

// decide returns the order the evidence supports: the document's own
// unambiguous dates first, then its conventions (a clear majority), then
// how it writes dates in words; a level that contradicts itself gives way
// to the next; unknown when nothing decides.
func (e dateEvidence) decide() dateOrder {
	for i, p := range [][2]int{{e.dmy, e.mdy}, {e.strongDMY, e.strongUS}, {e.weakDMY, e.weakUS}} {
		switch {
		case p[0] > 0 && p[1] == 0:
			return orderDMY
		case p[1] > 0 && p[0] == 0:
			return orderMDY
		case i == 1 && p[0] >= 2*p[1]+1:
			return orderDMY // conventions may disagree once ("VAT" on a US invoice)
		case i == 1 && p[1] >= 2*p[0]+1:
			return orderMDY
		}
	}
	return orderUnknown
}
