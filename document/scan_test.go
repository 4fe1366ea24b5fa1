package document_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/extract"
)

var (
	ocrOnce   sync.Once
	ocrEngine *ocr.Engine
	ocrErr    error
)

// ocrReaders returns readers with the real tesseract, skipping loudly
// without it (failing when RELAYOPS_REQUIRE_OCR=1, as CI sets).
func ocrReaders(t *testing.T) *document.Readers {
	t.Helper()
	ocrOnce.Do(func() { ocrEngine, ocrErr = ocr.New(ocr.Config{Languages: "deu+eng"}) })
	if errors.Is(ocrErr, ocr.ErrNotInstalled) {
		if os.Getenv("RELAYOPS_REQUIRE_OCR") == "1" {
			t.Fatalf("RELAYOPS_REQUIRE_OCR=1 but %v", ocrErr)
		}
		t.Skipf("SKIP: %v", ocrErr)
	}
	require.NoError(t, ocrErr)
	readers(t) // starts the shared PDF reader
	return document.New(document.Config{PDF: pdfReader, OCR: ocrEngine})
}

func TestRead_ScanWithoutOCR_IsNoTextLayer(t *testing.T) {
	t.Parallel()
	readers(t)
	r := document.New(document.Config{PDF: pdfReader})
	_, err := r.Read(context.Background(), "application/pdf", pdfFile(t, "generated/scan.pdf"), nil)
	require.Equal(t, extract.ReasonNoTextLayer, reasonOf(t, err))
	png, err := pdfReader.Render(context.Background(), pdfFile(t, "mustangproject/EN16931_Einfach.pdf"), 1, 2_000_000)
	require.NoError(t, err)
	_, err = r.Read(context.Background(), "image/png", png, nil)
	require.Equal(t, extract.ReasonNoTextLayer, reasonOf(t, err))
}

func TestRead_ScannedPDFAndPageImage_AreReadByOCR_Expensive(t *testing.T) {
	t.Parallel()
	r := ocrReaders(t)
	doc, err := r.Read(context.Background(), "application/pdf", pdfFile(t, "generated/scan.pdf"), nil)
	require.NoError(t, err)
	require.True(t, doc.Expensive, "OCR output is checkpointed")
	require.Equal(t, document.SourceOCR, doc.Pages[0].Source)
	require.True(t, doc.HasText())

	// A page of a real invoice as a PNG, as a phone or scanner would send it.
	png, err := pdfReader.Render(context.Background(), pdfFile(t, "mustangproject/EN16931_Einfach.pdf"), 1, 9_000_000)
	require.NoError(t, err)
	doc, err = r.Read(context.Background(), "image/png", png, nil)
	require.NoError(t, err)
	require.Contains(t, doc.Text(), "471102", "the invoice number, read by OCR")
	require.Greater(t, doc.Pages[0].MeanConfidence, 50.0)
}

func TestRead_BadImages_AreUnreadable(t *testing.T) {
	t.Parallel()
	r := document.New(document.Config{})
	for name, data := range map[string][]byte{
		"truncated png": []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"not an image":  []byte("hello"),
	} {
		_, err := r.Read(context.Background(), "image/png", data, nil)
		require.Equal(t, extract.ReasonUnreadableDocument, reasonOf(t, err), name)
	}
}
