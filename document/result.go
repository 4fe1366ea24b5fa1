package document

import (
	"encoding/json"
	"errors"
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
	var uncertain []string
	for field, ev := range evidence {
		if ev.Page < 1 || ev.Page > len(doc.Pages) || !ocrPages[ev.Page] {
			continue
		}
		ev.Source = extract.EvidenceOCR
		line := ev.Line - 1 - starts[ev.Page-1] // the line within its page
		ev.LowConfidence = slices.Contains(doc.Pages[ev.Page-1].LowConfidenceLines, line)
		evidence[field] = ev
		if ev.LowConfidence && slices.Contains(ocrCritical, field) {
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
