package document_test

import (
	"context"
	"errors"
	"image"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/readbomb"
)

// fakeOCR reads every page as text (or as nothing), counting the pages it
// was given and, with a budget, the most that budget held while a page was
// read.
type fakeOCR struct {
	text    string
	pages   atomic.Int64
	budget  *document.Budget
	peak    atomic.Int64
	started chan struct{} // when set, each page signals it started, then waits for release
	release chan struct{}
}

func (f *fakeOCR) Gray(ctx context.Context, g *image.Gray) (*ocr.Page, error) {
	f.pages.Add(1)
	if f.budget != nil {
		for {
			old, now := f.peak.Load(), f.budget.Reserved()
			if now <= old || f.peak.CompareAndSwap(old, now) {
				break
			}
		}
	}
	if f.started != nil {
		f.started <- struct{}{}
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &ocr.Page{Text: f.text}, nil
}

func limitOf(t *testing.T, err error) document.LimitError {
	t.Helper()
	var le *document.LimitError
	require.ErrorAs(t, err, &le)
	return *le
}

// The crafted files of issue 31, each read as the worker reads it (a PDF
// reader, OCR that finds no text): every one ends with a reason code, none
// holds its declared frame, and the fifty-page ones are refused before a
// page is read.
func TestRead_CraftedFiles_EndWithAReasonCode(t *testing.T) {
	t.Parallel()
	readers(t)
	o := &fakeOCR{}
	r := document.New(document.Config{PDF: pdfReader, OCR: o, MaxPages: 50})
	for _, c := range []struct {
		name, media, reason string
		data                []byte
	}{
		{"144-byte progressive JPEG, 6320 × 6320, scan cut short", "image/jpeg", extract.ReasonUnreadableDocument, readbomb.ProgressiveJPEG()},
		{"2 KB PNG, 6324 × 6324 16-bit RGBA, IDAT cut short", "image/png", extract.ReasonUnreadableDocument, readbomb.TruncatedPNG()},
		{"311 KB deflate TIFF, 6324 × 6324 16-bit RGBA", "image/tiff", extract.ReasonNoTextLayer, readbomb.DeflateTIFF()},
		{"318 KB TIFF of 50 pages sharing one strip", "image/tiff", extract.ReasonTooManyPages, readbomb.SharedStripTIFF(50)},
		{"PDF of 50 pages drawing one dense scan", "application/pdf", extract.ReasonTooManyPages, readbomb.ScanPDF(50)},
	} {
		start := time.Now()
		_, err := r.Read(context.Background(), c.media, c.data, nil)
		require.Equal(t, c.reason, reasonOf(t, err), c.name)
		t.Logf("%-55s %7d bytes: %s in %v", c.name, len(c.data), c.reason, time.Since(start).Round(time.Millisecond))
		if c.reason == extract.ReasonTooManyPages {
			require.Equal(t, document.LimitError{Reason: c.reason, Need: 50, Limit: 10}, limitOf(t, err), "%s: the real page count", c.name)
		}
	}
	require.Equal(t, int64(1), o.pages.Load(), "only the one-page TIFF reached OCR")
	require.Zero(t, r.Budget().Reserved(), "every reservation was given back")
}

func TestRead_DocumentCostingMoreThanTheWholeBudget_IsTooLargeToRead(t *testing.T) {
	t.Parallel()
	o := &fakeOCR{text: "INVOICE"}
	r := document.New(document.Config{OCR: o, MemoryBytes: 128 << 20})
	// The crafted JPEG made whole: a progressive 6320 × 6320 page keeps its
	// luma's coefficients (4 bytes a pixel, 160 MB) until its last scan.
	whole := append(readbomb.ProgressiveJPEG(), 0xFF, 0xD9)
	_, err := r.Read(context.Background(), "image/jpeg", whole, nil)
	require.Equal(t, extract.ReasonTooLargeToRead, reasonOf(t, err))
	le := limitOf(t, err)
	require.Greater(t, le.Need, int64(150<<20))
	require.Less(t, le.Need, int64(200<<20), "the luma's coefficients, not image/jpeg's 600 MB")
	require.Equal(t, int64(128<<20), le.Limit)
	require.Zero(t, o.pages.Load(), "refused before any page was decoded")

	// A page of more than 40 million pixels is refused from its header.
	big := readbomb.ProgressiveJPEG()
	big[2+69+5], big[2+69+7] = 0x30, 0x30 // SOF2 height and width: 12336 × 12336
	_, err = r.Read(context.Background(), "image/jpeg", append(big, 0xFF, 0xD9), nil)
	require.Equal(t, extract.ReasonTooLargeToRead, reasonOf(t, err))
}

// Twenty reads at once share one budget: what they hold together never
// passes it, the reads that do not fit wait their turn, and every one ends
// once the pages under OCR are done.
func TestRead_ConcurrentReads_StayWithinTheBudget(t *testing.T) {
	t.Parallel()
	page := pagesTIFF(t, 1)
	perPage := ocr.ProcessBytes(32, 16) + 32*16 // what a page under OCR holds
	budget := 2*perPage + perPage/2             // room for two at a time
	o := &fakeOCR{started: make(chan struct{}, 20), release: make(chan struct{})}
	r := document.New(document.Config{OCR: o, MemoryBytes: budget})
	o.budget = r.Budget()
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() { _, errs[i] = r.Read(context.Background(), "image/tiff", page, nil) })
	}
	<-o.started
	<-o.started
	require.Eventually(t, func() bool { return r.Budget().Waits() == 18 }, 10*time.Second, time.Millisecond,
		"the other 18 reads wait for memory")
	require.Equal(t, int64(2), o.pages.Load(), "two pages under OCR, no more")
	close(o.release)
	wg.Wait()
	for _, err := range errs {
		require.Equal(t, extract.ReasonNoTextLayer, reasonOf(t, err))
	}
	require.LessOrEqual(t, o.peak.Load(), budget)
	require.Zero(t, r.Budget().Reserved(), "every reservation was given back")
}

func TestBudget_ReservationThatCannotFit_WaitsUntilItsContextEnds(t *testing.T) {
	t.Parallel()
	b := document.NewBudget(100)
	release, err := b.Reserve(context.Background(), 60)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = b.Reserve(ctx, 60)
	require.ErrorIs(t, err, document.ErrBusy)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var rej *extract.Rejection
	require.False(t, errors.As(err, &rej), "a busy process is not the document's fault")

	got := make(chan error, 1)
	go func() {
		r, err := b.Reserve(context.Background(), 60)
		if err == nil {
			r()
		}
		got <- err
	}()
	release()
	release() // a second call gives nothing back twice
	require.NoError(t, <-got, "the waiting reservation fits once the first is given back")
	require.Zero(t, b.Reserved())

	_, err = b.Reserve(context.Background(), 101)
	require.Equal(t, extract.ReasonTooLargeToRead, reasonOf(t, err))
}

// pagesTIFF is a TIFF of n small pages, each a PNG page's worth of print.
func pagesTIFF(t *testing.T, n int) []byte {
	t.Helper()
	pages := make([]*image.Gray, n)
	for i := range pages {
		pages[i] = image.NewGray(image.Rect(0, 0, 32, 16))
	}
	return readbomb.GrayTIFF(pages)
}

func TestRead_ResumedScan_ReadsOnlyThePagesNotDone(t *testing.T) {
	t.Parallel()
	o := &fakeOCR{text: "INVOICE 7"}
	r := document.New(document.Config{OCR: o})
	data := pagesTIFF(t, 3)
	var read []int
	opts := &document.ReadOpts{
		Done:   map[int]document.Page{1: {Number: 1, Text: "from the checkpoint", Source: document.SourceOCR}},
		OnPage: func(p document.Page) error { read = append(read, p.Number); return nil },
	}
	doc, err := r.Read(context.Background(), "image/tiff", data, opts)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, read, "each page read is handed over before the next")
	require.Equal(t, int64(2), o.pages.Load(), "page 1 was not read again")
	require.Equal(t, "from the checkpoint", doc.Pages[0].Text)
	require.Equal(t, "INVOICE 7", doc.Pages[2].Text)
	require.True(t, doc.Expensive)

	stop := errors.New("checkpoint refused")
	_, err = r.Read(context.Background(), "image/tiff", data, &document.ReadOpts{OnPage: func(document.Page) error { return stop }})
	require.ErrorIs(t, err, stop, "an error of OnPage ends the read")
	require.Equal(t, int64(3), o.pages.Load(), "after page 1")
}

func TestRead_ScanOverTheOCRPageLimit_IsTooManyPagesBeforeAnyPageIsRead(t *testing.T) {
	t.Parallel()
	o := &fakeOCR{text: "x"}
	r := document.New(document.Config{OCR: o, OCRMaxPages: 2})
	_, err := r.Read(context.Background(), "image/tiff", pagesTIFF(t, 3), nil)
	require.Equal(t, document.LimitError{Reason: extract.ReasonTooManyPages, Need: 3, Limit: 2}, limitOf(t, err))
	require.Zero(t, o.pages.Load())
	_, err = document.New(document.Config{OCRMaxPages: 2}).Read(context.Background(), "image/tiff", pagesTIFF(t, 3), nil)
	require.Equal(t, extract.ReasonNoTextLayer, reasonOf(t, err), "without OCR the limit does not apply: nothing is read")
}

// A Factur-X PDF whose embedded XML the PDF reader left out (over its size
// limit; a decompression bomb is left out the same way) is read from its
// visible text, flagged like one whose XML is malformed.
func TestRead_HybridPDFWhoseXMLWasLeftOut_IsFlaggedUnreadable(t *testing.T) {
	t.Parallel()
	small, err := pdf.New(context.Background(), pdf.Config{MaxAttachmentBytes: 64, Instances: 1})
	require.NoError(t, err)
	t.Cleanup(func() { small.Close() })
	doc, err := document.New(document.Config{PDF: small}).Read(context.Background(), "application/pdf",
		pdfFile(t, "mustangproject/EN16931_Einfach.pdf"), nil)
	require.NoError(t, err)
	require.Nil(t, doc.EInvoice)
	require.True(t, doc.HasText(), "read from its visible text")
	require.Equal(t, []string{extract.FlagEInvoiceUnreadable}, doc.Flags)
}
