package rules

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// byRank returns the hits of kind, surest first, in document order within
// a rank.
func byRank(hits []hit, kind labelKind) []hit {
	var out []hit
	for _, h := range hits {
		if h.kind == kind {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// proseNumberRe finds "invoice 4471", "invoice no. INV-77", "invoice #50-1187"
// in running text.
var proseNumberRe = regexp.MustCompile(`(?i)\binvoice\s*(?:no\.?|number|nr\.?|num\.?|#|ref\.?|id)?\s*[:#]?\s*([A-Za-z0-9][A-Za-z0-9._/-]*[0-9][A-Za-z0-9._/-]*)`)

// weakNumberLabel are the labels that number any document ("Document
// No."): the invoice's own label or title goes first.
var weakNumberLabel = map[string]bool{"document no": true, "document number": true, "doc no": true}

// resolveInvoiceNumber takes the invoice number from a label, else the
// title or the e-mail subject, else a document number, else running text.
// On a credit note or corrective invoice (credit), the number of the
// invoice it refers to (preceding, "zu Rechnung Nr. …") is never its own;
// an invoice may name itself so ("Anlage zur Rechnung Nr. …").
func resolveInvoiceNumber(d *document, hits []hit, preceding string, credit bool) string {
	own := func(n string) bool { return n != "" && !(credit && n == preceding) }
	ranked := byRank(hits, lkInvoiceNo)
	for _, h := range ranked {
		if n := labelNumber(h); own(n) && !weakNumberLabel[h.phrase] {
			return n
		}
	}
	for _, text := range titleTexts(d) {
		if n := numberAfterInvoiceWord(text); own(n) {
			return n
		}
	}
	if n := numberBelowTitle(d); own(n) {
		return n
	}
	for _, h := range ranked {
		if n := invoiceNumberToken(h.value()); own(n) {
			return n
		}
	}
	for i := range d.lines {
		if d.lines[i].used {
			continue
		}
		if m := proseNumberRe.FindStringSubmatch(d.lines[i].text); m != nil {
			if n := invoiceNumberToken(m[1]); own(n) {
				return n
			}
		}
	}
	return ""
}

// bareNumberRe is a cell that is a number word alone and a value: "Nº:
// 4000-12345678", "No. 2024/17", "# 1187" (a cell: at the line's start or
// after a column gap, so "Remito Nº: 12" is not one).
var bareNumberRe = regexp.MustCompile(`(?:^|\s{2,})(?:N[º°o]\.?|N[úu]mero|Nr\.|No\.|#|№|Reference|Ref\.)\s*[:#]?\s*([A-Za-z0-9][A-Za-z0-9._/-]*[0-9][A-Za-z0-9._/-]*)(?:\s{2,}|$)`)

// numberBelowTitle reads the number a bare number label gives right below
// an invoice title, the title naming what the number is:
//
//	Factura
//	Nº: 4000-12345678
func numberBelowTitle(d *document) string {
	seen, below := 0, -1
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule {
			continue
		}
		if seen++; seen > headLines {
			break
		}
		if below >= 0 && below < 4 {
			below++
			if m := bareNumberRe.FindStringSubmatch(l.text); m != nil {
				if n := invoiceNumberToken(m[1]); n != "" {
					return n
				}
			}
		}
		for _, t := range titleCandidates(d, i) {
			if extract.IsBooked(candidateType(d, l, t)) {
				below = 0
			}
		}
	}
	return ""
}

// numberLabel reports an invoice-number label that says "number" (not the
// bare word "invoice", which also titles the page).
func numberLabel(phrase string) bool {
	for _, w := range strings.Fields(phrase) {
		if w == "no" || strings.HasSuffix(w, "nummer") || strings.HasSuffix(w, "nr") || w == "numer" || w == "cislo" || w == "číslo" {
			return true
		}
	}
	return false
}

// titleTexts returns the e-mail subject and the title candidates of the
// head of d that name a booked document (an invoice, a credit note, a
// corrective invoice), in order.
func titleTexts(d *document) []string {
	var out []string
	seen := 0
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule {
			continue
		}
		if seen++; seen > headLines {
			break
		}
		for _, t := range titleCandidates(d, i) {
			if extract.IsBooked(candidateType(d, l, t)) {
				out = append(out, t)
			}
		}
	}
	return out
}

// numberAfterInvoiceWord reads the number after the word "invoice", its
// translations, a compound of them or a credit note's title word in a
// title: "Invoice No. 4471", "HANDELSRECHNUNG (380) Nr. 471102 vom
// 05.03.2018", "Factuur nr 2024-17", "Avoir AV-2017-0005".
func numberAfterInvoiceWord(text string) string {
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		return "" // offsets of the lower-case text would not be the text's
	}
	for _, w := range invoiceWords {
		i := strings.Index(lower, w)
		if i < 0 {
			continue
		}
		if m, ok := matchLabel(text[i:]); ok && m.kind == lkInvoiceNo {
			if n := invoiceNumberToken(labelValue(text[i:], m)); n != "" {
				return n
			}
		}
		if n := numberAfterTitleWord(text[i+len(w):]); n != "" {
			return n
		}
	}
	return ""
}

// invoiceWords are the words that name a booked document in the language
// tables (an invoice, a credit note, a corrective invoice), and the endings
// of the compounds that do; the longer first, so that "Rechnungskorrektur
// Nr. 7" is read after "rechnungskorrektur", not after "rechnung".
var invoiceWords = func() []string {
	var out []string
	for _, l := range languages {
		for _, k := range slices.Concat(l.titles, l.invoiceTitles, l.compounds) {
			if extract.IsBooked(k.docType) && !containsStr(out, k.phrase) {
				out = append(out, k.phrase)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}()

// numberAfterTitleWord reads "(380) Nr. 471102" after an invoice word: an
// optional type code in brackets, a number word, then the number.
func numberAfterTitleWord(rest string) string {
	r := strings.TrimLeft(rest, " ")
	if strings.HasPrefix(r, "(") {
		if j := strings.IndexByte(r, ')'); j > 0 && j <= 24 { // "(380)", "(Pflege)", "(Original)"
			r = strings.TrimLeft(r[j+1:], " ")
		}
	}
	words := strings.Fields(r)
	if len(words) == 1 && hasLetter(words[0]) && hasDigit(words[0]) {
		return invoiceNumberToken(words[0]) // "Rechnung RE1001": the number alone after the title word
	}
	if len(words) < 2 || !isNumberSpelling(strings.ToLower(strings.Trim(words[0], ".:"))) {
		return ""
	}
	return invoiceNumberToken(strings.Join(words[1:], " "))
}

// labelNumber reads the number a label gives: its value cell as printed
// when the cell holds the number alone ("FV 1/2021", "FV 2024/0815": the
// cell's end is the number's end), else the first word of the value.
func labelNumber(h hit) string {
	if len(h.cells) > 0 {
		if n := printedCellNumber(h.cells[0]); n != "" {
			return n
		}
	}
	return markedNumberToken(h.value(), numberMarked(h))
}

// printedCellNumber returns a value cell that is an invoice number
// printed with a space inside, as a series and its number ("FV 1/2021",
// "FV 2024/0815": printedNumber), and nothing else; else "". A single
// word is left to the token rules (a date, a "#").
func printedCellNumber(v string) string {
	words := strings.Fields(v)
	for len(words) > 0 && (numberWords[strings.ToLower(strings.Trim(words[0], ".:#"))] || strings.Trim(words[0], "№:#") == "") {
		words = words[1:]
	}
	if len(words) != 2 || !seriesPrefix(words[0]) {
		return ""
	}
	if n := printedNumber(strings.Join(words, " ")); n == words[0]+" "+words[1] && extract.IsInvoiceNumber(n) {
		return n
	}
	return ""
}

// numberMarked reports a label hit whose value is the number even when it
// reads as a date: "Invoice #2015-11-04" (the sign against it), "Numer
// faktury" over "2/11/2023" alone (the label says number).
func numberMarked(h hit) bool {
	f := strings.Fields(h.value())
	return len(f) > 0 && strings.Contains(h.raw, "#"+f[0]) ||
		len(f) == 1 && h.rank == rankBelow && numberLabel(h.phrase)
}

// numberTokenRe is the shape of a word the rules take as an invoice number
// by itself: letters, digits and . _ / -, starting with a letter or digit,
// at most 64 characters. The validator accepts more (a number as printed,
// spaces inside); a word of another shape is read only where a layout
// says where the number ends.
var numberTokenRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`)

// invoiceNumberToken returns the first word of v when it is an invoice
// number: letters, digits and . _ / -, at least one digit, not a date.
func invoiceNumberToken(v string) string { return markedNumberToken(v, false) }

// markedNumberToken is invoiceNumberToken; marked (or a "#" or "№" written
// against the word) accepts a number that reads as a date.
func markedNumberToken(v string, marked bool) string {
	words := strings.Fields(v)
	for len(words) > 0 && (numberWords[strings.ToLower(strings.Trim(words[0], ".:#"))] || strings.Trim(words[0], "№:") == "") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	// "#2015-11-04" is a number written like a date: the sign says so.
	marked = marked || strings.HasPrefix(words[0], "#") || strings.HasPrefix(words[0], "№")
	if ds := findDates(strings.Join(words, " ")); len(ds) > 0 && ds[0].start == 0 && !marked {
		return "" // "16 June 2025": a date below a title, not a number
	}
	w := strings.TrimLeft(words[0], "#:№")
	w = strings.TrimRight(w, ".,;:)]")
	if !hasDigit(w) || !numberTokenRe.MatchString(w) {
		return ""
	}
	if ds := findDates(w); len(ds) == 1 && ds[0].start == 0 && ds[0].end == len(w) && !marked {
		return ""
	}
	return w
}

// legalFormRe finds the legal form that marks a company name; tradeWordRe
// the trade word that may ("Brightline Studio").
var (
	legalFormRe = newNamePattern(`ltd|limited|llc|l\.l\.c|inc|incorporated|corp|corporation|co|company|gmbh|ag|kg|ohg|ug|se|sa|s\.a|sas|sarl|s\.r\.l|srl|spa|s\.p\.a|bv|b\.v|nv|n\.v|plc|llp|lp|pty|pte|oy|ab|a/s|aps|kk|k\.k|w\.l\.l|wll|s\.l|e\.k|e\.u|gbr|dac|sp\. z o\.o|s\.r\.o|a\.s|kft|zrt|d\.o\.o|gmbh & co\. kg|oü|as|asa|uab|sia`)
	tradeWordRe = newNamePattern(`group|holdings|partners|associates|studio|consulting|services|solutions|trading|traders|industries|enterprises|labs|systems|supplies|supply|agency|design|media`)
)

// namePattern is a word of a list, in any case, standing alone in a name:
// at the start or after a space or comma, perhaps with a '.', then at the
// end or before a space, a comma or ')'.
type namePattern struct {
	re *regexp.Regexp
	// words are the words of the list in lower case, by their first byte.
	words [256][]string
}

// newNamePattern makes the pattern of alternatives, a regular expression
// alternation of lower-case words whose only escapes are "\.".
func newNamePattern(alternatives string) *namePattern {
	np := &namePattern{re: regexp.MustCompile(`(?i)(?:^|[\s,])(?:` + alternatives + `)\.?(?:$|[\s,)])`)}
	for _, w := range strings.Split(alternatives, "|") {
		w = strings.ReplaceAll(w, `\.`, ".")
		np.words[w[0]] = append(np.words[w[0]], w)
	}
	return np
}

// MatchString reports a match anywhere in s.
func (np *namePattern) MatchString(s string) bool { return np.re.MatchString(s) }

// appendMatches appends to dst the matches of the pattern in an ASCII s,
// as FindAllStringIndex of its regular expression finds them: leftmost
// first, each search starting where the last match ended. At a start, "^"
// is tried before a separator, the words in the order of the list, a '.'
// after the word before none, the end before a closing separator: the
// order of the expression's alternatives. It is scanned by hand because
// the backtracker ran on every vendor candidate (~2% of the rules' CPU).
func (np *namePattern) appendMatches(dst [][2]int, s string) [][2]int {
	for pos := 0; pos < len(s); {
		q, end := pos, -1
		for ; q < len(s); q++ {
			if end = np.matchAt(s, q); end >= 0 {
				break
			}
		}
		if end < 0 {
			break
		}
		dst = append(dst, [2]int{q, end})
		pos = end
	}
	return dst
}

// matchAt returns the end of the match that starts at q, or -1.
func (np *namePattern) matchAt(s string, q int) int {
	if q == 0 {
		if end := np.wordAt(s, 0); end >= 0 {
			return end
		}
	}
	if isRegexpSpace(s[q]) || s[q] == ',' {
		return np.wordAt(s, q+1)
	}
	return -1
}

// wordAt returns the end of a listed word at i, its optional '.' and the end
// of the text or a closing separator, or -1.
func (np *namePattern) wordAt(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	for _, w := range np.words[lowerByte(s[i])] {
		end := i + len(w)
		if end > len(s) || !strings.EqualFold(s[i:end], w) {
			continue
		}
		if end < len(s) && s[end] == '.' {
			if e := closesNameWord(s, end+1); e >= 0 {
				return e
			}
		}
		if e := closesNameWord(s, end); e >= 0 {
			return e
		}
	}
	return -1
}

// closesNameWord returns the end of "(?:$|[\s,)])" at i, or -1.
func closesNameWord(s string, i int) int {
	switch {
	case i == len(s):
		return i
	case isRegexpSpace(s[i]) || s[i] == ',' || s[i] == ')':
		return i + 1
	}
	return -1
}

// hasCompanySuffix: a name with a legal form, or a trade word in a name
// written as one. The word alone ("Services", a section heading) names no
// company, nor does a phrase ("Facilitation & workshop design", a job
// title under a signature).
func hasCompanySuffix(s string) bool {
	if strings.IndexFunc(strings.TrimSpace(s), unicode.IsSpace) <= 0 {
		return false
	}
	return afterFirstWord(legalFormRe, s) || afterFirstWord(tradeWordRe, s) && nameCased(s)
}

// afterFirstWord reports a match of re that is not the first word: "Studio
// 4, 22 Canal Street" is an address, "Brightline Studio" a name.
func afterFirstWord(np *namePattern, s string) bool {
	s = strings.TrimSpace(s)
	if isASCII(s) {
		var buf [8][2]int
		for _, m := range np.appendMatches(buf[:0], s) {
			if m[0] > 0 && !unitAfterNumber(s, m[:]) {
				return true
			}
		}
		return false
	}
	for _, m := range np.re.FindAllStringIndex(s, -1) {
		if m[0] > 0 && !unitAfterNumber(s, m) {
			return true
		}
	}
	return false
}

// unitAfterNumber reports a match that is a unit in lower case after a
// number ("1.6 kg of steel"), not a legal form ("Synthetic Vendor 01 Ltd").
func unitAfterNumber(s string, m []int) bool {
	f := strings.Fields(s[:m[0]+1])
	word := strings.Trim(s[m[0]:m[1]], " ,.)")
	return len(f) > 0 && hasDigit(f[len(f)-1]) && word == strings.ToLower(word)
}

// weakVendorLabel are the labels that may name a person rather than the
// company: a bare "From" and the e-mail sender.
var weakVendorLabel = map[string]bool{"from": true, "mail from": true}

// resolveVendor takes the vendor from a label ("Supplier:", "From:"), the
// e-mail sender, the unlabelled block at the top, or an e-mail signature.
func resolveVendor(d *document, hits []hit) string {
	var weak []string
	for _, h := range byRank(hits, lkVendor) {
		v := cleanVendor(h.value())
		if v == "" {
			continue
		}
		if !weakVendorLabel[h.phrase] {
			return v
		}
		weak = append(weak, v)
	}
	for _, v := range weak {
		if hasCompanySuffix(v) {
			return v
		}
	}
	if v := senderLineVendor(d); v != "" {
		return v
	}
	if v := topBlockVendor(d); v != "" && (len(weak) == 0 || hasCompanySuffix(v)) {
		return v
	}
	if v := signatureVendor(d, weak); v != "" {
		return v
	}
	if v := footerVendor(d); v != "" {
		return v
	}
	if len(weak) > 0 {
		return weak[0]
	}
	return ""
}

// cleanVendor trims an e-mail address, quotes and trailing punctuation off
// a vendor value and returns it when it looks like a name.
func cleanVendor(v string) string {
	if strings.HasSuffix(strings.TrimSpace(v), ":") {
		return "" // "Overdue interest:": a label, known or not
	}
	if i := strings.IndexByte(v, '<'); i >= 0 {
		v = v[:i]
	}
	for _, sep := range []string{"  ", " — ", " – ", " | ", " · ", " - "} {
		if i := strings.Index(v, sep); i > 0 {
			v = v[:i]
		}
	}
	if i := addressStart(v); i > 0 {
		v = v[:i] // "Visser BV, Industrieweg 135, Eindhoven", "Kawaguchi Co., Ltd., 1-1-2 Otemachi"
	}
	if i := strings.LastIndex(v, ", "); i > 0 && placeAfter(v[i+2:]) {
		v = v[:i] // "Lena Fischer Übersetzungen, Leipzig"
	}
	v = strings.Trim(v, " \"'`,;:-–—|")
	if !vendorLike(v) {
		return ""
	}
	if m, ok := matchLabel(v); ok && labelValue(v, m) == "" {
		return "" // a label ("IBAN", "Empfänger"), not a name
	}
	return v
}

// addressStart returns where an address follows a name on its line: the
// first ", " whose part (up to the next ", ") holds a digit; -1 when no
// part after a comma does.
func addressStart(v string) int {
	first := strings.Index(v, ", ")
	if first < 0 || !hasDigit(v[first:]) {
		return -1
	}
	for i := first; i >= 0; {
		rest := v[i+2:]
		next := strings.Index(rest, ", ")
		part := rest
		if next >= 0 {
			part = rest[:next]
		}
		if hasDigit(part) {
			return i
		}
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return first
}

// placeAfter reports the one word after a name's last comma that is a
// place, not a legal form ("Leipzig", not "Ltd." or "Inc.").
func placeAfter(w string) bool {
	w = strings.TrimSpace(w)
	r, _ := utf8.DecodeRuneInString(w)
	return w != "" && !strings.ContainsAny(w, " .&") && unicode.IsUpper(r) && !hasDigit(w) &&
		!legalFormRe.MatchString(w)
}

// vendorLike reports text that may be a company or person name: letters,
// few digits, not an address, a contact, a date or a sentence.
func vendorLike(s string) bool {
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	if letters < 2 || len(s) > 120 || countFields(s) > 12 || strings.HasSuffix(s, ":") {
		return false
	}
	if letters < 4 && strings.ToLower(s) == s {
		return false // "rd" of "3rd Ave" set apart as a superscript: no name is so short in lower case
	}
	if digits > 0 && !hasCompanySuffix(s) || digits > 3 {
		return false
	}
	lower := strings.ToLower(s)
	if copyMarker[strings.Trim(lower, " .")] || numberWords[strings.Trim(lower, " .:")] || streetWords[strings.Trim(lower, " .")] || legalFormAlone(s) {
		return false // "Original", "Duplicado": which copy of the document; "GmbH" alone names nobody
	}
	if strings.ContainsAny(s, "@") || strings.Contains(lower, "www.") || strings.Contains(lower, "http") {
		return false
	}
	padded := " " + lower + " "
	for _, bad := range []string{"tel", "phone", "fax", "dear", "hello", "hi", "thank", "thanks", "please",
		"regards", "page", "street", "road", "avenue", "suite", "p.o. box", "po box", "invoice", "total"} {
		if containsWord(padded, bad) {
			return false
		}
	}
	return !strings.HasSuffix(s, ",")
}

// copyMarker are the words that say which copy of a document a page is.
var copyMarker = map[string]bool{"original": true, "copy": true, "duplicate": true, "triplicate": true,
	"duplicado": true, "triplicado": true, "copia": true, "originale": true, "copie": true, "kopie": true,
	"duplikat": true, "duplicata": true, "origineel": true, "kopia": true}

// streetWords are the kinds of street, alone a fragment of an address.
var streetWords = map[string]bool{"ave": true, "avenue": true, "st": true, "street": true, "rd": true, "road": true,
	"blvd": true, "ln": true, "lane": true, "dr": true, "drive": true, "str": true, "straße": true, "strasse": true, "way": true}

// legalFormAlone reports a legal form with no name before it ("GmbH").
func legalFormAlone(s string) bool {
	s = strings.TrimSpace(s)
	return !strings.ContainsAny(s, " ") && legalFormRe.MatchString(s)
}

// senderLineVendor reads the return-address line a letter prints above the
// recipient's address window (DIN 5008, and its like elsewhere): "weclapp
// GmbH | Somestreet 42 | 08155 Some city". Its first part is the sender;
// the address block below it is the recipient's.
func senderLineVendor(d *document) string {
	seen := 0
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule || (d.mail && i < d.mailEnd) {
			continue
		}
		if seen++; seen > 8 {
			break
		}
		for _, sep := range []string{" | ", " · ", " • "} {
			parts := strings.Split(strings.TrimSpace(l.text), sep)
			if len(parts) < 3 || hasDigit(parts[0]) || !addressParts(parts[1:]) {
				continue
			}
			if v := cleanVendor(parts[0]); v != "" && titleType(v) == "" {
				return v
			}
		}
	}
	return ""
}

// addressParts reports the parts of a sender line after the name: a street
// or a place with its number ("Somestreet 42", "08155 Some city"), never a
// bare number or an amount (the cells of an item row).
func addressParts(parts []string) bool {
	mixed := false
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if !hasLetter(p) && hasDigit(p) {
			return false
		}
		mixed = mixed || hasLetter(p) && hasDigit(p)
	}
	return mixed
}

// topBlockVendor returns the first name-like cell at the top of d that is
// not a title, a label, or part of a "Bill to" block; a name with a legal
// form is preferred among the first lines. Two names side by side on one
// line, neither labelled, are two parties (a window address and a
// letterhead): the issuer is the one the page's e-mail or web domain
// names, else nobody can tell and no vendor is read.
func topBlockVendor(d *document) string {
	var first string
	firstLine, firstCell := -1, -1
	seen := 0
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule || (d.mail && i < d.mailEnd) {
			continue
		}
		if seen++; seen > 12 || l.used {
			break
		}
		for k, c := range l.cells {
			if k > 0 && labelledBefore(l, k) || labelShaped(l, k) {
				continue // "Makseviis:   Ülekanne": the value of the label before it
			}
			if v := topCandidate(c); v != "" {
				if hasCompanySuffix(v) {
					return partyOf(d, l, k, v)
				}
				if first == "" {
					first, firstLine, firstCell = v, i, k
				}
			}
		}
	}
	if first == "" {
		return ""
	}
	return partyOf(d, &d.lines[firstLine], firstCell, first)
}

// labelledBefore reports a cell whose nearest non-empty cell to its left is
// a label ending with a colon: the cell is that label's value.
func labelledBefore(l *line, k int) bool {
	for j := k - 1; j >= 0; j-- {
		if t := strings.TrimSpace(l.cells[j].text); t != "" {
			return strings.HasSuffix(t, ":")
		}
	}
	return false
}

// footerVendor returns the company a document's footer names with its
// registration or VAT id on the same line ("Meeltemaitsed OÜ   Rg-kood:
// 16218741   KMKR: EE102365986"): the issuer's imprint, common in
// European invoices. It looks at the last lines only, after the totals.
func footerVendor(d *document) string {
	seen := 0
	for i := len(d.lines) - 1; i >= 0 && seen < 12; i-- {
		l := &d.lines[i]
		if l.blank() || l.rule {
			continue
		}
		seen++
		if l.used || len(l.cells) < 2 {
			continue
		}
		idOnLine := false
		for _, c := range l.cells[1:] {
			if m, ok := matchLabel(c.text); ok && m.kind == lkOtherRef && m.colon {
				idOnLine = true
			}
		}
		if !idOnLine || l.cells[0].customer {
			continue
		}
		if v := cleanVendor(l.cells[0].text); v != "" && hasCompanySuffix(v) {
			return v
		}
	}
	return ""
}

// postalLineRe is a cell that is an address's place line: a city, its US
// state and ZIP ("Seattle, WA 12345"), a code before the place ("80333
// München", "DE 80333 München"). A sender line that ends so ("Acme Inc,
// 874 Market Street, Portland, OR 97204") is not one.
var postalLineRe = regexp.MustCompile(`^[\p{L} .'-]+,\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?\s*$|^(?:[A-Z]{1,2}[- ])?\d{4,5}\s+\p{Lu}`)

func topCandidate(c cell) string {
	if c.text == "" || c.customer || titleType(c.text) != "" || postalLineRe.MatchString(c.text) {
		return ""
	}
	if _, ok := matchLabel(c.text); ok {
		return ""
	}
	if len(findDates(c.text)) > 0 || fieldShaped(c.text) || sentenceShaped(c.text) {
		return ""
	}
	return cleanVendor(c.text)
}

// sentenceShaped reports running text: six words or more ending with a
// lower-case word and a full stop ("Quick note — here's the invoice for
// the site photos."), not a name with its legal form ("… Design Co.").
func sentenceShaped(text string) bool {
	f := strings.Fields(strings.TrimSpace(text))
	if len(f) < 6 || !strings.HasSuffix(f[len(f)-1], ".") {
		return false
	}
	last := strings.TrimSuffix(f[len(f)-1], ".")
	r, _ := utf8.DecodeRuneInString(last)
	return len(last) > 3 && unicode.IsLower(r) && !strings.Contains(last, ".")
}

// fieldShaped reports "Company: Ortiz Consulting Ltd": a few words and a
// colon before a value are a field the labels do not know, not a name.
func fieldShaped(text string) bool {
	i := strings.Index(text, ": ")
	return i > 0 && countFields(text[:i]) <= 3 && strings.TrimSpace(text[i+2:]) != ""
}

// signatureVendor returns the company in the closing lines of an e-mail,
// after "Regards" or "Thanks": a name with a legal form, or the line under
// the sender's own name ("Jonas Weber" then "Weber Translations").
func signatureVendor(d *document, senders []string) string {
	for i := range d.lines {
		t := strings.ToLower(strings.TrimSpace(d.lines[i].text))
		if !isSignOff(t) {
			continue
		}
		afterSender := false
		for j := i + 1; j < len(d.lines) && j <= i+4; j++ {
			v := cleanVendor(strings.TrimSpace(d.lines[j].text))
			if v != "" && (hasCompanySuffix(v) || afterSender && nameCased(v)) {
				return v
			}
			afterSender = v != "" && containsStr(senders, v)
		}
	}
	return ""
}

// nameCased reports text written as a name: every word of four letters or
// more capitalised ("Weber Translations"), unlike a job title under a
// signature ("Facilitation & workshop design").
func nameCased(s string) bool {
	for _, w := range strings.Fields(s) {
		r, _ := utf8.DecodeRuneInString(w)
		if utf8.RuneCountInString(w) >= 4 && isAllLetters(w) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

func isSignOff(t string) bool {
	for _, p := range []string{"regards", "kind regards", "best regards", "best", "thanks", "thank you",
		"many thanks", "sincerely", "yours sincerely", "yours faithfully", "cheers", "best wishes", "warm regards"} {
		if strings.TrimRight(t, ",.!") == p {
			return true
		}
	}
	return false
}
