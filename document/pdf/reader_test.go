package pdf

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/pdfbuild"
)

// shared is one Reader for the whole test binary: starting PDFium costs a
// compilation (or a cache load), so tests that need no special Config share
// it, in parallel.
var shared struct {
	once sync.Once
	r    *Reader
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.r != nil {
		shared.r.Close()
	}
	os.Exit(code)
}

func sharedReader(t *testing.T) *Reader {
	t.Helper()
	shared.once.Do(func() {
		shared.r, shared.err = New(context.Background(), Config{Instances: 2, MaxPages: 50})
	})
	require.NoError(t, shared.err)
	return shared.r
}

// newReader starts a Reader of its own, for tests that need another Config
// or that break instances on purpose.
func newReader(t *testing.T, cfg Config) *Reader {
	t.Helper()
	r, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", path))
	require.NoError(t, err)
	return data
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRead_RealInvoice_KeepsLinesAndColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		page  int
		lines []string // regular expressions, each matching a whole line
	}{
		{"mustangproject/EN16931_Einfach.pdf", 1, []string{
			`\s*Handelsrechnung \(380\) Nr\. 471102 vom 15\.11\.2024`,
			`\s*1 {2,}Trennblätter A4 {2,}9,9000 {2,}20 Stk {2,}19% {2,}198,00`,
			`\s*Name: {2,}Kunden AG Mitte`,
		}},
		{"mustangproject/EN16931_Einfach.pdf", 2, []string{
			`\s*Zahlbetrag {2,}529,87`,
			`\s*Umsatzsteuer \(S\) {2,}198,00 {2,}19 {2,}37,62`,
		}},
		{"mustangproject/zugferd_invoice.pdf", 1, []string{
			`Rechnungsnummer: 2014-03 {2,}Liefer- und Rechnungsdatum: 11\. Juli 2014`,
			`\s*3 Sturzflug-Geier {2,}1 {2,}180,00 {2,}180,00`,
			`\s*Rechnungssumme brutto {2,}1\.005,55`,
		}},
		{"mustangproject/ZTESTZUGFERD_1_INVDSS_012015738820PDF-1.pdf", 1, []string{
			`\s*Muster GmbH {2,}Rechnungsnummer: {2,}2015738820`,
			`\s*19,00% MwSt\.: {2,}376,37 {2,}71,51 {2,}447,88`,
		}},
		{"mustangproject/validAvoir_FR_type380_BASICWL.pdf", 1, []string{
			`Avoir AV-2017-0005`,
			`\s*Total TTC {2,}-233,47 €`,
			`.*🌐 http://www\.aubonmoulin\.fr http://www\.aubonmoulin\.fr`,
		}},
		{"horstoeko-zugferd/pdf_zf_en16931_1.pdf", 1, []string{
			`HANDELSRECHNUNG \(380\) Nr\. 471102 vom 05\.03\.2018`,
		}},
	}
	r := sharedReader(t)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.file, tt.page), func(t *testing.T) {
			t.Parallel()
			f, err := r.Read(testContext(t), readTestdata(t, tt.file))
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(f.Pages), tt.page)
			text := f.Pages[tt.page-1]
			for _, want := range tt.lines {
				require.Regexp(t, regexp.MustCompile(`(?m)^`+want+`\s*$`), text)
			}
		})
	}
}

func TestRead_HybridPDF_ReturnsEmbeddedXML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, name, root string
	}{
		{"mustangproject/EN16931_Einfach.pdf", "factur-x.xml", "CrossIndustryInvoice"},
		{"mustangproject/EXTENDED_Fremdwaehrung_wdis_fx-pdfa4.pdf", "factur-x.xml", "CrossIndustryInvoice"}, // PDF 2.0
		{"mustangproject/zugferd_invoice.pdf", "ZUGFeRD-invoice.xml", "CrossIndustryDocument"},
		{"mustangproject/ZTESTZUGFERD_1_INVDSS_012015738820PDF-1.pdf", "zugferd-invoice.xml", "CrossIndustryInvoice"}, // a 1.0 name, 2.x content
		{"horstoeko-zugferd/pdf_zf_xrechnung_1.pdf", "xrechnung.xml", "CrossIndustryInvoice"},
		{"horstoeko-zugferd/pdf_zf_en16931_1.pdf", "factur-x.xml", "CrossIndustryInvoice"},
	}
	r := sharedReader(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			f, err := r.Read(testContext(t), readTestdata(t, tt.file))
			require.NoError(t, err)
			require.Len(t, f.Attachments, 1)
			a := f.Attachments[0]
			require.Equal(t, tt.name, a.Name)
			require.True(t, bytes.HasPrefix(bytes.TrimLeft(a.Data, "\xef\xbb\xbf \r\n\t"), []byte("<?xml")), "XML prolog")
			require.True(t, bytes.Contains(a.Data, []byte(":"+tt.root+" ")), "root element %s", tt.root)
			require.True(t, bytes.HasSuffix(bytes.TrimSpace(a.Data), []byte(tt.root+">")), "whole file, up to the closing root")
		})
	}
}

func TestRead_PlainPDF_HasNoAttachments(t *testing.T) {
	t.Parallel()
	f, err := sharedReader(t).Read(testContext(t), readTestdata(t, "horstoeko-zugferd/pdf_plain.pdf"))
	require.NoError(t, err)
	require.Empty(t, f.Attachments)
	require.Len(t, f.Pages, 1)
	require.False(t, f.Encrypted)
}

func TestRead_Scan_GivesEmptyPages(t *testing.T) {
	t.Parallel()
	f, err := sharedReader(t).Read(testContext(t), readTestdata(t, "generated/scan.pdf"))
	require.NoError(t, err)
	require.Equal(t, []string{""}, f.Pages)
	require.False(t, f.HasText())
}

func TestRead_OwnerPasswordOnly_ReadsAndReportsEncrypted(t *testing.T) {
	t.Parallel()
	f, err := sharedReader(t).Read(testContext(t), readTestdata(t, "generated/encrypted-owner-only.pdf"))
	require.NoError(t, err)
	require.True(t, f.Encrypted)
	require.True(t, f.HasText())
	require.Contains(t, f.Pages[0], "471102")
	require.Len(t, f.Attachments, 1)
}

func TestRead_BadFile_IsRejectedWithItsError(t *testing.T) {
	t.Parallel()
	good := readTestdata(t, "mustangproject/EN16931_Einfach.pdf")
	random := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = showText(textAt{72, 700, 12, fmt.Sprintf("Page %d", i+1)})
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty file", nil, ErrUnreadable},
		{"random bytes", random, ErrUnreadable},
		{"random bytes after a PDF header", append([]byte("%PDF-1.7\n"), random...), ErrUnreadable},
		{"header only", []byte("%PDF-1.4\n%%EOF\n"), ErrUnreadable},
		{"truncated to its first 2 KiB", good[:2048], ErrUnreadable},
		{"user password", readTestdata(t, "generated/encrypted-user-password.pdf"), ErrEncrypted},
		{"51 pages", textPDF(t, many, ""), ErrTooManyPages},
		{"no pages", textPDF(t, nil, ""), ErrUnreadable},
	}
	r := sharedReader(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := r.Read(testContext(t), tt.data)
			require.ErrorIs(t, err, tt.want)
			require.Nil(t, f)
		})
	}
}

func TestRead_TruncatedHalf_NeverPanicsAndKeepsWhatIsThere(t *testing.T) {
	t.Parallel()
	// PDFium rebuilds a lost cross-reference table, so a file cut in half
	// may still give its first pages: either that or ErrUnreadable.
	good := readTestdata(t, "mustangproject/EN16931_Einfach.pdf")
	f, err := sharedReader(t).Read(testContext(t), good[:len(good)/2])
	if err != nil {
		require.ErrorIs(t, err, ErrUnreadable)
		return
	}
	require.NotEmpty(t, f.Pages)
}

func TestRead_DeepNesting_IsBounded(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	dicts := strings.Repeat("<< /A ", 50_000) + strings.Repeat(">> ", 50_000)
	tests := []struct {
		name, content, catalog string
	}{
		{"nested arrays in the content stream", showText(textAt{72, 700, 12, "Invoice 4711"}) + deep + " pop\n", ""},
		{"nested dictionaries in the catalog", showText(textAt{72, 700, 12, "Invoice 4711"}), "/Deep " + dicts},
	}
	r := sharedReader(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := r.Read(testContext(t), textPDF(t, []string{tt.content}, tt.catalog))
			if err != nil {
				require.ErrorIs(t, err, ErrUnreadable)
				return
			}
			require.Len(t, f.Pages, 1)
		})
	}
}

func TestRead_FlateBomb_IsBoundedAndTheReaderGoesOn(t *testing.T) {
	t.Parallel()
	r := newReader(t, Config{Instances: 1, MaxMemoryBytes: 64 << 20})
	bomb := zeroBomb(t, 1024) // 1 GiB of zeros in about 1 MiB
	tests := []struct {
		name string
		data func() []byte
	}{
		{"page content", func() []byte {
			var b pdfbuild.Builder
			catalog, pages := b.Reserve(), b.Reserve()
			content := b.Stream("/Filter /FlateDecode", bomb)
			page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R >>", pages, content))
			b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
			b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
			return b.Bytes(catalog)
		}},
		{"embedded file", func() []byte {
			var b pdfbuild.Builder
			file := b.Stream("/Type /EmbeddedFile /Filter /FlateDecode", bomb)
			spec := b.Add(fmt.Sprintf("<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F %d 0 R >> >>", file))
			extra := fmt.Sprintf("/Names << /EmbeddedFiles << /Names [(factur-x.xml) %d 0 R] >> >>", spec)
			catalog, pages := b.Reserve(), b.Reserve()
			font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
			content := b.Stream("", []byte(showText(textAt{72, 700, 12, "Invoice 4711"})))
			page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, content))
			b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
			b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R %s >>", pages, extra))
			return b.Bytes(catalog)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := r.Read(testContext(t), tt.data())
			if err != nil {
				require.ErrorIs(t, err, ErrUnreadable)
			} else {
				require.Empty(t, f.Attachments, "1 GiB is over MaxAttachmentBytes")
				require.Equal(t, []string{"factur-x.xml"}, f.Omitted, "the reader says which file it left out")
				require.Contains(t, f.Pages[0], "Invoice 4711")
			}
			f, err = r.Read(testContext(t), readTestdata(t, "horstoeko-zugferd/pdf_plain.pdf"))
			require.NoError(t, err, "the reader reads the next document")
			require.Len(t, f.Pages, 1)
		})
	}
}

func TestRead_SlowDocument_TimesOutAsUnreadableAndTheReaderGoesOn(t *testing.T) {
	t.Parallel()
	r := newReader(t, Config{Instances: 1, DocumentTimeout: time.Millisecond})
	// 40 pages of 2,000 characters: far more than a millisecond of work.
	line := strings.Repeat("Total 123,45 EUR ", 20)
	pages := make([]string, 40)
	for i := range pages {
		var lines []textAt
		for y := 800.0; y > 60; y -= 7 {
			lines = append(lines, textAt{20, y, 6, line})
		}
		pages[i] = showText(lines...)
	}
	_, err := r.Read(testContext(t), textPDF(t, pages, ""))
	require.ErrorIs(t, err, ErrUnreadable)

	// The instance was discarded and a fresh one answers (a page count is
	// one call, well within the budget once PDFium runs).
	r.cfg.DocumentTimeout = time.Minute
	r.pool.cfg.DocumentTimeout = time.Minute
	n, err := r.PageCount(testContext(t), readTestdata(t, "mustangproject/EN16931_Einfach.pdf"))
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

func TestRead_FormXObjectExplosion_IsStoppedAtTheTimeout(t *testing.T) {
	t.Parallel()
	r := newReader(t, Config{Instances: 1, DocumentTimeout: 2 * time.Second})
	// Each form draws the next one 20 times: 20^7 text objects from a few
	// hundred bytes, far more work than the timeout allows.
	var b pdfbuild.Builder
	catalog, pages := b.Reserve(), b.Reserve()
	font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	next := b.Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /Font << /F1 %d 0 R >> >>", font),
		[]byte("BT /F1 1 Tf (x) Tj ET"))
	for range 7 {
		next = b.Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /X %d 0 R >> >>", next),
			[]byte(strings.Repeat("/X Do ", 20)))
	}
	content := b.Stream("", []byte("/X Do"))
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /X %d 0 R >> >> /Contents %d 0 R >>", pages, next, content))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))

	_, err := r.Read(testContext(t), b.Bytes(catalog))
	require.ErrorIs(t, err, ErrUnreadable)
	require.Zero(t, r.pool.abandoned.Load(), "the call inside PDFium was stopped")
	f, err := r.Read(testContext(t), readTestdata(t, "horstoeko-zugferd/pdf_plain.pdf"))
	require.NoError(t, err, "a fresh instance reads the next document")
	require.Len(t, f.Pages, 1)
}

func TestRead_InstanceIsReplacedAfterItsShare(t *testing.T) {
	t.Parallel()
	data := readTestdata(t, "horstoeko-zugferd/pdf_plain.pdf")
	tests := []struct {
		name    string
		cfg     Config
		tracked int // instances whose use is still counted after three reads
	}{
		{"kept below its share", Config{Instances: 1}, 1},
		{"replaced after each document", Config{Instances: 1, RecycleDocuments: 1}, 0},
		{"replaced after its bytes", Config{Instances: 1, RecycleBytes: int64(len(data))}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newReader(t, tt.cfg)
			for range 3 {
				_, err := r.Read(testContext(t), data)
				require.NoError(t, err)
			}
			r.pool.mu.Lock()
			defer r.pool.mu.Unlock()
			require.Len(t, r.pool.uses, tt.tracked)
		})
	}
}

func TestRead_CallerCancels_ReturnsTheContextError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sharedReader(t).Read(ctx, readTestdata(t, "mustangproject/EN16931_Einfach.pdf"))
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, ErrUnreadable)
}

func TestRead_Concurrent_GivesTheSameText(t *testing.T) {
	t.Parallel()
	r := sharedReader(t)
	data := readTestdata(t, "mustangproject/zugferd_invoice.pdf")
	first, err := r.Read(testContext(t), data)
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([]*File, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = r.Read(testContext(t), data) })
	}
	wg.Wait()
	for i := range results {
		require.NoError(t, errs[i])
		require.Equal(t, first, results[i])
	}
}

func TestPageCount_CountsPagesBeyondTheLimit(t *testing.T) {
	t.Parallel()
	many := make([]string, 60)
	for i := range many {
		many[i] = showText(textAt{72, 700, 12, "x"})
	}
	tests := []struct {
		name string
		data []byte
		want int
		err  error
	}{
		{"real invoice", readTestdata(t, "mustangproject/EXTENDED_Fremdwaehrung_wdis_fx-pdfa4.pdf"), 3, nil},
		{"60 pages", textPDF(t, many, ""), 60, nil},
		{"encrypted", readTestdata(t, "generated/encrypted-user-password.pdf"), 0, ErrEncrypted},
		{"not a PDF", []byte("hello"), 0, ErrUnreadable},
	}
	r := sharedReader(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := r.PageCount(testContext(t), tt.data)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, n)
		})
	}
}

func TestRender_GivesAPNGWithinThePixelBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		page      int
		maxPixels int
		want      int // the budget applied
	}{
		{"default budget", 1, 0, defaultMaxRenderPixels},
		{"small thumbnail", 2, 40_000, 40_000},
	}
	r := sharedReader(t)
	data := readTestdata(t, "mustangproject/EN16931_Einfach.pdf")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := r.Render(testContext(t), data, tt.page, tt.maxPixels)
			require.NoError(t, err)
			img, err := png.Decode(bytes.NewReader(out))
			require.NoError(t, err)
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			require.LessOrEqual(t, w*h, tt.want)
			require.Greater(t, w*h, tt.want*9/10, "uses the budget")
			require.InDelta(t, 595.0/842.0, float64(w)/float64(h), 0.01, "A4 proportions")
		})
	}
}

func TestRenderBudget_DefaultsAndCaps(t *testing.T) {
	t.Parallel()
	require.Equal(t, 1000, renderBudget(0, 1000))
	require.Equal(t, 1000, renderBudget(-5, 1000))
	require.Equal(t, 40_000, renderBudget(40_000, 1000))
	require.Equal(t, maxRenderPixelsCap, renderBudget(100_000_000, 1000))
}

func TestFitPixels_StaysWithinTheBudgetAndKeepsTheShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		w, h      float64
		maxPixels int
	}{
		{"A4 portrait", 595, 842, 2_500_000},
		{"A4 landscape", 842, 595, 2_500_000},
		{"tiny page", 10, 10, 2_500_000},
		{"huge page", 14400, 14400, 2_500_000},
		{"a strip", 14400, 1, 10_000},
		{"degenerate", 0, 842, 2_500_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, h := fitPixels(tt.w, tt.h, tt.maxPixels)
			require.GreaterOrEqual(t, w, 1)
			require.GreaterOrEqual(t, h, 1)
			require.LessOrEqual(t, w*h, tt.maxPixels)
			if tt.w > 0 && tt.h > 1 {
				require.InDelta(t, tt.w/tt.h, float64(w)/float64(h), 0.01*tt.w/tt.h)
			}
		})
	}
}

func TestRender_PageOutOfRange_IsErrNoPage(t *testing.T) {
	t.Parallel()
	r := sharedReader(t)
	data := readTestdata(t, "horstoeko-zugferd/pdf_plain.pdf")
	for _, page := range []int{0, 2, -1} {
		_, err := r.Render(testContext(t), data, page, 0)
		require.ErrorIs(t, err, ErrNoPage)
	}
}

func TestNew_InvalidConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg   Config
		field string
	}{
		{Config{MaxPages: -1}, "MaxPages"},
		{Config{Instances: 100}, "Instances"},
		{Config{MaxMemoryBytes: 1 << 20}, "MaxMemoryBytes"},
		{Config{CacheDir: "relative/dir"}, "CacheDir"},
		{Config{DocumentTimeout: -time.Second}, "DocumentTimeout"},
		{Config{MaxRenderPixels: maxRenderPixelsCap + 1}, "MaxRenderPixels"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			t.Parallel()
			_, err := New(context.Background(), tt.cfg)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.field)
		})
	}
}

func TestErrors_AreDistinct(t *testing.T) {
	t.Parallel()
	all := []error{ErrEncrypted, ErrUnreadable, ErrTooManyPages, ErrNoPage}
	for i, a := range all {
		for j, b := range all {
			require.Equal(t, i == j, errors.Is(a, b))
		}
	}
}

// BenchmarkRead reads one real two-page invoice (or $BENCH_PDF); it reports
// ms per page.
func BenchmarkRead(b *testing.B) {
	r, err := New(context.Background(), Config{Instances: 1})
	require.NoError(b, err)
	defer r.Close()
	data, err := os.ReadFile(cmp.Or(os.Getenv("BENCH_PDF"), "testdata/mustangproject/EN16931_Einfach.pdf"))
	require.NoError(b, err)
	ctx := context.Background()
	pages := 0
	for b.Loop() {
		f, err := r.Read(ctx, data)
		require.NoError(b, err)
		pages += len(f.Pages)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(pages), "ms/page")
}

// A page tree whose /Count claims more pages than its kids hold: PDFium
// trusts the count, the reader counts the pages that are there.
func TestPageCount_TreeThatClaimsMorePages_IsItsRealCount(t *testing.T) {
	t.Parallel()
	r := newReader(t, Config{MaxPages: 5})
	data := textPDF(t, []string{showText(textAt{72, 700, 12, "one"}), showText(textAt{72, 700, 12, "two"})}, "")
	data = bytes.Replace(data, []byte("/Count 2"), []byte("/Count 9"), 1) // same length: the offsets hold
	n, err := r.PageCount(testContext(t), data)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	f, err := r.Read(testContext(t), data)
	require.NoError(t, err, "9 claimed pages are over MaxPages, the 2 real ones are not")
	require.Len(t, f.Pages, 2)
	require.Contains(t, f.Pages[1], "two")

	many := textPDF(t, slices.Repeat([]string{showText(textAt{72, 700, 12, "page"})}, 7), "")
	_, err = r.Read(testContext(t), many)
	var pc *PageCountError
	require.ErrorAs(t, err, &pc)
	require.Equal(t, PageCountError{Pages: 7, Max: 5}, *pc)
	require.ErrorIs(t, err, ErrTooManyPages)
}

func TestRenderGray_IsThePageInGrayWithinItsPixels(t *testing.T) {
	t.Parallel()
	r := sharedReader(t)
	g, err := r.RenderGray(testContext(t), readTestdata(t, "mustangproject/EN16931_Einfach.pdf"), 1, 1_000_000)
	require.NoError(t, err)
	require.LessOrEqual(t, g.Rect.Dx()*g.Rect.Dy(), 1_000_000)
	dark, white := 0, 0
	for _, v := range g.Pix {
		switch {
		case v < 64:
			dark++
		case v == 0xFF:
			white++
		}
	}
	require.Greater(t, white, len(g.Pix)/2, "a white page")
	require.Greater(t, dark, 1000, "with print on it")
}
