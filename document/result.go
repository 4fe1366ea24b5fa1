package document

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// ErrBadResult: a result that is not a JSON object (an extractor bug).
var ErrBadResult = errors.New("document: the result is not a JSON object")

// WithFlags adds flags to a result's "flags", once each.
func WithFlags(result []byte, flags []string) ([]byte, error) {
	if len(flags) == 0 {
		return result, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil {
		return nil, ErrBadResult
	}
	var have []string
	if raw, ok := m["flags"]; ok {
		if err := json.Unmarshal(raw, &have); err != nil {
			return nil, ErrBadResult
		}
	}
	for _, f := range flags {
		if !slices.Contains(have, f) {
			have = append(have, f)
		}
	}
	m["flags"], _ = json.Marshal(have)
	return json.Marshal(m)
}

// MarkOCR notes on a result read from this document's OCR text where its fields came from:
// each field's evidence says "ocr", and is marked low-confidence when its
// line holds a word OCR was unsure of; the result carries the flag ocr. The
// validator has judged the fields like any others; the marks are for the
// reviewer.
func (doc *Document) MarkOCR(result []byte) ([]byte, error) {
	starts, ocrPages := pageStarts(doc)
	if len(ocrPages) == 0 {
		return result, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil {
		return nil, ErrBadResult
	}
	var evidence map[string]extract.Evidence
	if raw, ok := m["evidence"]; ok {
		if err := json.Unmarshal(raw, &evidence); err != nil {
			return nil, ErrBadResult
		}
	}
	var amounts map[string]string
	if err := json.Unmarshal(result, &amounts); err != nil {
		amounts = map[string]string{} // members that are not strings are not amounts
		var all map[string]any
		_ = json.Unmarshal(result, &all)
		for k, v := range all {
			if s, ok := v.(string); ok {
				amounts[k] = s
			}
		}
	}
	var uncertain []string
	for field, ev := range evidence {
		if ev.Page < 1 || ev.Page > len(doc.Pages) || !ocrPages[ev.Page] {
			continue
		}
		ev.Source = extract.EvidenceOCR
		line := ev.Line - 1 - starts[ev.Page-1] // the line within its page
		ev.LowConfidence = slices.Contains(doc.Pages[ev.Page-1].LowConfidenceLines, line)
		evidence[field] = ev
		if !slices.Contains(ocrCritical, field) {
			continue
		}
		if ev.LowConfidence || !writtenWithDecimals(amounts[field], pageLine(doc.Pages[ev.Page-1].Text, line)) {
			uncertain = append(uncertain, field)
		}
	}
	if len(uncertain) > 0 {
		// No false success from a misread digit: the arithmetic can agree
		// with a misread number (the number itself, a total whose misread
		// digit is also in the line sum), so an uncertain one is a person's.
		slices.Sort(uncertain)
		rej := &extract.Rejection{Reason: extract.ReasonOCRUncertain, Fields: uncertain}
		var inv extract.Invoice
		if json.Unmarshal(result, &inv) == nil {
			x := extract.ExtractionOf(inv)
			x.Evidence = evidence
			rej.Extraction = &x // what was read, for the person who confirms it
		}
		return nil, rej
	}
	if evidence != nil {
		m["evidence"], _ = json.Marshal(evidence)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, ErrBadResult
	}
	return WithFlags(out, []string{extract.FlagOCR})
}

// writtenWithDecimals reports whether an amount read by OCR stands on its
// line as it was committed, decimals and all: some number on the line has
// a decimal mark before its last digits and the same digits as the amount
// ("1.021,91" for 1021.91). OCR that drops a decimal mark reads 1.021,91
// as 102191 everywhere on a page, and the arithmetic then agrees with
// itself; a whole amount (no minor digits committed, "912") needs no mark.
// A value that is not an amount (the invoice number) always passes.
func writtenWithDecimals(amount, line string) bool {
	whole, frac, ok := strings.Cut(strings.TrimPrefix(amount, "-"), ".")
	if !ok || whole == "" || strings.Trim(frac, "0123456789") != "" {
		return true
	}
	want := strings.TrimLeft(whole+frac, "0")
	for _, m := range decimalNumber.FindAllString(line, -1) {
		digits := strings.TrimLeft(strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, m), "0")
		if digits == want && strings.HasSuffix(digits, frac) {
			return true
		}
	}
	return false
}

// decimalNumber is a number with a decimal mark before its last one to
// three digits, with any grouping ("1.021,91", "1,021.91", "1 021,91").
var decimalNumber = regexp.MustCompile(`\d[\d.,' ]*[.,]\d{1,3}\b`)

// pageLine is line i (0-based) of a page's text, "" past its end.
func pageLine(text string, i int) string {
	lines := strings.Split(text, "\n")
	if i < 0 || i >= len(lines) {
		return ""
	}
	return lines[i]
}

// ocrCritical are the fields a misread of which would be paid: an
// uncertain OCR word in any of them rejects the read.
var ocrCritical = []string{"invoiceNumber", "total", "subtotal", "tax", "amountDue"}

// pageStarts returns the 0-based line of doc.Text() where each page starts,
// and which pages (1-based) OCR read.
func pageStarts(doc *Document) ([]int, map[int]bool) {
	starts := make([]int, len(doc.Pages))
	ocrPages := map[int]bool{}
	line := 0
	for i, p := range doc.Pages {
		starts[i] = line
		line += strings.Count(p.Text, "\n")
		if !strings.HasSuffix(p.Text, "\n") {
			line++
		}
		if p.Source == SourceOCR {
			ocrPages[p.Number] = true
		}
	}
	return starts, ocrPages
}
