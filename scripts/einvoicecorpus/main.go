// Command einvoicecorpus reads every e-invoice of the official examples in
// testdata/einvoice with package einvoice and prints, per source folder,
// syntax and profile (the rule set it is judged by), how many files there
// are, how many parse, how many pass their rules (Check), and what the
// pipeline does with them (extract.FromEInvoice): committed, committed
// with a broken detail rule or a left-out detail flagged, or rejected.
// Hybrid PDFs (Factur-X / ZUGFeRD) are read too when poppler's pdfdetach
// is installed: their embedded factur-x.xml, zugferd-invoice.xml,
// ZUGFeRD-invoice.xml or xrechnung.xml is extracted into a temporary
// directory and parsed like a standalone file.
//
// A file whose name marks it as an intentional negative example (see
// markedInvalid) is counted apart: for those, a rejection or a flag is the
// expected outcome.
//
// -v lists each file that does not parse or breaks a rule with the rules
// and business terms (never a value), and what became of it.
//
// Usage: go run ./scripts/einvoicecorpus [-dir testdata/einvoice] [-v]
package main

import (
	"encoding/json"
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
	"github.com/relayops/relayops/extract"
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
	profile      einvoice.Profile
	fromPDF      bool
	negative     bool
	err          error
	violations   []einvoice.Violation
	// reason is the rejection's reason code; flags the committed result's.
	reason string
	flags  []string
}

// committed reports whether the pipeline commits the invoice.
func (r result) committed() bool { return r.err == nil && r.reason == "" }

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
	r.syntax, r.profile = inv.Syntax, inv.Profile()
	r.violations = inv.Check()
	r.reason, r.flags = outcome(inv)
	return r
}

// outcome is what the pipeline does with the invoice: the reason it is
// rejected with, or the flags it is committed with.
func outcome(inv *einvoice.Invoice) (reason string, flags []string) {
	out, err := extract.FromEInvoice(inv)
	if err != nil {
		var r *extract.Rejection
		if errors.As(err, &r) {
			return r.Reason, nil
		}
		return "error", nil
	}
	var res struct {
		Flags []string `json:"flags"`
	}
	_ = json.Unmarshal(out, &res)
	return "", res.Flags
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
	files, parsed, passed, committed, flagged, rejected int
}

func (r *row) add(res result) {
	r.files++
	if res.err != nil {
		return
	}
	r.parsed++
	if len(res.violations) == 0 {
		r.passed++
	}
	switch {
	case !res.committed():
		r.rejected++
	case len(res.flags) > 0:
		r.committed++
		r.flagged++
	default:
		r.committed++
	}
}

func printTable(w io.Writer, results []result) {
	rows := map[[4]string]*row{}
	var valid, invalid row
	for _, r := range results {
		syntax, profile := string(r.syntax), string(r.profile)
		if r.err != nil {
			syntax, profile = "("+errClass(r.err)+")", ""
		}
		kind := "xml"
		if r.fromPDF {
			kind = "pdf"
		}
		if r.negative {
			kind += ", marked invalid"
			invalid.add(r)
		} else {
			valid.add(r)
		}
		k := [4]string{r.source, kind, syntax, profile}
		if rows[k] == nil {
			rows[k] = &row{}
		}
		rows[k].add(r)
	}
	keys := make([][4]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "/") < strings.Join(keys[j][:], "/") })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tfiles\tsyntax\tprofile\tcount\tparsed\trules passed\tcommitted\tof them flagged\trejected")
	var total row
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", k[0], k[1], k[2], k[3], r.files, r.parsed, r.passed, r.committed, r.flagged, r.rejected)
		total.files += r.files
		total.parsed += r.parsed
		total.passed += r.passed
		total.committed += r.committed
		total.flagged += r.flagged
		total.rejected += r.rejected
	}
	fmt.Fprintf(tw, "total\t\t\t\t%d\t%d\t%d\t%d\t%d\t%d\n", total.files, total.parsed, total.passed, total.committed, total.flagged, total.rejected)
	tw.Flush()
	fmt.Fprintf(w, "\nnot marked invalid: %d parsed, %d committed (%d of them flagged), %d rejected\n",
		valid.parsed, valid.committed, valid.flagged, valid.rejected)
	fmt.Fprintf(w, "marked invalid: %d parsed, %d rejected or flagged, %d committed without a flag\n",
		invalid.parsed, invalid.rejected+invalid.flagged, invalid.committed-invalid.flagged)
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
		case len(r.violations) > 0 || len(r.flags) > 0 || r.reason != "":
			var parts []string
			for _, v := range r.violations {
				parts = append(parts, v.Rule+" "+strings.Join(v.Terms, ","))
			}
			became := "rejected " + r.reason
			if r.committed() {
				became = "committed, flags " + strings.Join(r.flags, ",")
			}
			fmt.Fprintf(w, "%s: %s → %s\n", r.file, strings.Join(parts, "; "), became)
		}
	}
}
