package rules

import (
	"strings"
	"unicode/utf8"
)

// precedingPhrases are the phrases of every language table that introduce
// the invoice a credit note or corrective invoice refers to, each as its
// normalised words ("zur rechnung" → ["zur", "rechnung"]).
var precedingPhrases = languagePreceding()

func languagePreceding() [][]string {
	var out [][]string
	seen := map[string]bool{}
	for _, l := range languages {
		for _, p := range strings.Split(l.preceding, "|") {
			words := textWords(p)
			key := strings.Join(wordTexts(words), " ")
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, wordTexts(words))
		}
	}
	return out
}

// textWord is one word of a text, normalised as labels are (lower case,
// common diacritics folded, "Nr."/"N°"/"#" written "no"), with its byte
// offsets in the text.
type textWord struct {
	text       string
	start, end int
}

// textWords cuts s into words (runs of letters and digits, or a '#') and
// normalises each.
func textWords(s string) []textWord {
	var out []textWord
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '#' {
			out = append(out, textWord{text: "no", start: i, end: i + 1})
			i += n
			continue
		}
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		out = append(out, textWord{text: string(appendNormWord(nil, s[i:j])), start: i, end: j})
		i = j
	}
	return out
}

func wordTexts(ws []textWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

// precedingRef is where a text names the invoice it refers to: the
// phrase's start and the number after it ("" when none follows).
type precedingRef struct {
	start  int
	number string
}

// findPrecedingRef returns the first reference to a preceding invoice in
// text: a phrase of precedingPhrases as whole words, then perhaps a number
// word, then the number as printed ("Bezug: Rechnung Nr. RE-2024-0313 vom
// 04.04.2024", "Korekta do faktury nr FV 2024/0814 z dnia …", "For Invoice
// Number:   6018019645 of …"). The number ends where its cell ends.
func findPrecedingRef(text string) (precedingRef, bool) {
	if !mayHoldReference(text) {
		return precedingRef{}, false
	}
	words := textWords(text)
	for i := range words {
		for _, p := range precedingPhrases {
			if !wordsAt(words, i, p) {
				continue
			}
			ref := precedingRef{start: words[i].start}
			j := i + len(p)
			for j < len(words) && refNumberWord[words[j].text] {
				j++
			}
			if j < len(words) {
				ref.number = printedNumber(firstCellOf(text[words[j].start:]))
			}
			return ref, true
		}
	}
	return precedingRef{}, false
}

// mayHoldReference is the cheap test before findPrecedingRef, which
// runs on every line: every phrase names an invoice in one of the tables'
// words, which all hold one of a few stems ("invoice", "rechnung",
// "fattura", "faktury", "arve", …), looked for without a lower-case copy.
func mayHoldReference(text string) bool {
	for _, w := range referenceStems {
		if containsFoldASCII(text, w) {
			return true
		}
	}
	return false
}

var referenceStems = []string{"invoic", "rechnung", "factu", "fattur", "faktu", "arve", "fatur", "doklad"}

// containsFoldASCII reports sub (lower-case ASCII) in s, ASCII letters
// compared without case.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lowerByte(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// refNumberWord are the words for "number" between a reference's phrase
// and the number, normalised: "Nr.", "N°", "#" (read "no"), the Czech and
// Slovak "č." and "číslo", the Polish "numer".
var refNumberWord = map[string]bool{"no": true, "č": true, "c": true, "číslo": true, "cislo": true, "numer": true}

// wordsAt reports the words of phrase at words[i:].
func wordsAt(words []textWord, i int, phrase []string) bool {
	if i+len(phrase) > len(words) {
		return false
	}
	for k, w := range phrase {
		if words[i+k].text != w {
			return false
		}
	}
	return true
}

// firstCellOf is s up to its first column gap (two spaces).
func firstCellOf(s string) string {
	if i := strings.Index(s, "  "); i >= 0 {
		return s[:i]
	}
	return s
}

// beforeReference is text up to a reference to a preceding invoice in it,
// or all of it: "Gutschrift zu Rechnung 2024-043" is titled a credit note,
// and the number in it is not its own.
func beforeReference(text string) string {
	if ref, ok := findPrecedingRef(text); ok {
		return strings.TrimRight(text[:ref.start], " :-–—,")
	}
	return text
}

// precedingInvoice returns the number of the invoice d refers to (the
// first reference with a number), or "".
func precedingInvoice(d *document) string {
	for i := range d.lines {
		if ref, ok := findPrecedingRef(d.lines[i].text); ok && ref.number != "" {
			return ref.number
		}
	}
	return ""
}

// printedNumber reads an invoice number as printed at the start of v: a
// word of the token shape with a digit (invoiceNumberToken), or a series
// written apart from it ("FV 2024/0814", "FV 1/2021": a prefix of one to
// four capitals, not a currency code, then the number).
func printedNumber(v string) string {
	words := strings.Fields(v)
	for len(words) > 0 && (numberWords[strings.ToLower(strings.Trim(words[0], ".:#"))] || strings.Trim(words[0], "№:#") == "") {
		words = words[1:]
	}
	if len(words) >= 2 && seriesPrefix(words[0]) {
		if n := invoiceNumberToken(words[1]); n != "" && strings.HasPrefix(words[1], n) {
			return words[0] + " " + n
		}
	}
	return invoiceNumberToken(strings.Join(words, " "))
}

// seriesPrefix reports a word that names a series of numbers before the
// number itself: one to four capital letters ("FV", "FA", "RE"), not a
// currency code.
func seriesPrefix(w string) bool {
	if len(w) < 1 || len(w) > 4 || isCurrencyCode(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isUpperByte(w[i]) {
			return false
		}
	}
	return true
}
