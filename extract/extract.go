// Package extract is the document work relayops runs: the stages Classify →
// Extract → Validate, their result types, the validator and its reason codes,
// the chain and the model extractor (any OpenAI-compatible Chat Completions
// endpoint). The rules extractor, the default and offline, is package
// extract/rules.
//
// The worker runs the stages and checkpoints their outputs; it knows nothing
// of invoice fields. Every stage output is JSON so that it can be stored as a
// checkpoint and resumed after a crash.
//
// Nothing this package returns in an error's Error() string, a reason code
// or a log attribute quotes the document: documents are customer data.
//
// # What the validator requires
//
// ValidateExtraction requires the invoice number, the vendor, the issue
// date, the currency and the total. Line items are not required: an invoice
// that states only its total (a retainer, a short e-mail) is a real
// invoice, and its lines, when present, must add up to the stated subtotal
// and, with the charges and tax, to the total. The order of its checks and
// the reason of each are in its documentation.
package extract

import "context"

// Stage names, also the checkpoint names in the store.
const (
	StageClassify = "classify"
	StageExtract  = "extract"
	StageValidate = "validate"
)

// Stages lists the pipeline's stages in order.
var Stages = []string{StageClassify, StageExtract, StageValidate}

// Extractor is the document pipeline. Each stage returns JSON. A stage that
// is expensive or not deterministic (a model call) is checkpointed by the
// worker so that a crash never runs it again; a cheap deterministic stage is
// recomputed after a crash instead (Checkpointed says which).
//
// Errors: a *Rejection (permanent: the document is not a valid invoice, with
// a reason code), an error wrapping ErrPermanent (no retry can help),
// ErrTransient or anything else (retried while attempts remain). Error
// strings never quote the document.
type Extractor interface {
	// Classify tells what kind of document content is (JSON Classification).
	Classify(ctx context.Context, content string) ([]byte, error)
	// Extract pulls the fields out of content, given its classification
	// (JSON Extraction).
	Extract(ctx context.Context, content string, classification []byte) ([]byte, error)
	// Validate checks an extraction and returns the result (JSON Invoice),
	// or a *Rejection.
	Validate(ctx context.Context, extraction []byte) ([]byte, error)
	// Checkpointed reports whether the output of stage must be checkpointed
	// before the next stage runs.
	Checkpointed(stage string) bool
}
