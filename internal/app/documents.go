package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/worker"
)

// Documents is a process's document readers: the PDF reader (PDFium on
// WebAssembly, started once per process, shared by the API's page count
// and page images and the worker's read stage) and the read stage built on
// it. Close it when the process ends.
type Documents struct {
	PDF     *pdf.Reader
	Readers *document.Readers
}

// OpenDocuments starts the PDF reader. The first start on a machine
// compiles PDFium (seconds); later ones load wazero's compilation cache.
func OpenDocuments(ctx context.Context, c *config.Config) (*Documents, error) {
	p, err := pdf.New(ctx, pdf.Config{MaxPages: c.Documents.MaxPages, Instances: c.Documents.PDFInstances})
	if err != nil {
		return nil, fmt.Errorf("app: PDF reader: %w", err)
	}
	return &Documents{PDF: p, Readers: document.New(document.Config{PDF: p})}, nil
}

// Close stops the PDF reader.
func (d *Documents) Close() error {
	if d == nil || d.PDF == nil {
		return nil
	}
	return d.PDF.Close()
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
