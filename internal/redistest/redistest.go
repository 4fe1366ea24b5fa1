// Package redistest gives tests a Redis: an in-memory miniredis (Mini) for
// unit tests, a real redis-server process per test (Start) for integration
// tests, both at once for suites that must hold on either (Backends), a real
// 3-master, 3-replica Redis Cluster per test (Cluster), and the project's
// polling wait helper (Eventually), so no test sleeps.
//
// A real server listens on a free loopback port with its own temporary
// directory, so tests can run in parallel. When redis-server is not on PATH,
// real-Redis tests are skipped with a loud message, unless
// RELAYOPS_REQUIRE_REDIS=1 (CI sets it), which turns the skip into a failure;
// Cluster needs redis-cli as well, under the same rule.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// RequireEnv is the variable that turns a missing redis-server from a skip
// into a test failure.
const RequireEnv = "RELAYOPS_REQUIRE_REDIS"

const (
	startTimeout = 15 * time.Second // includes loading an AOF after Restart
	stopGrace    = 5 * time.Second  // SIGTERM → SIGKILL
	portAttempts = 5                // free-port races retried on a new port
	pollInterval = 10 * time.Millisecond
	logTailLines = 30
)

// Options configure a real server. A nil *Options means the zero value.
type Options struct {
	// AOF turns on the append-only file with appendfsync always, so every
	// acknowledged write survives Restart (a SIGKILL). Without it the server
	// keeps nothing on disk and Restart starts it empty.
	AOF bool
	// ClusterNode starts the server with cluster mode on, alone: it serves
	// no slot until it joins a cluster (Cluster builds whole clusters).
	ClusterNode bool
	// Config are redis.conf lines the server starts with, in its config
	// file: ACL users (ACLUsers), as a deployment's redis.conf would give
	// them, or other settings. The default user keeps every right unless a
	// line changes it: the helper's own connections are its.
	Config []string
}

// Server is one redis-server process owned by one test. Its methods are meant
// to be called from that test's goroutine.
type Server struct {
	Addr string // 127.0.0.1:port
	URL  string // redis://127.0.0.1:port/0

	bin     string
	dir     string
	port    int
	aof     bool
	logPath string
	// busPort is the cluster bus port of a cluster node (0: not a node).
	busPort int
	// confPath is the config file given before the other arguments
	// (Options.Config); "" for none.
	confPath string

	mu   sync.Mutex
	proc *os.Process
	done chan struct{} // closed when proc has exited
}

// Start runs a redis-server for t and stops it in t.Cleanup (SIGTERM, then
// SIGKILL after 5s). It returns once the server answers PING.
func Start(t testing.TB, opts *Options) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	return startServer(t, opts.AOF, opts.ClusterNode, opts.Config...)
}

// startServer starts a server for Start, or a cluster node for Cluster.
func startServer(t testing.TB, aof, clusterNode bool, conf ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{
		bin:     lookup(t),
		dir:     dir,
		aof:     aof,
		logPath: filepath.Join(dir, "redis.log"),
	}
	var err error
	if len(conf) > 0 {
		if s.confPath, err = s.writeConfig(conf); err != nil {
			t.Fatalf("redistest: write the config file: %v", err)
		}
	}
	for range portAttempts {
		s.port = freePort(t)
		if clusterNode {
			// The bus port would be port+10000 by default, which may be past
			// 65535 or taken; ask for a free one as well.
			s.busPort = freePort(t)
		}
		if err = s.start(); !errors.Is(err, errAddrInUse) {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: start redis-server: %v%s", err, s.logTail())
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.URL = "redis://" + s.Addr + "/0"
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Client returns a client of s that is closed in t.Cleanup. It never retries
// a command on its own (MaxRetries -1) and dials once, so tests see every
// failure.
func (s *Server) Client(t testing.TB) *redis.Client {
	t.Helper()
	return newClient(t, s.Addr)
}

// Restart simulates a crash and recovery: it SIGKILLs the server and starts
// it again on the same port and directory. With Options.AOF the data
// survives; without it the server comes back empty. Restart also brings back
// a server that Stop or Kill ended. Existing clients reconnect on their next
// command.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill(t)
	if err := s.start(); err != nil {
		t.Fatalf("redistest: restart redis-server on %s: %v%s", s.Addr, err, s.logTail())
	}
}

// Stop shuts the server down (SIGTERM, then SIGKILL after 5s) and leaves it
// down, for "Redis is unreachable" tests. Stopping a stopped server does
// nothing.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopGrace):
		t.Logf("redistest: redis-server on %s ignored SIGTERM for %s; killing it", s.Addr, stopGrace)
		_ = s.proc.Kill()
		<-s.done
	}
	s.proc = nil
}

// Kill ends the server with SIGKILL (a crash: no shutdown, no final save)
// and leaves it down. Killing a stopped server does nothing.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Kill()
	<-s.done
	s.proc = nil
}

var errAddrInUse = errors.New("port already in use")

// start launches redis-server on s.port and waits for PING. On failure no
// process is left running.
func (s *Server) start() error {
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	if err := s.awaitReady(done, cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		<-done
		return err
	}
	s.mu.Lock()
	s.proc, s.done = cmd.Process, done
	s.mu.Unlock()
	return nil
}

func (s *Server) args() []string {
	var args []string
	if s.confPath != "" {
		args = append(args, s.confPath) // a config file comes first
	}
	args = append(args,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--protected-mode", "no",
		"--dir", s.dir,
		"--daemonize", "no", // and log to stdout, which goes to redis.log
		// No RDB snapshots in either mode: without AOF nothing may survive a
		// restart, and with it the AOF alone is the durable copy (and no
		// background fork competes with the test for the CPU).
		"--save", "",
	)
	if s.busPort != 0 {
		args = append(args,
			"--cluster-enabled", "yes",
			"--cluster-port", strconv.Itoa(s.busPort),
			"--cluster-config-file", "nodes.conf", // in s.dir
			// A failed master is detected, and its replica promoted, within a
			// few seconds (the default is 15 s).
			"--cluster-node-timeout", strconv.Itoa(int(clusterNodeTimeout/time.Millisecond)),
			// A replica's first sync starts at once, not after the default
			// 5 s wait for more replicas to share the transfer.
			"--repl-diskless-sync-delay", "0",
		)
	}
	if s.aof {
		return append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	return append(args, "--appendonly", "no")
}

// awaitReady polls PING until the server answers +PONG (not -LOADING), the
// process exits, or startTimeout passes.
func (s *Server) awaitReady(exited <-chan struct{}, pid int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			if strings.Contains(s.logTail(), "already in use") {
				return errAddrInUse
			}
			return errors.New("redis-server exited during startup")
		default:
		}
		// Ready when the server answering is this one: another server that
		// took the port first answers too, and this one then exits with
		// "already in use" (reported above, and the caller picks another
		// port).
		if ping(addr) == nil && serverPID(addr) == pid {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no PONG from %s within %s", addr, startTimeout)
		}
		select {
		case <-exited: // reported at the top of the loop
		case <-tick.C:
		}
	}
}

// ping sends PING over a fresh connection, bypassing any client's retries.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// serverPID is the process_id the server on addr reports (INFO server),
// or 0 when it does not answer.
func serverPID(addr string) int {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer c.Close()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(infoFields(info)["process_id"])
	return pid
}

// logTail returns the end of the server's log, formatted to follow an error.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return fmt.Sprintf("\n--- tail of %s ---\n%s", s.logPath, bytes.Join(lines, []byte("\n")))
}

// freePort asks the kernel for a free loopback port. Another process may take
// it before redis-server binds it; Start retries on a new port then.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var warnOnce sync.Once

// lookup finds redis-server, or skips (fails under RELAYOPS_REQUIRE_REDIS=1).
func lookup(t testing.TB) string {
	t.Helper()
	return lookupTool(t, "redis-server", "redis-server")
}

// lookupTool finds the program name, which Debian's package pkg installs, or
// skips (fails under RELAYOPS_REQUIRE_REDIS=1).
func lookupTool(t testing.TB, name, pkg string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err == nil {
		return bin
	}
	if required, _ := strconv.ParseBool(os.Getenv(RequireEnv)); required {
		t.Fatalf("redistest: %s not found on PATH and %s=1; install it (apt-get install -y %s)", name, RequireEnv, pkg)
	}
	msg := fmt.Sprintf("redistest: %s not found on PATH; install it (apt-get install -y %s) — SKIPPING real-Redis test", name, pkg)
	// go test hides the output of skipped tests without -v; say it once where
	// a person running the suite will see it.
	warnOnce.Do(func() { fmt.Fprintln(os.Stderr, "WARNING: "+msg) })
	t.Skip(msg)
	return ""
}

// Mini starts a miniredis for t and returns it with a client; both are
// closed in t.Cleanup. The client never retries (MaxRetries -1) and dials
// once.
func Mini(t testing.TB) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	m := miniredis.RunT(t)
	return m, newClient(t, m.Addr())
}

// newClient returns a client that reports failures at once: no command
// retries, and a single dial attempt (go-redis otherwise dials 5 times, 100ms
// apart, before a "Redis is down" test sees its error).
func newClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Backend is one of the two Redis implementations a suite runs against.
// Exactly one of Mini and Real is set.
type Backend struct {
	Name   string // "miniredis" or "redis", also the subtest name
	Client *redis.Client
	Mini   *miniredis.Miniredis // nil on real Redis
	Real   *Server              // nil on miniredis

	t testing.TB
}

// FastForward moves Redis's clock forward by d so keys with a TTL expire.
// Only miniredis can do that: on real Redis it skips the rest of the subtest
// (t.Skip), so put TTL checks last or in a miniredis-only test. Call it from
// the subtest's goroutine, as t.Skip requires.
func (b *Backend) FastForward(d time.Duration) {
	b.t.Helper()
	if b.Mini == nil {
		b.t.Skipf("redistest: FastForward(%s) needs miniredis; real redis-server cannot move its clock — skipping the rest of this subtest", d)
	}
	b.Mini.FastForward(d)
}

// Backends runs fn twice, as subtests "miniredis" and "redis" (a real server
// from Start with default Options, skipped or failed by Start's rules). fn
// may call t.Parallel.
func Backends(t *testing.T, fn func(t *testing.T, b *Backend)) {
	t.Helper()
	t.Run("miniredis", func(t *testing.T) {
		m, c := Mini(t)
		fn(t, &Backend{Name: "miniredis", Client: c, Mini: m, t: t})
	})
	t.Run("redis", func(t *testing.T) {
		s := Start(t, nil)
		fn(t, &Backend{Name: "redis", Client: s.Client(t), Real: s, t: t})
	})
}

// Eventually polls cond every 10ms until it returns true, failing t when
// timeout passes first. cond runs on the caller's goroutine. msgAndArgs is an
// optional format string and arguments describing what was awaited.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msgAndArgs ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("redistest: condition not met within %s%s", timeout, describe(msgAndArgs))
		}
		<-tick.C
	}
}

func describe(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return ""
	}
	if format, ok := msgAndArgs[0].(string); ok {
		return ": " + fmt.Sprintf(format, msgAndArgs[1:]...)
	}
	return ": " + fmt.Sprint(msgAndArgs...)
}

// UsedMemory is the server's INFO memory used_memory, in bytes, for the
// memory benchmarks.
func UsedMemory(t testing.TB, c redis.UniversalClient) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("redistest: no used_memory in INFO")
	return 0
}
