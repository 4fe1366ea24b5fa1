package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// labelKind is what a field label names.
type labelKind uint8

const (
	lkNone labelKind = iota
	lkInvoiceNo
	lkVendor
	lkCustomer // "Bill to", "Ship to", "Customer": a block that is not the vendor
	lkIssueDate
	lkDueDate
	lkOtherDate // delivery, order, service period: never the issue date
	lkCurrency
	lkSubtotal
	lkTax
	lkTaxIncluded // "incl. VAT", "GST included": tax inside the total
	lkTotal
	lkAmountDue // "Amount due", "Balance due": the total unless a payment came first
	lkPaid      // "Amount paid", "Deposit": money already received
	lkShipping
	lkDiscount
	lkFee
	lkRounding
	lkCarried  // "Previous balance": an earlier invoice's balance carried into the amount due
	lkOtherRef // labels whose values must not be mistaken for a field: VAT no., IBAN, PO …
)

// isAmount reports a label whose value is money.
func (k labelKind) isAmount() bool {
	switch k {
	case lkSubtotal, lkTax, lkTaxIncluded, lkTotal, lkAmountDue, lkPaid, lkShipping,
		lkDiscount, lkFee, lkRounding, lkCarried:
		return true
	}
	return false
}

// labels maps a normalised label phrase (lower case, words joined by one
// space, "#", "number", "nr" … written "no") to its kind: the labels of
// every language table (languages) together. The matcher takes the longest
// phrase, so "vat no" (a registration number) wins over "vat" (tax) and
// "due date" over "date".
var labels = buildLabels(languageLabels())

func buildLabels(src []map[labelKind]string) map[string]labelKind {
	m := map[string]labelKind{}
	for _, lang := range src {
		for kind, list := range lang {
			for _, p := range strings.Split(list, "|") {
				p = foldPhrase(strings.Join(strings.Fields(p), " "))
				if k, dup := m[p]; dup && k != kind {
					panic("extract: label listed with two kinds: " + p)
				}
				m[p] = kind
			}
		}
	}
	addTaxIDs(m)
	return m
}

// foldPhrase folds the diacritics of a label phrase as appendNormWord
// folds those of the text it reads.
func foldPhrase(p string) string {
	return strings.Map(foldDiacritic, p)
}

// taxIDWords name a tax whose registration number a document states
// ("GST/HST No. 629434529 RT0001", "VAT Reg: GB 123"): with one of
// idSuffixes the label is a reference, not an amount.
var (
	taxIDWords = strings.Fields("vat gst hst pst qst tps tvq mwst ust moms mva btw tva iva alv gst hst")
	idSuffixes = []string{"no", "reg", "reg no", "id", "id no", "registration", "registration no", "number"}
)

func addTaxIDs(m map[string]labelKind) {
	for _, w := range taxIDWords {
		for _, w2 := range append([]string{""}, taxIDWords...) {
			base := strings.TrimSpace(w + " " + w2)
			for _, s := range idSuffixes {
				if _, ok := m[base+" "+s]; !ok {
					m[base+" "+s] = lkOtherRef
				}
			}
		}
	}
}

// labelPrefix is what the matcher knows of a run of words: every label and
// every run of its first words has one, so that the matcher stops as soon
// as no label starts with what it has read.
type labelPrefix struct {
	// label: the run is a whole label, of kind kind; phrase is the run
	// itself, returned rather than a new string per match.
	label  bool
	kind   labelKind
	phrase string
}

// labelPrefixes holds the labelPrefix of every label and run of its first
// words: one lookup per word read.
var labelPrefixes = func() map[string]labelPrefix {
	m := map[string]labelPrefix{}
	for p := range labels {
		words := strings.Split(p, " ")
		for i := 1; i < len(words); i++ {
			if run := strings.Join(words[:i], " "); !m[run].label {
				m[run] = labelPrefix{}
			}
		}
	}
	for p, k := range labels {
		m[p] = labelPrefix{label: true, kind: k, phrase: p}
	}
	return m
}()

// maxLabelWords bounds a label phrase.
const maxLabelWords = 6

// labelMatch is a label found at the start of a text.
type labelMatch struct {
	kind labelKind
	// colon: a ':' follows the label (after spaces and closing brackets).
	colon bool
	// end is the byte offset just after the label's last word.
	end int
	// phrase is the normalised label ("invoice no", "total due").
	phrase string
}

// matchLabel finds the longest label phrase at the start of s. A word with
// a digit, or a ':', '%', '@', '=' ends the phrase.
func matchLabel(s string) (labelMatch, bool) {
	var buf [maxLabelWords * 16]byte
	phrase := buf[:0]
	best, found := labelMatch{}, false
	pos, words := 0, 0
	if s != "" && s[0] >= utf8.RuneSelf {
		pos = skipForeign(s)
	}
	for words < maxLabelWords {
		w, start, end := nextWord(s, pos)
		if w == "" || stopsLabel(s[pos:start]) {
			break
		}
		if hasDigit(w) {
			if r := rateEnd(s, start); r > 0 && (words > 0 || rateLeads(s[r:])) {
				pos = r // "VAT 20%", "Less 5% discount", "19% VAT": the rate is not part of the label
				continue
			}
			break
		}
		if words > 0 {
			phrase = append(phrase, ' ')
		}
		phrase = appendNormWord(phrase, w)
		words++
		pos = end
		prefix, ok := labelPrefixes[string(phrase)]
		if !ok {
			break // no label starts so
		}
		if prefix.label {
			best, found = labelMatch{kind: prefix.kind, end: end, phrase: prefix.phrase}, true
		}
	}
	if found {
		best.colon = colonFollows(s[best.end:])
	}
	return best, found
}

// rateLeads reports a tax word right after a leading rate ("19% VAT",
// "7 % MwSt."): the rate opens a tax label.
func rateLeads(rest string) bool {
	w, _, _ := nextWord(rest, 0)
	switch strings.ToLower(w) {
	case "vat", "gst", "tax", "mwst", "ust", "tva", "iva", "btw", "moms", "mva", "hst", "pst":
		return true
	}
	return false
}

// skipForeign returns where the Latin text of a bilingual label starts:
// after up to three leading words in another script ("請求番号 Invoice
// No.", "小計 Subtotal").
func skipForeign(s string) int {
	pos := 0
	for k := 0; k < 4; k++ {
		w, start, end := nextWord(s, pos)
		if r := rateEnd(s, start); w != "" && r > 0 && k > 0 {
			pos = r // "消費税 (10%) Consumption tax"
			continue
		}
		if w == "" || !nonLatin(w) {
			return pos
		}
		pos = end
	}
	return pos
}

// allNonLatin reports text whose words are all in another script.
func allNonLatin(text string) bool {
	any := false
	for pos := 0; pos < len(text); {
		w, _, end := nextWord(text, pos)
		if w == "" {
			if end >= len(text) || end == pos {
				break
			}
			pos = end + 1
			continue
		}
		if !nonLatin(w) {
			return false
		}
		any, pos = true, end
	}
	return any
}

// nonLatin reports a word with no ASCII letter or digit, only letters of
// another script.
func nonLatin(w string) bool {
	for _, r := range w {
		if r < utf8.RuneSelf || !unicode.IsLetter(r) || unicode.In(r, unicode.Latin) {
			return false
		}
	}
	return true
}

// rateEnd returns the end of a percentage that starts at i ("20%",
// "8.25 %"), or 0.
func rateEnd(s string, i int) int {
	j := i
	for j < len(s) && (isDigit(s[j]) || (s[j] == '.' || s[j] == ',') && j+1 < len(s) && isDigit(s[j+1])) {
		j++
	}
	if j == i {
		return 0
	}
	k := j
	if k < len(s) && s[k] == ' ' {
		k++
	}
	if k < len(s) && s[k] == '%' {
		return k + 1
	}
	return 0
}

// nextWord returns the next word at or after byte pos: a run of letters
// and digits, or a single '#', '&', '°' or 'º'.
func nextWord(s string, pos int) (w string, start, end int) {
	i := pos
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) || r == '#' || r == '&' {
			break
		}
		if r == ':' || r == '%' || r == '@' || r == '=' || r == '|' {
			return "", i, i
		}
		i += n
	}
	start = i
	if i < len(s) && (s[i] == '#' || s[i] == '&') {
		return s[i : i+1], start, i + 1
	}
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) || i-start >= 3 && camelBreak(s, i) {
			break
		}
		i += n
	}
	return s[start:i], start, i
}

// camelBreak reports a word boundary inside an identifier at i:
// "InvoiceNo", "NetAmount", "VATRate" (not "MwSt", not "GmbH").
func camelBreak(s string, i int) bool {
	if i+1 >= len(s) || !isUpperByte(s[i]) || !isLowerByte(s[i+1]) {
		return false
	}
	p := s[i-1]
	return isLowerByte(p) || isUpperByte(p) && isUpperByte(s[i-2])
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIAlnum(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '°' || r == 'º'
}

// stopsLabel reports a gap between two words that a label cannot span: a
// line break in a cell (two spaces) or a comma.
func stopsLabel(gap string) bool {
	return strings.Contains(gap, "  ") || strings.ContainsRune(gap, ',')
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// numberWords are the spellings of "number" a label uses.
var numberWords = map[string]bool{
	"#": true, "no": true, "nr": true, "num": true, "number": true, "nº": true, "n°": true,
	"numero": true, "número": true, "nummer": true, "núm": true, "n": true, "nbr": true,
}

// isNumberSpelling is numberWords[w] as a switch, which needs no hashing: it
// runs on every word of every label candidate.
func isNumberSpelling(w string) bool {
	switch w {
	case "#", "no", "nr", "num", "number", "nº", "n°", "numero", "número", "nummer", "núm", "n", "nbr":
		return true
	}
	return false
}

// appendNormWord appends w lower-cased, "number" words as "no", "&" as
// "and", with diacritics of common letters folded.
func appendNormWord(dst []byte, w string) []byte {
	if isASCII(w) {
		start := len(dst)
		for i := 0; i < len(w); i++ {
			dst = append(dst, lowerByte(w[i]))
		}
		switch word := dst[start:]; {
		case isNumberSpelling(string(word)):
			return append(dst[:start], "no"...)
		case string(word) == "&":
			return append(dst[:start], "and"...)
		}
		return dst
	}
	lw := strings.ToLower(w)
	switch {
	case isNumberSpelling(lw):
		return append(dst, "no"...)
	case lw == "&":
		return append(dst, "and"...)
	}
	for _, r := range lw {
		dst = utf8.AppendRune(dst, foldDiacritic(r))
	}
	return dst
}

// containsASCII is strings.ContainsAny for a small set of ASCII bytes: one
// strings.IndexByte per byte of the set is cheaper than the set
// strings.ContainsAny builds on every call, or its rune by rune scan of a
// short s.
func containsASCII(s, set string) bool {
	for k := 0; k < len(set); k++ {
		if strings.IndexByte(s, set[k]) >= 0 {
			return true
		}
	}
	return false
}

// appendFieldsFunc appends the fields of strings.FieldsFunc(s, sep) to dst:
// with a dst on the caller's stack, a short text's fields cost no
// allocation.
func appendFieldsFunc(dst []string, s string, sep func(rune) bool) []string {
	start := -1
	for i, r := range s {
		switch {
		case sep(r) && start >= 0:
			dst = append(dst, s[start:i])
			start = -1
		case !sep(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

// countFields is len(strings.Fields(s)) without making the fields.
func countFields(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func foldDiacritic(r rune) rune {
	switch r {
	case 'ä', 'à', 'á', 'â', 'å':
		return 'a'
	case 'ö', 'ó', 'ô', 'ø':
		return 'o'
	case 'ü', 'ú', 'û':
		return 'u'
	case 'é', 'è', 'ê', 'ë':
		return 'e'
	case 'í', 'î', 'ï':
		return 'i'
	case 'ç':
		return 'c'
	case 'ñ':
		return 'n'
	case 'ß':
		return 's'
	}
	return r
}

// colonFollows reports a ':' after optional spaces and brackets.
func colonFollows(s string) bool {
	t := strings.TrimLeft(s, " )].")
	return strings.HasPrefix(t, ":")
}

// labelValue returns what follows a label in its cell: the text after the
// label with leading separators (":", "#", "=", "No.") removed.
func labelValue(s string, m labelMatch) string {
	rest := s[m.end:]
	if t := strings.TrimLeft(rest, " ."); strings.HasPrefix(t, "/") {
		if i := strings.IndexByte(t, ':'); i > 0 && !hasDigit(t[:i]) {
			rest = t[i:] // "Invoice No. / No de facture : LD-2026-0218"
		}
	}
	v := strings.TrimLeft(rest, " .:#=)]–—")
	return strings.TrimSpace(v)
}
