package extract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
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

var (
	isoDateRe     = regexp.MustCompile(`\b(\d{4})([-/.])(\d{1,2})([-/.])(\d{1,2})\b`)
	numericDateRe = regexp.MustCompile(`\b(\d{1,2})([-/.])(\d{1,2})([-/.])(\d{4}|\d{2})\b`)
	dayNameRe     = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\.?(?:\s+of)?[\s-]+(\pL{3,10})\.?,?[\s-]+(\d{4})\b`)
	nameDayRe     = regexp.MustCompile(`(?i)\b(\pL{3,10})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
)

// months maps month names and abbreviations (English, German, French,
// Spanish, Italian, Dutch) to their number.
var months = func() map[string]int {
	m := map[string]int{}
	for i, names := range []string{
		"january jan januar janvier enero gennaio januari jän",
		"february feb februar fevrier février febrero febbraio februari",
		"march mar märz maerz marz mars marzo maart mär",
		"april apr avril abril aprile",
		"may mai mayo maggio mei",
		"june jun juni juin junio giugno",
		"july jul juli juillet julio luglio",
		"august aug aout août agosto augustus",
		"september sep sept septembre septiembre settembre",
		"october oct oktober octobre octubre ottobre okt",
		"november nov novembre noviembre",
		"december dec dezember decembre décembre diciembre dicembre dez",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = i + 1
		}
	}
	return m
}()

func monthNumber(name string) int { return months[strings.ToLower(name)] }

// findDates returns the dates of s in order of position.
func findDates(s string) []dateTok {
	if !strings.ContainsAny(s, "0123456789") {
		return nil
	}
	var out []dateTok
	for _, m := range isoDateRe.FindAllStringSubmatchIndex(s, -1) {
		if s[m[4]] == s[m[8]] {
			out = append(out, dateTok{start: m[0], end: m[1], style: styleISO, sep: s[m[4]],
				year: atoi(s, m[2], m[3]), b: atoi(s, m[6], m[7]), a: atoi(s, m[10], m[11])})
		}
	}
	for _, m := range numericDateRe.FindAllStringSubmatchIndex(s, -1) {
		a, b := atoi(s, m[2], m[3]), atoi(s, m[6], m[7])
		if s[m[4]] == s[m[8]] && plausibleDayMonth(a, b) && !overlaps(out, m[0], m[1]) {
			out = append(out, dateTok{start: m[0], end: m[1], style: styleNumeric, sep: s[m[4]],
				a: a, b: b, year: fullYear(atoi(s, m[10], m[11]))})
		}
	}
	out = appendNamedDates(out, s)
	sortDates(out)
	return out
}

func appendNamedDates(out []dateTok, s string) []dateTok {
	if !hasLetter(s) {
		return out
	}
	for _, m := range dayNameRe.FindAllStringSubmatchIndex(s, -1) {
		if mon := monthNumber(s[m[4]:m[5]]); mon > 0 && !overlaps(out, m[0], m[1]) {
			out = append(out, dateTok{start: m[0], end: m[1], style: styleDayName,
				a: atoi(s, m[2], m[3]), b: mon, year: atoi(s, m[6], m[7])})
		}
	}
	for _, m := range nameDayRe.FindAllStringSubmatchIndex(s, -1) {
		if mon := monthNumber(s[m[2]:m[3]]); mon > 0 && !overlaps(out, m[0], m[1]) {
			out = append(out, dateTok{start: m[0], end: m[1], style: styleNameDay,
				a: atoi(s, m[4], m[5]), b: mon, year: atoi(s, m[6], m[7])})
		}
	}
	return out
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
