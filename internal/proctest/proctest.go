//go:build unix

// Package proctest is the one harness for tests that run relayops' real
// binaries as processes: the worker's process tests, the end-to-end tests
// and cmd/dev's test of make run. It builds each binary once per test
// binary, starts it with a clean environment on free loopback ports, waits
// until it answers on its own listener, captures its output (the tail is
// printed when the test fails), signals and stops it, and reads its
// Prometheus metrics, so tests assert on metrics, records and replies
// rather than on the wording of log lines.
//
// A package using Binary removes the built binaries by running its tests
// through Main:
//
//	func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }
//
// Redis comes from internal/redistest (redistest.Start).
//
// Process tests are skipped with -short (Binary and Start skip the test):
// `make test`, a developer's quick run, passes -short; `make test-all`,
// which CI runs, runs them.
package proctest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Module is the import path prefix of the binaries Binary builds.
const Module = "github.com/relayops/relayops/"

var builds struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// Main runs the tests, then removes the binaries Binary built.
func Main(m *testing.M) int {
	code := m.Run()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		_ = os.RemoveAll(builds.dir)
	}
	return code
}

// SkipShort skips t with -short: a process test is for make test-all.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("process test: skipped with -short (make test-quick); make test runs it")
	}
}

// Binary returns the path of the main package pkg (relative to the module,
// e.g. "cmd/worker"), built once per test binary; the first caller builds
// it, later ones wait for that build.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	SkipShort(t)
	b, err := buildFor(pkg)
	if err != nil {
		t.Fatalf("proctest: %v", err)
	}
	b.once.Do(func() {
		b.path = filepath.Join(builds.dir, path.Base(pkg))
		cmd := exec.Command("go", "build", "-o", b.path, Module+pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./%s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("proctest: %v", b.err)
	}
	return b.path
}

func buildFor(pkg string) (*build, error) {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "relayops-proctest-")
		if err != nil {
			return nil, err
		}
		builds.dir, builds.bins = dir, map[string]*build{}
	}
	b := builds.bins[pkg]
	if b == nil {
		b = &build{}
		builds.bins[pkg] = b
	}
	return b, nil
}

// Env is the test's environment without what would change the system under
// test (every RELAYOPS_ and DEMO_ variable, a parent make's flags), followed
// by extra.
func Env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "RELAYOPS_"), strings.HasPrefix(name, "DEMO_"),
			name == "MAKEFLAGS", name == "MFLAGS", name == "MAKELEVEL":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// FreeAddr returns a loopback address whose port was free a moment ago.
// Start retries when another process takes it first.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proctest: find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
