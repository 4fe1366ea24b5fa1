package extract

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The stage outputs are written by hand when every string in them needs no
// escaping, which is nearly always: json.Marshal's reflection was a tenth
// of Validate. A value with a string json.Marshal would escape ('"', '\',
// '<', '>', '&', a control character, U+2028, U+2029, invalid UTF-8) goes
// to json.Marshal whole. Either way the bytes are json.Marshal's.

// MarshalClassification is json.Marshal(c).
func MarshalClassification(c Classification) ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 128)}
	w.raw(`{"documentType":`)
	w.str(c.DocumentType)
	if len(c.Signals) > 0 {
		w.raw(`,"signals":`)
		w.strs(c.Signals)
	}
	w.raw("}")
	if w.bad {
		return json.Marshal(c)
	}
	return w.b, nil
}

// MarshalExtraction is json.Marshal(x).
func MarshalExtraction(x Extraction) ([]byte, error) {
	if x.hasStructuredFields() {
		return json.Marshal(x) // members the hand-written writer does not know
	}
	w := jsonWriter{b: make([]byte, 0, 512)}
	w.raw(`{"documentType":`)
	w.str(x.DocumentType)
	w.optStr(`,"invoiceNumber":`, x.InvoiceNumber)
	w.optStr(`,"vendor":`, x.Vendor)
	w.optStr(`,"issueDate":`, x.IssueDate)
	w.optStr(`,"currency":`, x.Currency)
	if len(x.LineItems) > 0 {
		w.raw(`,"lineItems":[`)
		for i, l := range x.LineItems {
			if i > 0 {
				w.raw(",")
			}
			w.extractedLine(l)
		}
		w.raw("]")
	}
	w.optStr(`,"subtotal":`, x.Subtotal)
	w.charges(x.Charges)
	w.optStr(`,"tax":`, x.Tax)
	if x.TaxIncluded {
		w.raw(`,"taxIncluded":true`)
	}
	w.optStr(`,"total":`, x.Total)
	if len(x.Problems) > 0 {
		w.raw(`,"problems":`)
		w.strs(x.Problems)
	}
	w.source(x.Source)
	w.evidence(x.Evidence)
	w.raw("}")
	if w.bad {
		return json.Marshal(x)
	}
	return w.b, nil
}

// marshalInvoice is json.Marshal(inv).
func marshalInvoice(inv Invoice) ([]byte, error) {
	if inv.hasStructuredFields() {
		return json.Marshal(inv) // members the hand-written writer does not know
	}
	w := jsonWriter{b: make([]byte, 0, 512)}
	w.raw(`{"documentType":`)
	w.str(inv.DocumentType)
	w.raw(`,"direction":`)
	w.str(inv.Direction)
	w.raw(`,"invoiceNumber":`)
	w.str(inv.InvoiceNumber)
	w.raw(`,"vendor":`)
	w.str(inv.Vendor)
	w.raw(`,"issueDate":`)
	w.str(inv.IssueDate)
	w.raw(`,"currency":`)
	w.str(inv.Currency)
	w.raw(`,"lineItems":`)
	if inv.LineItems == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i, l := range inv.LineItems {
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"description":`)
			w.str(l.Description)
			w.raw(`,"quantity":`)
			w.str(l.Quantity)
			w.raw(`,"unitPrice":`)
			w.str(l.UnitPrice)
			w.raw(`,"amount":`)
			w.str(l.Amount)
			w.raw("}")
		}
		w.raw("]")
	}
	w.raw(`,"subtotal":`)
	w.str(inv.Subtotal)
	w.charges(inv.Charges)
	w.raw(`,"tax":`)
	w.str(inv.Tax)
	if inv.TaxIncluded {
		w.raw(`,"taxIncluded":true`)
	}
	w.raw(`,"total":`)
	w.str(inv.Total)
	w.raw(`,"signedTotal":`)
	w.str(inv.SignedTotal)
	w.source(inv.Source)
	w.evidence(inv.Evidence)
	w.status(inv.Status)
	w.raw("}")
	if w.bad {
		return json.Marshal(inv)
	}
	return w.b, nil
}

// status writes a non-empty status map with its keys sorted, as
// json.Marshal does.
func (w *jsonWriter) status(st map[string]string) {
	if len(st) == 0 {
		return
	}
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.raw(`,"fieldStatus":{`)
	for i, k := range keys {
		if i > 0 {
			w.raw(",")
		}
		w.str(k)
		w.raw(":")
		w.str(st[k])
	}
	w.raw("}")
}

// jsonWriter appends compact JSON to b; bad turns true at the first string
// it cannot write as json.Marshal would without escaping.
type jsonWriter struct {
	b   []byte
	bad bool
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

// str writes s quoted when it needs no escape, else marks the writer bad.
func (w *jsonWriter) str(s string) {
	if !plainJSON(s) {
		w.bad = true // the caller falls back to json.Marshal
		return
	}
	w.b = append(append(append(w.b, '"'), s...), '"')
}

// optStr writes key and s when s is not empty (omitempty).
func (w *jsonWriter) optStr(key, s string) {
	if s != "" {
		w.raw(key)
		w.str(s)
	}
}

func (w *jsonWriter) strs(ss []string) {
	w.raw("[")
	for i, s := range ss {
		if i > 0 {
			w.raw(",")
		}
		w.str(s)
	}
	w.raw("]")
}

func (w *jsonWriter) extractedLine(l ExtractedLine) {
	w.raw("{")
	sep := ""
	for _, f := range [...]struct{ key, val string }{
		{`"description":`, l.Description}, {`"quantity":`, l.Quantity}, {`"unitPrice":`, l.UnitPrice}, {`"amount":`, l.Amount},
	} {
		if f.val != "" {
			w.raw(sep + f.key)
			w.str(f.val)
			sep = ","
		}
	}
	w.raw("}")
}

// charges writes "charges" when there are any (omitempty).
func (w *jsonWriter) charges(cs []Charge) {
	if len(cs) == 0 {
		return
	}
	w.raw(`,"charges":[`)
	for i, c := range cs {
		if i > 0 {
			w.raw(",")
		}
		w.raw(`{"kind":`)
		w.str(c.Kind)
		w.raw(`,"amount":`)
		w.str(c.Amount)
		w.optStr(`,"reason":`, c.Reason)
		w.raw("}")
	}
	w.raw("]")
}

func (w *jsonWriter) source(s Source) {
	w.raw(`,"source":{"extractor":`)
	w.str(s.Extractor)
	w.optStr(`,"model":`, s.Model)
	if s.PromptTokens != 0 {
		w.raw(`,"promptTokens":`)
		w.b = strconv.AppendInt(w.b, s.PromptTokens, 10)
	}
	if s.CompletionTokens != 0 {
		w.raw(`,"completionTokens":`)
		w.b = strconv.AppendInt(w.b, s.CompletionTokens, 10)
	}
	w.raw("}")
}

// plainJSON reports a string json.Marshal writes as its own bytes between
// quotes: valid UTF-8 without control characters, '"', '\', the HTML
// characters '<', '>', '&', U+2028 or U+2029.
func plainJSON(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}

// hasStructuredFields reports a member of inv that marshalInvoice does not
// write: the e-invoice terms, the payment and tax terms, the seller's
// identifiers, flags.
// hasStructuredFields reports a member of x that the hand-written writer
// does not write: the payment terms, the tax breakdown, the preceding
// invoice, the seller's ids, the flags.
func (x Extraction) hasStructuredFields() bool {
	return x.DueDate != "" || x.PaidAmount != "" || x.Rounding != "" || x.AmountDue != "" ||
		len(x.TaxBreakdown) > 0 || x.AccountingTax != nil || x.PrecedingInvoice != "" ||
		len(x.Seller) > 0 || len(x.Flags) > 0
}

func (inv Invoice) hasStructuredFields() bool {
	return inv.DueDate != "" || inv.OrderReference != "" || inv.SellerVATID != "" || inv.Buyer != "" ||
		inv.IBAN != "" || inv.PaidAmount != "" || inv.AmountDue != "" || inv.InvoiceTypeCode != "" ||
		inv.PrecedingInvoice != "" || inv.Rounding != "" || len(inv.TaxBreakdown) > 0 || inv.AccountingTax != nil ||
		len(inv.Seller) > 0 || len(inv.Flags) > 0
}

// evidence writes a non-empty evidence map as json.Marshal does: keys in
// sorted order, each member omitted when empty. A member the writer does
// not write (an e-invoice's terms and path, OCR confidence) sends the
// whole value to json.Marshal.
func (w *jsonWriter) evidence(ev map[string]Evidence) {
	if len(ev) == 0 {
		return
	}
	keys := make([]string, 0, len(ev))
	for k := range ev {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.raw(`,"evidence":{`)
	for i, k := range keys {
		e := ev[k]
		if len(e.BusinessTerms) > 0 || e.Path != "" || e.LowConfidence || e.Profile != "" || e.Learned != "" {
			w.bad = true
			return
		}
		if i > 0 {
			w.raw(",")
		}
		w.str(k)
		w.raw(":{")
		sep := ""
		if e.Source != "" {
			w.raw(`"source":`)
			w.str(e.Source)
			sep = ","
		}
		if e.Page != 0 {
			w.raw(sep + `"page":`)
			w.b = strconv.AppendInt(w.b, int64(e.Page), 10)
			sep = ","
		}
		if e.Line != 0 {
			w.raw(sep + `"line":`)
			w.b = strconv.AppendInt(w.b, int64(e.Line), 10)
			sep = ","
		}
		if e.Label != "" {
			w.raw(sep + `"label":`)
			w.str(e.Label)
			sep = ","
		}
		if e.Computed {
			w.raw(sep + `"computed":true`)
		}
		w.raw("}")
	}
	w.raw("}")
}
