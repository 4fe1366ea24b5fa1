package worker

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/llmtest"
	"github.com/relayops/relayops/jobs"
)

// scanPNG is a page without any text layer: an image, as a phone sends it.
func scanPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for x := range 400 {
		img.SetGray(x, 150, color.Gray{Y: 0})
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func TestHandler_ScanWithVision_PageImagesGoToTheModel_ItsAnswerValidated(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewFixed(t, llmtest.Completion(modelAnswer, 1500, 140))
	metrics := NewMetrics(false)
	model, err := extract.NewModel(extract.ModelConfig{
		BaseURL: srv.URL, Model: modelName, APIKey: modelAPIKey, Timeout: 5 * time.Second,
		Observe: metrics.ObserveModelCall, Vision: true,
	})
	require.NoError(t, err)
	b := setup(t, &setupOpts{extractor: model, metrics: metrics, logLevel: slog.LevelInfo,
		reader: document.New(document.Config{KeepScans: true}), vision: model})
	k := mustKey(t, "acme", "photo-1", 1)
	page := scanPNG(t)
	b.submit(t, k, jobs.FileContent("image/png", "photo.png", page), 0)

	require.NoError(t, b.deliver(k))

	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
	require.Equal(t, 1, srv.Calls())
	imgs := srv.Requests()[0].Images()
	require.Len(t, imgs, 1, "the page arrives as one image_url part")
	require.Equal(t, "image/png", imgs[0].MediaType)
	require.Equal(t, page, imgs[0].Data, "a page within the pixel bound is sent as it is")
	res, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, "4471", inv.InvoiceNumber)
	require.Equal(t, int64(1500), inv.Source.PromptTokens)
}

func TestHandler_ScanWithoutVisionOrOCR_IsNoTextLayer(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{reader: document.New(document.Config{})})
	k := mustKey(t, "acme", "photo-2", 1)
	b.submit(t, k, jobs.FileContent("image/png", "photo.png", scanPNG(t)), 0)
	_ = b.deliver(k)
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, extract.ReasonNoTextLayer, j.ErrorReason)
}
