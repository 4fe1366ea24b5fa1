package extract

import (
	"encoding/json"
	"unicode/utf8"
)

// DecodeExtraction is json.Unmarshal(b, &x). The JSON the rules extractor
// writes (json.Marshal of an Extraction: keys in field order, no spaces)
// is read by a strict hand-written reader, because reflection made
// encoding/json the largest single cost of Validate; anything that reader
// does not accept whole (another key order, an escape in a string, a
// field the rules never write, white space) goes to json.Unmarshal, so
// every input decodes exactly as before.
func DecodeExtraction(b []byte) (Extraction, error) {
	if x, ok := readExtraction(b); ok {
		return x, nil
	}
	var x Extraction
	err := json.Unmarshal(b, &x)
	return x, err
}

// DecodeClassification is json.Unmarshal(b, &c), by the same strict
// reader first.
func DecodeClassification(b []byte) (Classification, error) {
	r := jsonReader{b: b}
	var c Classification
	if r.lit(`{"documentType":`) && r.str(&c.DocumentType) && r.optStrings(`,"signals":`, &c.Signals) &&
		r.lit("}") && r.i == len(b) {
		return c, nil
	}
	c = Classification{}
	err := json.Unmarshal(b, &c)
	return c, err
}

// readExtraction reads the compact form of an Extraction, or reports false.
func readExtraction(b []byte) (Extraction, bool) {
	r := jsonReader{b: b}
	var x Extraction
	ok := r.lit(`{"documentType":`) && r.str(&x.DocumentType) &&
		r.optStr(`,"invoiceNumber":`, &x.InvoiceNumber) && r.optStr(`,"vendor":`, &x.Vendor) &&
		r.optStr(`,"issueDate":`, &x.IssueDate) && r.optStr(`,"currency":`, &x.Currency) &&
		r.optLines(&x.LineItems) && r.optStr(`,"subtotal":`, &x.Subtotal) && r.optCharges(&x.Charges) &&
		r.optStr(`,"tax":`, &x.Tax) && r.optTrue(`,"taxIncluded":`, &x.TaxIncluded) &&
		r.optStr(`,"total":`, &x.Total) && r.optStrings(`,"problems":`, &x.Problems) &&
		r.lit(`,"source":{"extractor":`) && r.str(&x.Source.Extractor) &&
		r.optStr(`,"model":`, &x.Source.Model) && r.lit(`}}`) && r.i == len(b)
	return x, ok
}

// jsonReader reads JSON of a fixed shape from b at i. Each method reports
// whether what it expects is there; a false ends the reading.
type jsonReader struct {
	b []byte
	i int
}

// lit consumes s.
func (r *jsonReader) lit(s string) bool {
	if len(r.b)-r.i < len(s) || string(r.b[r.i:r.i+len(s)]) != s {
		return false
	}
	r.i += len(s)
	return true
}

// peek reports whether s comes next, without consuming it.
func (r *jsonReader) peek(s string) bool {
	return len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s
}

// str reads a string without escapes or control characters, in valid
// UTF-8: what encoding/json decodes to its bytes unchanged.
func (r *jsonReader) str(dst *string) bool {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return false
	}
	j := r.i + 1
	for ; j < len(r.b) && r.b[j] != '"'; j++ {
		if r.b[j] < 0x20 || r.b[j] == '\\' {
			return false
		}
	}
	if j == len(r.b) || !utf8.Valid(r.b[r.i+1:j]) {
		return false
	}
	*dst = string(r.b[r.i+1 : j])
	r.i = j + 1
	return true
}

// optStr reads key and its string when key comes next.
func (r *jsonReader) optStr(key string, dst *string) bool {
	return !r.lit(key) || r.str(dst)
}

// optTrue reads key and the value true when key comes next.
func (r *jsonReader) optTrue(key string, dst *bool) bool {
	if !r.lit(key) {
		return true
	}
	*dst = true
	return r.lit("true")
}

// optStrings reads key and a non-empty array of strings when key comes next.
func (r *jsonReader) optStrings(key string, dst *[]string) bool {
	if !r.lit(key) {
		return true
	}
	if !r.lit("[") {
		return false
	}
	for {
		var s string
		if !r.str(&s) {
			return false
		}
		*dst = append(*dst, s)
		if r.lit("]") {
			return true
		}
		if !r.lit(",") {
			return false
		}
	}
}

// optLines reads "lineItems" when it comes next.
func (r *jsonReader) optLines(dst *[]ExtractedLine) bool {
	if !r.lit(`,"lineItems":[`) {
		return true
	}
	for {
		var l ExtractedLine
		if !r.lit("{") || !r.lineFields(&l) || !r.lit("}") {
			return false
		}
		*dst = append(*dst, l)
		if r.lit("]") {
			return true
		}
		if !r.lit(",") {
			return false
		}
	}
}

// lineFields reads the fields of a line item, each optional, in order.
func (r *jsonReader) lineFields(l *ExtractedLine) bool {
	first := true
	for _, f := range []struct {
		key string
		dst *string
	}{{`"description":`, &l.Description}, {`"quantity":`, &l.Quantity}, {`"unitPrice":`, &l.UnitPrice}, {`"amount":`, &l.Amount}} {
		key := f.key
		if !first {
			key = "," + key
		}
		if !r.peek(key) {
			continue
		}
		if !r.lit(key) || !r.str(f.dst) {
			return false
		}
		first = false
	}
	return true
}

// optCharges reads "charges" when it comes next.
func (r *jsonReader) optCharges(dst *[]Charge) bool {
	if !r.lit(`,"charges":[`) {
		return true
	}
	for {
		var c Charge
		if !r.lit(`{"kind":`) || !r.str(&c.Kind) || !r.lit(`,"amount":`) || !r.str(&c.Amount) || !r.lit("}") {
			return false
		}
		*dst = append(*dst, c)
		if r.lit("]") {
			return true
		}
		if !r.lit(",") {
			return false
		}
	}
}
