package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/pages"
)

// countingPages renders "\x89PNG" followed by the page number and a hash
// of the document, and counts its renders.
type countingPages struct {
	n       int
	renders atomic.Int64
}

func (f *countingPages) PageCount(context.Context, []byte) (int, error) { return f.n, nil }

func (f *countingPages) Render(_ context.Context, data []byte, page, _ int) ([]byte, error) {
	f.renders.Add(1)
	if page > f.n {
		return nil, fmt.Errorf("no page %d", page)
	}
	return fmt.Appendf([]byte("\x89PNG\r\n\x1a\n"), "%d:%x", page, sha256.Sum256(data)), nil
}

func setupPages(t *testing.T, limits PageLimits) (*bundle, *countingPages) {
	t.Helper()
	pages := &countingPages{n: 3}
	b := setup(t, &setupOpts{modify: func(c *Config) { c.Pages, c.PageLimits = pages, limits }})
	return b, pages
}

func pagePath(job string, page int) string {
	return fmt.Sprintf("/v1/jobs/%s/document/pages/%d", job, page)
}

func TestGetDocumentPage_OverTheRenderRate_429WithRetryAfter_KeptPagesStillServed(t *testing.T) {
	t.Parallel()
	b, pages := setupPages(t, PageLimits{RenderRate: Rate{Count: 2, Per: time.Minute}})
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).Status)
	for p := 1; p <= 2; p++ {
		require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", p), token: tokAcme}).Status)
	}
	r := b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 3), token: tokAcme})
	e := r.requireError(t, http.StatusTooManyRequests, CodeRateLimited)
	require.Contains(t, e["message"], "page render rate")
	require.Equal(t, "30", r.Header.Get("Retry-After"), "one render every 30 s")

	again := b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAcme})
	require.Equal(t, http.StatusOK, again.Status, "a kept page costs no render")
	require.Equal(t, "image/png", again.Header.Get("Content-Type"))
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 3), token: tokAlice}).Status,
		"an operator has limits of its own")
	require.Equal(t, int64(3), pages.renders.Load())

	b.clock.Advance(30 * time.Second)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 3), token: tokAcme}).Status)
	require.Equal(t, int64(3), pages.renders.Load(), "kept from the operator's render")
}

// The page cache never crosses tenants: another tenant cannot reach a kept
// page of a job it may not see, and its own job of the same documentId is
// rendered from its own bytes.
func TestGetDocumentPage_Cache_KeptPerTenant(t *testing.T) {
	t.Parallel()
	b, pages := setupPages(t, PageLimits{})
	other := append(bytes.Clone(tinyPDF), []byte("% globex\n")...)
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).Status)
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokGlobex, body: fileBody("inv-1", 1, "application/pdf", other, "")}).Status)

	acme := b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAcme})
	require.Equal(t, http.StatusOK, acme.Status)
	b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
	globex := b.do(t, call{method: "GET", path: pagePath("globex:inv-1:v1", 1), token: tokGlobex})
	require.Equal(t, http.StatusOK, globex.Status)
	require.NotEqual(t, acme.Body, globex.Body, "globex's page is rendered from globex's document")
	require.Equal(t, int64(2), pages.renders.Load())
	for range 3 {
		require.Equal(t, globex.Body, b.do(t, call{method: "GET", path: pagePath("globex:inv-1:v1", 1), token: tokGlobex}).Body)
		require.Equal(t, acme.Body, b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAlice}).Body)
	}
	require.Equal(t, int64(2), pages.renders.Load(), "both kept")
}

// A kept page is answered only while the job's input is stored: once it
// expired, the page route answers as the document route does.
func TestGetDocumentPage_KeptPageAfterTheInputExpired_Is409InputExpired(t *testing.T) {
	t.Parallel()
	b, _ := setupPages(t, PageLimits{})
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).Status)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAcme}).Status)
	require.NoError(t, b.rdb.Del(context.Background(), inputKeyOf(t, b, "acme:inv-1:v1")).Err())
	b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAcme}).requireError(t, http.StatusConflict, CodeInputExpired)
}

// A page that cannot be rendered is remembered: asking again answers 404
// without rendering again.
func TestGetDocumentPage_UnrenderablePage_404KeptWithoutRenderingAgain(t *testing.T) {
	t.Parallel()
	b, pages := setupPages(t, PageLimits{})
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).Status)
	for range 5 {
		b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 4), token: tokAcme}).requireError(t, http.StatusNotFound, CodeNotFound)
	}
	require.Equal(t, int64(1), pages.renders.Load())
}

// unavailableRenders is a renderer whose processes cannot start.
type unavailableRenders struct{ calls atomic.Int64 }

func (u *unavailableRenders) PageCount(context.Context, []byte) (int, error) {
	u.calls.Add(1)
	return 0, fmt.Errorf("%w: exec: no such file", pages.ErrUnavailable)
}

func (u *unavailableRenders) Render(context.Context, []byte, int, int) ([]byte, error) {
	u.calls.Add(1)
	return nil, fmt.Errorf("%w: exec: no such file", pages.ErrUnavailable)
}

// A renderer that cannot start is the deployment's problem, not the
// page's: 503, nothing kept, the next request tries again; submissions,
// whose page counts do not use it, are not affected.
func TestGetDocumentPage_RendererUnavailable_503NotKept_SubmitsUnaffected(t *testing.T) {
	t.Parallel()
	renders := &unavailableRenders{}
	b := setup(t, &setupOpts{modify: func(c *Config) { c.Pages, c.PageRenders = &countingPages{n: 3}, renders }})
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).Status)
	for range 2 {
		b.do(t, call{method: "GET", path: pagePath("acme:inv-1:v1", 1), token: tokAcme}).requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
	}
	require.Equal(t, int64(2), renders.calls.Load())
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-2", 1, "application/pdf", tinyPDF, "")}).Status)
}
