//go:build unix

package proctest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/redistest"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 20 * time.Second
	DefaultStopTimeout  = 15 * time.Second
	portAttempts        = 3 // free-port races retried on new ports
	logTailLines        = 60
)

// Options describe one process. Name and Bin are required.
type Options struct {
	Name string   // in messages and log file names
	Bin  string   // the program (Binary's result, or any executable)
	Args []string // its arguments
	Dir  string   // its working directory; empty: the test's
	Env  []string // its whole environment; nil: Env()

	// AddrVars are the variables that take a listen address, e.g.
	// RELAYOPS_METRICS_ADDR: each gets a free loopback address. The first
	// is where the process is polled for readiness.
	AddrVars []string
	// ReadyPath is polled on the first address until it answers 200 from
	// the process's own listener (default /healthz). Without AddrVars the
	// process is ready once started.
	ReadyPath string

	// Group runs the process in its own process group: signals reach the
	// group (a terminal's Ctrl-C reaches make and everything it runs), and
	// the group is SIGKILLed when the test ends.
	Group bool
	// StopAtCleanup ends a process still running at the end of the test as
	// an orchestrator would (Stop: SIGTERM, a clean exit 0 required);
	// otherwise it is SIGKILLed.
	StopAtCleanup bool

	// Unready returns from Start as soon as the process is launched, without
	// waiting for ReadyPath: for a process that may end itself (an injected
	// fault) before a readiness poll would see it.
	Unready bool

	StartTimeout time.Duration // start → ready; default DefaultStartTimeout
	StopTimeout  time.Duration // SIGTERM → SIGKILL in Stop; default DefaultStopTimeout
}

func (o *Options) withDefaults() {
	if o.ReadyPath == "" {
		o.ReadyPath = "/healthz"
	}
	if o.Env == nil {
		o.Env = Env()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
}

// Process is one running program. Its methods are meant for the test's own
// goroutine.
type Process struct {
	Name  string
	addrs map[string]string // AddrVars → address
	first string            // the first of AddrVars

	t          testing.TB
	opts       Options
	cmd        *exec.Cmd
	stdoutPath string
	stderrPath string
	done       chan struct{} // closed when the process has exited
	state      *os.ProcessState

	mu      sync.Mutex
	stopped bool // Stop ran, or the process was discarded after a port clash
}

// Start runs a process for t and returns once it is ready. It ends the
// process in t.Cleanup and, when t failed, prints the tail of its output.
func Start(t testing.TB, o Options) *Process {
	t.Helper()
	SkipShort(t)
	o.withDefaults()
	for attempt := 1; ; attempt++ {
		p := launch(t, o)
		if o.Unready || p.awaitReady() {
			return p
		}
		if p.Exited() && strings.Contains(p.Logs(), "address already in use") && attempt < portAttempts {
			p.discard()
			continue
		}
		t.Fatalf("proctest: %s was not ready within %s (GET %s on %s; exited: %v); its output is printed below",
			p.Name, o.StartTimeout, o.ReadyPath, p.first, p.Exited())
	}
}

// launch starts the process with fresh addresses.
func launch(t testing.TB, o Options) *Process {
	t.Helper()
	dir := t.TempDir()
	p := &Process{
		Name: o.Name, addrs: map[string]string{}, t: t, opts: o, done: make(chan struct{}),
		stdoutPath: filepath.Join(dir, o.Name+".stdout"), stderrPath: filepath.Join(dir, o.Name+".stderr"),
	}
	env := append([]string(nil), o.Env...)
	for i, v := range o.AddrVars {
		addr := FreeAddr(t)
		p.addrs[v] = addr
		if i == 0 {
			p.first = addr
		}
		env = append(env, v+"="+addr)
	}
	stdout, stderr := create(t, p.stdoutPath), create(t, p.stderrPath)
	defer stdout.Close() // the child has its own descriptors
	defer stderr.Close()
	p.cmd = exec.Command(o.Bin, o.Args...)
	p.cmd.Dir, p.cmd.Env = o.Dir, env
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr
	p.cmd.SysProcAttr = sysProcAttr(o.Group)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("proctest: start %s: %v", o.Name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		p.state = p.cmd.ProcessState
		close(p.done)
	}()
	t.Cleanup(p.cleanup)
	return p
}

func create(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("proctest: %v", err)
	}
	return f
}

func (p *Process) cleanup() {
	discarded := p.discarded()
	switch {
	case discarded:
	case p.opts.StopAtCleanup:
		p.Stop()
	default:
		p.kill()
	}
	if p.opts.Group && !p.Exited() {
		p.kill()
	}
	if p.t.Failed() && !discarded {
		p.t.Logf("--- last %d lines of %s (%s) ---\n%s", logTailLines, p.Name, p.first, p.Tail(logTailLines))
	}
}

// kill SIGKILLs the process (its group with Options.Group), waking it first
// if it was stopped, and waits for it.
func (p *Process) kill() {
	if p.Exited() {
		return
	}
	_ = p.signal(syscall.SIGCONT)
	_ = p.signal(syscall.SIGKILL)
	<-p.done
}

// awaitReady polls the readiness path until it answers 200 from p's own
// listener, or p exits. Another process that took the port between
// FreeAddr and p's bind could answer too, so the listener must be p's.
func (p *Process) awaitReady() bool {
	p.t.Helper()
	if p.first == "" {
		return !p.Exited()
	}
	client := &http.Client{Timeout: time.Second}
	ready := func() bool {
		resp, err := client.Get(p.URL(p.opts.ReadyPath))
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK && listening(p.cmd.Process.Pid, p.opts.Group, p.first)
	}
	redistest.Eventually(p.t, p.opts.StartTimeout, func() bool { return p.Exited() || ready() },
		"%s to answer GET %s with 200", p.Name, p.opts.ReadyPath)
	return !p.Exited()
}

// discard forgets a process that exited at start-up after a port clash.
func (p *Process) discard() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped, p.first = true, ""
}

func (p *Process) discarded() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped && p.first == ""
}

// Addr is the address given to the variable v (one of Options.AddrVars).
func (p *Process) Addr(v string) string { return p.addrs[v] }

// URL is http://<first address><path>.
func (p *Process) URL(path string) string { return "http://" + p.first + path }

// Pid is the process's id (its group's id with Options.Group).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process (its group with Options.Group).
func (p *Process) Signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.signal(sig); err != nil {
		p.t.Fatalf("proctest: signal %s to %s: %v", sig, p.Name, err)
	}
}

func (p *Process) signal(sig syscall.Signal) error {
	if p.opts.Group {
		return syscall.Kill(-p.cmd.Process.Pid, sig)
	}
	return p.cmd.Process.Signal(sig)
}

// Wait waits for the process to exit and returns its state; it fails the
// test after timeout.
func (p *Process) Wait(timeout time.Duration) *os.ProcessState {
	p.t.Helper()
	select {
	case <-p.done:
		return p.state
	case <-time.After(timeout):
		p.t.Fatalf("proctest: %s did not exit within %s", p.Name, timeout)
		return nil
	}
}

// Stop ends the process as an orchestrator would: SIGTERM (to its group
// with Options.Group), then SIGKILL after StopTimeout. It fails the test
// when the process had already exited on its own, ignored SIGTERM, or
// exited with a status other than 0. Stopping twice does nothing.
func (p *Process) Stop() {
	p.t.Helper()
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	if p.Exited() {
		p.t.Errorf("proctest: %s exited on its own (%s) before it was stopped", p.Name, p.state)
		return
	}
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(p.opts.StopTimeout):
		p.kill()
		p.t.Errorf("proctest: %s ignored SIGTERM for %s and was killed", p.Name, p.opts.StopTimeout)
		return
	}
	if !p.state.Success() {
		p.t.Errorf("proctest: %s exited with %s after SIGTERM, want exit status 0", p.Name, p.state)
	}
}

// Stdout and Stderr are what the process wrote so far; Logs is both.
func (p *Process) Stdout() string { return readFile(p.stdoutPath) }
func (p *Process) Stderr() string { return readFile(p.stderrPath) }
func (p *Process) Logs() string   { return p.Stdout() + p.Stderr() }

// Tail is the last n lines of the process's standard output and error.
func (p *Process) Tail(n int) string {
	return "stdout:\n" + tail(p.Stdout(), n) + "\nstderr:\n" + tail(p.Stderr(), n)
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return string(b)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// KilledBy is the signal that ended a process, or 0 when it exited.
func KilledBy(s *os.ProcessState) syscall.Signal {
	ws, ok := s.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}
