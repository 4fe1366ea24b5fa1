//go:build unix

package proctest

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary act as the process under test: a server on
// PROCTEST_ADDR answering /healthz and /metrics, which exits 0 on SIGTERM
// or, with PROCTEST_EXIT, with that status.
const childEnv = "PROCTEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(child())
	}
	os.Exit(Main(m))
}

func child() int {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "# HELP jobs_total Jobs.\njobs_total{outcome=\"ok\"} 2\njobs_total{outcome=\"failed\"} 1\njobs_total_other 9\n")
	})
	go func() { _ = http.ListenAndServe(os.Getenv("PROCTEST_ADDR"), mux) }()
	fmt.Println("child: serving")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	if os.Getenv("PROCTEST_EXIT") != "" {
		return 3
	}
	return 0
}

func startChild(t *testing.T, extra ...string) *Process {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return Start(t, Options{
		Name: "child", Bin: self, Env: Env(append([]string{childEnv + "=1"}, extra...)...),
		AddrVars: []string{"PROCTEST_ADDR"}, StartTimeout: 10 * time.Second,
	})
}

func TestStart_ReadyOnItsOwnListener_MetricsSummedByLabel(t *testing.T) {
	t.Parallel()
	p := startChild(t)
	require.Equal(t, "http://"+p.Addr("PROCTEST_ADDR")+"/x", p.URL("/x"))
	require.Equal(t, 3.0, p.Metric("jobs_total", nil), "both series, not jobs_total_other")
	require.Equal(t, 2.0, p.Metric("jobs_total", map[string]string{"outcome": "ok"}))
	require.Zero(t, p.Metric("jobs_total", map[string]string{"outcome": "none"}))
	require.Contains(t, p.Stdout(), "child: serving")
	p.Stop()
	require.True(t, p.state.Success())
}

func TestSignal_SIGKILL_KilledByReportsIt(t *testing.T) {
	t.Parallel()
	p := startChild(t)
	p.Signal(syscall.SIGKILL)
	require.Equal(t, syscall.SIGKILL, KilledBy(p.Wait(10*time.Second)))
	require.Zero(t, p.MetricOrZero("jobs_total", nil), "a dead process answers nothing")
}

func TestStop_NonZeroExit_FailsTheTest(t *testing.T) {
	t.Parallel()
	p := startChild(t, "PROCTEST_EXIT=1")
	probe := &recorder{TB: t}
	p.t = probe
	p.Stop()
	require.Len(t, probe.errors, 1)
	require.Contains(t, probe.errors[0], "want exit status 0")
}

func TestEnv_DropsRelayopsDemoAndMakeVariables(t *testing.T) {
	t.Setenv("RELAYOPS_FAULTS", "extract=kill#1")
	t.Setenv("DEMO_X", "1")
	t.Setenv("MAKEFLAGS", "-j2")
	env := Env("RELAYOPS_SHARDS=4")
	require.Contains(t, env, "RELAYOPS_SHARDS=4")
	for _, kv := range env {
		require.NotContains(t, []string{"RELAYOPS_FAULTS=extract=kill#1", "DEMO_X=1", "MAKEFLAGS=-j2"}, kv)
	}
}

// recorder keeps the errors reported to it instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}
