package supplier

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// The printed forms of values: an amount with its decimal mark, grouping
// and currency marker, a date with its order, separators and month names,
// a text (an invoice number) with its shape. A learning reads every form
// a value could be printed in; a read accepts only the learned one.

// amountToken is an amount printed at some offset of a line.
type amountToken struct {
	end    int    // byte offset past it
	marker string // the currency marker printed beside it, "" for none
	// readings are the values it can be: one, or two when a single
	// separator before three digits may group or mark decimals ("1.234").
	readings []amountReading
}

// amountReading is one value an amount token can be.
type amountReading struct {
	value          string // canonical: "1234.56", "-8.79"
	decimal, group string // the marks this reading takes them for
}

// currencySymbols are the markers printed beside amounts that are not ISO
// codes.
var currencySymbols = []string{"US$", "A$", "C$", "R$", "€", "$", "£", "¥", "₹", "₽", "₺", "₩", "₪", "₫", "฿", "₴", "₦", "₱",
	"zł", "Kč", "kr.", "kr", "Ft", "Fr.", "lei", "лв"}

// markerAt returns the currency marker at byte i of s and its length: a
// symbol, or a code or abbreviation ("EUR", "zł") not followed by a
// letter.
func markerAt(s string, i int) (string, int) {
	if i >= len(s) || isDigit(s[i]) || s[i] == ' ' {
		return "", 0
	}
	for _, m := range currencySymbols {
		if strings.HasPrefix(s[i:], m) && !(isWordMarker(m) && letterAt(s, i+len(m))) {
			return m, len(m)
		}
	}
	if i+3 <= len(s) && isUpper(s[i]) && isUpper(s[i+1]) && isUpper(s[i+2]) && !letterAt(s, i+3) {
		if _, ok := extract.MinorUnits(s[i : i+3]); ok {
			return s[i : i+3], 3
		}
	}
	return "", 0
}

// isWordMarker: a marker written with letters, which must stand alone.
func isWordMarker(m string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimSuffix(m, "."))
	return unicode.IsLetter(r)
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// letterAt reports whether a letter starts at byte i of s.
func letterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// skipSpace skips one space at byte i of s.
func skipSpace(s string, i int) int {
	if i < len(s) && s[i] == ' ' {
		return i + 1
	}
	return i
}

// minusAt returns the length of a minus sign at byte i of s ("-", the
// typographic "−" or "–"), or 0.
func minusAt(s string, i int) int {
	for _, m := range []string{"-", "−", "–"} {
		if strings.HasPrefix(s[i:], m) {
			return len(m)
		}
	}
	return 0
}

// scanAmount reads the amount printed at byte i of s: a currency marker
// before or after it (with at most one space between), a sign before it
// ("-", "−", an accounting parenthesis) or a minus after it ("8,79-"),
// digits with one decimal mark and thousands grouped by '.', ',', '\”
// or, when spaceGroups, a space. It must end at a space, a word's
// punctuation or the line's end.
func scanAmount(s string, i int, spaceGroups bool) (amountToken, bool) {
	var t amountToken
	j := i
	neg, paren := false, false
	for range 2 {
		if m, n := markerAt(s, j); n > 0 && t.marker == "" {
			t.marker, j = m, skipSpace(s, j+n)
		} else if n := minusAt(s, j); n > 0 && !neg {
			neg, j = true, skipSpace(s, j+n)
		} else if j < len(s) && s[j] == '(' && !neg {
			neg, paren, j = true, true, j+1
		}
	}
	start := j
	for j < len(s) {
		c := s[j]
		switch {
		case isDigit(c):
			j++
			continue
		case (c == '.' || c == ',' || c == '\'') && j > start && j+1 < len(s) && isDigit(s[j+1]):
			j++
			continue
		case c == ' ' && spaceGroups && j > start && isDigit(s[j-1]) && threeDigits(s, j+1):
			j++
			continue
		}
		break
	}
	num := s[start:j]
	if num == "" {
		return t, false
	}
	if paren {
		if j >= len(s) || s[j] != ')' {
			return t, false
		}
		j++
	} else if !neg && j < len(s) && s[j] == '-' && (j+1 == len(s) || s[j+1] == ' ') {
		neg, j = true, j+1
	}
	if t.marker == "" {
		if m, n := markerAt(s, skipSpace(s, j)); n > 0 {
			t.marker, j = m, skipSpace(s, j)+n
		}
	}
	if j < len(s) && !strings.ContainsRune(" ,;*", rune(s[j])) {
		return t, false
	}
	t.end, t.readings = j, numberReadings(num, neg)
	return t, len(t.readings) > 0
}

// threeDigits: exactly three digits at byte i of s, then no digit.
func threeDigits(s string, i int) bool {
	return i+3 <= len(s) && isDigit(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && (i+3 == len(s) || !isDigit(s[i+3]))
}

// numberReadings are the values a number of digits and separators can be.
func numberReadings(num string, neg bool) []amountReading {
	var seps []byte
	for i := 0; i < len(num); i++ {
		if !isDigit(num[i]) && !strings.ContainsRune(string(seps), rune(num[i])) {
			seps = append(seps, num[i])
		}
	}
	last := strings.LastIndexAny(num, ".,' ")
	switch {
	case len(seps) == 0:
		return readingsOf(num, "", "", neg)
	case len(seps) == 1 && (seps[0] == ' ' || seps[0] == '\'' || strings.Count(num, string(seps[0])) > 1):
		return readingsOf(num, "", string(seps[0]), neg)
	case len(seps) == 1 && len(num)-last-1 == 3:
		// "1.234": thousands, or three decimals
		return append(readingsOf(num, "", string(seps[0]), neg), readingsOf(num, string(seps[0]), "", neg)...)
	case len(seps) == 1:
		return readingsOf(num, string(seps[0]), "", neg)
	case len(seps) == 2 && num[last] == seps[1]:
		return readingsOf(num, string(seps[1]), string(seps[0]), neg)
	}
	return nil
}

// readingsOf is num read with decimal mark dec and grouping group, or
// nothing when it is not written so: one decimal mark with one to four
// digits after it, groups of three digits after a first of one to three.
func readingsOf(num, dec, group string, neg bool) []amountReading {
	intPart, frac := num, ""
	if dec != "" {
		i := strings.LastIndex(num, dec)
		intPart, frac = num[:i], num[i+1:]
		if len(frac) < 1 || len(frac) > 4 || strings.ContainsAny(frac, ".,' ") {
			return nil
		}
	}
	if group != "" {
		parts := strings.Split(intPart, group)
		if len(parts[0]) < 1 || len(parts[0]) > 3 {
			return nil
		}
		for _, p := range parts[1:] {
			if len(p) != 3 {
				return nil
			}
		}
		intPart = strings.Join(parts, "")
	}
	if intPart == "" || strings.ContainsAny(intPart, ".,' ") {
		return nil
	}
	v := strings.TrimLeft(intPart, "0")
	if v == "" {
		v = "0"
	}
	if frac != "" {
		v += "." + frac
	}
	if neg && strings.Trim(v, "0.") != "" {
		v = "-" + v
	}
	return []amountReading{{value: v, decimal: dec, group: group}}
}

// amountFormat is the format an amount reading shows.
func amountFormat(t amountToken, r amountReading) Format {
	return Format{Kind: FormatAmount, Decimal: r.decimal, Group: r.group, Currency: t.marker}
}

// readAmount reads the amount at byte i of s in format f: printed with
// the learned currency marker; with the learned decimal mark, or whole; in
// groups of the learned separator or, none learned yet, of any other mark
// than the decimal one. A format learned from a whole number reads a
// decimal only where the token cannot be read another way ("12,50", not
// "1.250"). It returns the value and the offset past it.
func readAmount(s string, i int, f Format) (string, int, bool) {
	t, ok := scanAmount(s, i, f.Group == " ")
	if !ok || t.marker != f.Currency || f.Decimal == "" && len(t.readings) > 1 {
		return "", 0, false
	}
	var found []string
	for _, r := range t.readings {
		if r.group != "" && (r.group == f.Decimal || f.Group != "" && r.group != f.Group) ||
			r.decimal != "" && f.Decimal != "" && r.decimal != f.Decimal {
			continue
		}
		found = append(found, r.value)
	}
	if len(found) != 1 {
		return "", 0, false
	}
	return found[0], t.end, true
}

// mergeAmountFormat is f with what g, a format the same anchor read a
// value in, adds: a grouping or decimal mark not known before.
func mergeAmountFormat(f, g Format) Format {
	if f.Group == "" {
		f.Group = g.Group
	}
	if f.Decimal == "" {
		f.Decimal = g.Decimal
	}
	return f
}

// dateToken is a date printed at some offset of a line.
type dateToken struct {
	end      int
	format   Format // without Order
	readings []dateReading
}

// dateReading is one date a token can be.
type dateReading struct {
	value string // YYYY-MM-DD
	order string
}

// scanDate reads the date printed at byte i of s: numeric ("15.01.2024",
// "01/15/24", "2024-01-15") or with the month's name ("15. Januar 2024",
// "January 15, 2024", "15-Jan-2024").
func scanDate(s string, i int) (dateToken, bool) {
	if t, ok := scanNumericDate(s, i); ok {
		return t, true
	}
	if t, ok := scanDayMonthName(s, i); ok {
		return t, true
	}
	return scanMonthNameDay(s, i)
}

// digitsAt returns the run of digits at byte i of s.
func digitsAt(s string, i int) string {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return s[i:j]
}

// dateEnds: byte i of s ends a date (a space, a word's punctuation, the
// line's end).
func dateEnds(s string, i int) bool {
	return i >= len(s) || strings.ContainsRune(" ,;.)", rune(s[i]))
}

func scanNumericDate(s string, i int) (dateToken, bool) {
	var parts [3]string
	var sep byte
	j := i
	for k := range 3 {
		parts[k] = digitsAt(s, j)
		if parts[k] == "" {
			return dateToken{}, false
		}
		j += len(parts[k])
		if k == 2 {
			break
		}
		if j >= len(s) || !strings.ContainsRune("./-", rune(s[j])) || k == 1 && s[j] != sep {
			return dateToken{}, false
		}
		sep = s[j]
		j++
		if sep == '.' {
			j = skipSpace(s, j) // the Czech "10. 02. 2015"
		}
	}
	if !dateEnds(s, j) {
		return dateToken{}, false
	}
	t := dateToken{end: j, format: Format{Kind: FormatDate, Separator: string(sep)}}
	a, b, c := parts[0], parts[1], parts[2]
	switch {
	case len(a) == 4 && len(b) <= 2 && len(c) <= 2:
		t.format.YearDigits = 4
		t.add(a, b, c, "YMD")
	case len(a) <= 2 && len(b) <= 2 && (len(c) == 4 || len(c) == 2):
		t.format.YearDigits = len(c)
		t.add(c, b, a, "DMY")
		t.add(c, a, b, "MDY")
	}
	return t, len(t.readings) > 0
}

// add records the reading year-month-day when it is a calendar date.
func (t *dateToken) add(y, m, d, order string) {
	if v, ok := isoDate(y, m, d); ok {
		t.readings = append(t.readings, dateReading{value: v, order: order})
	}
}

// isoDate returns the calendar date y-m-d as YYYY-MM-DD (a two-digit year
// is this century's).
func isoDate(y, m, d string) (string, bool) {
	if len(y) == 2 {
		y = "20" + y
	}
	yy, err1 := strconv.Atoi(y)
	mm, err2 := strconv.Atoi(m)
	dd, err3 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || err3 != nil || yy < 1900 || yy > 2199 || mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return "", false
	}
	t := time.Date(yy, time.Month(mm), dd, 0, 0, 0, 0, time.UTC)
	if t.Day() != dd {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// monthAt returns the month a name at byte i of s names, and the byte
// offset past it (and past a '.' ending an abbreviation).
func monthAt(s string, i int) (int, int) {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += n
	}
	m, ok := months[strings.ToLower(s[i:j])]
	if !ok {
		return 0, 0
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	return m, j
}

// nameSeparator skips the separator between a date's parts written with
// a month name (spaces, or one of "-/." with spaces around), returning
// the separator (" " for spaces alone) and the offset past it.
func nameSeparator(s string, i int) (string, int) {
	j := i
	sep := ""
	for j < len(s) && strings.ContainsRune(" -/.,", rune(s[j])) {
		if s[j] != ' ' && s[j] != ',' && sep == "" {
			sep = string(s[j])
		}
		j++
	}
	if j == i {
		return "", i
	}
	if sep == "" {
		sep = " "
	}
	return sep, j
}

// scanDayMonthName: "15. Januar 2024", "15 janv. 2024", "15-Jan-2024".
func scanDayMonthName(s string, i int) (dateToken, bool) {
	d := digitsAt(s, i)
	if len(d) < 1 || len(d) > 2 {
		return dateToken{}, false
	}
	sep, j := nameSeparator(s, i+len(d))
	m, j2 := monthAt(s, j)
	if sep == "" || m == 0 {
		return dateToken{}, false
	}
	_, j3 := nameSeparator(s, j2)
	y := digitsAt(s, j3)
	if len(y) != 4 && !(len(y) == 2 && sep == "-") || !dateEnds(s, j3+len(y)) {
		return dateToken{}, false
	}
	t := dateToken{end: j3 + len(y), format: Format{Kind: FormatDate, Separator: sep, MonthNames: true, YearDigits: len(y)}}
	t.add(y, strconv.Itoa(m), d, "DMY")
	return t, len(t.readings) > 0
}

// scanMonthNameDay: "January 15, 2024", "Jan 5 2024".
func scanMonthNameDay(s string, i int) (dateToken, bool) {
	m, j := monthAt(s, i)
	if m == 0 || j >= len(s) || s[j] != ' ' {
		return dateToken{}, false
	}
	j++
	d := digitsAt(s, j)
	if len(d) < 1 || len(d) > 2 {
		return dateToken{}, false
	}
	j += len(d)
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if strings.HasPrefix(s[j:], suffix) {
			j += len(suffix)
			break
		}
	}
	if j < len(s) && s[j] == ',' {
		j++
	}
	if j >= len(s) || s[j] != ' ' {
		return dateToken{}, false
	}
	y := digitsAt(s, j+1)
	if len(y) != 4 || !dateEnds(s, j+1+len(y)) {
		return dateToken{}, false
	}
	t := dateToken{end: j + 1 + len(y), format: Format{Kind: FormatDate, Separator: " ", MonthNames: true, YearDigits: 4}}
	t.add(y, strconv.Itoa(m), d, "MDY")
	return t, len(t.readings) > 0
}

// readDate reads the date at byte i of s in format f: the learned
// separator, month style and year digits; the learned order, or, when the
// learned date could not tell day from month, only a date that reads the
// same in either order.
func readDate(s string, i int, f Format) (string, int, bool) {
	t, ok := scanDate(s, i)
	if !ok || t.format.Separator != f.Separator || t.format.MonthNames != f.MonthNames || t.format.YearDigits != f.YearDigits {
		return "", 0, false
	}
	var found []string
	for _, r := range t.readings {
		if (f.Order == "" || r.order == f.Order) && !containsString(found, r.value) {
			found = append(found, r.value)
		}
	}
	if len(found) != 1 {
		return "", 0, false
	}
	return found[0], t.end, true
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// shapeOf is a text's shape: each run of letters 'A', of digits '9',
// every other character as it is ("RE-2024-0311" → "A-9-9").
func shapeOf(s string) string {
	var b strings.Builder
	var last rune
	for _, r := range s {
		c := r
		switch {
		case unicode.IsLetter(r):
			c = 'A'
		case unicode.IsDigit(r):
			c = '9'
		}
		if (c == 'A' || c == '9') && c == last {
			continue
		}
		b.WriteRune(c)
		last = c
	}
	return b.String()
}

// readText reads a text value of format f from the words of a line
// starting at word i: f.Words words of one cell, the first printed after
// f.Prefix, the last before f.Suffix, of the learned shape. It returns
// the value and the index past its last word.
func readText(ws []word, i int, f Format) (string, int, bool) {
	if f.Words < 1 || i+f.Words > len(ws) {
		return "", 0, false
	}
	parts := make([]string, 0, f.Words)
	for k := i; k < i+f.Words; k++ {
		if k > i && ws[k].cellStart {
			return "", 0, false
		}
		parts = append(parts, ws[k].text)
	}
	v := strings.Join(parts, " ")
	if !strings.HasPrefix(v, f.Prefix) || !strings.HasSuffix(v, f.Suffix) || len(v) <= len(f.Prefix)+len(f.Suffix) {
		return "", 0, false
	}
	v = v[len(f.Prefix) : len(v)-len(f.Suffix)]
	if shapeOf(v) != f.Shape || !extract.IsInvoiceNumber(v) {
		return "", 0, false
	}
	return v, i + f.Words, true
}
