package pages

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// errBomb is what fakeReader answers for a document named "bomb".
var errBomb = errors.New("pdf: unreadable: took too long")

// fakeReader renders "png:<page>:<hash of the data>" and counts 3 pages;
// it fails every call on "bomb", and, while hold is set, blocks each call
// until hold is closed or its context ends.
type fakeReader struct {
	renders, counts atomic.Int64
	started         chan struct{} // receives once per call that started
	mu              sync.Mutex
	hold            chan struct{}
}

func newFakeReader() *fakeReader { return &fakeReader{started: make(chan struct{}, 100)} }

func (f *fakeReader) block() { f.mu.Lock(); f.hold = make(chan struct{}); f.mu.Unlock() }
func (f *fakeReader) unblock() {
	f.mu.Lock()
	if f.hold != nil {
		close(f.hold)
		f.hold = nil
	}
	f.mu.Unlock()
}

func (f *fakeReader) wait(ctx context.Context) error {
	f.started <- struct{}{}
	f.mu.Lock()
	h := f.hold
	f.mu.Unlock()
	if h == nil {
		return nil
	}
	select {
	case <-h:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pdf: wait for an instance: %w", context.Cause(ctx))
	}
}

func (f *fakeReader) Render(ctx context.Context, data []byte, page, _ int) ([]byte, error) {
	f.renders.Add(1)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	if string(data) == "bomb" {
		return nil, errBomb
	}
	return fmt.Appendf(nil, "png:%d:%x", page, sha256.Sum256(data)), nil
}

func (f *fakeReader) PageCount(ctx context.Context, data []byte) (int, error) {
	f.counts.Add(1)
	if err := f.wait(ctx); err != nil {
		return 0, err
	}
	if string(data) == "bomb" {
		return 0, errBomb
	}
	return 3, nil
}

type bundle struct {
	ctx            context.Context
	clock          *clock.Stub
	intake, render *fakeReader
	gate           *Gate
}

func setup(t *testing.T, mod func(*Config)) *bundle {
	t.Helper()
	x := &bundle{ctx: context.Background(), clock: clock.NewStub(t0), intake: newFakeReader(), render: newFakeReader()}
	cfg := Config{Intake: x.intake, Render: x.render, Clock: x.clock, Wait: 50 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	g, err := New(cfg)
	require.NoError(t, err)
	x.gate = g
	return x
}

func key(tenant string, page int) Key {
	return Key{Tenant: tenant, Job: tenant + ":inv-1:v1", Page: page, Pixels: 1000}
}

// started waits until n calls of r have started.
func started(t *testing.T, r *fakeReader, n int) {
	t.Helper()
	for range n {
		select {
		case <-r.started:
		case <-time.After(5 * time.Second):
			t.Fatalf("a call of the reader did not start")
		}
	}
}

func TestRender_SamePageAgain_FromTheCacheWithoutARender(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	a, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	require.NoError(t, err)
	b, err := x.gate.Render(x.ctx, "operator:alice", key("acme", 1), []byte("pdf"))
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Equal(t, int64(1), x.render.renders.Load())
	png, hit, err := x.gate.Cached(key("acme", 1))
	require.True(t, hit)
	require.NoError(t, err)
	require.Equal(t, a, png)
	_, hit, _ = x.gate.Cached(key("acme", 2))
	require.False(t, hit, "another page is another entry")
	_, hit, _ = x.gate.Cached(Key{Tenant: "globex", Job: "acme:inv-1:v1", Page: 1, Pixels: 1000})
	require.False(t, hit, "an entry is found by its own tenant only")
}

func TestRender_UnrenderablePage_FailureKeptAndNotRenderedAgain(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	for range 5 {
		_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("bomb"))
		require.ErrorIs(t, err, errBomb)
	}
	require.Equal(t, int64(1), x.render.renders.Load(), "a bomb costs one render, not one per request")
	_, hit, err := x.gate.Cached(key("acme", 1))
	require.True(t, hit)
	require.ErrorIs(t, err, errBomb)
}

func TestRender_KeptUntilTheTTL(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.CacheTTL = time.Minute })
	_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	require.NoError(t, err)
	x.clock.Advance(59 * time.Second)
	_, hit, _ := x.gate.Cached(key("acme", 1))
	require.True(t, hit)
	x.clock.Advance(time.Second)
	_, hit, _ = x.gate.Cached(key("acme", 1))
	require.False(t, hit)
	_, err = x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	require.NoError(t, err)
	require.Equal(t, int64(2), x.render.renders.Load())
}

func TestRender_ConcurrentRequestsForOnePage_ShareOneRender(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.Wait = 5 * time.Second })
	x.render.block()
	var wg sync.WaitGroup
	out := make([][]byte, 8)
	for i := range out {
		wg.Go(func() {
			png, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
			require.NoError(t, err)
			out[i] = png
		})
	}
	started(t, x.render, 1)
	redistest.Eventually(t, 5*time.Second, func() bool {
		x.gate.mu.Lock()
		defer x.gate.mu.Unlock()
		return len(x.gate.inflight) == 1
	}, "the render to be in flight")
	x.render.unblock()
	wg.Wait()
	require.Equal(t, int64(1), x.render.renders.Load(), "8 requests, one render")
	for _, png := range out {
		require.Equal(t, out[0], png)
	}
}

func TestRender_OverTheCallersRate_LimitErrorUntilATokenIsBack_CachedPagesStillServed(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.RenderRate, c.RenderPer = 2, time.Minute })
	for p := 1; p <= 2; p++ {
		_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", p), []byte("pdf"))
		require.NoError(t, err)
	}
	_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 3), []byte("pdf"))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, LimitRate, le.Limit)
	require.Equal(t, 30*time.Second, le.RetryAfter, "one token every 30 s")
	_, err = x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	require.NoError(t, err, "a kept page costs no token")
	_, err = x.gate.Render(x.ctx, "tenant:globex", key("globex", 3), []byte("pdf"))
	require.NoError(t, err, "another caller has its own bucket")

	x.clock.Advance(30 * time.Second)
	_, err = x.gate.Render(x.ctx, "tenant:acme", key("acme", 3), []byte("pdf"))
	require.NoError(t, err)
	require.Equal(t, int64(4), x.render.renders.Load())
}

// A caller's renders run one at a time (RenderConcurrency 1): its next
// waits up to Wait and is refused past it, while another caller's render
// runs at once.
func TestRender_CallersSlotBusy_WaitsThenLimitError_AnotherCallerRuns(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	x.render.block()
	done := make(chan error, 1)
	go func() {
		_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("bomb"))
		done <- err
	}()
	started(t, x.render, 1)
	_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 2), []byte("pdf"))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, LimitConcurrency, le.Limit)
	require.Equal(t, time.Second, le.RetryAfter)

	other := make(chan error, 1)
	go func() {
		_, err := x.gate.Render(x.ctx, "tenant:globex", key("globex", 1), []byte("pdf"))
		other <- err
	}()
	started(t, x.render, 1) // globex's render started while acme's holds its slot
	x.render.unblock()
	require.NoError(t, <-other)
	require.ErrorIs(t, <-done, errBomb)
}

func TestRender_CallersQueueFull_RefusedAtOnce(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.Queue = 2; c.Wait = time.Minute })
	x.render.block()
	defer x.render.unblock()
	ctx, cancel := context.WithCancel(x.ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	for p := 1; p <= 3; p++ { // one runs, two wait
		wg.Go(func() { _, _ = x.gate.Render(ctx, "tenant:acme", key("acme", p), []byte("pdf")) })
	}
	started(t, x.render, 1)
	redistest.Eventually(t, 5*time.Second, func() bool {
		x.gate.renders.mu.Lock()
		defer x.gate.renders.mu.Unlock()
		return x.gate.renders.callers["tenant:acme"].waiting == 2
	}, "two renders to wait")
	begin := time.Now()
	_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 4), []byte("pdf"))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, LimitConcurrency, le.Limit)
	require.Less(t, time.Since(begin), 30*time.Second, "refused without waiting its minute")
	cancel()
}

// Intake's page counts run on their own reader: a submission's count
// never waits behind a render, whoever renders.
func TestCount_WhileRendersHoldTheRenderReader_RunsOnTheIntakeReader(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	x.render.block()
	defer x.render.unblock()
	go func() { _, _ = x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("bomb")) }()
	started(t, x.render, 1)
	n, err := x.gate.Count(x.ctx, "tenant:globex", []byte("pdf"))
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Zero(t, x.render.counts.Load())
	require.Equal(t, int64(1), x.intake.counts.Load())
}

func TestCount_CallersCountsBusy_WaitsThenLimitError_AnotherCallerCounts(t *testing.T) {
	t.Parallel()
	x := setup(t, nil)
	x.intake.block()
	done := make(chan error, 1)
	go func() {
		_, err := x.gate.Count(x.ctx, "tenant:acme", []byte("bomb"))
		done <- err
	}()
	started(t, x.intake, 1)
	_, err := x.gate.Count(x.ctx, "tenant:acme", []byte("pdf"))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, LimitConcurrency, le.Limit)
	other := make(chan error, 1)
	go func() {
		_, err := x.gate.Count(x.ctx, "tenant:globex", []byte("pdf"))
		other <- err
	}()
	started(t, x.intake, 1)
	x.intake.unblock()
	require.NoError(t, <-other)
	require.ErrorIs(t, <-done, errBomb)
}

// A render the reader could not start within Timeout (every instance
// busy) is the process's state, not the document's: refused as busy, and
// not kept.
func TestRender_NoInstanceWithinTheTimeout_BusyAndNotKept(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.Timeout = 20 * time.Millisecond })
	x.render.block()
	_, err := x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, LimitBusy, le.Limit)
	_, hit, _ := x.gate.Cached(key("acme", 1))
	require.False(t, hit)
	x.render.unblock()
	_, err = x.gate.Render(x.ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
	require.NoError(t, err)
}

// A render cut short by its own request (the client went away) says
// nothing of the page: not kept, and a request that joined it renders
// the page itself.
func TestRender_CutShortByItsRequest_NotKeptAndTheJoinerRendersItself(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.Wait = 5 * time.Second })
	x.render.block()
	ctx, cancel := context.WithCancel(x.ctx)
	first := make(chan error, 1)
	go func() {
		_, err := x.gate.Render(ctx, "tenant:acme", key("acme", 1), []byte("pdf"))
		first <- err
	}()
	started(t, x.render, 1)
	joined := make(chan error, 1)
	go func() {
		_, err := x.gate.Render(x.ctx, "operator:alice", key("acme", 1), []byte("pdf"))
		joined <- err
	}()
	redistest.Eventually(t, 5*time.Second, func() bool { return x.gate.running(key("acme", 1)) != nil }, "the render to be in flight")
	cancel()
	require.ErrorIs(t, <-first, context.Canceled)
	started(t, x.render, 1) // the joiner's own render
	x.render.unblock()
	require.NoError(t, <-joined)
	require.Equal(t, int64(2), x.render.renders.Load())
}

func TestCache_BoundedInBytes_LeastRecentlyUsedOut(t *testing.T) {
	t.Parallel()
	c := newCache(3*(100+entryOverhead), time.Hour)
	png := make([]byte, 100)
	for p := 1; p <= 3; p++ {
		c.put(key("acme", p), result{png: png}, t0)
	}
	_, ok := c.get(key("acme", 1), t0) // page 1 used: page 2 is now the oldest
	require.True(t, ok)
	c.put(key("acme", 4), result{png: png}, t0)
	_, ok = c.get(key("acme", 2), t0)
	require.False(t, ok)
	for _, p := range []int{1, 3, 4} {
		_, ok = c.get(key("acme", p), t0)
		require.True(t, ok, "page %d", p)
	}
	n, bytes := c.usage()
	require.Equal(t, 3, n)
	require.Equal(t, int64(3*(100+entryOverhead)), bytes)
	c.put(key("acme", 5), result{png: make([]byte, 4*(100+entryOverhead))}, t0)
	_, ok = c.get(key("acme", 5), t0)
	require.False(t, ok, "larger than the whole cache: not kept")
}

func TestNew_BadConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := New(Config{RenderRate: -1, RenderConcurrency: -1, Queue: -2, Wait: -time.Second})
	for _, want := range []string{"Config.Intake", "Config.RenderRate", "Config.RenderConcurrency", "Config.Queue", "Config.Wait"} {
		require.ErrorContains(t, err, want)
	}
}
