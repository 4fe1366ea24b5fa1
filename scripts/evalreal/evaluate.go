package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	readstage "github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/scripts/realcorpus"
)

// outcome is what the rules made of one document.
type outcome struct {
	doc     realcorpus.Document
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
func (o outcome) isInvoice() bool { return realcorpus.Booked(o.doc.Truth.DocumentType) }
func (o outcome) succeeded() bool { return o.invoice != nil }

// expectsRejection: a person verified that the document's own figures do
// not add up or that it names no issuer; rejecting it is right.
func (o outcome) expectsRejection() bool { return o.doc.Truth.Expect == realcorpus.ExpectRejection }

// correct: a booked document that succeeded with the document's number and
// total and no field that differs from one the truth vouches for.
func (o outcome) correct() bool {
	return o.isInvoice() && o.succeeded() && o.invoice.InvoiceNumber == o.doc.Truth.InvoiceNumber &&
		extract.SameDecimal(o.invoice.Total, o.doc.Truth.Total) && len(o.wrongFields()) == 0
}

// falseSuccess: succeeded, yet a committed field is not the document's, or
// it is no invoice at all. An accounts-payable team would book it.
func (o outcome) falseSuccess() bool { return o.succeeded() && !o.correct() }

// wrongFields lists the committed fields of a success that differ from
// the truth (realcorpus.WrongFields); nil for a rejection.
func (o outcome) wrongFields() []realcorpus.Wrong {
	if !o.succeeded() {
		return nil
	}
	return realcorpus.WrongFields(o.doc.Truth, o.invoice)
}

func evaluate(ctx context.Context, d realcorpus.Document) outcome {
	o := outcome{doc: d}
	text, err := readText(d.Path)
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
	if d, ok := scanned.Load(o.doc.Path); ok {
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
	fmt.Fprintf(w, "==== %s [%s]\n%s\n", o.doc.File, o.doc.Truth.DocumentType, o.text)
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
