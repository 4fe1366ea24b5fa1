package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// caches holds one wazero compilation cache per directory for the whole
// process: a second Reader (another test, the api beside the worker) then
// reuses the module compiled in memory instead of loading it again.
var caches sync.Map // dir → wazero.CompilationCache

// startMu makes Readers of one process start one after another: the first
// compiles PDFium into the shared cache and the others find it there,
// instead of each compiling it at once on a cold cache.
var startMu sync.Mutex

// killWait bounds how long a discarded instance's goroutine is awaited after
// its context was cancelled; wazero stops the module at its next check, so
// this is only a guard against a goroutine that never returns.
const killWait = 5 * time.Second

// pool lends PDFium instances and retires each one after RecycleDocuments
// documents or RecycleBytes input bytes, or at once after a failure, a panic
// or a timeout: an instance's memory only grows, and a failed one may be in
// any state.
type pool struct {
	cfg   Config
	inner pdfium.Pool

	mu   sync.Mutex
	uses map[any]*usage // keyed by the instance's implementation, stable for its life

	// abandoned counts documents whose goroutine was still inside PDFium
	// killWait after its instance was killed (it should stay 0: wazero
	// stops the call).
	abandoned atomic.Int64
}

type usage struct {
	documents int
	bytes     int64
}

func newPool(ctx context.Context, cfg Config) (*pool, error) {
	cache, err := compilationCache(cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	runtime := wazero.NewRuntimeConfigCompiler().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(cfg.MaxMemoryBytes / wasmPageBytes)).
		WithCompilationCache(cache)
	startMu.Lock()
	defer startMu.Unlock()
	inner, err := webassembly.Init(webassembly.Config{
		Context:       context.WithoutCancel(ctx),
		MinIdle:       1,
		MaxIdle:       cfg.Instances,
		MaxTotal:      cfg.Instances,
		FSConfig:      wazero.NewFSConfig(), // nothing mounted: the default mounts "/"
		RuntimeConfig: runtime,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		ReuseWorkers:  true,
	})
	if err != nil {
		return nil, fmt.Errorf("pdf: start pdfium: %w", err)
	}
	return &pool{cfg: cfg, inner: inner, uses: map[any]*usage{}}, nil
}

// compilationCache returns the process's cache for dir, creating the
// directory; when dir cannot be created it falls back to a temporary one.
func compilationCache(dir string) (wazero.CompilationCache, error) {
	if c, ok := caches.Load(dir); ok {
		return c.(wazero.CompilationCache), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		dir = filepath.Join(os.TempDir(), "relayops-wazero")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("pdf: config CacheDir: %w", err)
		}
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pdf: config CacheDir: %w", err)
	}
	actual, _ := caches.LoadOrStore(dir, cache)
	return actual.(wazero.CompilationCache), nil
}

// instance is a borrowed PDFium instance. tainted marks one that failed
// inside PDFium (a trap, memory exhausted) while the document as a whole was
// still read: it goes back to no one.
type instance struct {
	pdfium.Pdfium
	tainted bool
}

// errTimeout marks a document that used up DocumentTimeout.
var errTimeout = errors.New("document timeout")

// run lends fn an instance for one document of size bytes. fn runs on its own
// goroutine so that a document that outlives the context, or DocumentTimeout,
// is abandoned: its instance is killed (wazero stops the running call) and
// never returns to the pool. A panic in fn is recovered as ErrUnreadable.
func (p *pool) run(ctx context.Context, size int, fn func(*instance) error) error {
	borrowed, err := p.inner.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrBusy, context.Cause(ctx))
		}
		return fmt.Errorf("pdf: wait for an instance: %w", err)
	}
	inst := &instance{Pdfium: borrowed}
	// The document's own budget starts once it has an instance: waiting in
	// line is not the document's fault.
	docCtx, cancel := context.WithTimeoutCause(ctx, p.cfg.DocumentTimeout, errTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("%w: panic in pdfium", ErrUnreadable)
			}
		}()
		done <- fn(inst)
	}()
	select {
	case err := <-done:
		p.release(inst, size, err)
		return err
	case <-docCtx.Done():
		p.discard(inst)
		select {
		case <-done:
		case <-time.After(killWait):
			p.abandoned.Add(1)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("pdf: %w", context.Cause(ctx))
		}
		return fmt.Errorf("%w: took longer than %s", ErrUnreadable, p.cfg.DocumentTimeout)
	}
}

// release returns a healthy instance to the pool, or retires it when the
// document failed inside PDFium or the instance has done its share.
func (p *pool) release(inst *instance, size int, err error) {
	key := inst.GetImplementation()
	p.mu.Lock()
	u := p.uses[key]
	if u == nil {
		u = &usage{}
		p.uses[key] = u
	}
	u.documents++
	u.bytes += int64(size)
	retire := u.documents >= p.cfg.RecycleDocuments || u.bytes >= p.cfg.RecycleBytes
	p.mu.Unlock()
	if retire || inst.tainted || (err != nil && !isDocumentVerdict(err)) {
		p.discard(inst)
		return
	}
	if inst.Close() != nil {
		p.discard(inst)
	}
}

func (p *pool) discard(inst *instance) {
	key := inst.GetImplementation()
	p.mu.Lock()
	delete(p.uses, key)
	p.mu.Unlock()
	_ = inst.Kill()
}

// isDocumentVerdict reports whether err is a judgement on the document that
// PDFium gave cleanly (a wrong password, too many pages), after which the
// instance is as good as before.
func isDocumentVerdict(err error) bool {
	return errors.Is(err, ErrEncrypted) || errors.Is(err, ErrTooManyPages) || errors.Is(err, errCleanUnreadable)
}

func (p *pool) close() error {
	return p.inner.Close()
}
