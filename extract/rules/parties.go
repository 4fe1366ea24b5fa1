package rules

import (
	"regexp"
	"strings"
	"unicode"
)

// Telling the issuer's name at the top of a page from the other party's.

// labelShaped reports a cell that is a label the tables do not know: a
// number word first ("No. of Adults"), or a bare count or amount right
// after it on its line ("Others   0").
func labelShaped(l *line, k int) bool {
	if f := strings.Fields(l.cells[k].text); len(f) > 1 && numberWords[strings.ToLower(strings.Trim(f[0], ".:"))] {
		return true
	}
	if k+1 < len(l.cells) {
		next := strings.TrimSpace(l.cells[k+1].text)
		return next != "" && !hasLetter(next) && hasDigit(next) && len(findDates(next)) == 0
	}
	return false
}

// partyOf returns v, the name in cell k of line l, unless another name
// stands beside it on l: then the one the page's domains name, or "".
func partyOf(d *document, l *line, k int, v string) string {
	other := ""
	for j, c := range l.cells {
		if j == k || j > 0 && labelledBefore(l, j) || labelShaped(l, j) {
			continue
		}
		if w := topCandidate(c); w != "" {
			other = w
			break
		}
	}
	if other == "" {
		return v
	}
	domains := pageDomains(d)
	mine, theirs := namedByDomain(v, domains), namedByDomain(other, domains)
	switch {
	case mine && !theirs:
		return v
	case theirs && !mine:
		return other
	}
	return ""
}

// domainRe finds the domain of an e-mail address or a web address.
var domainRe = regexp.MustCompile(`(?i)(?:@|\bwww\.|https?://)([a-z0-9][a-z0-9.-]*\.[a-z]{2,})`)

// pageDomains returns the labels of the e-mail and web domains on d,
// without the top-level domain and "www" ("info@cronus.com" → "cronus").
func pageDomains(d *document) []string {
	var out []string
	for i := range d.lines {
		for _, m := range domainRe.FindAllStringSubmatch(d.lines[i].text, -1) {
			parts := strings.Split(strings.ToLower(m[1]), ".")
			for _, p := range parts[:len(parts)-1] {
				if p != "www" && len(p) >= 3 && !containsStr(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// namedByDomain reports a name one of whose words (three letters or more,
// not a legal form) is, or begins, a domain label: "CRONUS DE" and
// "cronus.com".
func namedByDomain(name string, domains []string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 || legalFormRe.MatchString(w) {
			continue
		}
		for _, dom := range domains {
			if strings.HasPrefix(dom, w) {
				return true
			}
		}
	}
	return false
}
