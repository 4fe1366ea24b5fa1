// Command evalinbox is the inbox replay: the real corpus (testdata/real,
// read by package realcorpus) worked through the real system as an
// accounts-payable clerk works an inbox, supplier after supplier, and
// measured.
//
// For each run it starts a throwaway redis-server, the api and a worker
// (built from ./cmd/api and ./cmd/worker of this repository) on loopback
// ports, with tenant and operator tokens of its own, and drives them only
// through the HTTP API. The documents come grouped by their truth's
// supplier, suppliers in the order of their first document, each
// supplier's in file order. Each PDF is submitted as a file (multipart) and
// waited for:
//
//   - succeeded: every committed field the truth vouches for is compared as
//     scripts/evalreal compares it (a field that differs is a false
//     success); then the review is decided as the clerk would: approved
//     (with the wrong fields corrected), which teaches the supplier's
//     profile; a review marked a possible duplicate is rejected when the
//     truth says duplicateOf (caught) and approved naming the first job
//     otherwise (a false alarm); a true duplicate not marked is missed.
//   - rejected: corrected with the truth through POST
//     /v1/jobs/{id}/reprocess {reason, corrections} (the fields as printed,
//     the charges and a tax the clerk computes where the truth gives them,
//     the type of a credit note or corrective invoice; a machine-read
//     detail the API refuses, such as misread lines, is cleared and the
//     correction sent again, and counted), the new version waited for and
//     reviewed as above. A refusal the clerk cannot get past (400) and an
//     accepted correction whose version does not succeed are counted.
//     Documents that are no invoice, and those whose truth expects a
//     rejection, are counted in columns of their own; their rejection is
//     right and is not corrected.
//
// A hybrid PDF the worker read from its embedded XML is judged by the
// XML's truth where its page states other values (realcorpus.Document.XML).
//
// It runs with supplier profiles (RELAYOPS_SUPPLIER_PROFILES=on) and
// without (off), each on a fresh system, and prints per supplier and in
// total, side by side: documents, touchless, touchless among each
// supplier's later documents (after its first), corrections, corrections
// refused, accepted corrections that failed, false successes (and per
// field), duplicates caught, missed and false alarms, 429 answers; then
// the targets, met or MISSED. With profiles on it waits after each
// approval of a document its supplier's next one follows until a profile
// has learned from it (at most -learn-wait), as a clerk is slower than the
// worker.
//
// It exits 1 when a target is missed or it was interrupted, 2 on bad usage,
// a broken corpus, a missing tool or a system that does not start. It needs
// redis-server, pdfdetach (poppler-utils) and go.
//
// Usage: go run ./scripts/evalinbox [-root .] [-only supplier,…] [-profiles on,off] [-v] [-keep]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/relayops/relayops/scripts/realcorpus"
)

func main() {
	var opt options
	var only, profiles string
	flag.StringVar(&opt.root, "root", ".", "repository root (holds testdata/, cmd/api and cmd/worker)")
	flag.StringVar(&only, "only", "", "replay only these suppliers (truth keys, comma-separated), e.g. kelpie-hosting-au")
	flag.StringVar(&profiles, "profiles", "on,off", "the runs: on (RELAYOPS_SUPPLIER_PROFILES=on), off, or both")
	flag.BoolVar(&opt.verbose, "v", false, "list every refused correction, failed correction, false success, cleared detail and duplicate miss or false alarm")
	flag.BoolVar(&opt.keep, "keep", false, "leave the systems running after the report, for a look in the console, until Ctrl-C")
	flag.DurationVar(&opt.timeout, "timeout", 2*time.Minute, "how long a job may take to end, and its review to be created")
	flag.DurationVar(&opt.learnWait, "learn-wait", 2*time.Second, "with profiles on: how long an approval's learning is waited for")
	flag.Parse()
	if only != "" {
		opt.only = strings.Split(only, ",")
	}
	for _, p := range strings.Split(profiles, ",") {
		if p != "on" && p != "off" || slices.Contains(opt.profiles, p) {
			fmt.Fprintf(os.Stderr, "evalinbox: -profiles must be on, off or on,off, got %q\n", profiles)
			os.Exit(2)
		}
		opt.profiles = append(opt.profiles, p)
	}
	if err := checkTools(); err != nil {
		fmt.Fprintln(os.Stderr, "evalinbox:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	met, err := run(ctx, opt, os.Stdout, os.Stderr)
	switch {
	case err == errInterrupted:
		fmt.Fprintln(os.Stderr, "evalinbox: interrupted: the figures above cover the documents replayed so far")
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "evalinbox:", err)
		os.Exit(2)
	case !met:
		fmt.Fprintln(os.Stderr, "evalinbox: a target is MISSED (see targets)")
		os.Exit(1)
	}
}

// run replays the inbox once per opt.profiles and prints the report to w,
// progress to progress. It reports whether every target is met.
func run(ctx context.Context, opt options, w, progress io.Writer) (bool, error) {
	runs, err := replays(ctx, opt, progress)
	defer stopAll(runs)
	if err != nil {
		return false, err
	}
	met := printReport(w, opt, runs)
	interrupted := slices.ContainsFunc(runs, func(r *inboxRun) bool { return r.interrupted }) || ctx.Err() != nil
	if opt.keep && !interrupted {
		keep(ctx, w, runs)
	}
	if interrupted {
		return false, errInterrupted
	}
	return met, nil
}

// stopAll stops the systems left running (-keep) and removes their files.
func stopAll(runs []*inboxRun) {
	for _, r := range runs {
		if r.sys != nil {
			r.sys.stop()
			r.sys.removeFiles()
		}
	}
}

// printReport prints what was replayed and the report; it reports whether
// every target is met.
func printReport(w io.Writer, opt options, runs []*inboxRun) bool {
	header(w, opt, runs)
	return report(w, runs, opt.verbose)
}

// replays loads the corpus, builds the binaries and replays the inbox for
// each run, stopping at an interruption.
func replays(ctx context.Context, opt options, progress io.Writer) ([]*inboxRun, error) {
	docs, err := realcorpus.Load(opt.root)
	if err != nil {
		return nil, err
	}
	items, err := inbox(docs, opt.only)
	if err != nil {
		return nil, err
	}
	bins, err := build(ctx, opt.root, progress)
	if err != nil {
		return nil, err
	}
	defer bins.remove()
	var runs []*inboxRun
	for _, p := range opt.profiles {
		r, err := replay(ctx, opt, bins, p, items, progress)
		if err != nil {
			return runs, err
		}
		runs = append(runs, r)
		if r.interrupted {
			break
		}
	}
	return runs, nil
}

// profilesSetting is the worker's setting of supplier profiles.
const profilesSetting = "RELAYOPS_SUPPLIER_PROFILES"

// header says what was replayed.
func header(w io.Writer, opt options, runs []*inboxRun) {
	suppliers := map[string]bool{}
	n := 0
	if len(runs) > 0 {
		for _, o := range runs[0].outcomes {
			suppliers[o.supplier] = true
			n++
		}
	}
	fmt.Fprintf(w, "\ninbox replay: %d documents of %d suppliers from testdata/real, tenant %q, corrected and decided by operator %q through the API\n",
		n, len(suppliers), tenant, operatorName)
	for _, r := range runs {
		fmt.Fprintf(w, "profiles %s: %d supplier profiles stored at the end\n", r.profiles, r.learned)
	}
}

// keep prints how to reach each system left running, then waits for
// Ctrl-C.
func keep(ctx context.Context, w io.Writer, runs []*inboxRun) {
	fmt.Fprintln(w, "\nthe systems are left running (Ctrl-C stops them):")
	for _, r := range runs {
		if r.sys == nil {
			continue
		}
		fmt.Fprintf(w, "  profiles %s: console %s/console/ (operator %s, token %s); API %s (tenant %s: %s, operator: %s); logs in %s\n",
			r.profiles, r.sys.apiURL, operatorName, r.sys.operatorToken, r.sys.apiURL, tenant, r.sys.tenantToken,
			r.sys.operatorToken, r.sys.dir)
	}
	<-ctx.Done()
}
