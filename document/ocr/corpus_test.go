package ocr

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scan is one invoice of testdata/ and the words its pages must yield
// (testdata/README.md says where the truth comes from).
type scan struct {
	file                  string
	number, total         string
	numberPage, totalPage int
	// totalLabel is the label on the total's row, "" when the total
	// stands on a row of its own.
	totalLabel string
	// languages: the invoice's own, so a test runs in a third of the
	// time the default languages take.
	languages string
	dpis      []int
}

var scans = []scan{
	{file: "MustangBeispiel20221026.pdf", number: "RE1001", total: "963,12", numberPage: 1, totalPage: 1, totalLabel: "Endsumme", languages: "deu", dpis: []int{150, 300}},
	{file: "EN16931_Einfach.pdf", number: "471102", total: "529,87", numberPage: 1, totalPage: 2, totalLabel: "Bruttosumme", languages: "deu", dpis: []int{150, 300}},
	// Its dense page takes tesseract three times as long as the others.
	{file: "Facture_F20180027.pdf", number: "F20180027", total: "110,00", numberPage: 1, totalPage: 1, languages: "fra", dpis: []int{300}},
}

// requireTool skips the test loudly when a command the OCR tests need is
// missing, and fails it instead when RELAYOPS_REQUIRE_OCR=1 (CI sets it).
func requireTool(t testing.TB, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not installed (apt-get install %s)", name, pkg)
	if os.Getenv("RELAYOPS_REQUIRE_OCR") == "1" {
		t.Fatalf("RELAYOPS_REQUIRE_OCR=1 but %s", msg)
	}
	t.Skipf("SKIPPED: %s; set RELAYOPS_REQUIRE_OCR=1 to make this a failure", msg)
}

func ocrEngine(t testing.TB, languages string) *Engine {
	t.Helper()
	requireTool(t, "tesseract", "tesseract-ocr tesseract-ocr-deu tesseract-ocr-fra")
	e, err := New(Config{Languages: languages, TempDir: t.TempDir()})
	require.NoError(t, err)
	return e
}

// render renders one page of a testdata PDF to a grayscale PNG.
func render(t testing.TB, file string, page, dpi int) []byte {
	t.Helper()
	requireTool(t, "pdftoppm", "poppler-utils")
	out := filepath.Join(t.TempDir(), "page")
	p := fmt.Sprint(page)
	cmd := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-f", p, "-l", p, "-gray", "-png", "-singlefile", filepath.Join("testdata", file), out)
	require.NoError(t, cmd.Run())
	data, err := os.ReadFile(out + ".png")
	require.NoError(t, err)
	return data
}

func ocrPage(t *testing.T, e *Engine, img []byte, label string) *Page {
	t.Helper()
	start := time.Now()
	p, err := e.Page(context.Background(), img)
	require.NoError(t, err)
	t.Logf("%s: %d ms (tesseract %d ms, %d ms CPU), %d words, mean confidence %.1f, %d under the threshold",
		label, time.Since(start).Milliseconds(), p.Elapsed.Milliseconds(), p.CPUTime.Milliseconds(),
		len(p.Words), p.MeanConfidence, len(p.LowConfidence))
	return p
}

// requireWord checks that want is one of the page's words and stands in
// its layout text. A word may carry its label glued on ("Nr.471102": at 150
// dpi a narrow space is lost), which the rules read as label and value.
func requireWord(t *testing.T, p *Page, want, label string) {
	t.Helper()
	found := false
	for _, w := range p.Words {
		text := strings.Trim(w.Text, "€:")
		found = found || text == want || strings.HasSuffix(text, "."+want) || strings.HasSuffix(text, ":"+want)
	}
	require.True(t, found, "%s: no word %q in:\n%s", label, want, p.Text)
	require.Contains(t, p.Text, want, label)
}

func TestCorpus_TruthIsWhatThePDFShows(t *testing.T) {
	t.Parallel()
	requireTool(t, "pdftotext", "poppler-utils")
	for _, s := range scans {
		for _, w := range []struct {
			word string
			page int
		}{{s.number, s.numberPage}, {s.total, s.totalPage}} {
			p := fmt.Sprint(w.page)
			out, err := exec.Command("pdftotext", "-layout", "-f", p, "-l", p, filepath.Join("testdata", s.file), "-").Output()
			require.NoError(t, err)
			require.Contains(t, strings.Fields(string(out)), w.word, s.file)
		}
	}
}

func TestOCR_RenderedInvoicePages_YieldNumberAndTotal(t *testing.T) {
	t.Parallel()
	for _, s := range scans {
		e := ocrEngine(t, s.languages)
		for _, dpi := range s.dpis {
			t.Run(fmt.Sprintf("%s/%ddpi", s.file, dpi), func(t *testing.T) {
				t.Parallel()
				label := fmt.Sprintf("%s p%d %d dpi", s.file, s.numberPage, dpi)
				p := ocrPage(t, e, render(t, s.file, s.numberPage, dpi), label)
				requireWord(t, p, s.number, label)
				if s.file == scans[0].file && dpi == 300 {
					// The total's row reads as the PDF's own text does.
					require.Regexp(t, `Endsumme {2,}963,12 €`, lineWith(t, p.Text, "Endsumme"))
				}
				if s.totalPage != s.numberPage {
					label = fmt.Sprintf("%s p%d %d dpi", s.file, s.totalPage, dpi)
					p = ocrPage(t, e, render(t, s.file, s.totalPage, dpi), label)
				}
				requireTotal(t, p, s, label)
			})
		}
	}
}

// requireTotal checks that the page yields the total, or, where OCR
// misread it, that the word on the total's row is marked uncertain: a
// misread total must never pass for a confident one.
func requireTotal(t *testing.T, p *Page, s scan, label string) {
	t.Helper()
	for _, w := range p.Words {
		if strings.Trim(w.Text, "€:") == s.total {
			return
		}
	}
	require.NotEmpty(t, s.totalLabel, "%s: no word %q in:\n%s", label, s.total, p.Text)
	row := -1
	for _, w := range p.Words {
		if w.Text == s.totalLabel {
			row = w.Line
		}
	}
	require.GreaterOrEqual(t, row, 0, "%s: no %q in:\n%s", label, s.totalLabel, p.Text)
	var last Word
	for _, w := range p.Words {
		if w.Line == row {
			last = w
		}
	}
	require.Less(t, last.Confidence, 60.0, "%s: the total %q read as %q, not marked uncertain", label, s.total, last.Text)
	t.Logf("%s: MISREAD total %q as %q, marked uncertain (confidence %.0f)", label, s.total, last.Text, last.Confidence)
}

// degradations are what a scanner or a phone does to a page, applied
// here so the truth stays the PDF's.
var degradations = []struct {
	name  string
	apply func(t *testing.T, png []byte) []byte
}{
	{"skewed 1.5°", func(t *testing.T, b []byte) []byte { return encodePNG(t, rotate(decodeGray(t, b), 1.5)) }},
	{"noisy", func(t *testing.T, b []byte) []byte { return encodePNG(t, noisy(decodeGray(t, b), 1)) }},
	{"JPEG q35", func(t *testing.T, b []byte) []byte { return encodeJPEG(t, decodeGray(t, b), 35) }},
	{"skewed, noisy, JPEG", func(t *testing.T, b []byte) []byte {
		return encodeJPEG(t, noisy(rotate(decodeGray(t, b), -1), 2), 50)
	}},
}

func TestOCR_DegradedScans_StillYieldNumberAndTotal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: degraded scans take a few seconds each")
	}
	s := scans[0]
	e := ocrEngine(t, s.languages)
	clean := render(t, s.file, 1, 300)
	{
		for _, d := range degradations {
			t.Run(s.file+"/"+d.name, func(t *testing.T) {
				t.Parallel()
				label := fmt.Sprintf("%s 300 dpi %s", s.file, d.name)
				p := ocrPage(t, e, d.apply(t, clean), label)
				requireWord(t, p, s.number, label)
				requireTotal(t, p, s, label)
			})
		}
	}
}

func TestOCR_MemoryBound_FailsThePageInsteadOfTheWorker(t *testing.T) {
	t.Parallel()
	requireTool(t, "tesseract", "tesseract-ocr")
	img := render(t, "MustangBeispiel20221026.pdf", 1, 150)
	e, err := New(Config{Languages: "eng", MaxMemoryBytes: 32 << 20})
	require.NoError(t, err)
	require.NotEmpty(t, e.prlimit, "prlimit (util-linux) sets the bound")
	_, err = e.Page(context.Background(), img)
	require.ErrorIs(t, err, ErrFailed)

	// Without the prlimit command, prlimit(2) sets it after the start.
	e.prlimit = ""
	_, err = e.Page(context.Background(), img)
	require.ErrorIs(t, err, ErrFailed)
}

// BenchmarkPage measures OCR per page (process start included) at 150 and
// 300 dpi, with the default languages and with the two a deployment
// reading German invoices would install.
func BenchmarkPage(b *testing.B) {
	for _, langs := range []string{DefaultLanguages, "deu+eng"} {
		e := ocrEngine(b, langs)
		for _, dpi := range []int{150, 300} {
			img := render(b, "MustangBeispiel20221026.pdf", 1, dpi)
			b.Run(fmt.Sprintf("%s/%ddpi", langs, dpi), func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					p, err := e.Page(context.Background(), img)
					if err != nil {
						b.Fatal(err)
					}
					cpu += p.CPUTime
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
				// CPU time is what the page costs on an idle machine, where
				// wall time is about the same.
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/page")
			})
		}
	}
}

func decodeGray(t *testing.T, data []byte) *image.Gray {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
	return g
}

func encodeJPEG(t *testing.T, img image.Image, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}))
	return buf.Bytes()
}

// rotate turns img by deg degrees about its centre (bilinear, white where
// nothing was), as a page laid crooked on a scanner.
func rotate(src *image.Gray, deg float64) *image.Gray {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dst := image.NewGray(src.Rect)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 255
		}
		return float64(src.Pix[y*src.Stride+x])
	}
	for y := range h {
		for x := range w {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cos*dx+sin*dy+cx, -sin*dx+cos*dy+cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			dst.Pix[y*dst.Stride+x] = uint8(v + 0.5)
		}
	}
	return dst
}

// noisy adds sensor noise (Gaussian, σ 20) and 0.3% dust (black or white
// specks), the same for the same seed.
func noisy(src *image.Gray, seed uint64) *image.Gray {
	r := rand.New(rand.NewPCG(seed, 0x5ca9))
	dst := image.NewGray(src.Rect)
	for i, v := range src.Pix {
		n := float64(v) + r.NormFloat64()*20
		if r.Float64() < 0.003 {
			n = float64(255 * r.IntN(2))
		}
		dst.Pix[i] = uint8(max(0, min(255, n)))
	}
	return dst
}
