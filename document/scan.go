package document

import (
	"context"
	"errors"
	"slices"

	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/extract"
)

// OCR reads the text of one page image (package document/ocr's Engine).
type OCR interface {
	Page(ctx context.Context, image []byte) (*ocr.Page, error)
}

// PageRenderer renders one page of a PDF as an image, for OCR.
type PageRenderer interface {
	Render(ctx context.Context, data []byte, page, maxPixels int) ([]byte, error)
}

// ocrPixels is a page image's size for OCR: about 300 dpi on A4, where
// tesseract reads best.
const ocrPixels = 9_000_000

// imageReader reads a scan or a photo: each page image through OCR, or
// no_text_layer without it.
type imageReader struct {
	ocr       OCR
	mediaType string
	maxPages  int
}

func (r imageReader) Read(ctx context.Context, data []byte) (*Document, error) {
	images, err := ocr.Pages(data, r.mediaType, r.maxPages)
	switch {
	case errors.Is(err, ocr.ErrTooManyPages):
		return nil, extract.Reject(extract.ReasonTooManyPages)
	case err != nil:
		return nil, extract.Reject(extract.ReasonUnreadableDocument)
	}
	if r.ocr == nil {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	return ocrDocument(ctx, r.ocr, len(images), func(i int) ([]byte, error) { return images[i], nil })
}

// ocrDocument reads n page images, each from image(i), into an OCR
// document: expensive, so the worker checkpoints it.
func ocrDocument(ctx context.Context, o OCR, n int, image func(i int) ([]byte, error)) (*Document, error) {
	doc := &Document{Expensive: true}
	for i := range n {
		img, err := image(i)
		if err != nil {
			return nil, err
		}
		p, err := o.Page(ctx, img)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err() // the attempt's time is up: retried
		case errors.Is(err, ocr.ErrUnreadableImage), errors.Is(err, ocr.ErrImageTooLarge),
			errors.Is(err, ocr.ErrTimeout), errors.Is(err, ocr.ErrFailed):
			return nil, extract.Reject(extract.ReasonUnreadableDocument)
		case err != nil:
			return nil, err
		}
		page := Page{Number: i + 1, Text: p.Text, Source: SourceOCR, MeanConfidence: p.MeanConfidence}
		for _, s := range p.LowConfidence {
			if !slices.Contains(page.LowConfidenceLines, s.Line) {
				page.LowConfidenceLines = append(page.LowConfidenceLines, s.Line)
			}
		}
		doc.Pages = append(doc.Pages, page)
	}
	if !doc.HasText() {
		return nil, extract.Reject(extract.ReasonNoTextLayer)
	}
	return doc, nil
}
