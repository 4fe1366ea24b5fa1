// Command evalreal measures the rules extractor on real documents: the
// PDFs of testdata/real/<source>/, each with a truth file a person checked
// (<name>.json beside <name>.pdf), and the hybrid Factur-X / ZUGFeRD PDFs
// that testdata/real/einvoice.json lists, whose truth is the CII XML they
// embed (read with pdfdetach at run time). Each PDF's text comes from
// readText (the project's read stage; -text pdftotext for poppler's); it goes through Classify → Extract → Validate as the worker
// runs them, and the command prints, per source, per language and per
// document type (invoices, credit notes, corrective invoices, the documents
// whose truth expects a rejection, duplicate copies, non-invoices):
// documents, succeeded, correct, FALSE SUCCESSES, expected rejections
// rejected, non-invoices rejected, the reasons, and milliseconds per
// document; then, per field, how the committed values compare with the
// truth. A false success is a success with any committed field (number,
// total, subtotal, tax, currency, issue date, vendor, due date) that
// differs from a field the truth vouches for, or with another document
// type than the truth's (a credit note booked as an invoice, a receipt
// committed).
//
// It exits 1 when a false success occurs, 2 on bad usage or a broken
// corpus, and skips loudly (exit 0) when pdfdetach is not installed.
//
// With -replay it runs the supplier replay instead (replay.go): each
// supplier's documents in file order, the later ones read with a profile
// learned from the people's corrections and approvals of the earlier
// ones, beside the rules alone.
//
// Usage: go run ./scripts/evalreal [-root .] [-v] [-text reader|pdftotext] [-only substr [-show]] [-replay]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"

	"github.com/relayops/relayops/scripts/realcorpus"
)

func main() {
	root := flag.String("root", ".", "repository root (holds testdata/real and testdata/einvoice)")
	verbose := flag.Bool("v", false, "list every document that is not read right: file, field, expected and obtained")
	scan := flag.Int("scan", 0, "read each PDF as a scan instead: its pages rendered at this many dpi (e.g. 150 or 300) and read by OCR (needs tesseract)")
	only := flag.String("only", "", "evaluate only the documents whose path contains this text")
	show := flag.Bool("show", false, "with -only: print the text each document is read as, and the extraction, before the report")
	text := flag.String("text", "reader", "where a PDF's text comes from: reader (the project's read stage, as the worker) or pdftotext (poppler's pdftotext -layout, the anchor)")
	replayMode := flag.Bool("replay", false, "run the supplier replay: each supplier's later documents read with a profile learned from the earlier ones (with -only: the suppliers of the documents whose path contains it)")
	flag.Parse()
	switch *text {
	case "reader":
	case "pdftotext":
		readText = readWithPdftotext
	default:
		fmt.Fprintf(os.Stderr, "evalreal: -text must be reader or pdftotext, got %q\n", *text)
		os.Exit(2)
	}
	if *scan > 0 {
		if _, err := exec.LookPath("tesseract"); err != nil {
			fmt.Fprintln(os.Stderr, "evalreal: SKIPPED the scan rows: tesseract is not installed (apt-get install tesseract-ocr)")
			return
		}
		readText = readScan(*scan)
		fmt.Fprintf(os.Stderr, "evalreal: scans: every PDF rendered at %d dpi and read by OCR\n", *scan)
	}
	// The truth of a hybrid PDF is its embedded XML, read with pdfdetach.
	if _, err := exec.LookPath("pdfdetach"); err != nil {
		fmt.Fprintln(os.Stderr, "evalreal: SKIPPED: pdfdetach is not installed (apt-get install poppler-utils); it reads the truth of the hybrid PDFs")
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	if *show && *only == "" {
		fmt.Fprintln(os.Stderr, "evalreal: -show needs -only (it prints every document's text)")
		os.Exit(2)
	}
	runMode := run
	if *replayMode {
		runMode = runReplay
	}
	falseSuccesses, err := runMode(ctx, options{root: *root, only: *only, verbose: *verbose, show: *show}, os.Stdout, os.Stderr)
	stop()
	if *scan > 0 {
		fmt.Println(scanSummary(*scan))
	}
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "evalreal:", err)
		os.Exit(2)
	case len(falseSuccesses) > 0:
		fmt.Fprintf(os.Stderr, "evalreal: %d false successes (committed fields that differ from the truth)\n", len(falseSuccesses))
		os.Exit(1)
	}
}

// options are the command's flags that run reads.
type options struct {
	root, only    string
	verbose, show bool
}

// run evaluates every document under opt.root (those whose path contains
// opt.only) and writes the report to w, progress to progress. It returns
// every false success, field by field.
func run(ctx context.Context, opt options, w, progress io.Writer) ([]falseSuccess, error) {
	docs, err := realcorpus.Load(opt.root)
	if err != nil {
		return nil, err
	}
	if opt.only != "" {
		docs = slices.DeleteFunc(docs, func(d realcorpus.Document) bool { return !strings.Contains(d.File, opt.only) })
	}
	switch {
	case len(docs) == 0 && opt.only != "":
		return nil, fmt.Errorf("no document's path contains %q", opt.only)
	case len(docs) == 0:
		return nil, errors.New("no documents under testdata/real")
	}
	outs := make([]outcome, 0, len(docs))
	for i, d := range docs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		o := evaluate(ctx, d)
		if opt.show {
			o.print(w)
		}
		outs = append(outs, o)
		if (i+1)%10 == 0 || i+1 == len(docs) {
			fmt.Fprintf(progress, "\revalreal: %d/%d documents", i+1, len(docs))
		}
	}
	fmt.Fprintln(progress)
	return report(w, outs, opt.verbose), nil
}
