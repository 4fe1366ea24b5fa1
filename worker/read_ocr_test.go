package worker

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/ocr"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/readbomb"
	"github.com/relayops/relayops/jobs"
)

// pagedOCR reads page n of a scan (a page n pixels wide) as "page n", and
// stalls on a page until the attempt's time is up as many times as stall
// says, as a page slow enough to outlast an attempt would.
type pagedOCR struct {
	mu    sync.Mutex
	reads map[int]int // page → times read to the end
	stall map[int]int // page → times still to stall on it
}

func (o *pagedOCR) Gray(ctx context.Context, g *image.Gray) (*ocr.Page, error) {
	n := g.Rect.Dx()
	o.mu.Lock()
	stall := o.stall[n] > 0
	if stall {
		o.stall[n]--
	}
	o.mu.Unlock()
	if stall {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	o.mu.Lock()
	o.reads[n]++
	o.mu.Unlock()
	return &ocr.Page{Text: "page text"}, nil
}

func (o *pagedOCR) times(page int) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reads[page]
}

// scanTIFF is a scan of n blank pages, page i being i pixels wide.
func scanTIFF(n int) []byte {
	pages := make([]*image.Gray, n)
	for i := range pages {
		pages[i] = image.NewGray(image.Rect(0, 0, i+1, 4))
	}
	return readbomb.GrayTIFF(pages)
}

func ocrBundle(t *testing.T, stall map[int]int) (*bundle, *pagedOCR) {
	t.Helper()
	o := &pagedOCR{reads: map[int]int{}, stall: stall}
	return setup(t, &setupOpts{attemptTimeout: 200 * time.Millisecond,
		reader: document.New(document.Config{OCR: o})}), o
}

// An attempt that runs out of time on page 3 of a scan keeps pages 1 and
// 2; the next attempt reads from page 3 on.
func TestHandler_ScanThatOutlastsAnAttempt_ResumesAtThePageNotRead(t *testing.T) {
	t.Parallel()
	b, o := ocrBundle(t, map[int]int{3: 1})
	k := mustKey(t, "acme", "scan-resume", 1)
	b.submit(t, k, jobs.FileContent("image/tiff", "scan.tiff", scanTIFF(4)), 0)

	requireCode(t, b.deliver(k), CodeAttemptTimeout, true)
	ckpts, err := b.store.Checkpoints(b.ctx, k)
	require.NoError(t, err)
	require.Contains(t, ckpts, "read:page:1")
	require.Contains(t, ckpts, "read:page:2")
	require.NotContains(t, ckpts, "read:page:3")
	require.Equal(t, jobs.StateRetrying, b.job(t, k).State)

	_ = b.deliver(k)
	j := b.job(t, k)
	require.Equal(t, 2, j.Attempt)
	require.NotEqual(t, extract.ReasonReadTimeout, j.ErrorReason)
	for page, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 1} {
		require.Equal(t, want, o.times(page), "page %d is read once over both attempts", page)
	}
	if j.State == jobs.StateDeadLettered { // the rules' verdict on "page text"; the read itself is kept
		ckpts, err = b.store.Checkpoints(b.ctx, k)
		require.NoError(t, err)
		require.Contains(t, ckpts, StageRead)
		for n := 1; n <= 4; n++ {
			require.NotContains(t, ckpts, pageStage(n), "the whole read replaced its pages")
		}
	}
}

// An attempt that runs out of time without reading a page can never
// finish the read: read_timeout at once, not three attempts.
func TestHandler_ScanPageThatOutlastsAnAttempt_IsReadTimeout(t *testing.T) {
	t.Parallel()
	b, _ := ocrBundle(t, map[int]int{1: 10})
	k := mustKey(t, "acme", "scan-stuck", 1)
	b.submit(t, k, jobs.FileContent("image/tiff", "scan.tiff", scanTIFF(2)), 0)

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, extract.ReasonReadTimeout, j.ErrorReason)
	require.Equal(t, 1, j.Attempt)
}

// A scan that gains a page per attempt but needs more attempts than the
// job has ends read_timeout on its last attempt, not
// max_attempts_exceeded.
func TestHandler_ScanLongerThanItsAttempts_EndsReadTimeoutOnTheLast(t *testing.T) {
	t.Parallel()
	b, o := ocrBundle(t, map[int]int{2: 1, 3: 1, 4: 1})
	k := mustKey(t, "acme", "scan-long", 1)
	b.submit(t, k, jobs.FileContent("image/tiff", "scan.tiff", scanTIFF(5)), 0)

	requireCode(t, b.deliver(k), CodeAttemptTimeout, true)
	requireCode(t, b.deliver(k), CodeAttemptTimeout, true)
	requireCode(t, b.deliver(k), jobs.CodePermanent, false)
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, 3, j.Attempt)
	require.Equal(t, jobs.CodePermanent, j.ErrorCode)
	require.Equal(t, extract.ReasonReadTimeout, j.ErrorReason)
	require.Equal(t, 1, o.times(1))
	require.Equal(t, 1, o.times(3), "each attempt read one more page")
}
