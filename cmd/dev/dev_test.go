//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/proctest"
)

// TestMain removes the binary proctest built when make is missing.
func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }

const (
	// startTimeout covers make run building and linking cmd/dev on a cold
	// build cache.
	startTimeout = 3 * time.Minute
	demoTimeout  = 3 * time.Minute
	// stopTimeout is how long the whole process group may take to exit after
	// SIGINT: the worker has no handler running, so it stops at once.
	stopTimeout = 15 * time.Second
	// stoppedLine is what run prints once everything has shut down.
	stoppedLine = "relayops dev: stopped; the in-memory data is gone."
)

// TestMakeRun_DemoScript_Succeeds is the new user's first run: `make run` in
// the background and scripts/demo.sh against it exits 0; then Ctrl-C (SIGINT
// to the process group, as a terminal sends it) stops everything cleanly.
func TestMakeRun_DemoScript_Succeeds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end run of make run and scripts/demo.sh")
	}
	root := repoRoot(t)
	dev := startDev(t, root)
	base := dev.URL("")
	require.Contains(t, dev.Stdout(), "API         "+base, "the banner names the API's address")

	ctx, cancel := context.WithTimeout(context.Background(), demoTimeout)
	defer cancel()
	// The URL from API_URL, as scripts/submit.sh takes it (an argument is
	// the other way: TestScripts_URLArgument_WinsOverAPIURL).
	demo := exec.CommandContext(ctx, "sh", "scripts/demo.sh")
	demo.Dir = root
	demo.Env = proctest.Env("API_URL=" + base)
	out, err := demo.CombinedOutput()
	require.NoError(t, err, "scripts/demo.sh with API_URL=%s failed; its output:\n%s", base, out)
	t.Logf("scripts/demo.sh output:\n%s", out)
	require.Contains(t, string(out), "demo: OK")
	// The dead-letter table gives the reason beside the class.
	require.Regexp(t, `(?m)^\s+jobId\s+state\s+attempt\s+errorCode\s+errorReason\s*$`, string(out))
	require.Regexp(t, `(?m)invalid-total-mismatch:v1\s+dead_lettered\s+1\s+permanent_error\s+total_mismatch\s*$`, string(out))

	// The worker's own metrics, on RELAYOPS_METRICS_ADDR: the demo's seven
	// successes (four valid text invoices, a Factur-X PDF and a UBL XML read
	// from their XML, and the reprocessed one) were each committed by
	// exactly one handler invocation, and one job dead-lettered.
	metrics := get(t, &http.Client{Timeout: 5 * time.Second}, "http://"+dev.Addr("RELAYOPS_METRICS_ADDR")+"/metrics")
	require.Equal(t, 7.0, proctest.Sum(metrics, "relayops_worker_jobs_total", map[string]string{"outcome": "succeeded"}))
	require.Equal(t, 1.0, proctest.Sum(metrics, "relayops_worker_jobs_total", map[string]string{"outcome": "dead_lettered"}))

	// The documented way to submit a file without jq: accepted, then deduped;
	// a bad documentId is the API's 400, and the script says so.
	for _, want := range []string{`"deduped":false`, `"deduped":true`} {
		out, err := submitFile(t, root, base, "testdata/invoices/valid-basic-eur.txt", "readme-submit")
		require.NoError(t, err, "scripts/submit.sh:\n%s", out)
		require.Contains(t, out, `"jobId":"acme:readme-submit:v1"`)
		require.Contains(t, out, want)
	}
	// The URL as the first argument, as scripts/demo.sh takes it: it wins
	// over API_URL (here an address where nothing listens).
	cmd := exec.Command("sh", "scripts/submit.sh", base, "testdata/invoices/valid-basic-eur.txt", "readme-submit-arg")
	cmd.Dir = root
	cmd.Env = proctest.Env("API_URL=http://"+proctest.FreeAddr(t), "TENANT_TOKEN="+demoTenants[0].Token)
	argOut, err := cmd.CombinedOutput()
	require.NoError(t, err, "scripts/submit.sh URL FILE ID:\n%s", argOut)
	require.Contains(t, string(argOut), `"jobId":"acme:readme-submit-arg:v1"`)
	bad, err := submitFile(t, root, base, "testdata/invoices/valid-basic-eur.txt", "bad id")
	require.Error(t, err)
	require.Contains(t, bad, "invalid_request")
	require.Contains(t, bad, "answered 400")
	// A text file named .pdf is the API's clear 415, as with curl -F
	// file=@..., not a job that ends not_an_invoice.
	fake := filepath.Join(t.TempDir(), "invoice.pdf")
	require.NoError(t, os.WriteFile(fake, []byte("INVOICE 1\nTotal 10.00 EUR\n"), 0o600))
	out415, err := submitFile(t, root, base, fake, "text-named-pdf")
	require.Error(t, err)
	require.Contains(t, out415, "unsupported_media_type")
	require.Contains(t, out415, "answered 415")

	interrupt(t, dev)
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
	x := rules.Rules{}
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

// The finding: scripts/submit.sh sent every file as
// application/octet-stream, so the API took a text file named .pdf by its
// bytes (text) and it ended not_an_invoice, where curl -F file=@ gets a 415.
// The script declares the type the name says, as curl does, and the API
// checks the bytes against it.
func TestSubmitScript_SendsAFileAsTheTypeItsNameSays(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the script's helper")
	}
	root := repoRoot(t)
	type part struct{ name, ctype, filename string }
	got := make(chan part, 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := part{}
		if mr, err := r.MultipartReader(); err == nil {
			for {
				fp, err := mr.NextPart()
				if err != nil {
					break
				}
				if fp.FormName() == "file" {
					p = part{"file", fp.Header.Get("Content-Type"), fp.FileName()}
				}
			}
		} else {
			p = part{"json", r.Header.Get("Content-Type"), ""}
		}
		got <- p
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"jobId":"acme:x:v1"}`))
	}))
	t.Cleanup(api.Close)
	dir := t.TempDir()
	for name, want := range map[string]part{
		"a.pdf": {"file", "application/pdf", "a.pdf"}, "b.PDF": {"file", "application/pdf", "b.PDF"},
		"c.xml": {"file", "application/xml", "c.xml"}, "d.png": {"file", "image/png", "d.png"},
		"e.jpeg": {"file", "image/jpeg", "e.jpeg"}, "f.tif": {"file", "image/tiff", "f.tif"},
		"g.txt": {"json", "application/json", ""},
	} {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte("INVOICE 1\n"), 0o600))
		out, err := submitFile(t, root, api.URL, file, "x")
		require.NoError(t, err, "%s: %s", name, out)
		require.Equal(t, want, <-got, name)
	}
}

// submitFile runs scripts/submit.sh FILE DOCUMENT_ID against base.
func submitFile(t *testing.T, root, base, file, doc string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", "scripts/submit.sh", file, doc)
	cmd.Dir = root
	cmd.Env = proctest.Env("API_URL="+base, "TENANT_TOKEN="+demoTenants[0].Token)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startDev starts `make run` (or, without make, the cmd/dev binary) in its
// own process group, so a signal reaches make and the program alike, as
// Ctrl-C in a terminal does, and waits for /readyz.
func startDev(t *testing.T, root string) *proctest.Process {
	t.Helper()
	o := proctest.Options{
		Name: "make run", Dir: root, Group: true, ReadyPath: "/readyz", StartTimeout: startTimeout,
		AddrVars: []string{"RELAYOPS_HTTP_ADDR", "RELAYOPS_METRICS_ADDR"}, StopTimeout: stopTimeout,
	}
	if mk, err := exec.LookPath("make"); err == nil {
		o.Bin, o.Args = mk, []string{"run"}
	} else {
		t.Logf("make is not on PATH: running the binary of ./cmd/dev instead of `make run` (which builds and execs it)")
		o.Name, o.Bin = "cmd/dev", proctest.Binary(t, "cmd/dev")
	}
	return proctest.Start(t, o)
}

// interrupt sends SIGINT to the process group and requires a clean stop
// within stopTimeout: every process of the group gone, the program
// reporting a graceful shutdown and exiting 0, and make reporting no error.
// GNU make itself, having received SIGINT, waits for its recipe and then
// ends by re-raising the signal, whatever the recipe's status: its own
// status is the shell's 130, silently; the `Error 1` it printed when the
// recipe was `go run` (which exits 1 on SIGINT) is what must not appear.
func interrupt(t *testing.T, d *proctest.Process) {
	t.Helper()
	d.Signal(syscall.SIGINT)
	st := d.Wait(stopTimeout)
	t.Logf("%s stopped: %v", d.Name, st)
	// make waits for the program; nothing may be left behind (ESRCH: no
	// process in the group).
	require.ErrorIs(t, syscall.Kill(-d.Pid(), 0), syscall.ESRCH, "processes left in the group of %s", d.Name)
	require.Contains(t, d.Stdout(), stoppedLine, "no graceful stop reported:\n%s", d.Tail(40))
	require.NotRegexp(t, `(?m)^(relayops dev: |panic:|exit status |make: \*\*\*)`, d.Stderr(), "the program or make failed:\n%s", d.Tail(40))
	if d.Name == "make run" {
		require.True(t, st.Success() || proctest.KilledBy(st) == syscall.SIGINT, "make: %v", st)
	} else {
		require.True(t, st.Success(), "exit status of %s: %v", d.Name, st)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "scripts", "demo.sh"))
	require.NoError(t, err, "the repository root (with scripts/demo.sh) is two levels up")
	return root
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

// The finding: with 8080 and 9090 both taken, make run named one, then,
// once that was fixed, the other. It names both at once, each with its
// variable and another port to try, before starting anything.
func TestRun_BothAddressesInUse_NamesBothAtOnce(t *testing.T) {
	var busy []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { _ = ln.Close() })
		busy = append(busy, ln.Addr().String())
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RELAYOPS_") {
			t.Setenv(name, "")
		}
	}
	t.Setenv("RELAYOPS_HTTP_ADDR", busy[0])
	t.Setenv("RELAYOPS_METRICS_ADDR", busy[1])
	err := run(context.Background(), options{redisAddr: "127.0.0.1:0"})
	require.ErrorContains(t, err, "listen on RELAYOPS_HTTP_ADDR "+busy[0])
	require.ErrorContains(t, err, "listen on RELAYOPS_METRICS_ADDR "+busy[1])
	require.ErrorContains(t, err, "RELAYOPS_HTTP_ADDR="+nextPort(busy[0])+" RELAYOPS_METRICS_ADDR="+nextPort(busy[1])+" make run")

	t.Setenv("RELAYOPS_METRICS_ADDR", busy[0])
	require.ErrorContains(t, run(context.Background(), options{redisAddr: "127.0.0.1:0"}),
		"RELAYOPS_HTTP_ADDR and RELAYOPS_METRICS_ADDR are both "+busy[0])
}

func TestNextPort_IsThePortAfter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{":8080": ":8081", "127.0.0.1:9090": "127.0.0.1:9091", "[::1]:80": "[::1]:81", "nonsense": "nonsense"} {
		require.Equal(t, want, nextPort(in), in)
	}
}

// A misspelled setting stops make run before anything starts, naming the
// variable and the setting it was probably meant to be.
func TestRun_MisspelledSetting_StopsNamingTheClosestSetting(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RELAYOPS_") {
			t.Setenv(name, "")
		}
	}
	t.Setenv("RELAYOPS_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("RELAYOPS_METRICS_ADDR", "127.0.0.1:0")
	// The singular, built so that the repository scan of known names
	// (internal/config) does not take this deliberate typo for a setting.
	misspelled := strings.TrimSuffix("RELAYOPS_TENANT_TOKENS", "S")
	t.Setenv(misspelled, "acme:acme-token-0123456789")
	err := run(context.Background(), options{redisAddr: "127.0.0.1:0"})
	require.ErrorContains(t, err, "RELAYOPS_TENANT_TOKEN: not a setting relayops knows; did you mean RELAYOPS_TENANT_TOKENS?")
	require.NotContains(t, err.Error(), "acme-token-0123456789")
}

// scripts/demo.sh takes the API's URL as its argument, over API_URL, as
// scripts/submit.sh does: with the argument naming an address where
// nothing listens, the demo fails there, whatever API_URL says.
func TestScripts_URLArgument_WinsOverAPIURL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the demo's helpers")
	}
	root := repoRoot(t)
	dead := "http://" + proctest.FreeAddr(t)
	demo := exec.Command("sh", "scripts/demo.sh", dead)
	demo.Dir = root
	demo.Env = proctest.Env("API_URL=http://127.0.0.1:1", "DEMO_TIMEOUT=5")
	out, err := demo.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "relayops demo against "+dead+"\n", "%s", out)
	require.Contains(t, string(out), dead+"/readyz is not answering", "%s", out)

	extra := exec.Command("sh", "scripts/demo.sh", dead, "more")
	extra.Dir = root
	extra.Env = proctest.Env()
	out, err = extra.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "usage: scripts/demo.sh [API_URL]")
}
