// Package document is the read stage: it turns a job's input — text, a PDF,
// a structured e-invoice, later a scan — into one normalised Document that
// every later stage works on, whatever the file was.
//
// One reader per input format sits behind one interface (Reader), chosen by
// media type (Readers.Read). A reader never guesses: a file it cannot read is
// a permanent rejection with a reason code (extract.ReasonUnreadableDocument,
// ReasonEncryptedDocument, ReasonNoTextLayer, ReasonTooManyPages,
// ReasonTooLargeToRead, ReasonInvalidEInvoice), and no reason quotes the
// document.
//
// Reading is bounded before it is paid for: each reader checks from the
// file's headers what it will cost (pages, decoded pixels, OCR), refuses a
// document over a limit, and reserves the memory of each step in the
// process's Budget, which every job shares.
//
// Structured beats inferred: an e-invoice (standalone XML, or embedded in a
// hybrid PDF as factur-x.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml or
// xrechnung.xml) is carried as parsed XML in Document.EInvoice, and the
// stages after the read take it exactly; a hybrid PDF's visible text is kept
// beside it for the reviewer and for the check of its visible total.
package document

import (
	"context"
	"strings"

	"github.com/relayops/relayops/einvoice"
)

// Document is the normalised document. It is JSON so that an expensive read
// (OCR) can be checkpointed.
type Document struct {
	// MediaType is the input's media type ("text/plain", "application/pdf",
	// "application/xml", "image/png", …).
	MediaType string `json:"mediaType"`
	// Pages are the document's text with its layout (lines and columns as
	// a person sees them), one per page, in order. An XML e-invoice has
	// none.
	Pages []Page `json:"pages,omitempty"`
	// EInvoice is the structured invoice the file is or carries; nil for
	// a document that has none.
	EInvoice *einvoice.Invoice `json:"einvoice,omitempty"`
	// EInvoiceFrom says where EInvoice came from: "xml" for an XML file,
	// else the name of the PDF attachment it was read from.
	EInvoiceFrom string `json:"einvoiceFrom,omitempty"`
	// Flags are content-free notes for the result (extract.Flag…), e.g. a
	// hybrid PDF whose embedded XML could not be read.
	Flags []string `json:"flags,omitempty"`
	// Expensive reports a read worth checkpointing (OCR ran): a crash after
	// it must not run it again.
	Expensive bool `json:"expensive,omitempty"`
	// Scan reports a document without any text (a scan or a photo that no
	// OCR read), kept for a vision model (Config.KeepScans) rather than
	// rejected no_text_layer; Readers.PageImages gives its pages.
	Scan bool `json:"scan,omitempty"`
}

// Page is one page of text.
type Page struct {
	Number int    `json:"number"` // 1-based
	Text   string `json:"text"`
	// Source is "text" (a text layer or submitted text) or "ocr".
	Source string `json:"source"`
	// MeanConfidence is OCR's mean word confidence (0..100); 0 for text.
	MeanConfidence float64 `json:"meanConfidence,omitempty"`
	// LowConfidenceLines are the lines of Text (0-based) holding a word
	// OCR read below its confidence threshold.
	LowConfidenceLines []int `json:"lowConfidenceLines,omitempty"`
}

// Page sources.
const (
	SourceText = "text"
	SourceOCR  = "ocr"
)

// Text returns the document's text as the text extractors read it: the
// pages in order, each ended by a form feed as `pdftotext -layout` writes
// them; a single page of submitted text is returned exactly as submitted.
func (d *Document) Text() string {
	if len(d.Pages) == 1 && d.MediaType == mediaTypeText {
		return d.Pages[0].Text
	}
	var b strings.Builder
	for _, p := range d.Pages {
		b.WriteString(p.Text)
		if !strings.HasSuffix(p.Text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\f')
	}
	return b.String()
}

// HasText reports whether any page holds text.
func (d *Document) HasText() bool {
	for _, p := range d.Pages {
		if strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}

// Reader reads one input format; opts resumes a read OCR had begun (nil:
// read it all).
type Reader interface {
	Read(ctx context.Context, data []byte, opts *ReadOpts) (*Document, error)
}
