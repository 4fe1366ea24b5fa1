package console_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/jobs"
)

// countingPages is a PDF reader of two-page documents that counts its
// renders.
type countingPages struct{ renders atomic.Int64 }

func (f *countingPages) PageCount(context.Context, []byte) (int, error) { return 2, nil }
func (f *countingPages) Render(context.Context, []byte, int, int) ([]byte, error) {
	f.renders.Add(1)
	return []byte("\x89PNG\r\n\x1a\n"), nil
}

// An operator's page images count against the operator's render limits:
// past them the image answers 429 with Retry-After, and a page rendered
// before is still shown, from the page cache.
func TestPageImage_OverTheOperatorsRenderRate_429WithRetryAfter_KeptPageShown(t *testing.T) {
	t.Parallel()
	pages := &countingPages{}
	b := setup(t, func(c *api.Config) {
		c.Pages = pages
		c.PageLimits = api.PageLimits{RenderRate: api.Rate{Count: 1, Per: time.Minute}}
	})
	k := b.submit(t, "acme:scan-1:v1", jobs.FileContent("application/pdf", "scan.pdf", []byte("%PDF-1.7 two pages")))
	first := b.get(t, "/console/jobs/"+k.String()+"/pages/1", alice)
	require.Equal(t, 200, first.status)
	require.Equal(t, "image/png", first.header.Get("Content-Type"))

	limited := b.get(t, "/console/jobs/"+k.String()+"/pages/2", alice)
	require.Equal(t, 429, limited.status)
	require.Equal(t, "60", limited.header.Get("Retry-After"))
	require.Equal(t, 200, b.get(t, "/console/jobs/"+k.String()+"/pages/1", alice).status, "kept: no render needed")
	require.Equal(t, 200, b.get(t, "/console/jobs/"+k.String()+"/pages/2", bob).status, "another operator has limits of its own")
	require.Equal(t, int64(2), pages.renders.Load())
}
