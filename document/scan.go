package document

import (
	"context"
	"errors"
	"image"
	"slices"

	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/extract"
)

// OCR reads the text of one page given as 8-bit gray (package
// document/ocr's Engine).
type OCR interface {
	Gray(ctx context.Context, page *image.Gray) (*ocr.Page, error)
}

// PageRenderer renders one page of a PDF: in gray for OCR, as a PNG for a
// vision model.
type PageRenderer interface {
	RenderGray(ctx context.Context, data []byte, page, maxPixels int) (*image.Gray, error)
	Render(ctx context.Context, data []byte, page, maxPixels int) ([]byte, error)
}

// ReadOpts resume a read that OCR was doing when an earlier attempt ended.
// A nil *ReadOpts reads every page.
type ReadOpts struct {
	// Done are the pages OCR read in an earlier attempt, by page number:
	// they are taken as they are, not read again.
	Done map[int]Page
	// OnPage, when set, is called with each page OCR has just read, before
	// the next one is started (the worker checkpoints it there); an error
	// ends the read with that error.
	OnPage func(Page) error
}

func (o *ReadOpts) done(number int) (Page, bool) {
	if o == nil {
		return Page{}, false
	}
	p, ok := o.Done[number]
	return p, ok && p.Number == number && p.Source == SourceOCR
}

func (o *ReadOpts) read(p Page) error {
	if o == nil || o.OnPage == nil {
		return nil
	}
	return o.OnPage(p)
}

// renderBytes is what rendering one PDF page in gray for OCR holds in the
// process: the page copied out of PDFium (PDFium's own bitmap lives in its
// instance's memory, bounded apart), and a margin.
const renderBytes = ocr.PagePixels + 1<<20

// imageReader reads a scan or a photo: each page image through OCR, or
// no_text_layer without it.
type imageReader struct {
	r         *Readers
	mediaType string
}

func (ir imageReader) Read(ctx context.Context, data []byte, opts *ReadOpts) (*Document, error) {
	im, err := ocr.Open(data, ir.mediaType, ir.r.maxPages)
	if err != nil {
		return nil, imageRejection(err)
	}
	if ir.r.ocr == nil {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	if err := ir.r.checkScanPages(im.Pages()); err != nil {
		return nil, err
	}
	// The whole cost is known from the headers: a page that could never fit
	// is refused before any page is read.
	for i := range im.Pages() {
		if c := im.Cost(i, ocr.PagePixels); c > ir.r.budget.Total() {
			return nil, &LimitError{Reason: extract.ReasonTooLargeToRead, Need: c, Limit: ir.r.budget.Total()}
		}
	}
	return ir.r.ocrDocument(ctx, im.Pages(), func(i int) (*image.Gray, error) {
		release, err := ir.r.budget.Reserve(ctx, im.Cost(i, ocr.PagePixels))
		if err != nil {
			return nil, err
		}
		defer release()
		g, err := im.Gray(i, ocr.PagePixels)
		if err != nil {
			return nil, imageRejection(err)
		}
		return g, nil
	}, opts)
}

// imageRejection is the reason of an image refused by package ocr.
func imageRejection(err error) error {
	var pc *ocr.PageCountError
	switch {
	case errors.As(err, &pc):
		return &LimitError{Reason: extract.ReasonTooManyPages, Need: int64(pc.Pages), Limit: int64(pc.Max)}
	case errors.Is(err, ocr.ErrTooManyPages):
		return extract.Reject(extract.ReasonTooManyPages)
	case errors.Is(err, ocr.ErrImageTooLarge):
		return extract.Reject(extract.ReasonTooLargeToRead) // more pixels than a page may have
	}
	return extract.Reject(extract.ReasonUnreadableDocument)
}

// checkScanPages refuses a scan of more pages than OCR reads, before any
// is read.
func (r *Readers) checkScanPages(n int) error {
	if n > r.ocrMaxPages {
		return &LimitError{Reason: extract.ReasonTooManyPages, Need: int64(n), Limit: int64(r.ocrMaxPages)}
	}
	return nil
}

// ocrDocument reads n pages by OCR, each decoded by decode(i) (which
// reserves and gives back its own memory), into an OCR document:
// expensive, so the worker checkpoints it. A page opts says is done is
// taken as it is; each page read is handed to opts before the next.
func (r *Readers) ocrDocument(ctx context.Context, n int, decode func(i int) (*image.Gray, error), opts *ReadOpts) (*Document, error) {
	doc := &Document{Expensive: true}
	for i := range n {
		if p, ok := opts.done(i + 1); ok {
			doc.Pages = append(doc.Pages, p)
			continue
		}
		page, err := r.ocrPage(ctx, i, decode)
		if err != nil {
			return nil, err
		}
		if err := opts.read(page); err != nil {
			return nil, err
		}
		doc.Pages = append(doc.Pages, page)
	}
	if !doc.HasText() {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	return doc, nil
}

// ocrPage decodes page i and reads it, holding the OCR process's estimated
// memory (and the page's) in the budget while it runs.
func (r *Readers) ocrPage(ctx context.Context, i int, decode func(i int) (*image.Gray, error)) (Page, error) {
	g, err := decode(i)
	if err != nil {
		return Page{}, err
	}
	release, err := r.budget.Reserve(ctx, ocr.ProcessBytes(g.Rect.Dx(), g.Rect.Dy())+int64(len(g.Pix)))
	if err != nil {
		return Page{}, err
	}
	defer release()
	p, err := r.ocr.Gray(ctx, g)
	switch {
	case ctx.Err() != nil:
		return Page{}, ctx.Err() // the attempt's time is up
	case errors.Is(err, ocr.ErrUnreadableImage), errors.Is(err, ocr.ErrImageTooLarge),
		errors.Is(err, ocr.ErrTimeout), errors.Is(err, ocr.ErrFailed):
		return Page{}, extract.Reject(extract.ReasonUnreadableDocument)
	case err != nil:
		return Page{}, err
	}
	page := Page{Number: i + 1, Text: p.Text, Source: SourceOCR, MeanConfidence: p.MeanConfidence}
	for _, s := range p.LowConfidence {
		if !slices.Contains(page.LowConfidenceLines, s.Line) {
			page.LowConfidenceLines = append(page.LowConfidenceLines, s.Line)
		}
	}
	return page, nil
}
