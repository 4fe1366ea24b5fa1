package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"slices"
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
	// OCRMaxPages bounds the pages of a scan that OCR reads: a scan with
	// more is too_many_pages before any page is read. Default 10, at most
	// MaxPages.
	OCRMaxPages int
	// MemoryBytes is the read stage's memory budget for the process (see
	// Budget): every Read and PageImages of these readers shares it.
	// Default DefaultMemoryBytes (1 GiB).
	MemoryBytes int64
	// KeepScans returns a document without text that OCR did not read as
	// a Document with Scan set (for a vision model) instead of rejecting it
	// no_text_layer.
	KeepScans bool
}

// defaultOCRMaxPages is Config.OCRMaxPages' default.
const defaultOCRMaxPages = 10

// Readers reads every supported input format, one Reader per media type.
type Readers struct {
	byType      map[string]Reader
	pdf         PDFReader
	ocr         OCR
	maxPages    int
	ocrMaxPages int
	budget      *Budget
	keepScans   bool
}

// New returns the readers of cfg.
func New(cfg Config) *Readers {
	if cfg.MaxPages == 0 {
		cfg.MaxPages = 50
	}
	if cfg.OCRMaxPages == 0 {
		cfg.OCRMaxPages = defaultOCRMaxPages
	}
	r := &Readers{byType: map[string]Reader{
		mediaTypeText: textReader{},
		mediaTypeXML:  xmlReader{},
	}, pdf: cfg.PDF, ocr: cfg.OCR, maxPages: cfg.MaxPages, ocrMaxPages: min(cfg.OCRMaxPages, cfg.MaxPages),
		budget: NewBudget(cfg.MemoryBytes), keepScans: cfg.KeepScans}
	for _, mt := range []string{ocr.MediaPNG, ocr.MediaJPEG, ocr.MediaTIFF} {
		r.byType[mt] = imageReader{r: r, mediaType: mt}
	}
	if cfg.PDF != nil {
		r.byType[mediaTypePDF] = pdfReader{r: r}
	} else {
		r.byType[mediaTypePDF] = refuse{ErrNoPDFReader}
	}
	return r
}

// Budget is the memory budget these readers share.
func (r *Readers) Budget() *Budget { return r.budget }

// Read reads data of mediaType into a Document, or returns a
// *extract.Rejection with the read stage's reason (a *LimitError for a
// document over a limit), or another error (a deadline, ErrBusy, a
// deployment fault). opts resumes a read OCR had begun; nil reads it all.
func (r *Readers) Read(ctx context.Context, mediaType string, data []byte, opts *ReadOpts) (*Document, error) {
	rd, ok := r.byType[mediaType]
	if !ok {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	if len(data) == 0 {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	doc, err := rd.Read(ctx, data, opts)
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

// PageImages returns the pages of a scan as images, for a vision model: a
// PDF's pages rendered as PNG; a PNG or JPEG within maxPixels as it came;
// a TIFF's pages, or a larger image, decoded in gray at maxPixels as PNG.
// Each decode or render holds its memory in the budget.
func (r *Readers) PageImages(ctx context.Context, mediaType string, data []byte, maxPixels int) ([][]byte, error) {
	if mediaType != mediaTypePDF {
		return r.imagePages(ctx, mediaType, data, maxPixels)
	}
	if r.pdf == nil {
		return nil, ErrNoPDFReader
	}
	f, err := r.pdf.Read(ctx, data)
	if err != nil {
		return nil, pdfRejection(err)
	}
	out := make([][]byte, 0, len(f.Pages))
	for i := range f.Pages {
		release, err := r.budget.Reserve(ctx, 2*int64(maxPixels)+1<<20)
		if err != nil {
			return nil, err
		}
		img, err := r.pdf.Render(ctx, data, i+1, maxPixels)
		release()
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

func (r *Readers) imagePages(ctx context.Context, mediaType string, data []byte, maxPixels int) ([][]byte, error) {
	im, err := ocr.Open(data, mediaType, r.maxPages)
	if err != nil {
		return nil, imageRejection(err)
	}
	if w, h := im.Size(0); im.Pages() == 1 && mediaType != ocr.MediaTIFF && int64(w)*int64(h) <= int64(maxPixels) {
		return [][]byte{data}, nil
	}
	out := make([][]byte, 0, im.Pages())
	for i := range im.Pages() {
		release, err := r.budget.Reserve(ctx, im.Cost(i, maxPixels)+int64(maxPixels)) // and its PNG
		if err != nil {
			return nil, err
		}
		g, err := im.Gray(i, maxPixels)
		if err != nil {
			release()
			return nil, imageRejection(err)
		}
		var buf bytes.Buffer
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, g)
		release()
		if err != nil {
			return nil, fmt.Errorf("document: encode page image: %w", err)
		}
		out = append(out, buf.Bytes())
	}
	return out, nil
}

type refuse struct{ err error }

func (r refuse) Read(context.Context, []byte, *ReadOpts) (*Document, error) { return nil, r.err }

// textReader reads submitted text: one page, exactly as submitted.
type textReader struct{}

func (textReader) Read(_ context.Context, data []byte, _ *ReadOpts) (*Document, error) {
	if !utf8.Valid(data) {
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	return &Document{Pages: []Page{{Number: 1, Text: string(data), Source: SourceText}}}, nil
}

// xmlReader reads a standalone e-invoice.
type xmlReader struct{}

func (xmlReader) Read(_ context.Context, data []byte, _ *ReadOpts) (*Document, error) {
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
// e-invoice it embeds; a PDF without text is a scan, read by OCR.
type pdfReader struct {
	r *Readers
}

// EInvoiceAttachments are the names under which Factur-X, ZUGFeRD (1.0 and
// 2.x) and XRechnung embed their XML, compared without case.
var EInvoiceAttachments = []string{"factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"}

func (p pdfReader) Read(ctx context.Context, data []byte, opts *ReadOpts) (*Document, error) {
	f, err := p.r.pdf.Read(ctx, data)
	if err != nil {
		return nil, pdfRejection(err)
	}
	doc := &Document{}
	for i, text := range f.Pages {
		doc.Pages = append(doc.Pages, Page{Number: i + 1, Text: text, Source: SourceText})
	}
	embedded(doc, f)
	if doc.EInvoice != nil || doc.HasText() {
		return doc, nil
	}
	if p.r.ocr == nil {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	// A scan: each page rendered in gray and read by OCR.
	if err := p.r.checkScanPages(len(f.Pages)); err != nil {
		return nil, err
	}
	return p.r.ocrDocument(ctx, len(f.Pages), func(i int) (*image.Gray, error) {
		release, err := p.r.budget.Reserve(ctx, renderBytes)
		if err != nil {
			return nil, err
		}
		defer release()
		g, err := p.r.pdf.RenderGray(ctx, data, i+1, ocr.PagePixels)
		switch {
		case err == nil:
			return g, nil
		case ctx.Err() != nil:
			return nil, pdfRejection(err) // a wait for an instance is ErrBusy
		}
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}, opts)
}

// pdfRejection is the reason of a PDF the PDF reader refused, or err as it
// is when it is not a verdict on the document (a deadline).
func pdfRejection(err error) error {
	var pc *pdf.PageCountError
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		return extract.Reject(extract.ReasonEncryptedDocument)
	case errors.As(err, &pc):
		return &LimitError{Reason: extract.ReasonTooManyPages, Need: int64(pc.Pages), Limit: int64(pc.Max)}
	case errors.Is(err, pdf.ErrTooManyPages):
		return extract.Reject(extract.ReasonTooManyPages)
	case errors.Is(err, pdf.ErrUnreadable):
		return extract.Reject(extract.ReasonUnreadableDocument)
	case errors.Is(err, pdf.ErrBusy):
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return err
}

// embedded reads the first e-invoice attachment into doc. One that cannot be
// read, or that the PDF reader left out (too large, a decompression bomb),
// leaves the document to its visible text, flagged: the XML is the legally
// binding part, and a reviewer must know it was not used.
func embedded(doc *Document, f *pdf.File) {
	for _, a := range f.Attachments {
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
	if slices.ContainsFunc(f.Omitted, isEInvoiceAttachment) {
		doc.Flags = append(doc.Flags, extract.FlagEInvoiceUnreadable)
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
