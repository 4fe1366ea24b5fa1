package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/relayops/relayops/internal/llmtest"
)

// scannedPage draws lines of text on a white page of w×h pixels, each glyph
// blown up by scale (a crude scan: what matters is that the pages differ
// and arrive in order).
func scannedPage(lines []string, w, h, scale int) *image.Gray {
	small := image.NewGray(image.Rect(0, 0, (w+scale-1)/scale, (h+scale-1)/scale))
	for i := range small.Pix {
		small.Pix[i] = 0xFF
	}
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.Gray{}), Face: basicfont.Face7x13}
	for i, l := range lines {
		d.Dot = fixed.P(8, 20+15*i)
		d.DrawString(l)
	}
	page := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		row := small.Pix[(y/scale)*small.Stride:]
		for x := range w {
			page.Pix[y*page.Stride+x] = row[x/scale]
		}
	}
	return page
}

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// fingerprint is a page's 8×8 grid of mean gray levels: the same page at
// another size gives nearly the same grid.
func fingerprint(img image.Image) [64]float64 {
	var fp [64]float64
	var n [64]float64
	g, ok := img.(*image.Gray)
	if !ok {
		g = image.NewGray(img.Bounds())
		draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	for y := range h {
		for x := range w {
			k := 8*(y*8/h) + x*8/w
			fp[k] += float64(g.Pix[y*g.Stride+x])
			n[k]++
		}
	}
	for k := range fp {
		fp[k] /= max(1, n[k])
	}
	return fp
}

// nearest is the index of the recorded page fp is closest to.
func nearest(fp [64]float64, pages [][64]float64) int {
	best, bestD := -1, math.Inf(1)
	for i, p := range pages {
		if d := distance(fp, p); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

func distance(a, b [64]float64) float64 {
	var d float64
	for k := range a {
		d += math.Abs(a[k] - b[k])
	}
	return d / 64
}

// scannedDocument is sampleDocument as two scanned pages of 1240×1754
// pixels (A4 at 150 dpi: 2.2 million pixels each).
func scannedDocument(t *testing.T) ([][]byte, []*image.Gray) {
	lines := strings.Split(sampleDocument, "\n")
	p1, p2 := scannedPage(lines[:7], 1240, 1754, 3), scannedPage(lines[7:], 1240, 1754, 3)
	return [][]byte{pngOf(t, p1), pngOf(t, p2)}, []*image.Gray{p1, p2}
}

// truthServer is a fake endpoint that reads the page images it is sent:
// it answers truth when they are the pages of the recorded document, in
// order, and a 400 otherwise; check sees each request first.
func truthServer(t *testing.T, pages []*image.Gray, truth string, check func(llmtest.Request)) func(llmtest.Request) llmtest.Reply {
	want := make([][64]float64, len(pages))
	for i, p := range pages {
		want[i] = fingerprint(p)
	}
	return func(r llmtest.Request) llmtest.Reply {
		if check != nil {
			check(r)
		}
		imgs := r.Images()
		if len(imgs) != len(pages) {
			return llmtest.Error(400, "wrong_pages", "not the recorded document")
		}
		for i, im := range imgs {
			got, _, err := image.Decode(bytes.NewReader(im.Data))
			if err != nil || nearest(fingerprint(got), want) != i {
				return llmtest.Error(400, "wrong_pages", "not the recorded document")
			}
		}
		return llmtest.Completion(truth, 850*int64(len(pages)), 180)
	}
}

func TestModel_ExtractImages_PagesArriveScaledAndFencedAndTheTruthValidates(t *testing.T) {
	t.Parallel()
	pages, drawn := scannedDocument(t)
	var seen []llmtest.Request
	b := setupModel(t, truthServer(t, drawn, answer(t, nil), func(r llmtest.Request) { seen = append(seen, r) }),
		func(c *ModelConfig) { c.Vision, c.ImageMaxPixels = true, 1_000_000 })

	ext, err := b.model.ExtractImages(context.Background(), pages, nil)
	require.NoError(t, err)
	res, err := b.model.Validate(context.Background(), ext)
	require.NoError(t, err)
	var inv Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, "4471", inv.InvoiceNumber)
	require.Equal(t, "30.60", inv.Total)
	require.Equal(t, Source{Extractor: ExtractorLLM, Model: testModel, PromptTokens: 1700, CompletionTokens: 180}, inv.Source)
	require.Equal(t, []ModelCall{{Model: testModel, Outcome: CallOK, PromptTokens: 1700, CompletionTokens: 180, Pages: 2}}, b.observed())

	require.Len(t, seen, 1)
	req := seen[0]
	doc, ok := req.Document()
	require.True(t, ok, "one fence around the pages")
	require.Equal(t, "[image 1]\n[image 2]", doc)
	require.Equal(t, "system", req.Messages[0].Role)
	require.Contains(t, req.Messages[0].Content, "page images")
	require.JSONEq(t, string(must(json.Marshal(answerSchema.JSON()))), string(schemaOf(t, req)))
	for _, im := range req.Images() {
		require.Equal(t, "image/png", im.MediaType)
		require.Equal(t, "high", im.Detail)
		cfg, err := png.DecodeConfig(bytes.NewReader(im.Data))
		require.NoError(t, err)
		require.LessOrEqual(t, cfg.Width*cfg.Height, 1_000_000)
		require.Greater(t, cfg.Width*cfg.Height, 990_000, "scaled to the bound, not below it")
		require.InDelta(t, 1240.0/1754, float64(cfg.Width)/float64(cfg.Height), 0.01, "proportions kept")
	}
}

func TestModel_ExtractImages_PagesInTheWrongOrder_AreNotTheRecordedDocument(t *testing.T) {
	t.Parallel()
	// The fake endpoint tells pages apart: a swap is noticed (it answers
	// 400), so the test above could fail.
	pages, drawn := scannedDocument(t)
	b := setupModel(t, truthServer(t, drawn, answer(t, nil), nil), func(c *ModelConfig) { c.Vision = true })
	_, err := b.model.ExtractImages(context.Background(), [][]byte{pages[1], pages[0]}, nil)
	var me *ModelError
	require.ErrorAs(t, err, &me)
	require.Equal(t, CodeModelBadRequest, me.Code)
}

func TestModel_ExtractImages_PageWithinTheBound_IsSentByteForByte(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	page := scannedPage(strings.Split(sampleDocument, "\n"), 800, 1100, 2)
	require.NoError(t, jpeg.Encode(&buf, page, &jpeg.Options{Quality: 70}))
	b := setupModel(t, truthServer(t, []*image.Gray{page}, answer(t, nil), nil), func(c *ModelConfig) { c.Vision = true })
	_, err := b.model.ExtractImages(context.Background(), [][]byte{buf.Bytes()}, nil)
	require.NoError(t, err)
	imgs := b.srv.Requests()[0].Images()
	require.Len(t, imgs, 1)
	require.Equal(t, "image/jpeg", imgs[0].MediaType)
	require.Equal(t, buf.Bytes(), imgs[0].Data)
}

func TestModel_ExtractImages_InvalidAnswer_ReasksWithThePagesAndCountsBothCalls(t *testing.T) {
	t.Parallel()
	pages, drawn := scannedDocument(t)
	truth := truthServer(t, drawn, answer(t, nil), nil)
	first := true
	b := setupModel(t, func(r llmtest.Request) llmtest.Reply {
		if first {
			first = false
			return llmtest.Completion(`{"documentType":"invoice"}`, 1600, 20)
		}
		return truth(r)
	}, func(c *ModelConfig) { c.Vision = true })

	ext, err := b.model.ExtractImages(context.Background(), pages, nil)
	require.NoError(t, err)
	var e Extraction
	require.NoError(t, json.Unmarshal(ext, &e))
	require.Equal(t, int64(1600+1700), e.Source.PromptTokens)
	require.Equal(t, int64(20+180), e.Source.CompletionTokens)
	require.Equal(t, []string{CallInvalidOutput, CallOK}, b.outcomes())
	for _, c := range b.observed() {
		require.Equal(t, 2, c.Pages)
	}
	second := b.srv.Requests()[1]
	require.Len(t, second.Images(), 2, "the re-ask carries the pages again")
	last := second.Messages[len(second.Messages)-1]
	require.Equal(t, "user", last.Role)
	require.Contains(t, last.Content, "Your answer was rejected")
}

func TestModel_ExtractImages_BadPages_AreUnreadableWithoutACall(t *testing.T) {
	t.Parallel()
	pages, _ := scannedDocument(t)
	b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) },
		func(c *ModelConfig) { c.Vision = true })
	for name, bad := range map[string][][]byte{
		"no pages":                    nil,
		"truncated PNG":               {pages[0][:len(pages[0])/2]},
		"PNG declaring 100000x100000": {pngDeclaring(100000, 100000)},
		"not an image":                {[]byte("%PDF-1.7")},
		"a good page and a bad one":   {pages[0], []byte("GIF89a")},
	} {
		_, err := b.model.ExtractImages(context.Background(), bad, nil)
		var rej *Rejection
		require.ErrorAs(t, err, &rej, name)
		require.Equal(t, ReasonUnreadableDocument, rej.Reason, name)
	}
	require.Zero(t, b.srv.Calls())
}

func TestModel_ExtractImages_VisionOff_IsRefusedWithoutACall(t *testing.T) {
	t.Parallel()
	pages, _ := scannedDocument(t)
	b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) }, nil)
	_, err := b.model.ExtractImages(context.Background(), pages, nil)
	require.True(t, errors.Is(err, ErrVisionDisabled))
	require.Zero(t, b.srv.Calls())
}

func TestNewModel_ImageMaxPixelsTooSmall_IsRefused(t *testing.T) {
	t.Parallel()
	_, err := NewModel(ModelConfig{BaseURL: "http://127.0.0.1:1/v1", Model: testModel, ImageMaxPixels: 1000})
	require.ErrorContains(t, err, "ModelConfig.ImageMaxPixels")
}

// pngDeclaring is a PNG header that declares w×h pixels and holds none.
func pngDeclaring(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8] = 8
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.WriteString("IHDR")
	b.Write(ihdr)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte("IHDR"), ihdr...)))
	return b.Bytes()
}

func schemaOf(t *testing.T, r llmtest.Request) json.RawMessage {
	t.Helper()
	var rf struct {
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	require.NoError(t, json.Unmarshal(r.ResponseFormat, &rf))
	return rf.JSONSchema.Schema
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkImageDataURL measures preparing one A4 page scanned at 300 dpi
// (8.7 million pixels) for the model at the default bound.
func BenchmarkImageDataURL(b *testing.B) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, scannedPage(strings.Split(sampleDocument, "\n"), 2480, 3508, 6)); err != nil {
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		u, err := imageDataURL(buf.Bytes(), DefaultImageMaxPixels)
		if err != nil {
			b.Fatal(err)
		}
		size = len(u)
	}
	b.ReportMetric(float64(size), "url-bytes")
}
