package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// The structure of a page decides what is a title: a line of a postal
// address, a mention of another document or a field of an invoice's
// header that names the order it bills is none.

// inAddressBlock reports cell c of line i that stands inside a postal
// address: under the block's first line (the name) and above its street
// or postal line, in the same column, with no blank line between. A
// department there ("Accounts Payable Dept.", "Kreditorenbuchhaltung") is
// part of the address, not a title; a title right under a letterhead's
// address is below it, not inside it.
func inAddressBlock(d *document, i int, c *cell) bool {
	top := i
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		l := &d.lines[k]
		if l.blank() || l.rule || alignedCell(l, c.start, c.end) == nil {
			break
		}
		top = k
	}
	if top == i {
		return false
	}
	for k := i + 1; k < len(d.lines) && k <= i+4; k++ {
		l := &d.lines[k]
		if l.blank() || l.rule {
			return false
		}
		b := alignedCell(l, c.start, c.end)
		if b == nil {
			return false
		}
		if postalLineRe.MatchString(b.text) || streetLine(b.text) {
			return true
		}
	}
	return false
}

// streetLine reports an address's street line: a street word and a house
// number ("Kaiserstraße 12", "19 Ridge Street", "ul. Długa 17").
func streetLine(text string) bool {
	if !hasDigit(text) || len(text) > 60 {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,")
		if streetWords[w] || strings.HasSuffix(w, "straße") || strings.HasSuffix(w, "strasse") || strings.HasSuffix(w, "str") ||
			strings.HasSuffix(w, "weg") || strings.HasSuffix(w, "gasse") || strings.HasSuffix(w, "platz") || addressWords[w] {
			return true
		}
	}
	return false
}

// addressWords name a street, a square or a post box in the tables'
// languages.
var addressWords = map[string]bool{"rue": true, "avenue": true, "boulevard": true, "bd": true, "chemin": true, "via": true, "viale": true,
	"piazza": true, "calle": true, "avenida": true, "plaza": true, "paseo": true, "straat": true, "laan": true, "plein": true, "gracht": true,
	"ul": true, "ulica": true, "aleja": true, "al": true, "rua": true, "praça": true, "gatan": true, "gata": true, "gade": true, "vej": true,
	"tee": true, "tn": true, "postfach": true, "box": true, "postbus": true, "apartado": true, "casella": true, "skrytka": true, "lane": true, "drive": true, "way": true, "close": true, "court": true, "place": true}

// referenceOpenings are the words of every table that open a mention of
// another document (references), each as its normalised words.
var referenceOpenings = func() [][]string {
	var out [][]string
	for _, l := range languages {
		for _, p := range strings.Split(l.references, "|") {
			if ws := wordTexts(textWords(p)); len(ws) > 0 {
				out = append(out, ws)
			}
		}
	}
	return out
}()

// opensReference reports text that opens with a reference word: a
// mention of another document ("Your order 4471", "gemäß Angebot 17"),
// which names no kind of this one.
func opensReference(text string) bool {
	words := textWords(text)
	for _, p := range referenceOpenings {
		if wordsAt(words, 0, p) {
			return true
		}
	}
	return false
}

// invoiceTitleAfterReference reports a head whose first title names
// another document with its number, as a field of an invoice's header
// does ("Lieferschein Nr. 4711", "Bestellung 4500123", "Auftragsbestätigung
// Nr. 17"), followed by an invoice title that stands alone ("RECHNUNG",
// "Rechnung Nr. 2024-117", no label's colon). With an invoice number label
// and a total the document is that invoice: the first line names the
// delivery or the order it bills.
func invoiceTitleAfterReference(d *document) bool {
	seen, reference := 0, false
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule {
			continue
		}
		if seen++; seen > headLines {
			return false
		}
		for _, text := range titleCandidates(d, i) {
			switch t := candidateType(d, l, text); {
			case t == "":
			case !reference:
				if extract.IsBooked(t) || !numberedMention(text) {
					return false
				}
				reference = true
			case t == extract.DocInvoice && !strings.Contains(text, ":"):
				return true
			}
		}
	}
	return false
}

// numberedMention reports a title text that is a kind of document other
// than an invoice and its number: a number word then a number
// ("Lieferschein Nr. 4711"), or a code of five characters or more with a
// digit that is no year ("Bestellung 4500123"). A list or summary of
// invoices ("INVOICE SUMMARY - NOVEMBER 2026") is no such mention.
func numberedMention(text string) bool {
	lower := " " + strings.ToLower(text) + " "
	for _, w := range invoiceWords {
		if containsWord(lower, w) {
			return false
		}
	}
	f := strings.Fields(text)
	for k := range f {
		w := strings.Trim(f[k], ".,:;()")
		last := w[strings.LastIndexByte(w, '-')+1:] // "Lieferschein-Nr."
		if isNumberSpelling(strings.ToLower(last)) && k+1 < len(f) && hasDigit(f[k+1]) {
			return true
		}
		if k > 0 && hasDigit(w) && len(w) >= 5 && len(findDates(w)) == 0 {
			return true
		}
	}
	return false
}
