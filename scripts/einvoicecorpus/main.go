// Command einvoicecorpus reads every e-invoice of the official examples in
// testdata/einvoice with package einvoice and prints, per source folder and
// syntax, how many files there are, how many parse, and how many pass
// Check. Hybrid PDFs (Factur-X / ZUGFeRD) are read too when poppler's
// pdfdetach is installed: their embedded factur-x.xml, zugferd-invoice.xml,
// ZUGFeRD-invoice.xml or xrechnung.xml is extracted into a temporary
// directory and parsed like a standalone file.
//
// A file whose name marks it as an intentional negative example (see
// markedInvalid) is counted apart: for those, "checks failed" is the
// expected outcome.
//
// -v lists each file that does not parse or fails Check with the rules and
// business terms (never a value).
//
// Usage: go run ./scripts/einvoicecorpus [-dir testdata/einvoice] [-v]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/relayops/relayops/einvoice"
)

func main() {
	dir := flag.String("dir", "testdata/einvoice", "corpus directory")
	verbose := flag.Bool("v", false, "list the files that fail")
	flag.Parse()
	if err := run(os.Stdout, *dir, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "einvoicecorpus:", err)
		os.Exit(1)
	}
}

// result is the outcome of one file.
type result struct {
	source, file string
	syntax       einvoice.Syntax
	fromPDF      bool
	negative     bool
	err          error
	violations   []einvoice.Violation
}

func run(w io.Writer, dir string, verbose bool) error {
	results, err := readAll(dir)
	if err != nil {
		return err
	}
	printTable(w, results)
	if verbose {
		printFailures(w, results)
	}
	return nil
}

func readAll(dir string) ([]result, error) {
	pdfdetach, _ := exec.LookPath("pdfdetach")
	var out []result
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		source := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		switch strings.ToLower(filepath.Ext(p)) {
		case ".xml":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, read(source, rel, data, false))
		case ".pdf":
			if pdfdetach == "" {
				return nil
			}
			rs, err := readPDF(pdfdetach, source, rel, p)
			if err != nil {
				return err
			}
			out = append(out, rs...)
		}
		return nil
	})
	return out, err
}

// embeddedNames are the attachment names of an e-invoice in a hybrid PDF.
var embeddedNames = []string{"factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"}

func readPDF(pdfdetach, source, rel, p string) ([]result, error) {
	tmp, err := os.MkdirTemp("", "einvoicecorpus")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// A PDF that pdfdetach cannot read has no attachment to count.
	if err := exec.Command(pdfdetach, "-saveall", "-o", tmp, p).Run(); err != nil {
		return nil, nil
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	var out []result
	for _, e := range entries {
		if !slices.Contains(embeddedNames, strings.ToLower(e.Name())) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, read(source, rel+"!"+e.Name(), data, true))
	}
	return out, nil
}

func read(source, file string, data []byte, fromPDF bool) result {
	r := result{source: source, file: file, fromPDF: fromPDF, negative: markedInvalid(file)}
	inv, err := einvoice.Parse(data)
	if err != nil {
		r.err = err
		return r
	}
	r.syntax = inv.Syntax
	r.violations = inv.Check()
	return r
}

// markedInvalid reports a file its source names as a negative example.
func markedInvalid(file string) bool {
	base := strings.ToLower(filepath.Base(file))
	for _, m := range []string{"invalid", "fail_", "not_validating", "corrupt"} {
		if strings.Contains(base, m) {
			return true
		}
	}
	return false
}

// row is one line of the table.
type row struct {
	files, parsed, passed int
}

func printTable(w io.Writer, results []result) {
	rows := map[[3]string]*row{}
	for _, r := range results {
		syntax := string(r.syntax)
		if r.err != nil {
			syntax = "(" + errClass(r.err) + ")"
		}
		kind := "xml"
		if r.fromPDF {
			kind = "pdf"
		}
		if r.negative {
			kind += ", marked invalid"
		}
		k := [3]string{r.source, kind, syntax}
		if rows[k] == nil {
			rows[k] = &row{}
		}
		rows[k].files++
		if r.err == nil {
			rows[k].parsed++
			if len(r.violations) == 0 {
				rows[k].passed++
			}
		}
	}
	keys := make([][3]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "/") < strings.Join(keys[j][:], "/") })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tfiles\tsyntax\tcount\tparsed\tchecks passed")
	var total row
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", k[0], k[1], k[2], r.files, r.parsed, r.passed)
		total.files += r.files
		total.parsed += r.parsed
		total.passed += r.passed
	}
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%d\n", total.files, total.parsed, total.passed)
	tw.Flush()
}

func errClass(err error) string {
	var se *einvoice.SyntaxError
	switch {
	case errors.Is(err, einvoice.ErrNotEInvoice):
		return "not an e-invoice"
	case errors.As(err, &se):
		return "malformed XML"
	case errors.Is(err, einvoice.ErrDoctype):
		return "DOCTYPE refused"
	}
	return "refused"
}

func printFailures(w io.Writer, results []result) {
	for _, r := range results {
		switch {
		case r.err != nil:
			fmt.Fprintf(w, "%s: %s\n", r.file, errClass(r.err))
		case len(r.violations) > 0:
			var parts []string
			for _, v := range r.violations {
				parts = append(parts, v.Rule+" "+strings.Join(v.Terms, ","))
			}
			fmt.Fprintf(w, "%s: %s\n", r.file, strings.Join(parts, "; "))
		}
	}
}
