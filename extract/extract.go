// Package extract is the document work relayops runs: the stages Classify →
// Extract → Validate, their result types, the validator and its reason codes,
// the rules extractor (the default, offline) and the model extractor (any
// OpenAI-compatible Chat Completions endpoint).
//
// The worker runs the stages and checkpoints their outputs; it knows nothing
// of invoice fields. Every stage output is JSON so that it can be stored as a
// checkpoint and resumed after a crash.
//
// Nothing this package returns in an error's Error() string, a reason code
// or a log attribute quotes the document: documents are customer data.
//
// # The rules extractor
//
// Rules reads plain-text invoices as suppliers write them, with no
// per-vendor template: a document's own evidence decides its conventions
// before any field is read. The decimal mark is the one its unambiguous
// numbers use ("1,234.56", "12,50"; a lone "1.234" follows that decision,
// else the currency: grouping for two or zero decimals, decimals for three);
// the currency is a "Currency:" label, else the one written most beside
// amounts (the total's counting most; "$" and "kr" resolved by a written
// code, country, tax or web domain), else the currency of the country the
// document names; the order of day and month in "03/04/2026" comes from
// its other dates (a day over 12), then its conventions (a US state and
// ZIP, sales tax, "$" against VAT/GST, comma decimals, dotted dates, a
// non-US currency), then how it writes dates in words. A date that stays
// ambiguous is the problem ambiguous_date, never a guess.
//
// Fields come from labels and their synonyms ("Invoice #", "Inv. No",
// "Tax point", "Balance Due", "VAT @ 20%"), wherever the layout puts the
// value: after a colon or a run of spaces, in the next cell of a two-column
// line, under the label in a header row, on the next line, in a pipe or
// semicolon-delimited row; then titles ("INVOICE No. 4471", "# Invoice
// …", an e-mail subject), running text ("The subtotal is …, plus VAT of …")
// and, for the vendor, the unlabelled block at the top or an e-mail's
// sender and signature. Line items come from tables under a header row in
// any column order, else inline and numbered items, "description  amount"
// lines above the totals, or a sentence enumerating them ("This covers 9 x
// berth fee at 45.63 each (410.67) and …"). A source that may misread is
// read whole or not at all: a wrong line rejects a good invoice, a missing
// line costs only the line count.
//
// A document is classified before extraction: its first title (receipt,
// purchase order, quote or estimate, statement, credit note, memo, reminder
// …) decides, and strong markers ("Change due", "AUTH CODE", "PAID",
// opening and closing balances) overrule an invoice title; a document
// without a title is an invoice only with an invoice number label and a
// total. Anything else is rejected not_an_invoice, not guessed.
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
