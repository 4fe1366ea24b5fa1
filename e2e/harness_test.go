//go:build linux

package e2e

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/redistest"
)

// The deployment every test runs: the same tokens, shards and fast retry
// settings for every process, as one .env would give them.
const (
	shards   = 4
	tokA     = "acme-e2e-token-0123"   // tenant acme
	tokB     = "globex-e2e-token-0123" // tenant globex
	tokC     = "alice-e2e-token-0123"  // operator alice
	operator = "alice"

	maxAttempts = 3 // RELAYOPS_MAX_ATTEMPTS, which scenario 3 counts

	startTimeout = 20 * time.Second // process start → ready
	stopTimeout  = 15 * time.Second // SIGTERM → SIGKILL
	jobTimeout   = 30 * time.Second // submission → terminal state or review
	portAttempts = 3                // free-port races retried on a new port
	logTailLines = 60
)

// bins are the binaries TestMain builds.
var bins struct{ api, worker string }

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	flag.Parse()
	if testing.Short() { // the tests skip themselves; nothing to build
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "relayops-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: FAIL:", err)
		return 1
	}
	bins.api, bins.worker = filepath.Join(dir, "api"), filepath.Join(dir, "worker")
	return m.Run()
}

// build compiles cmd/api and cmd/worker into dir with one go build.
func build(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/relayops/relayops/cmd/api", "github.com/relayops/relayops/cmd/worker")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/api ./cmd/worker: %v\n%s", err, out)
	}
	return nil
}

// system is one test's deployment: a redis-server, an api process and the
// worker processes started so far.
type system struct {
	t      *testing.T
	redis  *redistest.Server
	api    *process
	worker *process // the first worker; nil with options.noWorker
	client *http.Client
	spec   *spec
}

// options vary a test's deployment.
type options struct {
	reprocessRate string // RELAYOPS_REPROCESS_RATE; default 10/1m
	faults        string // RELAYOPS_FAULTS of the first worker
	noWorker      bool   // start the api only
	aof           bool   // Redis keeps every acknowledged write across a restart (appendfsync always)
}

// setup deploys a system for t; every part is stopped in t.Cleanup,
// processes before Redis.
func setup(t *testing.T, o options) *system {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: starts redis-server, api and worker processes; skipped with -short")
	}
	s := &system{t: t, redis: redistest.Start(t, &redistest.Options{AOF: o.aof}), client: &http.Client{Timeout: 10 * time.Second}}
	if o.reprocessRate == "" {
		o.reprocessRate = "10/1m"
	}
	s.api = s.start("api", bins.api, "RELAYOPS_HTTP_ADDR", "/readyz", "RELAYOPS_REPROCESS_RATE="+o.reprocessRate)
	s.spec = loadSpec(t, s.client, s.api.url("/openapi.json"))
	if !o.noWorker {
		s.worker = s.startWorker("worker", o.faults)
	}
	return s
}

// startWorker starts a worker process; faults is its RELAYOPS_FAULTS.
func (s *system) startWorker(name, faults string) *process {
	s.t.Helper()
	return s.start(name, bins.worker, "RELAYOPS_METRICS_ADDR", "/healthz",
		"RELAYOPS_FAULTS="+faults, "RELAYOPS_CONCURRENCY=4")
}

// env is the deployment's configuration, on top of the test's environment
// without any RELAYOPS_ variable of its own.
func (s *system) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RELAYOPS_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"RELAYOPS_REDIS_URL="+s.redis.URL,
		fmt.Sprintf("RELAYOPS_SHARDS=%d", shards),
		"RELAYOPS_TENANT_TOKENS=acme:"+tokA+",globex:"+tokB,
		"RELAYOPS_OPERATOR_TOKENS="+operator+":"+tokC,
		fmt.Sprintf("RELAYOPS_MAX_ATTEMPTS=%d", maxAttempts),
		"RELAYOPS_RETRY_BASE=100ms",
		"RELAYOPS_RETRY_MAX=200ms",
		"RELAYOPS_TASK_CHECK_INTERVAL=20ms",
		"RELAYOPS_LOG_LEVEL=debug",
	)
}

// start runs bin listening on a free loopback port (passed in addrVar) and
// returns once GET readyPath answers 200. A port taken between choosing and
// binding it is retried on another.
func (s *system) start(name, bin, addrVar, readyPath string, extraEnv ...string) *process {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		addr := freeAddr(s.t)
		env := append(append(s.env(), addrVar+"="+addr), extraEnv...)
		p := launch(s.t, name, bin, addr, env)
		if s.awaitReady(p, readyPath) {
			return p
		}
		if p.exited() && strings.Contains(p.logs(), "address already in use") && attempt < portAttempts {
			p.discard()
			continue
		}
		s.t.Fatalf("e2e: %s did not answer GET %s with 200 within %s (exited: %v); its output follows",
			name, readyPath, startTimeout, p.exited())
	}
}

// awaitReady polls GET readyPath until it answers 200 from p itself, or p
// exits. Another process that took the port between freeAddr and p's bind
// could answer too, so the listener must be p's.
func (s *system) awaitReady(p *process, readyPath string) bool {
	s.t.Helper()
	ready := func() bool {
		resp, err := s.client.Get(p.url(readyPath))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK && p.listening()
	}
	redistest.Eventually(s.t, startTimeout, func() bool { return p.exited() || ready() },
		"%s to answer GET %s with 200", p.name, readyPath)
	return !p.exited()
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("e2e: find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// process is one api or worker process. Its output goes to a file whose
// tail is printed when the test fails.
type process struct {
	t       *testing.T
	name    string
	addr    string // its HTTP listener
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when it has exited
	state   *os.ProcessState
	stopped bool // stop ran, or the process was discarded
}

// launch starts bin and registers its stop (and, on failure, the printing
// of its output) in t.Cleanup.
func launch(t *testing.T, name, bin, addr string, env []string) *process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// No process outlives a test binary that dies without its cleanups.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("e2e: start %s: %v", name, err)
	}
	p := &process{t: t, name: name, addr: addr, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() && !p.discarded() {
			t.Logf("--- last %d lines of %s (%s) ---%s", logTailLines, name, addr, p.tail())
		}
	})
	return p
}

func (p *process) url(path string) string { return "http://" + p.addr + path }

// listening reports whether p holds the listening TCP socket of its
// address: one of the socket inodes among its file descriptors is a
// listener on that port in /proc/<pid>/net/tcp.
func (p *process) listening() bool {
	_, port, _ := net.SplitHostPort(p.addr)
	want, err := strconv.Atoi(port)
	if err != nil {
		return false
	}
	dir := fmt.Sprintf("/proc/%d", p.cmd.Process.Pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false
	}
	sockets := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			sockets[strings.TrimSuffix(inode, "]")] = true
		}
	}
	table, err := os.ReadFile(dir + "/net/tcp")
	if err != nil {
		return false
	}
	// Columns: sl local_address rem_address st … uid timeout inode; st 0A is LISTEN.
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !sockets[f[9]] {
			continue
		}
		_, hexPort, _ := strings.Cut(f[1], ":")
		if n, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(n) == want {
			return true
		}
	}
	return false
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// discard forgets a process that exited at start-up (a port clash).
func (p *process) discard() { p.stopped, p.addr = true, "" }

func (p *process) discarded() bool { return p.stopped && p.addr == "" }

// stop ends p as an orchestrator would: SIGTERM, then SIGKILL after
// stopTimeout. It fails the test when p had already exited on its own,
// ignored SIGTERM, or exited with a non-zero status. Stopping twice does
// nothing.
func (p *process) stop() {
	p.t.Helper()
	if p.stopped {
		return
	}
	p.stopped = true
	if p.exited() {
		p.t.Errorf("e2e: %s exited on its own (%s) before it was stopped", p.name, p.state)
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Errorf("e2e: %s ignored SIGTERM for %s and was killed", p.name, stopTimeout)
		return
	}
	if !p.state.Success() {
		p.t.Errorf("e2e: %s exited with %s after SIGTERM, want exit status 0", p.name, p.state)
	}
}

func (p *process) logs() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	return string(b)
}

// tail returns the last lines of p's output, prefixed with a newline.
func (p *process) tail() string {
	lines := strings.Split(strings.TrimRight(p.logs(), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return "\n" + strings.Join(lines, "\n")
}

// waitReady polls p's /readyz until it answers want.
func (s *system) waitReady(t *testing.T, p *process, want int) {
	t.Helper()
	redistest.Eventually(t, jobTimeout, func() bool {
		resp, err := s.client.Get(p.url("/readyz"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == want
	}, "%s's /readyz to answer %d", p.name, want)
}
