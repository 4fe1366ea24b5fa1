// Command testsummary runs `go test -json …` and prints what plain `go test`
// prints (each package's closing ok/FAIL line, the output of failed tests,
// build errors), then a summary of the tests that were skipped and why, so a
// skipped Redis or browser test is not invisible without -v.
//
//	go run ./scripts/testsummary go test -json -count=1 ./...
//
// It exits with the command's exit status, and with 1 when the command
// exited 0 although a test or a build failed.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsummary go test -json [flags] [packages]")
		os.Exit(2)
	}
	// Ctrl-C reaches the whole process group: go test reports and exits on
	// its own, and the summary of what ran is still printed.
	signal.Ignore(syscall.SIGINT)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command args, writes its readable output and the skip
// summary to out, and returns the exit status.
func run(args []string, out, errOut io.Writer) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(errOut, "testsummary:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(errOut, "testsummary:", err)
		return 2
	}
	s := newSummary(out)
	s.read(stdout)
	waitErr := cmd.Wait()
	s.printSkips()
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		return exit.ExitCode()
	case waitErr != nil:
		fmt.Fprintln(errOut, "testsummary:", waitErr)
		return 2
	case s.failed:
		return 1
	}
	return 0
}

// event is one line of `go test -json` (cmd/test2json's TestEvent) or of
// the build output it interleaves.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

type skip struct{ pkg, test, reason string }

type summary struct {
	out    io.Writer
	output map[string][]string // package + " " + test → output lines so far
	skips  []skip
	failed bool
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, output: map[string][]string{}}
}

func (s *summary) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.out, sc.Text()) // not an event: pass it on
			continue
		}
		s.handle(e)
	}
}

func (s *summary) handle(e event) {
	id := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.out, e.Output)
	case e.Action == "build-fail":
		s.failed = true
	case e.Test == "" && e.Action == "output":
		// The package's own lines: its closing "ok"/"FAIL" line, TestMain's
		// output, a timeout's panic. "PASS" is what -v adds.
		if e.Output != "PASS\n" {
			fmt.Fprint(s.out, e.Output)
		}
	case e.Test == "" && e.Action == "fail":
		s.failed = true
	case e.Action == "output":
		s.output[id] = append(s.output[id], e.Output)
	case e.Action == "fail":
		s.failed = true
		for _, line := range s.output[id] {
			if !framing(line) {
				fmt.Fprint(s.out, line)
			}
		}
		delete(s.output, id)
	case e.Test == "":
		// A package's own skip ("no test files") or pass: nothing to keep.
	case e.Action == "skip":
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: reason(s.output[id])})
		delete(s.output, id)
	case e.Action == "pass":
		delete(s.output, id)
	}
}

// framing reports the lines -v adds around a test's own output.
func framing(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// reason is what a skipped test printed, without the framing and the
// "--- SKIP" line, on one line.
func reason(lines []string) string {
	var parts []string
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" || framing(line) || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// printSkips lists the skipped tests with their reasons; those skipped
// because of -short (make test, the quick run) are counted per package on
// one line instead, as make test-all runs them.
func (s *summary) printSkips() {
	slices.SortFunc(s.skips, func(a, b skip) int {
		return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test)
	})
	var rest []skip
	short := map[string]int{}
	var pkgs []string
	for _, sk := range s.skips {
		if !strings.Contains(sk.reason, "-short") {
			rest = append(rest, sk)
			continue
		}
		if short[sk.pkg] == 0 {
			pkgs = append(pkgs, sk.pkg)
		}
		short[sk.pkg]++
	}
	if len(pkgs) > 0 {
		var parts []string
		for _, p := range pkgs {
			parts = append(parts, fmt.Sprintf("%s (%d)", p, short[p]))
		}
		fmt.Fprintf(s.out, "skipped with -short (make test-quick), for make test: %d tests in %s\n", len(s.skips)-len(rest), strings.Join(parts, ", "))
	}
	if len(rest) == 0 {
		fmt.Fprintln(s.out, "skipped tests: none")
		return
	}
	fmt.Fprintf(s.out, "skipped tests: %d\n", len(rest))
	for _, sk := range rest {
		fmt.Fprintf(s.out, "  SKIP %s %s: %s\n", sk.pkg, sk.test, sk.reason)
	}
}
