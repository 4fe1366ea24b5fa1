package rules

// The address and registration patterns that tell a UK or US document are
// read by the hand-written scanners below rather than regular expressions:
// they run on every line of every document, where the regexp engine's
// backtracker cost several percent of the extractor. Each is checked
// against the regular expression it replaced by a fuzz test (address_test.go).

// hasUKMarker reports a UK postcode ("EX2 8PW") or a GB VAT number ("GB 123
// 4567 89") standing as whole words in s: the regular expression
//
//	\b(?:[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}|GB ?[0-9]{3} ?[0-9]{4} ?[0-9]{2})\b
func hasUKMarker(s string) bool {
	for p := 0; p < len(s); p++ {
		if !isUpperByte(s[p]) || p > 0 && isWordByte(s[p-1]) {
			continue
		}
		if end := ukPostcodeEnd(s, p); end > 0 && wordEnds(s, end) {
			return true
		}
		if end := gbVATEnd(s, p); end > 0 && wordEnds(s, end) {
			return true
		}
	}
	return false
}

// ukPostcodeEnd returns the end of "[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}"
// at p, or -1. Each optional part is decided by the next byte alone: a
// second letter cannot be the digit that must follow one letter, and the
// optional fourth character cannot be the space that must follow without
// it.
func ukPostcodeEnd(s string, p int) int {
	i := p + 1 // s[p] is a capital letter
	if i < len(s) && isUpperByte(s[i]) {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return -1
	}
	i++
	if i < len(s) && (isUpperByte(s[i]) || isDigit(s[i])) {
		i++
	}
	if i+4 > len(s) || s[i] != ' ' || !isDigit(s[i+1]) || !isUpperByte(s[i+2]) || !isUpperByte(s[i+3]) {
		return -1
	}
	return i + 4
}

// gbVATEnd returns the end of "GB ?[0-9]{3} ?[0-9]{4} ?[0-9]{2}" at p, or -1.
func gbVATEnd(s string, p int) int {
	if !hasPrefixAt(s, p, "GB") {
		return -1
	}
	i := p + 2
	for _, n := range []int{3, 4, 2} {
		if i < len(s) && s[i] == ' ' {
			i++
		}
		if i = digitsEnd(s, i, n); i < 0 {
			return -1
		}
	}
	return i
}

// nextStateZip returns where the next US state abbreviation followed by a
// ZIP code ("CO 80301", "CA, 94107-1234") starts in s at or after from, or
// -1: the start of the next match of the regular expression
//
//	\b(?:AL|AK|…|WY|DC),?\s+\d{5}(?:-\d{4})?\b
//
// A match can never start inside another (only its first letter follows a
// word boundary), so the starts are those of FindAllStringIndex.
func nextStateZip(s string, from int) int {
	for p := from; p+2 <= len(s); p++ {
		if !isUpperByte(s[p]) || p > 0 && isWordByte(s[p-1]) || !usStates[s[p:p+2]] {
			continue
		}
		i := p + 2
		if i < len(s) && s[i] == ',' {
			i++
		}
		spaces := i
		for i < len(s) && isRegexpSpace(s[i]) {
			i++
		}
		if i == spaces {
			continue
		}
		// The optional "-dddd" never decides: without it, the '-' after
		// the five digits is itself a word boundary.
		if i = digitsEnd(s, i, 5); i > 0 && wordEnds(s, i) {
			return p
		}
	}
	return -1
}

// usStates are the abbreviations of the US states and DC.
var usStates = map[string]bool{
	"AL": true, "AK": true, "AZ": true, "AR": true, "CA": true, "CO": true, "CT": true, "DE": true,
	"FL": true, "GA": true, "HI": true, "ID": true, "IL": true, "IN": true, "IA": true, "KS": true,
	"KY": true, "LA": true, "ME": true, "MD": true, "MA": true, "MI": true, "MN": true, "MS": true,
	"MO": true, "MT": true, "NE": true, "NV": true, "NH": true, "NJ": true, "NM": true, "NY": true,
	"NC": true, "ND": true, "OH": true, "OK": true, "OR": true, "PA": true, "RI": true, "SC": true,
	"SD": true, "TN": true, "TX": true, "UT": true, "VT": true, "VA": true, "WA": true, "WV": true,
	"WI": true, "WY": true, "DC": true,
}

// digitsEnd returns i+n when s has n ASCII digits at i, else -1.
func digitsEnd(s string, i, n int) int {
	if i+n > len(s) {
		return -1
	}
	for k := i; k < i+n; k++ {
		if !isDigit(s[k]) {
			return -1
		}
	}
	return i + n
}

// wordEnds reports a word boundary (\b, ASCII) after a word byte at i-1.
func wordEnds(s string, i int) bool { return i == len(s) || !isWordByte(s[i]) }

// isRegexpSpace is the regexp class \s: ASCII space, tab, newline, form
// feed and carriage return (not the vertical tab).
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func hasPrefixAt(s string, p int, prefix string) bool {
	return len(s)-p >= len(prefix) && s[p:p+len(prefix)] == prefix
}
