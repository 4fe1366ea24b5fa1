package rules

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// headLines is how far from the top a title is looked for, in non-blank
// lines.
const headLines = 25

// docKeywords are the phrases that name a kind of document in a title, of
// every language: the kinds that are not an invoice first, so that at one
// place the longer phrase of another kind wins ("invoice summary" over
// "invoice").
var docKeywords = languageTitles()

// markers are phrases anywhere in a document that show it is not an
// invoice even when it mentions one: a till receipt's change, a
// statement's balances, a quote's validity.
var markers = languageMarkers()

// structuralMarkers are the markers that count under an invoice title: a
// balance carried in from an earlier invoice ("Previous balance") is an
// invoice's line as often as a statement's, so it does not overrule the
// title; an opening and a closing balance still do.
var structuralMarkers = slices.DeleteFunc(slices.Clone(markers), func(m docKeyword) bool {
	return carriedBalance[m.phrase]
})

var carriedBalance = map[string]bool{"previous balance": true, "balance brought forward": true, "balance b/f": true}

// classifyDocument decides what kind of document d is. A document is an
// invoice when its title says so (the first title in its head, an e-mail
// subject included) or, without a title, when it has an invoice number
// label and a total; and no marker of another kind contradicts it. Anything
// else is named by its title or markers, or DocOther: never guessed.
func classifyDocument(d *document) extract.Classification {
	title, signals := findTitle(d)
	labels := findClassLabels(d)
	if !extract.IsBooked(title) && title != "" && hasSignal(labels, "invoice_number_label") && hasSignal(labels, "total_label") && invoiceTitleAfterReference(d) {
		title, signals = extract.DocInvoice, []string{"title_" + extract.DocInvoice}
	}
	marker := findMarker(d, title == extract.DocInvoice)
	signals = append(signals, labels...)
	if marker != "" {
		signals = append(signals, "marker_"+marker)
	}
	docType := extract.DocOther
	switch {
	case title != "" && title != extract.DocInvoice:
		docType = title
	case title == extract.DocInvoice && !overrides(marker):
		docType = extract.DocInvoice
	case title == extract.DocInvoice:
		docType = marker
	case marker != "":
		docType = marker
	case hasSignal(labels, "invoice_number_label") && hasSignal(labels, "total_label"):
		docType = extract.DocInvoice
	}
	return extract.Classification{DocumentType: docType, Signals: signals}
}

// overrides reports a marker strong enough to overrule an invoice title:
// a receipt's till lines, a statement's balances, a credit.
func overrides(marker string) bool {
	return marker == extract.DocReceipt || marker == extract.DocStatement || marker == extract.DocCreditNote
}

func hasSignal(signals []string, s string) bool {
	for _, v := range signals {
		if v == s {
			return true
		}
	}
	return false
}

// findTitle returns the document type named by the first title in the
// head of d: a heading, an e-mail subject, a short line or a cell of a
// short line that is not a "Label: value" field.
func findTitle(d *document) (string, []string) {
	seen := 0
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule {
			continue
		}
		if seen++; seen > headLines {
			break
		}
		for _, text := range titleCandidates(d, i) {
			if t := candidateType(d, l, text); t != "" {
				return t, []string{"title_" + t}
			}
		}
	}
	return "", nil
}

// candidateType is titleType of a title candidate; an e-mail subject may
// hold a colon ("Acme Ltd: invoice 4471").
func candidateType(d *document, l *line, text string) string {
	if _, ok := mailHeader(l.text, "subject"); ok && d.mail {
		return titleTypeWords(strings.ReplaceAll(text, ":", " "), 16)
	}
	return titleType(text)
}

// titleCandidates are the texts of l that may be a title. A reference to
// the invoice a document corrects ends a candidate: "Gutschrift zu
// Rechnung 2024-043" is titled a credit note, "Bezug: Rechnung Nr. 7" is
// no title. A bulleted line is an item of a list ("- Kenji: chase the
// credit note"), never a title, nor is a line of an address block below
// its first ("Beispiel AG / Accounts Payable Dept. / Kaiserstraße 12").
func titleCandidates(d *document, i int) []string {
	l := &d.lines[i]
	if l.bullet {
		return nil
	}
	if d.mail {
		if v, ok := mailHeader(l.text, "subject"); ok {
			return subjectTitle(v)
		}
		if isMailHeaderLine(l.text) {
			return nil
		}
	}
	if l.heading {
		return []string{beforeReference(l.text)}
	}
	out := make([]string, 0, len(l.cells))
	for k := range l.cells {
		if inAddressBlock(d, i, &l.cells[k]) {
			continue
		}
		if t := beforeReference(l.cells[k].text); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// titleType returns the document type a title text names, or "". A title
// is at most eight words and is not a field ("Quote ref: Q-12" on an
// invoice is a reference, not a title).
func titleType(text string) string {
	return titleTypeWords(text, 8)
}

// titleTypeWords is titleType for a title of at most maxWords words (an
// e-mail subject may name the sender: "Invoice #HL-5119 from Red Gum Marine
// Services Pty. Ltd.").
func titleTypeWords(text string, maxWords int) string {
	text = unspaceLetters(dropIdentifiers(text))
	if countFields(text) > maxWords || !titleShaped(text) {
		return ""
	}
	t := titleKind(text)
	if t != extract.DocInvoice && strings.HasSuffix(strings.TrimSpace(text), ":") {
		return "" // "Bestellung Nr. Kunde:", "N° BON DE COMMANDE :": a label waiting for its value
	}
	if t != extract.DocInvoice && opensReference(text) {
		return "" // "Ihre Bestellung vom 01.03.2024": the order the invoice answers
	}
	return t
}

// dropIdentifiers removes the words joined by underscores, a system's
// marker printed on the page ("SAP_INVOICE_Z_INV_SOFT_0018_BEGIN"): no
// title, whatever words it holds.
func dropIdentifiers(text string) string {
	if !strings.Contains(text, "_") {
		return text
	}
	f := strings.Fields(text)
	out := f[:0]
	for _, w := range f {
		if !strings.Contains(strings.Trim(w, "_"), "_") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// titleKind is the kind a title-shaped text names.
func titleKind(text string) string {
	if i := strings.IndexByte(text, ':'); i >= 0 {
		// a field is not a title, unless it is the invoice number's own
		// label ("Invoice No: 4471"): "Invoice Registration No.: T85…" is
		// another field; "Reminder: overdue invoice" is no field
		m, ok := matchLabel(text)
		if ok && (m.kind != lkInvoiceNo || strings.Trim(text[m.end:i], " .#") != "") {
			return ""
		}
	}
	var buf [128]byte
	lower := string(append(appendLower(append(buf[:0], ' '), text), ' '))
	if billTitles[strings.TrimSpace(lower)] {
		return extract.DocInvoice
	}
	if _, k := docKeywordSet.first(lower); k >= 0 {
		return docKeywords[k].docType
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if t := compoundType(w); t != "" {
			return t
		}
	}
	return ""
}

// docKeywordSet and markerSet look for the phrases of docKeywords and
// markers.
var (
	docKeywordSet = newPhraseSet(phrasesOf(docKeywords))
	markerSet     = newPhraseSet(phrasesOf(markers))
	structuralSet = newPhraseSet(phrasesOf(structuralMarkers))
)

func phrasesOf(list []docKeyword) []string {
	out := make([]string, len(list))
	for i, k := range list {
		out[i] = k.phrase
	}
	return out
}

// billTitles are the titles of a bill that ask for payment like an invoice
// ("BILL", "Your electricity bill"); "bill" elsewhere is a label ("Bill
// to") or a verb.
var billTitles = map[string]bool{
	"bill": true, "your bill": true, "tax bill": true, "final bill": true, "utility bill": true,
	"your electricity bill": true, "your gas bill": true, "your water bill": true, "your energy bill": true,
	"your phone bill": true, "electricity bill": true, "gas bill": true, "water bill": true, "energy bill": true,
}

// unspaceLetters joins a letter-spaced word: "I N V O I C E" → "INVOICE".
func unspaceLetters(text string) string {
	var buf [16]string
	f := appendFieldsFunc(buf[:0], text, unicode.IsSpace) // strings.Fields, on the stack
	if len(f) < 4 {
		return text
	}
	for _, w := range f {
		if utf8.RuneCountInString(w) != 1 {
			return text
		}
	}
	return strings.Join(f, "")
}

// titleShaped: a title starts with a capital letter and is not a sentence
// ("corrected invoice?", "We attach the invoice."; "… from Acme Co." is a
// title), nor the start of one that goes on past the line (an unclosed
// bracket).
func titleShaped(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	if !(unicode.IsUpper(r) || unicode.IsLetter(r) && !unicode.IsLower(r)) || strings.ContainsAny(text[len(text)-1:], "?!,;") {
		return false
	}
	if strings.Count(text, "(") > strings.Count(text, ")") {
		return false // a sentence wrapped onto the next line: "Invoice 4471 from Acme (total"
	}
	if !strings.HasSuffix(text, ".") {
		return true
	}
	f := strings.Fields(text)
	last := strings.TrimSuffix(f[len(f)-1], ".")
	return last == "" || len(last) <= 4 || !unicode.IsLower(rune(last[0]))
}

// containsWord reports phrase in s (which has a space either end) as whole
// words.
func containsWord(s, phrase string) bool { return wordIndex(s, phrase) >= 0 }

// wordIndex returns where phrase first occurs in s as whole words, or -1.
func wordIndex(s, phrase string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], phrase)
		if j < 0 {
			return -1
		}
		j += i
		if j > 0 && !isLetterByte(s[j-1]) && (j+len(phrase) >= len(s) || !isLetterByte(s[j+len(phrase)])) {
			return j
		}
		i = j + 1
	}
}

// findMarker returns the type of the first non-invoice marker in d, or a
// receipt for a "PAID" stamp line.
//
// The lines before the first stamp line are lower-cased into one text, each
// padded with spaces and ended by a newline, so that each marker is looked
// for once in the whole text rather than once per line: the marker found
// is that of the earliest line with one, the first of markers on that line.
// No marker spans two lines, since none contains a newline.
//
// Under an invoice title (structural) a marker counts only where it is the
// document's own structure: a line of a few words ("Change due  0.80",
// "Opening balance  1,200.00"), not a sentence of its terms, notes or
// legal clauses ("Goods remain our property until paid in full.").
func findMarker(d *document, structural bool) string {
	size := 0
	for i := range d.lines {
		size += len(d.lines[i].text) + 3
	}
	buf := make([]byte, 0, size)
	starts := make([]int, 0, len(d.lines)) // where each line of buf starts
	stamp := false
	for i := range d.lines {
		t := strings.TrimSpace(d.lines[i].text)
		if t == "" || structural && sentenceLine(&d.lines[i]) {
			continue
		}
		start := len(buf)
		buf = appendLower(append(buf, ' '), t)
		if isStampLine(buf[start+1:]) {
			buf, stamp = buf[:start], true
			break
		}
		buf = append(buf, ' ', '\n')
		starts = append(starts, start)
	}
	text := string(buf)
	set, list := markerSet, markers
	if structural {
		set, list = structuralSet, structuralMarkers
	}
	at, k := set.first(text)
	if at < 0 {
		if stamp {
			return extract.DocReceipt
		}
		return ""
	}
	// The first marker of the list found on the line of the earliest one.
	line := sort.SearchInts(starts, at+1) - 1
	end := len(text)
	if line+1 < len(starts) {
		end = starts[line+1]
	}
	for _, m := range list {
		if containsWord(text[starts[line]:end], m.phrase) {
			return m.docType
		}
	}
	return list[k].docType // not reached: the line holds marker k
}

// sentenceLine reports a line that is running text: one cell of more than
// six words, or one ending in a full stop after more than four.
func sentenceLine(l *line) bool {
	words := countFields(l.text)
	if len(l.cells) == 1 && words > 6 {
		return true
	}
	for k := range l.cells {
		c := l.cells[k].text
		if countFields(c) > 4 && strings.HasSuffix(strings.TrimSpace(c), ".") {
			return true
		}
	}
	return false
}

// isStampLine reports a line, in lower case, that is a "PAID" stamp.
func isStampLine(lower []byte) bool {
	switch string(lower) {
	case "paid", "*** paid ***", "status: paid", "payment status: paid":
		return true
	}
	return false
}

// appendLower appends s in lower case (strings.ToLower) to b.
func appendLower(b []byte, s string) []byte {
	if !isASCII(s) {
		return append(b, strings.ToLower(s)...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpperByte(c) {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// findClassLabels reports an invoice number label with a value and a
// total label anywhere in d.
func findClassLabels(d *document) []string {
	var number, total bool
	for i := range d.lines {
		headerRow := isLabelRow(&d.lines[i])
		for k := range d.lines[i].cells {
			c := &d.lines[i].cells[k]
			m, ok := c.labelOf()
			if !ok {
				continue
			}
			switch {
			case m.kind == lkInvoiceNo && (m.colon || headerRow || hasDigit(labelValue(c.text, m))):
				number = true
			case m.kind == lkTotal || m.kind == lkAmountDue:
				total = true
			}
		}
	}
	var out []string
	if number {
		out = append(out, "invoice_number_label")
	}
	if total {
		out = append(out, "total_label")
	}
	return out
}

// mailHeader returns the value of an e-mail header line "Name: value".
func mailHeader(text, name string) (string, bool) {
	t := strings.TrimSpace(text)
	if len(t) <= len(name) || !strings.EqualFold(t[:len(name)], name) || t[len(name)] != ':' {
		return "", false
	}
	return strings.TrimSpace(t[len(name)+1:]), true
}

func isMailHeaderLine(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, h := range mailHeaders {
		if strings.HasPrefix(t, h) {
			return true
		}
	}
	return false
}

// subjectTitle returns an e-mail subject as a title candidate. A reply
// ("Re: Invoice 4471") talks about a document and is not one; a forward
// ("Fwd: Invoice 4471") carries it.
func subjectTitle(subject string) []string {
	s := strings.TrimSpace(subject)
	for {
		lower := strings.ToLower(s)
		switch {
		case strings.HasPrefix(lower, "re:"), strings.HasPrefix(lower, "aw:"):
			return nil
		case strings.HasPrefix(lower, "fwd:"):
			s = strings.TrimSpace(s[4:])
		case strings.HasPrefix(lower, "fw:"), strings.HasPrefix(lower, "wg:"), strings.HasPrefix(lower, "tr:"):
			s = strings.TrimSpace(s[3:])
		default:
			return []string{s}
		}
	}
}
