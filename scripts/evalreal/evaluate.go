package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	readstage "github.com/relayops/relayops/document"
	"io"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
)

// outcome is what the rules made of one document.
type outcome struct {
	doc     document
	invoice *extract.Invoice
	// extraction is Extract's output, for -v on a rejected invoice.
	extraction *extract.Extraction
	reason     string // the rejection's reason code
	failure    string // a text that could not be read, an error that is not a rejection
	text       string // what the rules read, for -show
	took       time.Duration
}

// isInvoice: a document accounts payable books (an invoice, a credit note,
// a corrective invoice); every other kind must be rejected.
func (o outcome) isInvoice() bool { return booked(o.doc.truth.DocumentType) }
func (o outcome) succeeded() bool { return o.invoice != nil }

// expectsRejection: a person verified that the document's own figures do
// not add up or that it names no issuer; rejecting it is right.
func (o outcome) expectsRejection() bool { return o.doc.truth.Expect == expectRejection }

// correct: a booked document that succeeded with the document's number and
// total and no field that differs from one the truth vouches for.
func (o outcome) correct() bool {
	return o.isInvoice() && o.succeeded() && o.invoice.InvoiceNumber == o.doc.truth.InvoiceNumber &&
		extract.SameDecimal(o.invoice.Total, o.doc.truth.Total) && len(o.wrongFields()) == 0
}

// falseSuccess: succeeded, yet a committed field is not the document's, or
// it is no invoice at all. An accounts-payable team would book it.
func (o outcome) falseSuccess() bool { return o.succeeded() && !o.correct() }

// fieldDocumentType names a committed document type that is not the
// truth's (a credit note booked as an invoice, a receipt committed) in the
// lists of wrong fields.
const fieldDocumentType = "documentType"

// wrong is one committed field that differs from the truth.
type wrong struct {
	field, committed, want string
}

// wrongFields lists the committed fields of a success that differ from the
// truth: every field it vouches for that was committed (a field vouched
// empty, which the document does not state, is wrong whenever committed),
// the number and total always, and the document type.
func (o outcome) wrongFields() []wrong {
	if !o.succeeded() {
		return nil
	}
	t, inv := o.doc.truth, o.invoice
	var ws []wrong
	if got := committedType(inv.DocumentType); got != t.DocumentType {
		ws = append(ws, wrong{fieldDocumentType, got, t.DocumentType})
	}
	if !booked(t.DocumentType) {
		return ws
	}
	for _, f := range vouchable {
		got := committed(inv, f)
		required := f == "invoiceNumber" || f == "total"
		if !required && (!t.vouches(f) || got == "") {
			continue
		}
		if !sameField(f, got, t) {
			ws = append(ws, wrong{f, got, t.value(f)})
		}
	}
	return ws
}

// committedType is the committed document type in the truth's names (the
// pipeline named a credit note "credit_note" before "creditNote").
func committedType(v string) string {
	switch v {
	case "", extract.DocInvoice:
		return docInvoice
	case "credit_note":
		return docCreditNote
	}
	return v
}

// committed returns the invoice's value of a vouchable field.
func committed(inv *extract.Invoice, field string) string {
	switch field {
	case "invoiceNumber":
		return inv.InvoiceNumber
	case "issueDate":
		return inv.IssueDate
	case "currency":
		return inv.Currency
	case "vendor":
		return inv.Vendor
	case "total":
		return inv.Total
	case "subtotal":
		return inv.Subtotal
	case "tax":
		return inv.Tax
	case "dueDate":
		return inv.DueDate
	}
	return ""
}

// sameField compares a committed value with the truth's: amounts as
// decimals, a vendor by name (or one of its aliases), the rest exactly.
func sameField(field, got string, t truth) bool {
	want := t.value(field)
	switch field {
	case "total", "subtotal", "tax":
		return extract.SameDecimal(got, want)
	case "vendor":
		for _, name := range append([]string{want}, t.VendorAliases...) {
			if sameVendor(got, name) {
				return true
			}
		}
		return false
	}
	return got == want
}

func evaluate(ctx context.Context, d document) outcome {
	o := outcome{doc: d}
	text, err := readText(d.path)
	if err != nil {
		o.failure = "read: " + err.Error()
		return o
	}
	o.text = text
	start := time.Now()
	o.pipeline(ctx, rules.Rules{}, text)
	o.took = time.Since(start)
	return o
}

// pipeline runs Classify → Extract → Validate as the worker does.
func (o *outcome) pipeline(ctx context.Context, ex extract.Extractor, text string) {
	cls, err := ex.Classify(ctx, text)
	if err != nil {
		o.fail(err)
		return
	}
	raw, err := ex.Extract(ctx, text, cls)
	if err != nil {
		o.fail(err)
		return
	}
	var x extract.Extraction
	if json.Unmarshal(raw, &x) == nil {
		o.extraction = &x
	}
	res, err := ex.Validate(ctx, raw)
	if err != nil {
		o.fail(err)
		return
	}
	// A document read by OCR is judged as the worker judges it: a number
	// or amount read from uncertain words is a person's (ocr_uncertain).
	if d, ok := scanned.Load(o.doc.path); ok {
		if res, err = d.(*readstage.Document).MarkOCR(res); err != nil {
			o.fail(err)
			return
		}
	}
	var inv extract.Invoice
	if err := json.Unmarshal(res, &inv); err != nil {
		o.failure = "validate: result is not an invoice"
		return
	}
	o.invoice = &inv
}

func (o *outcome) fail(err error) {
	var rej *extract.Rejection
	if errors.As(err, &rej) {
		o.reason = rej.Reason
		if rej.Extraction != nil && o.extraction == nil {
			o.extraction = rej.Extraction
		}
		return
	}
	o.failure = "error"
}

// print writes the text the document was read as and what the rules made
// of it (for -show while tuning the rules on one document).
func (o outcome) print(w io.Writer) {
	fmt.Fprintf(w, "==== %s [%s]\n%s\n", o.doc.file, o.doc.truth.DocumentType, o.text)
	switch {
	case o.invoice != nil:
		b, _ := json.MarshalIndent(o.invoice, "", "  ")
		fmt.Fprintf(w, "---- succeeded\n%s\n", b)
	case o.extraction != nil:
		b, _ := json.MarshalIndent(o.extraction, "", "  ")
		fmt.Fprintf(w, "---- rejected %s%s; partial extraction\n%s\n", o.reason, o.failure, b)
	default:
		fmt.Fprintf(w, "---- rejected %s%s\n", o.reason, o.failure)
	}
}
