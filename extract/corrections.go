package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Corrections are an operator's field overrides: each non-nil member
// replaces the field the extractor read (an empty string removes it).
// They are document data, like the fields they replace: stored encrypted
// with the job, never in logs, metrics or Asynq.
//
// Giving corrections also says "this is an invoice": Apply sets the
// document type, so an operator can overrule not_an_invoice.
type Corrections struct {
	InvoiceNumber *string          `json:"invoiceNumber,omitempty"`
	IssueDate     *string          `json:"issueDate,omitempty"`
	DueDate       *string          `json:"dueDate,omitempty"`
	Vendor        *string          `json:"vendor,omitempty"`
	Currency      *string          `json:"currency,omitempty"`
	Subtotal      *string          `json:"subtotal,omitempty"`
	Tax           *string          `json:"tax,omitempty"`
	Total         *string          `json:"total,omitempty"`
	LineItems     *[]ExtractedLine `json:"lineItems,omitempty"`
}

// CorrectionFields are the fields a correction may set, in the order
// Fields (of a Corrections) lists them.
var CorrectionFields = []string{"invoiceNumber", "issueDate", "dueDate", "vendor", "currency", "subtotal", "tax", "total", "lineItems"}

// scalars are the string members of c by field name.
func (c *Corrections) scalars() map[string]**string {
	return map[string]**string{
		"invoiceNumber": &c.InvoiceNumber, "issueDate": &c.IssueDate, "dueDate": &c.DueDate,
		"vendor": &c.Vendor, "currency": &c.Currency, "subtotal": &c.Subtotal, "tax": &c.Tax, "total": &c.Total,
	}
}

// extractionScalars are the string fields of x by field name.
func extractionScalars(x *Extraction) map[string]*string {
	return map[string]*string{
		"invoiceNumber": &x.InvoiceNumber, "issueDate": &x.IssueDate, "dueDate": &x.DueDate,
		"vendor": &x.Vendor, "currency": &x.Currency, "subtotal": &x.Subtotal, "tax": &x.Tax, "total": &x.Total,
	}
}

// Fields names the corrected fields, in CorrectionFields order.
func (c Corrections) Fields() []string {
	var out []string
	sc := c.scalars()
	for _, f := range CorrectionFields {
		if p, ok := sc[f]; ok && *p != nil || f == "lineItems" && c.LineItems != nil {
			out = append(out, f)
		}
	}
	return out
}

// Empty reports whether c corrects nothing.
func (c Corrections) Empty() bool { return len(c.Fields()) == 0 }

// Apply returns x with the corrections put over it: the corrected fields
// replaced, each with the evidence "correction", the problems the
// extractor recorded about a corrected field dropped (a corrected issue
// date is no longer ambiguous), and the document type an invoice.
func (c Corrections) Apply(x Extraction) Extraction {
	if c.Empty() {
		return x
	}
	out := x
	out.DocumentType = DocInvoice
	fields := c.Fields()
	xs := extractionScalars(&out)
	for f, p := range c.scalars() {
		if *p != nil {
			*xs[f] = strings.TrimSpace(**p)
		}
	}
	if c.LineItems != nil {
		out.LineItems = slices.Clone(*c.LineItems)
	}
	out.Problems = nil
	for _, p := range x.Problems {
		if !slices.Contains(fields, problemField(p)) {
			out.Problems = append(out.Problems, p)
		}
	}
	out.Evidence = make(map[string]Evidence, len(x.Evidence)+len(fields))
	for f, e := range x.Evidence {
		out.Evidence[f] = e
	}
	for _, f := range fields {
		out.Evidence[f] = Evidence{Source: EvidenceCorrection}
	}
	return out
}

// problemField is the field a problem code concerns, or "".
func problemField(code string) string {
	if code == ReasonAmbiguousDate {
		return "issueDate"
	}
	_, f, _ := strings.Cut(code, ":")
	return f
}

// FieldChange is one corrected field: the value read (empty when none was)
// and the value given. Line items are written as JSON.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new"`
}

// Changes lists what c changes in x, one entry per corrected field.
func (c Corrections) Changes(x Extraction) []FieldChange {
	var out []FieldChange
	xs := extractionScalars(&x)
	sc := c.scalars()
	for _, f := range c.Fields() {
		if f == "lineItems" {
			out = append(out, FieldChange{Field: f, Old: linesJSON(x.LineItems), New: linesJSON(*c.LineItems)})
			continue
		}
		out = append(out, FieldChange{Field: f, Old: *xs[f], New: strings.TrimSpace(**sc[f])})
	}
	return out
}

func linesJSON(l []ExtractedLine) string {
	if len(l) == 0 {
		return ""
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// ValidateCorrected applies c over base (nil: nothing was read) and judges
// the result with ValidateExtraction: the same validator as every
// extraction's.
func ValidateCorrected(base *Extraction, c Corrections) (*Invoice, error) {
	x := Extraction{}
	if base != nil {
		x = *base
	}
	return ValidateExtraction(c.Apply(x))
}

// ExtractionOf returns the extraction a validated invoice came from, as
// far as the invoice tells: the base a review decision's corrections are
// put over.
func ExtractionOf(inv Invoice) Extraction {
	x := Extraction{
		DocumentType: inv.DocumentType, InvoiceNumber: inv.InvoiceNumber, Vendor: inv.Vendor,
		IssueDate: inv.IssueDate, DueDate: inv.DueDate, Currency: inv.Currency, Subtotal: inv.Subtotal,
		Charges: inv.Charges, Tax: inv.Tax, TaxIncluded: inv.TaxIncluded, Total: inv.Total,
		Source: inv.Source, Evidence: inv.Evidence,
	}
	for _, l := range inv.LineItems {
		x.LineItems = append(x.LineItems, ExtractedLine(l))
	}
	return x
}

// WithCorrections returns an Extractor that puts c over every extraction x
// makes, so the corrected fields win over whatever the extractor, rules or
// model, reads; x itself when c is empty. Over a Chain it corrects both
// extractors, so the rules' extraction with the corrections is judged
// first and the model is called only when that does not validate.
//
// A corrected classification is an invoice (an operator overruling
// not_an_invoice); an extract stage that rejects the document gives its
// partial extraction (or none) to be corrected instead of the rejection.
func WithCorrections(x Extractor, c Corrections) Extractor {
	if c.Empty() {
		return x
	}
	if ch, ok := x.(*Chain); ok {
		return &Chain{first: WithCorrections(ch.first, c), model: WithCorrections(ch.model, c)}
	}
	return &corrected{inner: x, c: c}
}

// corrected is an Extractor with corrections (see WithCorrections).
type corrected struct {
	inner Extractor
	c     Corrections
}

func (k *corrected) Checkpointed(stage string) bool { return k.inner.Checkpointed(stage) }

func (k *corrected) Classify(ctx context.Context, content string) ([]byte, error) {
	out, err := k.inner.Classify(ctx, content)
	var r *Rejection
	if errors.As(err, &r) && r.Reason == ReasonNotAnInvoice {
		return json.Marshal(Classification{DocumentType: DocInvoice, Signals: []string{"correction"}})
	}
	if err != nil {
		return nil, err
	}
	var cls Classification
	if err := json.Unmarshal(out, &cls); err != nil {
		return nil, fmt.Errorf("%w: corrections: the classification is not JSON", ErrPermanent)
	}
	if cls.DocumentType == DocInvoice || cls.DocumentType == DocDeferred {
		return out, nil
	}
	return json.Marshal(Classification{DocumentType: DocInvoice, Signals: append(cls.Signals, "correction")})
}

func (k *corrected) Extract(ctx context.Context, content string, classification []byte) ([]byte, error) {
	out, err := k.inner.Extract(ctx, content, classification)
	var base Extraction
	var r *Rejection
	switch {
	case errors.As(err, &r):
		if r.Extraction != nil {
			base = *r.Extraction
		}
	case err != nil:
		return nil, err
	default:
		if base, err = DecodeExtraction(out); err != nil {
			return nil, fmt.Errorf("%w: corrections: the extraction is not JSON", ErrPermanent)
		}
	}
	return json.Marshal(k.c.Apply(base))
}

// Validate judges the corrected extraction with ValidateExtraction and
// writes the whole invoice (the due date and the evidence included).
func (k *corrected) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := DecodeExtraction(extraction)
	if err != nil {
		return nil, fmt.Errorf("%w: corrections: the extraction is not JSON", ErrPermanent)
	}
	inv, err := ValidateExtraction(k.c.Apply(x))
	if err != nil {
		return nil, err
	}
	return json.Marshal(inv)
}

// placeholders stand in for a field that failed a check, so the checks
// after it can run: they pass every format check and take no part in the
// arithmetic.
var placeholders = map[string]string{"invoiceNumber": "X", "vendor": "X", "issueDate": "0001-01-01", "dueDate": ""}

// maxFailedChecks bounds FailedChecks' passes (one per failing field).
const maxFailedChecks = 16

// FailedChecks lists every check x fails that an operator can see at once,
// not only the first: the validator runs again with each failed field
// that takes no part in the arithmetic (invoice number, vendor, dates, a
// problem the extractor recorded) stood in for, until it passes or fails
// on the currency or the amounts, which end the list (an amount cannot be
// judged without its currency, nor a sum without its amounts). The first
// entry is always ValidateExtraction's own verdict.
func FailedChecks(x Extraction) []FailedCheck {
	var out []FailedCheck
	for range maxFailedChecks {
		_, err := validateExtraction(x)
		r, ok := err.(*Rejection)
		if !ok {
			return out
		}
		fields := rejectedFields(r.Reason, x)
		for _, f := range fields {
			out = append(out, FailedCheck{Field: f, Check: r.Reason})
		}
		if !standIn(&x, r.Reason, fields) {
			return out
		}
	}
	return out
}

// standIn replaces the field a rejection names with its placeholder (and
// drops the problem that caused it); false when the rejection is one that
// ends FailedChecks.
func standIn(x *Extraction, reason string, fields []string) bool {
	if slices.Contains(x.Problems, reason) {
		x.Problems = slices.DeleteFunc(slices.Clone(x.Problems), func(p string) bool { return p == reason })
		if reason == ReasonAmbiguousDate {
			x.IssueDate = placeholders["issueDate"]
		}
		return problemField(reason) == "" || placeholders[problemField(reason)] != "" || reason == ReasonAmbiguousDate
	}
	if len(fields) != 1 {
		return false
	}
	p, ok := placeholders[fields[0]]
	if !ok {
		return false
	}
	*extractionScalars(x)[fields[0]] = p
	return true
}
