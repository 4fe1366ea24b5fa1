package pages

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// RendererConfig configures a Renderer.
type RendererConfig struct {
	// Command starts one renderer process: a program that runs Serve on
	// its standard input and output (the api binary's render mode).
	// Required.
	Command []string
	// Env is the processes' environment. Default: this process's.
	Env []string
	// Processes is how many renderer processes run, each one call at a
	// time. Default 1.
	Processes int
	// Timeout bounds one call in a process (the process's own PDF reader
	// bounds a document below it); past it the process is killed, the call
	// fails as the document's, and the next call starts a new process.
	// Default 15s.
	Timeout time.Duration
	// StartTimeout bounds a process's start, until it says it is ready
	// (its PDF reader loaded); past it the call fails with ErrUnavailable.
	// Default 1m (a first start on a machine compiles PDFium).
	StartTimeout time.Duration
	// Nice is the processes' CPU priority (a Unix nice value, 1..19): under
	// load, renders yield the CPUs to the API's requests. Default 10.
	Nice   int
	Logger *slog.Logger // default: discard
}

func (c RendererConfig) withDefaults() RendererConfig {
	if c.Processes == 0 {
		c.Processes = 1
	}
	if c.Timeout == 0 {
		c.Timeout = 15 * time.Second
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = time.Minute
	}
	if c.Nice == 0 {
		c.Nice = 10
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c RendererConfig) validate() error {
	var errs []error
	if len(c.Command) == 0 {
		errs = append(errs, errors.New("pages: RendererConfig.Command is required"))
	}
	if c.Processes < 1 || c.Processes > 64 {
		errs = append(errs, fmt.Errorf("pages: RendererConfig.Processes must be 1..64, got %d", c.Processes))
	}
	if c.Timeout < 0 || c.StartTimeout < 0 {
		errs = append(errs, errors.New("pages: RendererConfig.Timeout and StartTimeout must not be negative"))
	}
	if c.Nice < 0 || c.Nice > 19 {
		errs = append(errs, fmt.Errorf("pages: RendererConfig.Nice must be 1..19, got %d", c.Nice))
	}
	return errors.Join(errs...)
}

// ErrUnavailable is a call no renderer process could take: one could not
// be started. It says nothing of the document (the gate keeps nothing).
var ErrUnavailable = errors.New("pages: no renderer process could be started")

// Renderer is a Reader whose every call runs in a renderer process of its
// own. PDFium rendering a page may hold a CPU for seconds and grow its
// memory by hundreds of MiB; inside the API's process that also held up
// the API's garbage collector (a goroutine running WebAssembly is seldom
// preempted, and a collection waits for it), and with it every other
// request: another tenant's submissions stalled for up to 1.6 s during
// one such render. A renderer process has its own heap and its own
// collector, runs at a lower CPU priority, and is killed when a call
// outlives Timeout or its caller goes away, which returns its memory at
// once. It is safe for concurrent use; at most Processes calls run at
// once, the others wait (bounded by their context).
type Renderer struct {
	cfg  RendererConfig
	idle chan *child // Processes entries; nil: start a process when taken

	mu     sync.Mutex
	closed bool
}

var _ Reader = (*Renderer)(nil)

// NewRenderer checks cfg and returns a Renderer; its processes start on
// first use.
func NewRenderer(cfg RendererConfig) (*Renderer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Renderer{cfg: cfg, idle: make(chan *child, cfg.Processes)}
	for range cfg.Processes {
		r.idle <- nil
	}
	return r, nil
}

// Render renders page (1-based) of data within maxPixels, in a renderer
// process.
func (r *Renderer) Render(ctx context.Context, data []byte, page, maxPixels int) ([]byte, error) {
	res, err := r.call(ctx, request{Op: opRender, Data: data, Page: page, Pixels: maxPixels})
	if err != nil {
		return nil, err
	}
	return res.PNG, res.err()
}

// PageCount counts the pages of data in a renderer process.
func (r *Renderer) PageCount(ctx context.Context, data []byte) (int, error) {
	res, err := r.call(ctx, request{Op: opCount, Data: data})
	if err != nil {
		return 0, err
	}
	return res.Count, res.err()
}

// Close kills the idle processes and makes later calls fail; a call in
// flight ends with its process.
func (r *Renderer) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	for range r.cfg.Processes {
		select {
		case c := <-r.idle:
			if c != nil {
				c.kill()
			}
			r.idle <- nil
		default:
		}
	}
	return nil
}

// call runs one request in an idle process (started if need be) and
// returns its response. The error is the call's own: ErrUnavailable, the
// context's, or the document's when its process timed out or died on it.
func (r *Renderer) call(ctx context.Context, req request) (response, error) {
	var c *child
	select {
	case c = <-r.idle:
	case <-ctx.Done():
		return response{}, fmt.Errorf("pages: wait for a renderer process: %w", context.Cause(ctx))
	}
	defer func() {
		r.mu.Lock()
		closed := r.closed
		r.mu.Unlock()
		if closed && c != nil {
			c.kill()
			c = nil
		}
		r.idle <- c
	}()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return response{}, fmt.Errorf("%w: the renderer is closed", ErrUnavailable)
	}
	if c == nil || c.exited() {
		var err error
		if c, err = r.start(ctx); err != nil {
			r.cfg.Logger.Warn("page renderer process did not start", "error", err.Error())
			return response{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	res, err := c.do(ctx, req, r.cfg.Timeout)
	if err != nil || res.Err != "" {
		// A process that failed on a document holds what the document made
		// PDFium grow to (a bomb: its whole memory limit) until its
		// collector returns it: start afresh instead.
		c.kill()
		c = nil
	}
	return res, err
}

// start starts one renderer process at the configured priority and waits
// until it says it is ready.
func (r *Renderer) start(ctx context.Context) (*child, error) {
	cmd := exec.Command(r.cfg.Command[0], r.cfg.Command[1:]...)
	cmd.Env = r.cfg.Env
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if err := lowerPriority(cmd.Process.Pid, r.cfg.Nice); err != nil {
		r.cfg.Logger.Debug("page renderer process keeps its priority", "error", err.Error())
	}
	c := &child{cmd: cmd, stdin: stdin, enc: gob.NewEncoder(stdin), dec: gob.NewDecoder(stdout), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	if _, err := c.receive(ctx, r.cfg.StartTimeout); err != nil {
		c.kill()
		return nil, fmt.Errorf("pages: renderer process start: %w", err)
	}
	return c, nil
}

// child is one renderer process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	enc   *gob.Encoder
	dec   *gob.Decoder
	done  chan struct{} // closed once the process exited
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	_ = c.stdin.Close()
	<-c.done
}

// do sends req and waits for the response, up to timeout or ctx's end.
// On an error the process is in an unknown state: the caller kills it.
func (c *child) do(ctx context.Context, req request, timeout time.Duration) (response, error) {
	if err := c.enc.Encode(req); err != nil {
		return response{}, fmt.Errorf("pages: the renderer process ended: %v", err)
	}
	return c.receive(ctx, timeout)
}

// receive waits for the process's next response, up to timeout or ctx's
// end.
func (c *child) receive(ctx context.Context, timeout time.Duration) (response, error) {
	type answer struct {
		res response
		err error
	}
	got := make(chan answer, 1)
	go func() {
		var a answer
		a.err = c.dec.Decode(&a.res)
		got <- a
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case a := <-got:
		if a.err != nil {
			return response{}, fmt.Errorf("pages: the renderer process ended: %v", a.err)
		}
		return a.res, nil
	case <-timer.C:
		return response{}, fmt.Errorf("pages: the renderer process took longer than %s", timeout)
	case <-ctx.Done():
		return response{}, fmt.Errorf("pages: renderer process: %w", context.Cause(ctx))
	}
}

// The protocol between a Renderer and Serve: gob-encoded requests and
// responses, one at a time, on the process's standard input and output.
const (
	opCount  = "count"
	opRender = "render"
)

type request struct {
	Op     string
	Data   []byte
	Page   int
	Pixels int
}

type response struct {
	PNG   []byte
	Count int
	Err   string // the reader's error, as text; empty: none
}

func (r response) err() error {
	if r.Err == "" {
		return nil
	}
	return errors.New(r.Err)
}

// Serve answers a Renderer's calls with reader, one at a time, read from in
// and written to out, until in ends; it first says it is ready. It is the
// whole of a renderer process: nothing else may write to out.
func Serve(reader Reader, in io.Reader, out io.Writer) error {
	dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
	if err := enc.Encode(response{}); err != nil {
		return fmt.Errorf("pages: say ready: %w", err)
	}
	ctx := context.Background()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("pages: read a request: %w", err)
		}
		var res response
		var err error
		switch req.Op {
		case opCount:
			res.Count, err = reader.PageCount(ctx, req.Data)
		case opRender:
			res.PNG, err = reader.Render(ctx, req.Data, req.Page, req.Pixels)
		default:
			err = fmt.Errorf("pages: unknown request %q", req.Op)
		}
		if err != nil {
			res.Err = err.Error()
		}
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("pages: write a response: %w", err)
		}
	}
}
