// Package pages bounds what the API spends on PDF pages, per caller, so
// that one tenant's pages never cost another tenant its intake. The API
// counts the pages of every submitted PDF (POST /v1/jobs refuses one over
// the page limit) and renders pages as images (GET
// /v1/jobs/{jobId}/document/pages/{page}, the console's original beside
// the fields); both run PDFium, and a rendered page can cost seconds of CPU
// and hundreds of MiB (a decompression bomb takes the longest of all to
// fail). A Gate:
//
//   - runs intake's page counts and the renders on two readers (two pools
//     of PDFium instances), so a submission never waits for an instance
//     behind a render;
//   - bounds each caller (a tenant, or an operator) in renders at once and
//     renders started per period, and in page counts at once, waiting a
//     bounded time for a free slot and refusing with a *LimitError (the
//     API's 429 rate_limited with Retry-After) past it;
//   - keeps rendered pages, page counts and failures, per tenant, job, page
//     and size, in a cache bounded in bytes and age, and lets concurrent
//     requests for the same page share one render.
//
// The limits live in the process's memory: each API replica applies them
// to its own readers, which are what they protect.
package pages

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relayops/relayops/internal/clock"
)

// Reader counts and renders PDF pages (the PDF reader of document/pdf).
type Reader interface {
	PageCount(ctx context.Context, data []byte) (int, error)
	Render(ctx context.Context, data []byte, page, maxPixels int) ([]byte, error)
}

// Config configures a Gate.
type Config struct {
	// Intake counts the pages of submitted PDFs. Renders never use it.
	// Required.
	Intake Reader
	// Render renders pages and counts them for display. Default: Intake
	// (one pool for both: tests and tools).
	Render Reader
	// RenderRate renders may be started by one caller per RenderPer (a
	// token bucket that holds RenderRate); a cached page costs none.
	// Defaults 120 and 1m; RenderPer < 0: no rate limit.
	RenderRate int
	RenderPer  time.Duration
	// RenderConcurrency is how many renders of one caller run at once.
	// Default 1.
	RenderConcurrency int
	// CountConcurrency is how many intake page counts of one caller run at
	// once. Default 1.
	CountConcurrency int
	// Wait is how long a request waits for one of its caller's slots
	// before it is refused. Default 10s.
	Wait time.Duration
	// Queue is how many requests of one caller may wait for its slots at
	// once (per kind: renders, counts); more are refused at once. Default 16.
	Queue int
	// Timeout bounds one render or count, its wait for a PDFium instance
	// included. Default 30s.
	Timeout time.Duration
	// CacheBytes bounds the cache of rendered pages. Default 64 MiB;
	// negative: no cache.
	CacheBytes int64
	// CacheTTL is how long a rendered page, a page count or a failure is
	// kept. Default 10m.
	CacheTTL time.Duration
	Clock    clock.Clock // default clock.Real{}
}

func (c Config) withDefaults() Config {
	if c.Render == nil {
		c.Render = c.Intake
	}
	if c.RenderRate == 0 {
		c.RenderRate = 120
	}
	if c.RenderPer == 0 {
		c.RenderPer = time.Minute
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.RenderConcurrency, 1)
	def(&c.CountConcurrency, 1)
	def(&c.Queue, 16)
	if c.Wait == 0 {
		c.Wait = 10 * time.Second
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 64 << 20
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = 10 * time.Minute
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Intake == nil {
		errs = append(errs, errors.New("pages: Config.Intake is required"))
	}
	if c.RenderRate < 1 {
		errs = append(errs, fmt.Errorf("pages: Config.RenderRate must be positive, got %d", c.RenderRate))
	}
	for name, v := range map[string]int{"RenderConcurrency": c.RenderConcurrency, "CountConcurrency": c.CountConcurrency, "Queue": c.Queue} {
		if v < 1 {
			errs = append(errs, fmt.Errorf("pages: Config.%s must be positive, got %d", name, v))
		}
	}
	if c.Wait < 0 || c.Timeout < 0 || c.CacheTTL < 0 {
		errs = append(errs, errors.New("pages: Config.Wait, Timeout and CacheTTL must not be negative"))
	}
	return errors.Join(errs...)
}

// Gate counts and renders PDF pages within each caller's limits. It is
// safe for concurrent use.
type Gate struct {
	cfg     Config
	renders *lane
	counts  *lane
	cache   *cache

	mu       sync.Mutex
	inflight map[Key]*call // renders and display counts running, by key
}

// call is one render (or display count) that requests for the same key
// share.
type call struct {
	done chan struct{}
	res  result
}

// New checks cfg and returns a Gate.
func New(cfg Config) (*Gate, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	per := cfg.RenderPer
	if per < 0 {
		per = 0
	}
	now := cfg.Clock.Now
	return &Gate{
		cfg:      cfg,
		renders:  newLane(cfg.RenderConcurrency, cfg.Queue, cfg.Wait, cfg.RenderRate, per, now),
		counts:   newLane(cfg.CountConcurrency, cfg.Queue, cfg.Wait, 0, 0, now),
		cache:    newCache(cfg.CacheBytes, cfg.CacheTTL),
		inflight: map[Key]*call{},
	}, nil
}

// Count counts the pages of a PDF that caller submits, on the intake
// reader, within caller's count slots: a *LimitError when they stay busy
// for Wait (or its queue is full), else the reader's answer.
func (g *Gate) Count(ctx context.Context, caller string, data []byte) (int, error) {
	release, err := g.counts.acquire(ctx, caller)
	if err != nil {
		return 0, err
	}
	defer release()
	ctx, cancel := context.WithTimeoutCause(ctx, g.cfg.Timeout, errBusy)
	defer cancel()
	n, err := g.cfg.Intake.PageCount(ctx, data)
	if context.Cause(ctx) == errBusy {
		return 0, &LimitError{Limit: LimitBusy, RetryAfter: time.Second}
	}
	return n, err
}

// Cached returns what is kept for k: hit reports whether anything is, and
// err is the failure kept (the page cannot be rendered).
func (g *Gate) Cached(k Key) (png []byte, hit bool, err error) {
	r, ok := g.cache.get(k, g.cfg.Clock.Now())
	if !ok {
		return nil, false, nil
	}
	return r.png, true, r.err
}

// Render returns page k.Page of data, the PDF of job k.Job, as a PNG within
// k.Pixels: kept from an earlier render, shared with a render of the same
// key in flight, or rendered on the render reader within caller's limits
// (a *LimitError past them).
func (g *Gate) Render(ctx context.Context, caller string, k Key, data []byte) ([]byte, error) {
	if k.Page < 1 {
		return nil, fmt.Errorf("pages: render page %d: pages are numbered from 1", k.Page)
	}
	r, err := g.do(ctx, caller, k, func(ctx context.Context) result {
		png, err := g.cfg.Render.Render(ctx, data, k.Page, k.Pixels)
		return result{png: png, err: err}
	})
	if err != nil {
		return nil, err
	}
	return r.png, r.err
}

// PageCount returns the page count of data, the PDF of job k.Job, for
// display (the console's list of page images), like Render: kept, shared,
// or counted on the render reader within caller's render limits. k.Page
// and k.Pixels are ignored.
func (g *Gate) PageCount(ctx context.Context, caller string, k Key, data []byte) (int, error) {
	k.Page, k.Pixels = 0, 0
	r, err := g.do(ctx, caller, k, func(ctx context.Context) result {
		n, err := g.cfg.Render.PageCount(ctx, data)
		return result{count: n, err: err}
	})
	if err != nil {
		return 0, err
	}
	return r.count, r.err
}

// errBusy is the cause of a render or count that used up Timeout, mostly
// waiting for a PDFium instance: the process is busy, not the document bad.
var errBusy = errors.New("pages: no PDFium instance within the timeout")

// do returns k's result: kept, shared with a call in flight, or computed
// by work under caller's render limits. The error is the request's own
// (its limits, its context); the result carries the document's.
func (g *Gate) do(ctx context.Context, caller string, k Key, work func(context.Context) result) (result, error) {
	for {
		if r, ok := g.cache.get(k, g.cfg.Clock.Now()); ok {
			return r, nil
		}
		if c := g.running(k); c != nil {
			if r, ok, err := g.join(ctx, c); ok || err != nil {
				return r, err
			}
			continue // the render it joined was cut short: try again
		}
		release, err := g.renders.acquire(ctx, caller)
		if err != nil {
			return result{}, err
		}
		c, leader := g.lead(k)
		if !leader {
			release()
			if r, ok, err := g.join(ctx, c); ok || err != nil {
				return r, err
			}
			continue
		}
		r := g.run(ctx, k, c, work)
		release()
		if errors.Is(r.err, errBusy) {
			return result{}, &LimitError{Limit: LimitBusy, RetryAfter: time.Second}
		}
		return r, nil
	}
}

// running returns the call in flight for k, if any.
func (g *Gate) running(k Key) *call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inflight[k]
}

// lead registers a call for k and reports true, or returns the call that
// another request registered meanwhile (or, when one finished meanwhile, a
// done call holding its kept result).
func (g *Gate) lead(k Key) (*call, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.inflight[k]; c != nil {
		return c, false
	}
	if r, ok := g.cache.get(k, g.cfg.Clock.Now()); ok {
		c := &call{done: make(chan struct{}), res: r}
		close(c.done)
		return c, false
	}
	c := &call{done: make(chan struct{})}
	g.inflight[k] = c
	return c, true
}

// join waits for c and returns its result; ok is false when c was cut
// short by its own request (that request's context ended), which says
// nothing of the document.
func (g *Gate) join(ctx context.Context, c *call) (result, bool, error) {
	select {
	case <-c.done:
		return c.res, !cutShort(c.res.err), nil
	case <-ctx.Done():
		return result{}, false, context.Cause(ctx)
	}
}

// run computes c's result with work, keeps it unless it was cut short, and
// hands it to the requests that joined.
func (g *Gate) run(ctx context.Context, k Key, c *call, work func(context.Context) result) result {
	wctx, cancel := context.WithTimeoutCause(ctx, g.cfg.Timeout, errBusy)
	c.res = work(wctx)
	if context.Cause(wctx) == errBusy && ctx.Err() == nil {
		c.res.err = fmt.Errorf("pages: %w", errBusy)
	}
	cancel()
	if !cutShort(c.res.err) && !errors.Is(c.res.err, errBusy) {
		g.cache.put(k, c.res, g.cfg.Clock.Now())
	}
	g.mu.Lock()
	delete(g.inflight, k)
	g.mu.Unlock()
	close(c.done)
	return c.res
}

// cutShort reports whether err ended a render before the document had its
// say: a context that ended (the request went away, the timeout), or no
// renderer process to run it.
func cutShort(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errBusy) || errors.Is(err, ErrUnavailable)
}

// Usage reports the cache's entries and bytes.
func (g *Gate) Usage() (entries int, bytes int64) { return g.cache.usage() }
