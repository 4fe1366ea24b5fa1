//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/redistest"
)

const (
	// startTimeout covers `go run` compiling and linking cmd/dev on a cold
	// build cache.
	startTimeout = 3 * time.Minute
	demoTimeout  = 3 * time.Minute
	// stopTimeout is how long the whole process group may take to exit after
	// SIGINT: the worker has no handler running, so it stops at once.
	stopTimeout = 15 * time.Second
	// stoppedLine is what run prints once everything has shut down.
	stoppedLine = "relayops dev: stopped; the in-memory data is gone."
)

// TestMakeRun_DemoScript_Succeeds is the "done when": `make run` in
// the background and scripts/demo.sh against it exits 0; then Ctrl-C (SIGINT
// to the process group, as a terminal sends it) stops everything cleanly.
func TestMakeRun_DemoScript_Succeeds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end run of make run and scripts/demo.sh")
	}
	root := repoRoot(t)
	httpAddr, metricsAddr := freeAddr(t), freeAddr(t)
	dev := startDev(t, root, httpAddr, metricsAddr)
	base := "http://" + httpAddr

	client := &http.Client{Timeout: time.Second}
	redistest.Eventually(t, startTimeout, func() bool {
		return dev.exited() || status(client, base+"/readyz") == http.StatusOK
	}, "%s/readyz answering 200", base)
	require.False(t, dev.exited(), "%s exited before it was ready:\n%s", dev.name, dev.output())
	require.Contains(t, dev.stdout.String(), "API         "+base, "the banner names the API's address")

	ctx, cancel := context.WithTimeout(context.Background(), demoTimeout)
	defer cancel()
	demo := exec.CommandContext(ctx, "sh", "scripts/demo.sh", base)
	demo.Dir = root
	demo.Env = cleanEnv()
	out, err := demo.CombinedOutput()
	require.NoError(t, err, "scripts/demo.sh %s failed; its output:\n%s\n%s's output:\n%s", base, out, dev.name, dev.output())
	t.Logf("scripts/demo.sh output:\n%s", out)
	require.Contains(t, string(out), "demo: OK")

	// The worker's own metrics, on RELAYOPS_METRICS_ADDR: the demo's five
	// successes (four valid invoices and the reprocessed one) were each
	// committed by exactly one handler invocation, and one job dead-lettered.
	metrics := get(t, client, "http://"+metricsAddr+"/metrics")
	require.Contains(t, metrics, `relayops_worker_jobs_total{outcome="succeeded"} 5`+"\n")
	require.Contains(t, metrics, `relayops_worker_jobs_total{outcome="dead_lettered"} 1`+"\n")

	dev.interrupt(t)
}

// TestBanner_ListsURLsTokensAndThreeWorkingCurlLines checks what a new user
// reads first: where everything is, the demo tokens, that nothing is kept,
// and three curl lines whose sample invoice really goes through.
func TestBanner_ListsURLsTokensAndThreeWorkingCurlLines(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{TenantTokens: demoTenants, OperatorTokens: demoOperators}
	var b strings.Builder
	banner(&b, cfg, "[::]:8080", "127.0.0.1:41234")
	out := b.String()

	for _, want := range []string{
		"http://localhost:8080 ", "http://localhost:8080/openapi.json", "http://localhost:8080/monitoring/",
		"http://localhost:8080/console/",
		"http://localhost:8080/metrics", "redis://127.0.0.1:41234/0",
		"Data lives only while this process runs.", "cmd/api", "cmd/worker", "RELAYOPS_REDIS_URL",
		"scripts/demo.sh http://localhost:8080",
	} {
		require.Contains(t, out, want)
	}
	for _, c := range append(append([]config.Credential{}, demoTenants...), demoOperators...) {
		require.Regexp(t, `(?m)^\s+(tenant|operator)\s+`+regexp.QuoteMeta(c.Name)+`\s+`+regexp.QuoteMeta(c.Token)+`$`, out)
	}

	var curls []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "curl ") {
			curls = append(curls, line)
		}
	}
	require.Len(t, curls, 3, "three curl lines to try:\n%s", out)
	for _, c := range curls {
		require.Contains(t, c, "Authorization: Bearer "+demoTenants[0].Token)
	}
	require.Contains(t, curls[1], "/v1/jobs/acme:inv-1:v1", "the second line reads the job the first one submits")
	require.Contains(t, curls[2], "/v1/reviews")

	// The first line's request body is JSON whose invoice the default
	// extractor accepts, so trying it ends in a review, not a dead letter.
	m := regexp.MustCompile(`-d '([^']*)'`).FindStringSubmatch(out)
	require.NotNil(t, m, "the submit line carries its body with -d '...'")
	var req struct {
		DocumentID       string `json:"documentId"`
		OperationVersion int    `json:"operationVersion"`
		Content          string `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(m[1]), &req))
	require.Equal(t, "inv-1", req.DocumentID)
	require.Equal(t, 1, req.OperationVersion)
	x := extract.Rules{}
	ctx := context.Background()
	class, err := x.Classify(ctx, req.Content)
	require.NoError(t, err)
	extraction, err := x.Extract(ctx, req.Content, class)
	require.NoError(t, err)
	_, err = x.Validate(ctx, extraction)
	require.NoError(t, err, "the banner's sample invoice must validate")
}

func TestLocalhost_MakesListenAddressesBrowsable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		":8080":           "localhost:8080",
		"[::]:8080":       "localhost:8080",
		"0.0.0.0:8080":    "localhost:8080",
		"127.0.0.1:18080": "127.0.0.1:18080",
		"[::1]:8080":      "[::1]:8080",
	} {
		require.Equal(t, want, localhost(in), in)
	}
}

// devProcess is `make run` (or, without make, the cmd/dev binary) running
// in its own process group, so a signal reaches make, go run and the
// program alike, as Ctrl-C in a terminal does.
type devProcess struct {
	name           string
	viaMake        bool
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{} // closed once cmd.Wait has returned
	waitErr        error
}

func startDev(t *testing.T, root, httpAddr, metricsAddr string) *devProcess {
	t.Helper()
	d := &devProcess{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	if mk, err := exec.LookPath("make"); err == nil {
		d.name, d.viaMake = "make run", true
		d.cmd = exec.Command(mk, "run")
	} else {
		t.Logf("make is not on PATH: running the binary of `go build ./cmd/dev` instead of `make run` (which is `go run ./cmd/dev`)")
		bin := filepath.Join(t.TempDir(), "dev")
		build := exec.Command("go", "build", "-o", bin, "./cmd/dev")
		build.Dir = root
		out, err := build.CombinedOutput()
		require.NoError(t, err, "go build ./cmd/dev:\n%s", out)
		d.name = "cmd/dev"
		d.cmd = exec.Command(bin)
	}
	d.cmd.Dir = root
	d.cmd.Env = append(cleanEnv(), "RELAYOPS_HTTP_ADDR="+httpAddr, "RELAYOPS_METRICS_ADDR="+metricsAddr)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, d.cmd.Start(), "start %s", d.name)
	go func() {
		d.waitErr = d.cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		if !d.exited() {
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	})
	return d
}

func (d *devProcess) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

func (d *devProcess) output() string {
	return "--- stdout\n" + d.stdout.String() + "--- stderr\n" + d.stderr.String()
}

// interrupt sends SIGINT to the process group and requires a clean stop
// within stopTimeout: every process of the group gone, and the program
// reporting a graceful shutdown without error. Under make only the
// program's own report counts: on SIGINT `go run` exits 1 by design and
// make then reports its recipe failed, whatever the program did.
func (d *devProcess) interrupt(t *testing.T) {
	t.Helper()
	pgid := d.cmd.Process.Pid
	require.NoError(t, syscall.Kill(-pgid, syscall.SIGINT))
	select {
	case <-d.done:
	case <-time.After(stopTimeout):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-d.done
		t.Fatalf("%s did not stop within %s of SIGINT; killed. Output:\n%s", d.name, stopTimeout, d.output())
	}
	t.Logf("%s stopped: %v", d.name, d.waitErr)
	// make waits for go run, which waits for the program; nothing may be
	// left behind (ESRCH: no process in the group).
	require.ErrorIs(t, syscall.Kill(-pgid, 0), syscall.ESRCH, "processes left in the group of %s", d.name)
	require.Contains(t, d.stdout.String(), stoppedLine, "no graceful stop reported:\n%s", d.output())
	require.NotRegexp(t, `(?m)^(relayops dev: |panic:|exit status )`, d.stderr.String(), "the program failed:\n%s", d.output())
	if !d.viaMake {
		require.NoError(t, d.waitErr, "exit status of %s:\n%s", d.name, d.output())
	}
}

// cleanEnv is the test's environment without what would change the system
// or the demo under test: RELAYOPS_* (tokens, faults…), DEMO_*, and a
// parent make's flags.
func cleanEnv() []string {
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
	return env
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "scripts", "demo.sh"))
	require.NoError(t, err, "the repository root (with scripts/demo.sh) is two levels up")
	return root
}

// freeAddr returns a loopback address with a port free at the time of the
// call.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func status(c *http.Client, url string) int {
	resp, err := c.Get(url)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", url, body)
	return string(body)
}

// syncBuffer is a bytes.Buffer safe for a process writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The demo tokens are valid tokens: the API refuses shorter ones at start.
func TestDemoTokens_MeetTheMinimumLength(t *testing.T) {
	t.Parallel()
	for _, c := range append(append([]config.Credential{}, demoTenants...), demoOperators...) {
		require.GreaterOrEqual(t, len(c.Token), config.MinTokenLength, c.Name)
	}
}

// A taken metrics port stops make run with an error that names the variable
// to change, as a taken API port does.
func TestRun_MetricsAddressInUse_NamesTheVariable(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = busy.Close() })
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RELAYOPS_") {
			t.Setenv(name, "")
		}
	}
	t.Setenv("RELAYOPS_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("RELAYOPS_METRICS_ADDR", busy.Addr().String())
	err = run(context.Background(), options{redisAddr: "127.0.0.1:0"})
	require.ErrorContains(t, err, "listen on RELAYOPS_METRICS_ADDR "+busy.Addr().String())
	require.ErrorContains(t, err, "address already in use")
}
