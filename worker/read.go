package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// StageRead is the read stage's name: its fault points ("read",
// "after_read") and, when the read was expensive (OCR), its checkpoint.
const StageRead = "read"

// DocumentReader turns a job's input into a document (package document's
// Readers), and a scan's pages into images for a vision model.
type DocumentReader interface {
	Read(ctx context.Context, mediaType string, data []byte) (*document.Document, error)
	PageImages(ctx context.Context, mediaType string, data []byte, maxPixels int) ([][]byte, error)
}

// Vision extracts a document's fields from its page images (the model
// extractor with vision on: extract.Model.ExtractImages).
type Vision interface {
	ExtractImages(ctx context.Context, pages [][]byte, classification []byte) ([]byte, error)
}

// visionPixels is the size of a page rendered for the model; the model
// extractor scales it down to its own bound (RELAYOPS_LLM_IMAGE_MAX_PIXELS).
const visionPixels = 9_000_000

// scanned is the pipeline of a document without text kept for the vision
// model: its page images go to the model (the extract stage, checkpointed
// like any model call), the extractor's validator judges the answer.
func (a *attempt) scanned(ctx context.Context, ckpts map[string][]byte) ([]byte, error) {
	if a.h.vision == nil {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	ext, err := a.stage(ctx, extract.StageExtract, ckpts, func() ([]byte, error) {
		content, err := a.input()
		if err != nil {
			return nil, err
		}
		in := jobs.DecodeInput(content)
		pages, err := a.h.reader.PageImages(ctx, in.MediaType, in.Data, visionPixels)
		if err != nil {
			return nil, err
		}
		return a.inference(func() ([]byte, error) { return a.h.vision.ExtractImages(ctx, pages, nil) })
	})
	if err != nil {
		return nil, err
	}
	return a.stage(ctx, extract.StageValidate, ckpts, func() ([]byte, error) { return a.h.extractor.Validate(ctx, ext) })
}

// VisibleTotal reads the total a document's visible text states, for the
// check of a hybrid PDF (its XML is committed; a visible total that differs
// is flagged). ok is false when the text states none the reader can read.
type VisibleTotal func(ctx context.Context, text string) (total string, ok bool)

// read runs the read stage, or resumes its checkpoint: the document every
// later stage works on.
func (a *attempt) read(ctx context.Context) (*document.Document, error) {
	if out, ok := a.claim.Checkpoints[StageRead]; ok {
		var doc document.Document
		if err := json.Unmarshal(out, &doc); err == nil {
			return &doc, nil
		}
	}
	if err := a.h.faults.Hit(PointRead); err != nil {
		return nil, err
	}
	content, err := a.input()
	if err != nil {
		return nil, err
	}
	in := jobs.DecodeInput(content)
	doc, err := a.h.reader.Read(ctx, in.MediaType, in.Data)
	a.h.metrics.stageRun(StageRead, err)
	if err != nil {
		return nil, err
	}
	if doc.Expensive {
		out, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if err := a.h.store.Checkpoint(context.WithoutCancel(ctx), a.key, a.claim.Fence, StageRead, out); err != nil {
			if errors.Is(err, jobs.ErrStaleFence) {
				return nil, errStale
			}
			return nil, fmt.Errorf("checkpoint %s: %w", StageRead, err)
		}
	}
	if err := a.h.faults.Hit(PointAfterRead); err != nil {
		return nil, err
	}
	return doc, nil
}

// structured is the pipeline of a document that carries an e-invoice: its
// XML is read exactly (no text heuristics), judged by the EN 16931 rules,
// and a hybrid PDF whose visible total differs from the XML's is flagged.
func (a *attempt) structured(ctx context.Context, doc *document.Document) ([]byte, error) {
	if err := a.h.faults.Hit(extract.StageExtract); err != nil {
		return nil, err
	}
	out, err := extract.FromEInvoice(doc.EInvoice)
	a.h.metrics.stageRun(extract.StageExtract, err)
	if err != nil {
		return nil, err
	}
	flags := doc.Flags
	if a.h.visibleTotal != nil && doc.HasText() {
		if mismatch, err := a.visibleMismatch(ctx, doc, out); err != nil {
			return nil, err
		} else if mismatch {
			flags = append(flags, extract.FlagVisibleTotalMismatch)
		}
	}
	if out, err = document.WithFlags(out, flags); err != nil {
		return nil, badResult(err)
	}
	return out, a.admit(out)
}

// visibleMismatch reports whether the visible text states a total that is
// not the committed one.
func (a *attempt) visibleMismatch(ctx context.Context, doc *document.Document, result []byte) (bool, error) {
	var inv struct {
		Total string `json:"total"`
	}
	if err := json.Unmarshal(result, &inv); err != nil {
		return false, errBadOutput
	}
	seen, ok := a.h.visibleTotal(ctx, doc.Text())
	if !ok {
		return false, nil
	}
	x, okx := new(big.Rat).SetString(inv.Total)
	y, oky := new(big.Rat).SetString(seen)
	return okx && oky && x.Cmp(y) != 0, nil
}

// badResult is the handler's answer to a result the document package
// cannot amend: an extractor bug (internal_error), not a retry.
func badResult(err error) error {
	if errors.Is(err, document.ErrBadResult) {
		return errBadOutput
	}
	return err
}
