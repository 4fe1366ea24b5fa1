// Package pdf reads PDF documents: the text of each page laid out as a
// person sees it (lines and columns, like pdftotext -layout), the embedded
// files (the XML of a Factur-X / ZUGFeRD hybrid), and page images.
//
// It runs PDFium compiled to WebAssembly on wazero, in pure Go: no cgo and
// no external program. Every call is bounded: a document gets at most
// Config.DocumentTimeout and Config.MaxMemoryBytes, and an instance that
// exceeded either, failed or panicked is discarded rather than reused.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"strings"

	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Errors of a document, each a permanent verdict on the file: retrying the
// same bytes gives the same answer.
var (
	// ErrEncrypted: the document needs a password to open.
	ErrEncrypted = errors.New("pdf: encrypted document")
	// ErrUnreadable: not a PDF, corrupt, truncated, or too costly to read
	// (time or memory).
	ErrUnreadable = errors.New("pdf: unreadable document")
	// ErrTooManyPages: more pages than Config.MaxPages.
	ErrTooManyPages = errors.New("pdf: too many pages")
	// ErrNoPage: Render was asked for a page the document does not have.
	ErrNoPage = errors.New("pdf: no such page")
	// ErrBusy: the call waited for an instance until its context ended;
	// nothing was read, and the document is not at fault.
	ErrBusy = errors.New("pdf: waited for an instance")
)

// PageCountError is a document with more pages than Config.MaxPages; Pages
// is its real number of pages (see PageCount). It is an ErrTooManyPages.
type PageCountError struct {
	Pages, Max int
}

func (e *PageCountError) Error() string {
	return fmt.Sprintf("%v: %d pages, at most %d", ErrTooManyPages, e.Pages, e.Max)
}

// Is makes a PageCountError an ErrTooManyPages.
func (e *PageCountError) Is(target error) bool { return target == ErrTooManyPages }

// errCleanUnreadable marks an ErrUnreadable that PDFium reported cleanly (it
// refused the file); the instance stays fit for the next document.
var errCleanUnreadable = errors.New("refused by pdfium")

// File is what a PDF holds for the read stage.
type File struct {
	// Pages holds one layout text per page, in order; a page without a
	// text layer (a scan) is "".
	Pages []string
	// Attachments are the embedded files, in the document's order; files
	// larger than Config.MaxAttachmentBytes are left out.
	Attachments []Attachment
	// Omitted names the embedded files that were left out: larger than
	// Config.MaxAttachmentBytes, failing to decompress within the instance's
	// memory (a decompression bomb), or past Config.MaxAttachments. A reader
	// that looks for one by name learns it was there and not read.
	Omitted []string
	// Encrypted reports an encrypted document that opened without a
	// password (only an owner password restricts it).
	Encrypted bool
}

// HasText reports whether any page has text; a document without any is a
// scan (the read stage's no_text_layer).
func (f *File) HasText() bool {
	for _, p := range f.Pages {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}

// Attachment is one embedded file.
type Attachment struct {
	Name string
	Data []byte
}

// Reader reads PDF documents with a pool of PDFium instances. It is safe for
// concurrent use; at most Config.Instances documents are read at once.
type Reader struct {
	cfg  Config
	pool *pool
}

// New starts a Reader: it compiles PDFium (or loads it from the compilation
// cache) and starts the first instance. The instances do not depend on ctx
// once New returns.
func New(ctx context.Context, cfg Config) (*Reader, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p, err := newPool(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Reader{cfg: cfg, pool: p}, nil
}

// Close stops every instance. Calls in flight fail.
func (r *Reader) Close() error {
	return r.pool.close()
}

// Read returns the layout text of every page and the embedded files.
func (r *Reader) Read(ctx context.Context, data []byte) (*File, error) {
	var file *File
	err := r.withDocument(ctx, data, func(inst *instance, doc references.FPDF_DOCUMENT, pages int) error {
		f, err := r.readFile(inst, doc, pages)
		file = f
		return err
	})
	return file, err
}

// PageCount returns the number of pages (pageCount's); it does not refuse
// a document over Config.MaxPages, so the caller can state the count it
// refuses.
func (r *Reader) PageCount(ctx context.Context, data []byte) (int, error) {
	var count int
	err := r.open(ctx, data, func(inst *instance, doc references.FPDF_DOCUMENT) error {
		n, err := pageCount(inst, doc)
		count = n
		return err
	})
	return count, err
}

// pageCount is the number of pages the document really has. PDFium takes
// the page tree's /Count when it is plausible, and a crafted tree may
// claim more pages than it holds: the last page it claims must be found in
// the tree, else the count is the number of pages that are (a binary
// search, a few look-ups).
func pageCount(inst *instance, doc references.FPDF_DOCUMENT) (int, error) {
	n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return 0, unreadable(err)
	}
	exists := func(i int) bool {
		_, err := inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: doc, Index: i})
		return err == nil
	}
	count := n.PageCount
	if count < 1 || exists(count-1) {
		return count, nil
	}
	lo, hi := 0, count-1 // pages [0, lo) exist; page hi does not
	for lo < hi {
		mid := (lo + hi) / 2
		if exists(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// Render returns a PNG of page (1-based), scaled to fit maxPixels
// (width × height); maxPixels 0 means Config.MaxRenderPixels, and no call
// exceeds 16 MP.
func (r *Reader) Render(ctx context.Context, data []byte, page int, maxPixels int) ([]byte, error) {
	maxPixels = renderBudget(maxPixels, r.cfg.MaxRenderPixels)
	var out []byte
	err := r.withDocument(ctx, data, func(inst *instance, doc references.FPDF_DOCUMENT, pages int) error {
		if page < 1 || page > pages {
			return fmt.Errorf("%w: page %d of %d", ErrNoPage, page, pages)
		}
		png, err := renderPage(inst, doc, page-1, maxPixels)
		out = png
		return err
	})
	return out, err
}

// RenderGray renders page (1-based) as 8-bit gray on white, scaled to fit
// maxPixels like Render, for OCR: PDFium draws in gray, and no PNG is
// encoded or decoded. The image is the caller's (copied out of the
// instance's memory): maxPixels bytes at most.
func (r *Reader) RenderGray(ctx context.Context, data []byte, page int, maxPixels int) (*image.Gray, error) {
	maxPixels = renderBudget(maxPixels, r.cfg.MaxRenderPixels)
	var out *image.Gray
	err := r.withDocument(ctx, data, func(inst *instance, doc references.FPDF_DOCUMENT, pages int) error {
		if page < 1 || page > pages {
			return fmt.Errorf("%w: page %d of %d", ErrNoPage, page, pages)
		}
		g, err := renderGray(inst, doc, page-1, maxPixels)
		out = g
		return err
	})
	return out, err
}

// withDocument opens data, refuses more than MaxPages, and calls fn.
func (r *Reader) withDocument(ctx context.Context, data []byte, fn func(*instance, references.FPDF_DOCUMENT, int) error) error {
	return r.open(ctx, data, func(inst *instance, doc references.FPDF_DOCUMENT) error {
		n, err := pageCount(inst, doc)
		if err != nil {
			return err
		}
		if n > r.cfg.MaxPages {
			return &PageCountError{Pages: n, Max: r.cfg.MaxPages}
		}
		if n < 1 {
			return fmt.Errorf("%w: no pages: %w", ErrUnreadable, errCleanUnreadable)
		}
		return fn(inst, doc, n)
	})
}

// open loads data into an instance and calls fn with the open document.
// Data that does not start like a PDF never reaches PDFium.
func (r *Reader) open(ctx context.Context, data []byte, fn func(*instance, references.FPDF_DOCUMENT) error) error {
	if !looksLikePDF(data) {
		return fmt.Errorf("%w: no PDF header", ErrUnreadable)
	}
	return r.pool.run(ctx, len(data), func(inst *instance) error {
		doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
		if err != nil {
			return openError(err)
		}
		defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
		return fn(inst, doc.Document)
	})
}

// looksLikePDF reports whether "%PDF-" appears in the first KiB, where
// readers accept it (some generators put bytes before it).
func looksLikePDF(data []byte) bool {
	return bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-"))
}

// openError classifies PDFium's answer to opening a document. A clean
// refusal leaves the instance usable; anything else (a trap, memory
// exhausted) does not.
func openError(err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return ErrEncrypted
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile),
		errors.Is(err, pdfiumerrors.ErrUnknown), errors.Is(err, pdfiumerrors.ErrPage):
		return fmt.Errorf("%w: %w", ErrUnreadable, errCleanUnreadable)
	}
	return unreadable(err)
}

// unreadable wraps a failure inside PDFium. Its text is PDFium's or
// wazero's (a function name, an address), never the document's content.
func unreadable(err error) error {
	return fmt.Errorf("%w: %v", ErrUnreadable, err)
}

func (r *Reader) readFile(inst *instance, doc references.FPDF_DOCUMENT, pages int) (*File, error) {
	file := &File{Pages: make([]string, pages)}
	rev, err := inst.FPDF_GetSecurityHandlerRevision(&requests.FPDF_GetSecurityHandlerRevision{Document: doc})
	if err != nil {
		return nil, unreadable(err)
	}
	file.Encrypted = rev.SecurityHandlerRevision != -1
	for i := range pages {
		text, err := pageText(inst, doc, i)
		if err != nil {
			return nil, unreadable(err)
		}
		file.Pages[i] = text
	}
	file.Attachments, file.Omitted, err = r.attachments(inst, doc)
	if err != nil {
		return nil, unreadable(err)
	}
	return file, nil
}

// attachments reads up to MaxAttachments embedded files, leaving out those
// over MaxAttachmentBytes. The memory to decode one is bounded by the
// instance's MaxMemoryBytes; one that fails inside PDFium (a decompression
// bomb exhausts the memory) is left out and the instance is not reused.
// What is left out is named in omitted, with the names of the files past
// MaxAttachments (up to maxAttachmentNames entries are looked at).
func (r *Reader) attachments(inst *instance, doc references.FPDF_DOCUMENT) (out []Attachment, omitted []string, err error) {
	count, err := inst.FPDFDoc_GetAttachmentCount(&requests.FPDFDoc_GetAttachmentCount{Document: doc})
	if err != nil {
		return nil, nil, err
	}
	for i := range min(count.AttachmentCount, maxAttachmentNames) {
		a, err := inst.FPDFDoc_GetAttachment(&requests.FPDFDoc_GetAttachment{Document: doc, Index: i})
		if err != nil {
			continue // a broken entry in the name tree: skip it, keep the others
		}
		name, err := inst.FPDFAttachment_GetName(&requests.FPDFAttachment_GetName{Attachment: a.Attachment})
		if err != nil {
			continue
		}
		if i >= r.cfg.MaxAttachments {
			omitted = append(omitted, name.Name)
			continue
		}
		f, err := inst.FPDFAttachment_GetFile(&requests.FPDFAttachment_GetFile{Attachment: a.Attachment})
		if err != nil {
			inst.tainted = true
			omitted = append(omitted, name.Name)
			continue
		}
		if f.Contents == nil || len(f.Contents) > r.cfg.MaxAttachmentBytes {
			omitted = append(omitted, name.Name)
			continue
		}
		out = append(out, Attachment{Name: name.Name, Data: bytes.Clone(f.Contents)})
	}
	return out, omitted, nil
}

// maxAttachmentNames bounds the embedded files whose names are read.
const maxAttachmentNames = 256

// renderPage renders page index (0-based) to fit maxPixels and encodes it.
func renderPage(inst *instance, doc references.FPDF_DOCUMENT, index, maxPixels int) ([]byte, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil {
		return nil, unreadable(err)
	}
	w, h := fitPixels(size.Width, size.Height, maxPixels)
	// Annotations are drawn: a filled-in form's values live in them.
	res, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{Page: page, Width: w, Height: h, RenderFlags: enums.FPDF_RENDER_FLAG_ANNOT})
	if err != nil {
		return nil, unreadable(err)
	}
	defer res.Cleanup()
	return encodePNG(res.Result.RenderedImage)
}

// renderBudget is the pixel budget of one Render call.
func renderBudget(maxPixels, fallback int) int {
	if maxPixels <= 0 {
		return fallback
	}
	return min(maxPixels, maxRenderPixelsCap)
}

// fitPixels scales a page of w × h points to the largest pixel size whose
// area stays within maxPixels, keeping the aspect ratio.
func fitPixels(w, h float64, maxPixels int) (int, int) {
	if w <= 0 || h <= 0 || math.IsNaN(w) || math.IsNaN(h) {
		return 1, 1
	}
	scale := math.Sqrt(float64(maxPixels) / (w * h))
	pw := max(int(math.Floor(w*scale)), 1)
	ph := max(int(math.Floor(h*scale)), 1)
	for pw*ph > maxPixels { // a page of extreme proportions clamped to 1 px
		if pw > ph {
			pw--
		} else {
			ph--
		}
	}
	return pw, ph
}

// renderGray renders page index (0-based) in gray to fit maxPixels and
// copies it out of the instance.
func renderGray(inst *instance, doc references.FPDF_DOCUMENT, index, maxPixels int) (*image.Gray, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil {
		return nil, unreadable(err)
	}
	w, h := fitPixels(size.Width, size.Height, maxPixels)
	res, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{Page: page, Width: w, Height: h,
		RenderFlags: enums.FPDF_RENDER_FLAG_ANNOT, ImageFormat: requests.RenderImageFormatGrayscale})
	if err != nil {
		return nil, unreadable(err)
	}
	defer res.Cleanup()
	src, ok := res.Result.RenderedImage.(*image.Gray)
	if !ok {
		return nil, unreadable(errors.New("pdfium rendered no gray image"))
	}
	b := src.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		copy(out.Pix[y*out.Stride:(y+1)*out.Stride], src.Pix[y*src.Stride:])
	}
	return out, nil
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("pdf: encode png: %w", err)
	}
	return buf.Bytes(), nil
}
