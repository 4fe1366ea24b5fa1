package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// tally counts the outcomes of one group of documents.
type tally struct {
	docs, invoices, succeeded, correct, falseSuccesses int
	nonInvoices, nonRejected                           int
	// otherVendor counts the correct invoices whose vendor is not the
	// truth's (not scored as a false success: the number and total are the
	// document's; reported so that a wrong vendor does not pass unseen).
	otherVendor int
	reasons     map[string]int
	took        time.Duration
}

func (t *tally) add(o outcome) {
	if t.reasons == nil {
		t.reasons = map[string]int{}
	}
	t.docs++
	t.took += o.took
	if o.isInvoice() {
		t.invoices++
	} else {
		t.nonInvoices++
		if !o.succeeded() {
			t.nonRejected++
		}
	}
	if o.succeeded() {
		t.succeeded++
	}
	if o.correct() {
		t.correct++
		if o.otherVendor() {
			t.otherVendor++
		}
	}
	if o.falseSuccess() {
		t.falseSuccesses++
	}
	switch {
	case o.reason != "":
		t.reasons[o.reason]++
	case o.failure != "":
		t.reasons["failure"]++
	}
}

func (t *tally) reasonList() string {
	keys := make([]string, 0, len(t.reasons))
	for k := range t.reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if t.reasons[keys[i]] != t.reasons[keys[j]] {
			return t.reasons[keys[i]] > t.reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, t.reasons[k])
	}
	return strings.Join(parts, ", ")
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

// report prints the tables and, with verbose, every document not read
// right. It returns the number of false successes.
func report(w io.Writer, outs []outcome, verbose bool) int {
	bySource, byLanguage := map[string]*tally{}, map[string]*tally{}
	var all tally
	for _, o := range outs {
		for _, g := range []struct {
			m   map[string]*tally
			key string
		}{{bySource, o.doc.source}, {byLanguage, o.doc.truth.Language}} {
			if g.m[g.key] == nil {
				g.m[g.key] = &tally{}
			}
			g.m[g.key].add(o)
		}
		all.add(o)
	}
	table(w, "source", bySource, &all)
	table(w, "language", byLanguage, &all)
	fmt.Fprintf(w, "\ninvoices correct %d/%d (%s), FALSE SUCCESSES %d, non-invoices rejected %d/%d, %.2f ms per document (rules only)\n",
		all.correct, all.invoices, pct(all.correct, all.invoices), all.falseSuccesses, all.nonRejected, all.nonInvoices,
		msPerDoc(all))
	fmt.Fprintf(w, "of the correct invoices, %d name another vendor than the truth (-v lists them)\n", all.otherVendor)
	var own tally
	for _, o := range outs {
		if o.doc.origin == "" {
			own.add(o)
		}
	}
	if own.docs < all.docs {
		fmt.Fprintf(w, "without the standards' own sample data (origin in einvoice.json): invoices correct %d/%d (%s), FALSE SUCCESSES %d, non-invoices rejected %d/%d\n",
			own.correct, own.invoices, pct(own.correct, own.invoices), own.falseSuccesses, own.nonRejected, own.nonInvoices)
	}
	fmt.Fprintf(w, "targets: 0 false successes %s, >=85%% invoices correct %s, every non-invoice rejected %s\n",
		met(all.falseSuccesses == 0), met(all.correct*100 >= 85*all.invoices), met(all.nonRejected == all.nonInvoices))
	if verbose {
		misses(w, outs)
	}
	return all.falseSuccesses
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func msPerDoc(t tally) float64 {
	if t.docs == 0 {
		return 0
	}
	return float64(t.took.Microseconds()) / 1000 / float64(t.docs)
}

func table(w io.Writer, by string, m map[string]*tally, all *tally) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "\nby %s\n", by)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, by+"\tdocs\tinvoices\tsucceeded\tcorrect\tFALSE SUCC.\tnon-inv. rejected\tms/doc\treasons")
	row := func(k string, t *tally) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d (%s)\t%d\t%d/%d\t%.2f\t%s\n", k, t.docs, t.invoices, t.succeeded, t.correct,
			pct(t.correct, t.invoices), t.falseSuccesses, t.nonRejected, t.nonInvoices, msPerDoc(*t), t.reasonList())
	}
	for _, k := range keys {
		row(k, m[k])
	}
	row("all", all)
	tw.Flush()
}

// sameVendor compares two vendor names, case, spaces and punctuation aside;
// one may hold the other ("Lenze B.V." and "Lenze").
func sameVendor(a, b string) bool {
	norm := func(s string) string {
		var out []rune
		for _, r := range strings.ToLower(s) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				out = append(out, r)
			}
		}
		return string(out)
	}
	x, y := norm(a), norm(b)
	return x != "" && y != "" && (strings.Contains(x, y) || strings.Contains(y, x))
}

// misses lists the documents not read right, with the fields that differ.
// The corpus is public, so values may be shown.
func misses(w io.Writer, outs []outcome) {
	fmt.Fprintln(w, "\ndocuments not read right")
	for _, o := range outs {
		if o.correct() || (!o.isInvoice() && !o.succeeded()) {
			continue
		}
		tag := "rejected " + o.reason + o.failure
		if o.falseSuccess() {
			tag = "FALSE SUCCESS"
		}
		fmt.Fprintf(w, "  %s [%s] %s", o.doc.file, o.doc.truth.DocumentType, tag)
		x := o.extraction
		if o.invoice != nil {
			fmt.Fprintf(w, " number %q (want %q) total %q (want %q)", o.invoice.InvoiceNumber, o.doc.truth.InvoiceNumber, o.invoice.Total, o.doc.truth.Total)
		} else if x != nil && o.isInvoice() {
			fmt.Fprintf(w, " read: number %q (want %q) total %q (want %q) date %q (want %q) vendor %q cur %q", x.InvoiceNumber, o.doc.truth.InvoiceNumber,
				x.Total, o.doc.truth.Total, x.IssueDate, o.doc.truth.IssueDate, x.Vendor, x.Currency)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\ncorrect invoices with another vendor than the truth")
	for _, o := range outs {
		if o.otherVendor() {
			fmt.Fprintf(w, "  %s vendor %q (want %q)\n", o.doc.file, o.invoice.Vendor, o.doc.truth.Vendor)
		}
	}
}
