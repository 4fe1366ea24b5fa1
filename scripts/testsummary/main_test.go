package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A go test -json stream with a pass, a failure, two skips (one in a
// subtest) and a package without tests.
const stream = `{"Action":"start","Package":"ex/a"}
{"Action":"run","Package":"ex/a","Test":"TestPass"}
{"Action":"output","Package":"ex/a","Test":"TestPass","Output":"=== RUN   TestPass\n"}
{"Action":"output","Package":"ex/a","Test":"TestPass","Output":"    a_test.go:5: chatter\n"}
{"Action":"pass","Package":"ex/a","Test":"TestPass"}
{"Action":"run","Package":"ex/a","Test":"TestFail"}
{"Action":"output","Package":"ex/a","Test":"TestFail","Output":"=== RUN   TestFail\n"}
{"Action":"output","Package":"ex/a","Test":"TestFail","Output":"    a_test.go:9: want 1, got 2\n"}
{"Action":"output","Package":"ex/a","Test":"TestFail","Output":"--- FAIL: TestFail (0.00s)\n"}
{"Action":"fail","Package":"ex/a","Test":"TestFail"}
{"Action":"run","Package":"ex/a","Test":"TestRedis/real"}
{"Action":"output","Package":"ex/a","Test":"TestRedis/real","Output":"=== RUN   TestRedis/real\n"}
{"Action":"output","Package":"ex/a","Test":"TestRedis/real","Output":"    a_test.go:12: redis-server not found on PATH\n"}
{"Action":"output","Package":"ex/a","Test":"TestRedis/real","Output":"--- SKIP: TestRedis/real (0.00s)\n"}
{"Action":"skip","Package":"ex/a","Test":"TestRedis/real"}
{"Action":"run","Package":"ex/a","Test":"TestBrowser"}
{"Action":"output","Package":"ex/a","Test":"TestBrowser","Output":"--- SKIP: TestBrowser (0.00s)\n"}
{"Action":"skip","Package":"ex/a","Test":"TestBrowser"}
{"Action":"output","Package":"ex/a","Output":"FAIL\n"}
{"Action":"output","Package":"ex/a","Output":"FAIL\tex/a\t0.01s\n"}
{"Action":"fail","Package":"ex/a"}
{"Action":"output","Package":"ex/b","Output":"PASS\n"}
{"Action":"output","Package":"ex/b","Output":"ok  \tex/b\t0.01s\n"}
{"Action":"pass","Package":"ex/b"}
{"Action":"output","Package":"ex/c","Output":"?   \tex/c\t[no test files]\n"}
{"Action":"skip","Package":"ex/c"}
`

func TestSummary_PrintsWhatPlainGoTestPrintsThenTheSkipsWithReasons(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := newSummary(&out)
	s.read(strings.NewReader(stream))
	s.printSkips()

	require.True(t, s.failed)
	require.Equal(t, "    a_test.go:9: want 1, got 2\n"+
		"--- FAIL: TestFail (0.00s)\n"+
		"FAIL\n"+
		"FAIL\tex/a\t0.01s\n"+
		"ok  \tex/b\t0.01s\n"+
		"?   \tex/c\t[no test files]\n"+
		"skipped tests: 2\n"+
		"  SKIP ex/a TestBrowser: (no reason given)\n"+
		"  SKIP ex/a TestRedis/real: a_test.go:12: redis-server not found on PATH\n", out.String())
}

// Tests skipped by -short (make test-quick) are counted per package on one
// line; the others keep their line and reason.
func TestSummary_ShortSkips_CountedPerPackage(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := newSummary(&out)
	var in strings.Builder
	for _, sk := range [][3]string{
		{"ex/e2e", "TestA", "process test: skipped with -short (make test-quick); make test runs it"},
		{"ex/e2e", "TestB", "process test: skipped with -short (make test-quick); make test runs it"},
		{"ex/dev", "TestRun", "-short: skipping the end-to-end run"},
		{"ex/a", "TestRedis", "redis-server not found on PATH"},
	} {
		fmt.Fprintf(&in, `{"Action":"output","Package":%q,"Test":%q,"Output":"    x_test.go:1: %s\n"}`+"\n", sk[0], sk[1], sk[2])
		fmt.Fprintf(&in, `{"Action":"skip","Package":%q,"Test":%q}`+"\n", sk[0], sk[1])
	}
	s.read(strings.NewReader(in.String()))
	s.printSkips()
	require.Equal(t, "skipped with -short (make test-quick), for make test: 3 tests in ex/dev (1), ex/e2e (2)\n"+
		"skipped tests: 1\n"+
		"  SKIP ex/a TestRedis: x_test.go:1: redis-server not found on PATH\n", out.String())
}

func TestSummary_NoSkips_SaysSo(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := newSummary(&out)
	s.read(strings.NewReader(`{"Action":"output","Package":"ex/b","Output":"ok  \tex/b\t0.01s\n"}` + "\n" + "not json\n"))
	s.printSkips()
	require.False(t, s.failed)
	require.Equal(t, "ok  \tex/b\t0.01s\nnot json\nskipped tests: none\n", out.String())
}

func TestRun_ExitsWithTheCommandsStatus(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	require.Equal(t, 3, run([]string{"sh", "-c", "exit 3"}, &out, &errOut))
	require.Equal(t, 0, run([]string{"sh", "-c", `echo '{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}'`}, &out, &errOut))
	require.Contains(t, out.String(), "ok  \tp\t0.1s\n")
	require.Equal(t, 1, run([]string{"sh", "-c", `echo '{"Action":"fail","Package":"p","Test":"TestX"}'`}, &out, &errOut),
		"a failure the command did not report in its status")
	require.Equal(t, 2, run([]string{"/nonexistent/go"}, &out, &errOut))
}
