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

func (o outcome) isInvoice() bool { return o.doc.truth.DocumentType == extract.DocInvoice }
func (o outcome) succeeded() bool { return o.invoice != nil }

// correct: an invoice that succeeded with the document's number and total.
func (o outcome) correct() bool {
	return o.isInvoice() && o.succeeded() && o.invoice.InvoiceNumber == o.doc.truth.InvoiceNumber &&
		extract.SameDecimal(o.invoice.Total, o.doc.truth.Total)
}

// falseSuccess: succeeded, yet not the document's number and total, or not
// an invoice at all. An accounts-payable team would pay it.
func (o outcome) falseSuccess() bool { return o.succeeded() && !o.correct() }

// otherVendor: a correct invoice whose vendor is not the truth's (a truth
// without a vendor, as a page that prints none, compares with nothing).
func (o outcome) otherVendor() bool {
	return o.correct() && o.doc.truth.Vendor != "" && !sameVendor(o.invoice.Vendor, o.doc.truth.Vendor)
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
