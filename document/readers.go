package document

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/einvoice"
	"github.com/relayops/relayops/extract"
)

// Media types the readers know.
const (
	mediaTypeText = "text/plain"
	mediaTypePDF  = "application/pdf"
	mediaTypeXML  = "application/xml"
)

// ErrNoPDFReader: a PDF arrived at a process built without a PDF reader. A
// deployment fault, not the document's: permanent, without a reason code.
var ErrNoPDFReader = fmt.Errorf("%w: document: no PDF reader is configured", extract.ErrPermanent)

// PDFReader is what the read stage needs of a PDF reader (package
// document/pdf's Reader): text and attachments, and page images for OCR.
type PDFReader interface {
	Read(ctx context.Context, data []byte) (*pdf.File, error)
	PageRenderer
}

// Config configures the readers. The zero Config reads text and XML.
type Config struct {
	// PDF reads PDFs; nil refuses them with ErrNoPDFReader.
	PDF PDFReader
	// OCR reads scans (images, PDFs without text); nil rejects them
	// no_text_layer.
	OCR OCR
	// MaxPages bounds a multi-page image (a TIFF). Default 50.
	MaxPages int
	// KeepScans returns a document without text that OCR did not read as
	// a Document with Scan set (for a vision model) instead of rejecting it
	// no_text_layer.
	KeepScans bool
}

// Readers reads every supported input format, one Reader per media type.
type Readers struct {
	byType    map[string]Reader
	pdf       PDFReader
	maxPages  int
	keepScans bool
}

// New returns the readers of cfg.
func New(cfg Config) *Readers {
	if cfg.MaxPages == 0 {
		cfg.MaxPages = 50
	}
	r := &Readers{byType: map[string]Reader{
		mediaTypeText: textReader{},
		mediaTypeXML:  xmlReader{},
	}, pdf: cfg.PDF, maxPages: cfg.MaxPages, keepScans: cfg.KeepScans}
	for _, mt := range []string{"image/png", "image/jpeg", "image/tiff"} {
		r.byType[mt] = imageReader{ocr: cfg.OCR, mediaType: mt, maxPages: cfg.MaxPages}
	}
	if cfg.PDF != nil {
		r.byType[mediaTypePDF] = pdfReader{pdf: cfg.PDF, ocr: cfg.OCR}
	} else {
		r.byType[mediaTypePDF] = refuse{ErrNoPDFReader}
	}
	return r
}

// Read reads data of mediaType into a Document, or returns a
// *extract.Rejection with the read stage's reason, or another error (a
// deadline, a deployment fault).
func (r *Readers) Read(ctx context.Context, mediaType string, data []byte) (*Document, error) {
	rd, ok := r.byType[mediaType]
	if !ok {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	if len(data) == 0 {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	doc, err := rd.Read(ctx, data)
	var rej *extract.Rejection
	if r.keepScans && errors.As(err, &rej) && rej.Reason == extract.ReasonNoTextLayer {
		doc, err = &Document{Scan: true}, nil
	}
	if err != nil {
		return nil, err
	}
	doc.MediaType = mediaType
	return doc, nil
}

// PageImages returns the pages of a scan as images (PNG, or the image file's
// own pages), for a vision model: a PDF's pages rendered, an image's pages
// as they are.
func (r *Readers) PageImages(ctx context.Context, mediaType string, data []byte, maxPixels int) ([][]byte, error) {
	if mediaType != mediaTypePDF {
		pages, err := ocr.Pages(data, mediaType, r.maxPages)
		if err != nil {
			return nil, extract.Reject(extract.ReasonUnreadableDocument)
		}
		return pages, nil
	}
	if r.pdf == nil {
		return nil, ErrNoPDFReader
	}
	f, err := r.pdf.Read(ctx, data)
	if err != nil {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	out := make([][]byte, 0, len(f.Pages))
	for i := range f.Pages {
		img, err := r.pdf.Render(ctx, data, i+1, maxPixels)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, extract.Reject(extract.ReasonUnreadableDocument)
		}
		out = append(out, img)
	}
	return out, nil
}

type refuse struct{ err error }

func (r refuse) Read(context.Context, []byte) (*Document, error) { return nil, r.err }

// textReader reads submitted text: one page, exactly as submitted.
type textReader struct{}

func (textReader) Read(_ context.Context, data []byte) (*Document, error) {
	if !utf8.Valid(data) {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	return &Document{Pages: []Page{{Number: 1, Text: string(data), Source: SourceText}}}, nil
}

// xmlReader reads a standalone e-invoice.
type xmlReader struct{}

func (xmlReader) Read(_ context.Context, data []byte) (*Document, error) {
	inv, err := einvoice.Parse(data)
	if err != nil {
		return nil, xmlRejection(err)
	}
	return &Document{EInvoice: inv, EInvoiceFrom: "xml"}, nil
}

// xmlRejection is the reason of XML that is no readable e-invoice: well-formed
// XML of another kind is not an invoice; anything else is invalid.
func xmlRejection(err error) error {
	if errors.Is(err, einvoice.ErrNotEInvoice) {
		return extract.Reject(extract.ReasonNotAnInvoice)
	}
	return extract.Reject(extract.FieldReason(extract.ReasonInvalidEInvoice, "syntax"))
}

// pdfReader reads a PDF: its pages' layout text and, for a hybrid PDF, the
// e-invoice it embeds.
type pdfReader struct {
	pdf PDFReader
	ocr OCR // nil: a PDF without text is no_text_layer
}

// EInvoiceAttachments are the names under which Factur-X, ZUGFeRD (1.0 and
// 2.x) and XRechnung embed their XML, compared without case.
var EInvoiceAttachments = []string{"factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"}

func (p pdfReader) Read(ctx context.Context, data []byte) (*Document, error) {
	f, err := p.pdf.Read(ctx, data)
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		return nil, extract.Reject(extract.ReasonEncryptedDocument)
	case errors.Is(err, pdf.ErrTooManyPages):
		return nil, extract.Reject(extract.ReasonTooManyPages)
	case errors.Is(err, pdf.ErrUnreadable):
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	case err != nil:
		return nil, err
	}
	doc := &Document{}
	for i, text := range f.Pages {
		doc.Pages = append(doc.Pages, Page{Number: i + 1, Text: text, Source: SourceText})
	}
	p.embedded(doc, f.Attachments)
	if doc.EInvoice != nil || doc.HasText() {
		return doc, nil
	}
	if p.ocr == nil {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	// A scan: each page rendered and read by OCR.
	return ocrDocument(ctx, p.ocr, len(f.Pages), func(i int) ([]byte, error) {
		img, err := p.pdf.Render(ctx, data, i+1, ocrPixels)
		if err != nil && ctx.Err() == nil {
			return nil, extract.Reject(extract.ReasonUnreadableDocument)
		}
		return img, err
	})
}

// embedded reads the first e-invoice attachment into doc. One that cannot be
// read leaves the document to its visible text, flagged: the XML is the
// legally binding part, and a reviewer must know it was not used.
func (pdfReader) embedded(doc *Document, atts []pdf.Attachment) {
	for _, a := range atts {
		if !isEInvoiceAttachment(a.Name) {
			continue
		}
		inv, err := einvoice.Parse(a.Data)
		if err != nil {
			doc.Flags = append(doc.Flags, extract.FlagEInvoiceUnreadable)
			return
		}
		doc.EInvoice, doc.EInvoiceFrom = inv, a.Name
		return
	}
}

func isEInvoiceAttachment(name string) bool {
	for _, n := range EInvoiceAttachments {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}
