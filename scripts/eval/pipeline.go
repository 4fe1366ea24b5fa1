package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/corpus"
)

// outcome is what the pipeline made of one document.
type outcome struct {
	doc corpus.Document
	// invoice is the result of a document that succeeded.
	invoice *extract.Invoice
	// extraction is Extract's output when it produced one (for reporting
	// the fields of a rejected invoice).
	extraction *extract.Extraction
	// reason is the reason code of a rejection.
	reason string
	// failure names the stage and class of an error that is not a
	// rejection ("extract: transient"); it never carries the error's text.
	failure string
	// took is the time the three stages took.
	took time.Duration
}

func (o outcome) succeeded() bool { return o.invoice != nil }
func (o outcome) rejected() bool  { return o.reason != "" }

// runPipeline runs every document through Classify → Extract → Validate, as
// the worker does but in process, and returns the outcomes, each with the
// time its stages took.
func runPipeline(ctx context.Context, ex extract.Extractor, docs []corpus.Document) []outcome {
	outs := make([]outcome, 0, len(docs))
	for _, d := range docs {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		o := process(ctx, ex, d)
		o.took = time.Since(start)
		outs = append(outs, o)
	}
	return outs
}

func process(ctx context.Context, ex extract.Extractor, d corpus.Document) outcome {
	o := outcome{doc: d}
	cls, err := ex.Classify(ctx, d.Text)
	if err != nil {
		return o.failed(extract.StageClassify, err)
	}
	raw, err := ex.Extract(ctx, d.Text, cls)
	if err != nil {
		return o.failed(extract.StageExtract, err)
	}
	var e extract.Extraction
	if json.Unmarshal(raw, &e) == nil {
		o.extraction = &e
	}
	res, err := ex.Validate(ctx, raw)
	if err != nil {
		return o.failed(extract.StageValidate, err)
	}
	var inv extract.Invoice
	if err := json.Unmarshal(res, &inv); err != nil {
		o.failure = extract.StageValidate + ": result is not an invoice"
		return o
	}
	o.invoice = &inv
	return o
}

// failed records err: a rejection's reason, or the class of any other
// error (its text may not be shown: only error classes are reported).
func (o outcome) failed(stage string, err error) outcome {
	var rej *extract.Rejection
	switch {
	case errors.As(err, &rej):
		o.reason = rej.Reason
	case errors.Is(err, extract.ErrPermanent):
		o.failure = stage + ": permanent error"
	default:
		o.failure = stage + ": transient error"
	}
	return o
}
