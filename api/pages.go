package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/pages"
)

// PageLimits bounds what one caller (a tenant, or an operator) may make
// this process spend on PDF pages. Zero fields take package pages'
// defaults.
type PageLimits struct {
	// RenderRate is how many page renders one caller may start per period
	// (a cached page costs none). Default 120 per minute.
	RenderRate Rate
	// RenderConcurrency is how many renders of one caller run at once.
	// Default 1.
	RenderConcurrency int
	// CountConcurrency is how many intake page counts of one caller run at
	// once. Default 1.
	CountConcurrency int
	// CacheBytes bounds the cache of rendered pages. Default 64 MiB;
	// negative: no cache.
	CacheBytes int64
}

// newPageGate builds the gate of the API's PDF pages; nil without a PDF
// reader.
func newPageGate(cfg Config) (*pages.Gate, error) {
	if cfg.Pages == nil {
		return nil, nil
	}
	var render pages.Reader
	if cfg.PageRenders != nil {
		render = cfg.PageRenders
	}
	l := cfg.PageLimits
	g, err := pages.New(pages.Config{
		Intake: cfg.Pages, Render: render,
		RenderRate: l.RenderRate.Count, RenderPer: l.RenderRate.Per,
		RenderConcurrency: l.RenderConcurrency, CountConcurrency: l.CountConcurrency,
		CacheBytes: l.CacheBytes, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("api: Config.PageLimits: %w", err)
	}
	return g, nil
}

// callerOf names the request's caller for the page limits: each tenant
// and each operator has limits of its own.
func callerOf(c echo.Context) string {
	p := principal(c)
	return pageCaller(p.role, p.name)
}

// pageCaller is the name of a caller of role for the page limits.
func pageCaller(r role, name string) string { return r.String() + ":" + name }

// pageLimited is the 429 of a caller over its page limits.
func pageLimited(e *pages.LimitError) *Error {
	msg := "too many page renders or page counts of this caller at once; retry after the Retry-After seconds"
	switch e.Limit {
	case pages.LimitRate:
		msg = "this caller's page render rate limit is reached; retry after the Retry-After seconds"
	case pages.LimitBusy:
		msg = "the page renderer is busy; retry after the Retry-After seconds"
	}
	return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: msg, RetryAfter: e.RetryAfter}
}

// countPages counts the pages of a submitted PDF for the page limit, within
// the caller's page count limits: 0 and no error when the reader cannot
// count it (the read stage rejects it with its reason), a 429 when the
// caller's counts stay busy.
func (s *Server) countPages(ctx context.Context, caller string, data []byte) (int, error) {
	n, err := s.pages.Count(ctx, caller, data)
	var le *pages.LimitError
	switch {
	case errors.As(err, &le):
		return 0, pageLimited(le)
	case err != nil:
		return 0, nil
	}
	return n, nil
}

// getDocumentPage is GET /v1/jobs/{jobId}/document/pages/{page}: one page
// of a PDF input as a PNG image, for the console and for reviewers. A page
// rendered before is answered from the page cache, once the job's input is
// known to be still stored, and a page found unrenderable is 404 at once;
// otherwise the input is read and the page rendered within the caller's
// limits (429 past them).
func (s *Server) getDocumentPage(c echo.Context) error {
	key, err := s.jobKey(c)
	if err != nil {
		return err
	}
	page, err := parsePage(c.Param("page"), s.cfg.MaxPages)
	if err != nil || s.pages == nil {
		return notFound()
	}
	pk := pages.Key{Tenant: key.Tenant, Job: key.String(), Page: page, Pixels: pageImagePixels}
	png, hit, rerr := s.pages.Cached(pk)
	switch {
	case hit && rerr != nil:
		// Known not to render: 404 whether or not the input is still
		// stored, without a store call (a client asking again and again
		// costs no Redis).
	case hit:
		if err := s.inputStored(c, key); err != nil {
			return err
		}
	default:
		_, in, err := s.jobInput(c)
		if err != nil {
			return err
		}
		if in.MediaType != MediaTypePDF {
			return notFound()
		}
		png, rerr = s.pages.Render(c.Request().Context(), callerOf(c), pk, in.Data)
	}
	var le *pages.LimitError
	switch {
	case errors.As(rerr, &le):
		return pageLimited(le)
	case errors.Is(rerr, pages.ErrUnavailable):
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the page renderer is unavailable; retry shortly", Err: rerr}
	case rerr != nil:
		// A page past the end, or a PDF the reader cannot render: the job
		// itself carries the reason (unreadable_document, …).
		return notFound()
	}
	setUntrustedHeaders(c.Response().Header())
	return c.Blob(http.StatusOK, "image/png", png)
}

// inputStored answers as jobInput would for a job whose input is gone (404
// for no job, 409 input_expired), without reading the input.
func (s *Server) inputStored(c echo.Context, key jobs.Key) error {
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	j, err := s.store.Get(ctx, key)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		return notFound()
	case err != nil:
		return fmt.Errorf("api: get %s: %w", key, err)
	case j.InputExpired:
		return inputExpired()
	}
	return nil
}

// parsePage reads a page number of the route: 1..maxPages.
func parsePage(v string, maxPages int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPages {
		return 0, errors.New("api: no such page")
	}
	return n, nil
}

// consolePageError is the console's form of a page limit's refusal: a
// *console.RateLimitError, which it answers 429 with Retry-After.
func consolePageError(err error) error {
	var le *pages.LimitError
	if errors.As(err, &le) {
		return &console.RateLimitError{RetryAfter: le.RetryAfter, Message: pageLimited(le).Message}
	}
	return err
}
