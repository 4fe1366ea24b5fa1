package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	readstage "github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/document/pdf"
)

// The scan rows: each PDF's pages rendered as images at a resolution, then
// read by OCR (tesseract, as the worker runs it) instead of from the text
// layer, so the truth stays the PDF's.

// a4Pixels is an A4 page's pixels at dpi (8.27 × 11.69 inches).
func a4Pixels(dpi int) int { return int(8.27*float64(dpi)) * int(11.69*float64(dpi)) }

// scanStats counts the OCR work of a scan run.
type scanStats struct {
	mu    sync.Mutex
	pages int
	cpu   time.Duration
	wall  time.Duration
}

var (
	scanPDF = sync.OnceValues(func() (*pdf.Reader, error) { return pdf.New(context.Background(), pdf.Config{}) })
	scanOCR = sync.OnceValues(func() (*ocr.Engine, error) { return ocr.New(ocr.Config{}) })
	scans   scanStats
	// scanned holds each path's OCR document, so its result is judged as
	// the worker judges one read by OCR (Document.MarkOCR).
	scanned sync.Map
)

// readScan returns the OCR text of a PDF rendered at dpi.
func readScan(dpi int) func(string) (string, error) {
	return func(path string) (string, error) {
		r, err := scanPDF()
		if err != nil {
			return "", err
		}
		engine, err := scanOCR()
		if err != nil {
			return "", err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		n, err := r.PageCount(context.Background(), data)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
		var text strings.Builder
		doc := &readstage.Document{MediaType: "image/png", Expensive: true}
		for page := 1; page <= n; page++ {
			img, err := r.Render(context.Background(), data, page, a4Pixels(dpi))
			if err != nil {
				return "", fmt.Errorf("render %s page %d: %w", path, page, err)
			}
			p, err := engine.Page(context.Background(), img)
			if err != nil {
				return "", fmt.Errorf("OCR %s page %d: %w", path, page, err)
			}
			scans.mu.Lock()
			scans.pages++
			scans.cpu += p.CPUTime
			scans.wall += p.Elapsed
			scans.mu.Unlock()
			text.WriteString(p.Text)
			text.WriteString("\f")
			pg := readstage.Page{Number: page, Text: p.Text, Source: readstage.SourceOCR, MeanConfidence: p.MeanConfidence}
			for _, sp := range p.LowConfidence {
				pg.LowConfidenceLines = append(pg.LowConfidenceLines, sp.Line)
			}
			doc.Pages = append(doc.Pages, pg)
		}
		scanned.Store(path, doc)
		return text.String(), nil
	}
}

// scanSummary is the OCR cost line of a scan run.
func scanSummary(dpi int) string {
	scans.mu.Lock()
	defer scans.mu.Unlock()
	if scans.pages == 0 {
		return ""
	}
	return fmt.Sprintf("OCR at %d dpi: %d pages, %.0f ms CPU per page, %.0f ms wall per page (tesseract, languages %s)",
		dpi, scans.pages, float64(scans.cpu.Milliseconds())/float64(scans.pages),
		float64(scans.wall.Milliseconds())/float64(scans.pages), ocr.DefaultLanguages)
}
