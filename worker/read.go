package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// StageRead is the read stage's name: its fault points ("read",
// "after_read") and, when the read was expensive (OCR), its checkpoint.
// While OCR reads a scan, each page is checkpointed as it is read
// (pageStage), so an attempt that runs out of time is resumed by the next
// one at the first page not read; the whole read's checkpoint replaces the
// pages' once it is done.
const StageRead = "read"

// pageStage is the checkpoint of page n of a scan OCR is reading. A job
// holds at most as many as its scan's pages OCR reads (RELAYOPS_OCR_MAX_PAGES).
func pageStage(n int) string { return StageRead + ":page:" + strconv.Itoa(n) }

// DocumentReader turns a job's input into a document (package document's
// Readers), resuming a read OCR had begun, and a scan's pages into images
// for a vision model.
type DocumentReader interface {
	Read(ctx context.Context, mediaType string, data []byte, opts *document.ReadOpts) (*document.Document, error)
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
// later stage works on. A scan's pages already read by OCR in an earlier
// attempt are taken from their checkpoints, and each page read now is
// checkpointed before the next is started.
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
	read := 0 // pages OCR read in this attempt
	opts := &document.ReadOpts{Done: a.pagesRead(), OnPage: func(p document.Page) error {
		if err := a.checkpoint(ctx, pageStage(p.Number), p, nil); err != nil {
			return err
		}
		read++
		return nil
	}}
	doc, err := a.h.reader.Read(ctx, in.MediaType, in.Data, opts)
	a.h.metrics.stageRun(StageRead, err)
	if err != nil {
		return nil, a.readFailed(ctx, err, read)
	}
	if doc.Expensive {
		replaced := make([]string, 0, len(doc.Pages))
		for _, p := range doc.Pages {
			replaced = append(replaced, pageStage(p.Number))
		}
		if err := a.checkpoint(ctx, StageRead, doc, replaced); err != nil {
			return nil, err
		}
	}
	if err := a.h.faults.Hit(PointAfterRead); err != nil {
		return nil, err
	}
	return doc, nil
}

// pagesRead are the pages of a scan that earlier attempts read by OCR, from
// their checkpoints.
func (a *attempt) pagesRead() map[int]document.Page {
	done := map[int]document.Page{}
	for n := 1; ; n++ {
		out, ok := a.claim.Checkpoints[pageStage(n)]
		if !ok {
			return done
		}
		var p document.Page
		if json.Unmarshal(out, &p) != nil || p.Number != n {
			return done
		}
		done[n] = p
	}
}

// checkpoint stores v as stage's output (fenced), deleting the checkpoints
// of the stages it replaces.
func (a *attempt) checkpoint(ctx context.Context, stage string, v any, replaced []string) error {
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", stage, err)
	}
	err = a.h.store.ReplaceCheckpoints(context.WithoutCancel(ctx), a.key, a.claim.Fence, stage, out, replaced)
	switch {
	case errors.Is(err, jobs.ErrStaleFence):
		return errStale
	case err != nil:
		return fmt.Errorf("checkpoint %s: %w", stage, err)
	}
	return nil
}

// readFailed judges a read that failed. One that ran out of the attempt's
// time (not the job's deadline, which cancels it, nor a wait for a busy
// process, which is retried) is resumed by the next attempt when it read a
// page and attempts remain; else no attempt can finish it, and it ends
// read_timeout instead of using up the attempts without a reason.
func (a *attempt) readFailed(ctx context.Context, err error, read int) error {
	if ctx.Err() == nil || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, document.ErrBusy) || a.pastDeadline() {
		return err
	}
	if read > 0 && !a.lastAttempt(ctx) {
		a.log.Info("read ran out of time; the next attempt resumes it", "pages_read", read)
		return err
	}
	return extract.Reject(extract.ReasonReadTimeout)
}

// lastAttempt reports whether the job has no attempt after this one.
func (a *attempt) lastAttempt(ctx context.Context) bool {
	j, err := a.h.store.Get(context.WithoutCancel(ctx), a.key)
	return err == nil && j.MaxAttempts > 0 && j.Attempt >= j.MaxAttempts
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

// limitAttrs are the log attributes of a document refused over a limit:
// what it needs and the limit (pages, or bytes of memory), figures only.
func limitAttrs(err error) []any {
	var le *document.LimitError
	if !errors.As(err, &le) {
		return nil
	}
	return []any{"need", le.Need, "limit", le.Limit}
}
