package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/pages"
	"github.com/relayops/relayops/worker"
)

// Documents is a process's document readers: the PDF reader (PDFium on
// WebAssembly, started once per process: the API's page counts at intake,
// the worker's read stage), the read stage built on it and, in the API,
// the page images' renderer. Close it when the process ends.
type Documents struct {
	PDF     *pdf.Reader
	Readers *document.Readers
	// Renders renders the API's page images apart from PDF
	// (OpenPageRenders); nil: PDF renders them.
	Renders PageRenderer
	cfg     document.Config
}

// PageRenderer renders page images and counts pages for display: a
// pages.Renderer (processes of their own) or, in one process, a pdf.Reader.
type PageRenderer interface {
	pages.Reader
	Close() error
}

// pageRenderTimeout bounds one page image in the API: a page that takes
// longer (a decompression bomb) fails, and the failure is kept in the page
// cache, so it is not tried again for a while. The read stage keeps the
// PDF reader's default (30 s) for whole documents.
const pageRenderTimeout = 10 * time.Second

// OpenPageRenders starts the API's page images apart from the reader that
// counts submitted PDFs' pages, so that a submission never waits behind a
// render: RELAYOPS_PAGE_RENDER_INSTANCES renderer processes running self
// with -render-pages (ServePageRenders), each killed and started again when
// a render outlives its time, at a lower CPU priority. With self empty
// (one process for everything, cmd/dev) they are PDFium instances of this
// process.
func (d *Documents) OpenPageRenders(ctx context.Context, c *config.Config, self string, log *slog.Logger) error {
	if self == "" {
		r, err := pdf.New(ctx, pdf.Config{MaxPages: c.Documents.MaxPages, Instances: c.Pages.RenderInstances,
			DocumentTimeout: pageRenderTimeout})
		if err != nil {
			return fmt.Errorf("app: PDF page renderer: %w", err)
		}
		d.Renders = r
		return nil
	}
	r, err := pages.NewRenderer(pages.RendererConfig{
		Command:   []string{self, "-render-pages", "-max-pages", strconv.Itoa(c.Documents.MaxPages)},
		Processes: c.Pages.RenderInstances, Timeout: pageRenderTimeout + 5*time.Second,
		Logger: log.With("component", "pages.renderer"),
	})
	if err != nil {
		return fmt.Errorf("app: page renderer: %w", err)
	}
	d.Renders = r
	return nil
}

// ServePageRenders is a renderer process of the API (-render-pages): one
// PDFium instance answering the API's page counts and page images on
// standard input and output until the API closes them.
func ServePageRenders(ctx context.Context, maxPages int) error {
	r, err := pdf.New(ctx, pdf.Config{MaxPages: maxPages, Instances: 1, DocumentTimeout: pageRenderTimeout})
	if err != nil {
		return fmt.Errorf("app: PDF page renderer: %w", err)
	}
	defer r.Close()
	return pages.Serve(r, os.Stdin, os.Stdout)
}

// OpenDocuments starts the PDF reader. The first start on a machine
// compiles PDFium (seconds); later ones load wazero's compilation cache.
// The API needs only this (page counts at intake, page images); the worker
// adds OCR with EnableOCR.
func OpenDocuments(ctx context.Context, c *config.Config) (*Documents, error) {
	p, err := pdf.New(ctx, pdf.Config{MaxPages: c.Documents.MaxPages, Instances: c.Documents.PDFInstances})
	if err != nil {
		return nil, fmt.Errorf("app: PDF reader: %w", err)
	}
	d := &Documents{PDF: p, cfg: document.Config{PDF: p, MaxPages: c.Documents.MaxPages,
		OCRMaxPages: c.Documents.OCR.MaxPages, MemoryBytes: c.Documents.ReadMemory}}
	d.Readers = document.New(d.cfg)
	return d, nil
}

// EnableOCR finds the OCR command for the read stage. Without tesseract,
// scans are rejected no_text_layer and log says once how to install it.
// With a vision model, a scan OCR did not read goes to the model as page
// images instead of being rejected.
func (d *Documents) EnableOCR(c *config.Config, log *slog.Logger) error {
	o := c.Documents.OCR
	engine, err := ocr.New(ocr.Config{Command: o.Command, Languages: o.Languages, PageTimeout: o.PageTimeout,
		MinConfidence: float64(o.MinConfidence)})
	switch {
	case err == nil:
		d.cfg.OCR = engine
		log.Info("OCR enabled", "command", o.Command, "languages", engine.Languages())
	case errors.Is(err, ocr.ErrNotInstalled):
		log.Warn("OCR disabled: scans and images are rejected no_text_layer", "advice", err.Error())
	default:
		return fmt.Errorf("app: OCR (RELAYOPS_OCR_*): %w", err)
	}
	d.cfg.KeepScans = c.LLM.Vision && c.UsesModel()
	d.Readers = document.New(d.cfg)
	return nil
}

// Close stops the PDF readers.
func (d *Documents) Close() error {
	if d == nil {
		return nil
	}
	var errs []error
	if d.PDF != nil {
		errs = append(errs, d.PDF.Close())
	}
	if d.Renders != nil {
		errs = append(errs, d.Renders.Close())
	}
	return errors.Join(errs...)
}

// visibleTotal reads the total a hybrid PDF's visible page states with the
// rules extractor (cheap, offline, deterministic), whatever extractor the
// deployment runs: the check must never call a model.
func visibleTotal(rules extract.Extractor) worker.VisibleTotal {
	return func(ctx context.Context, text string) (string, bool) {
		cls, err := rules.Classify(ctx, text)
		if err != nil {
			return "", false
		}
		out, err := rules.Extract(ctx, text, cls)
		if err != nil {
			return "", false
		}
		var x extract.Extraction
		if json.Unmarshal(out, &x) != nil || x.Total == "" {
			return "", false
		}
		return x.Total, true
	}
}
