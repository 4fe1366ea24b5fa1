package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relayops/relayops/scripts/realcorpus"
)

// tally counts the outcomes of one group of documents.
type tally struct {
	docs, invoices, succeeded, correct, falseSuccesses int
	nonInvoices, nonRejected                           int
	// expected counts the booked documents whose truth expects a rejection
	// (their figures do not add up, they name no issuer); expectedRejected
	// those rejected, which is right.
	expected, expectedRejected int
	reasons                    map[string]int
	took                       time.Duration
}

func (t *tally) add(o outcome) {
	if t.reasons == nil {
		t.reasons = map[string]int{}
	}
	t.docs++
	t.took += o.took
	switch {
	case !o.isInvoice():
		t.nonInvoices++
		if !o.succeeded() {
			t.nonRejected++
		}
	case o.expectsRejection():
		t.expected++
		if !o.succeeded() {
			t.expectedRejected++
		}
	default:
		t.invoices++
	}
	if o.succeeded() {
		t.succeeded++
	}
	if o.correct() && !o.expectsRejection() {
		t.correct++
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

// falseSuccess is one committed field that differs from the truth.
type falseSuccess struct {
	file, field, committed, want string
}

// report prints the tables and, with verbose, every document not read
// right. It returns every false success, field by field.
func report(w io.Writer, outs []outcome, verbose bool) []falseSuccess {
	bySource, byLanguage, byType := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	var all, own tally
	for _, o := range outs {
		for _, g := range []struct {
			m   map[string]*tally
			key string
		}{{bySource, o.doc.Source}, {byLanguage, o.doc.Truth.Language}, {byType, typeRow(o)}} {
			if g.m[g.key] == nil {
				g.m[g.key] = &tally{}
			}
			g.m[g.key].add(o)
		}
		if o.doc.Truth.DuplicateOf != "" {
			if byType["duplicate copies (also above)"] == nil {
				byType["duplicate copies (also above)"] = &tally{}
			}
			byType["duplicate copies (also above)"].add(o)
		}
		all.add(o)
		if o.doc.Origin == "" {
			own.add(o)
		}
	}
	table(w, "source", bySource, &all)
	table(w, "language", byLanguage, &all)
	table(w, "document type", byType, &all)
	suppliers(w, outs)
	fields := fieldTable(w, outs)
	fmt.Fprintf(w, "\ninvoices correct %d/%d (%s), FALSE SUCCESSES %d (%s), expected rejections rejected %d/%d, non-invoices rejected %d/%d, %.2f ms per document (rules only)\n",
		all.correct, all.invoices, pct(all.correct, all.invoices), all.falseSuccesses, fields, all.expectedRejected, all.expected,
		all.nonRejected, all.nonInvoices, msPerDoc(all))
	if own.docs < all.docs {
		fmt.Fprintf(w, "without the standards' own sample data (origin in einvoice.json): invoices correct %d/%d (%s), FALSE SUCCESSES %d, non-invoices rejected %d/%d\n",
			own.correct, own.invoices, pct(own.correct, own.invoices), own.falseSuccesses, own.nonRejected, own.nonInvoices)
	}
	fmt.Fprintf(w, "targets: 0 false successes %s, >=85%% invoices correct %s, every non-invoice rejected %s\n",
		met(all.falseSuccesses == 0), met(all.correct*100 >= 85*all.invoices), met(all.nonRejected == all.nonInvoices))
	if verbose {
		misses(w, outs)
	}
	var fs []falseSuccess
	for _, o := range outs {
		for _, x := range o.wrongFields() {
			fs = append(fs, falseSuccess{o.doc.File, x.Field, x.Committed, x.Want})
		}
	}
	return fs
}

// suppliers prints, for each supplier with two documents or more (the
// truth's supplier key), how its documents fared in file order: the rules
// alone, without anything learned from the first. It is the baseline of
// the inbox replay's "touchless among a supplier's later documents".
func suppliers(w io.Writer, outs []outcome) {
	by := map[string][]outcome{}
	for _, o := range outs {
		if k := o.doc.Truth.Supplier; k != "" {
			by[k] = append(by[k], o)
		}
	}
	keys := make([]string, 0, len(by))
	for k, os := range by {
		if len(os) >= 2 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "\nby supplier (2 or more documents, in file order; the rules alone)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "supplier	docs	correct	FALSE SUCC.	later docs correct	per document (+ correct, - rejected, ! false success, x non-invoice rejected)")
	var later, laterCorrect int
	for _, k := range keys {
		os := by[k]
		sort.SliceStable(os, func(i, j int) bool { return os[i].doc.File < os[j].doc.File })
		var correct, fs, lc int
		marks := make([]byte, len(os))
		for i, o := range os {
			switch {
			case o.falseSuccess():
				fs++
				marks[i] = '!'
			case o.correct() || (o.expectsRejection() && !o.succeeded()):
				correct++
				marks[i] = '+'
			case !o.isInvoice():
				marks[i] = 'x'
			default:
				marks[i] = '-'
			}
			if i > 0 && o.isInvoice() {
				later++
				if marks[i] == '+' {
					lc++
				}
			}
		}
		laterCorrect += lc
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d/%d\t%s\n", k, len(os), correct, fs, lc, len(os)-1, marks)
	}
	tw.Flush()
	fmt.Fprintf(w, "later documents of a supplier correct (the rules alone): %d/%d (%s)\n", laterCorrect, later, pct(laterCorrect, later))
}

// typeRow is a document's row in the table by document type.
func typeRow(o outcome) string {
	switch {
	case o.expectsRejection():
		return "expect rejection (" + o.doc.Truth.DocumentType + ")"
	case o.isInvoice():
		return o.doc.Truth.DocumentType
	}
	return "non-invoice (" + o.doc.Truth.DocumentType + ")"
}

// fieldTable prints, per field, how the committed values of the successes
// compare with the truth, and returns the false successes per field in one
// line ("total 0, tax 1, …").
func fieldTable(w io.Writer, outs []outcome) string {
	type count struct{ vouched, right, wrong, none int }
	counts := map[string]*count{}
	fields := append([]string{realcorpus.FieldDocumentType}, realcorpus.Vouchable...)
	for _, f := range fields {
		counts[f] = &count{}
	}
	for _, o := range outs {
		if !o.succeeded() {
			continue
		}
		wrongs := map[string]bool{}
		for _, x := range o.wrongFields() {
			wrongs[x.Field] = true
			counts[x.Field].wrong++
		}
		counts[realcorpus.FieldDocumentType].vouched++
		if !wrongs[realcorpus.FieldDocumentType] {
			counts[realcorpus.FieldDocumentType].right++
		}
		if !o.isInvoice() {
			continue
		}
		for _, f := range realcorpus.Vouchable {
			if !o.doc.Truth.Vouches(f) {
				continue
			}
			counts[f].vouched++
			switch {
			case wrongs[f]:
			case realcorpus.Committed(o.invoice, f) == "":
				counts[f].none++
			default:
				counts[f].right++
			}
		}
	}
	fmt.Fprintf(w, "\nby field (the documents that succeeded)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "field\tvouched\tright\tFALSE SUCC.\tnot committed")
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		c := counts[f]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", f, c.vouched, c.right, c.wrong, c.none)
		parts = append(parts, fmt.Sprintf("%s %d", f, c.wrong))
	}
	tw.Flush()
	return strings.Join(parts, ", ")
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
	fmt.Fprintln(tw, by+"\tdocs\tinvoices\tsucceeded\tcorrect\tFALSE SUCC.\texpect rej. rejected\tnon-inv. rejected\tms/doc\treasons")
	row := func(k string, t *tally) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d (%s)\t%d\t%d/%d\t%d/%d\t%.2f\t%s\n", k, t.docs, t.invoices, t.succeeded, t.correct,
			pct(t.correct, t.invoices), t.falseSuccesses, t.expectedRejected, t.expected, t.nonRejected, t.nonInvoices, msPerDoc(*t), t.reasonList())
	}
	for _, k := range keys {
		row(k, m[k])
	}
	row("all", all)
	tw.Flush()
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
		switch {
		case o.falseSuccess():
			tag = "FALSE SUCCESS"
		case o.expectsRejection():
			tag += " (expected)"
		}
		fmt.Fprintf(w, "  %s [%s] %s", o.doc.File, o.doc.Truth.DocumentType, tag)
		x := o.extraction
		if o.invoice != nil {
			for _, f := range o.wrongFields() {
				fmt.Fprintf(w, " %s %q (want %q)", f.Field, f.Committed, f.Want)
			}
		} else if x != nil && o.isInvoice() {
			fmt.Fprintf(w, " read: number %q (want %q) total %q (want %q) date %q (want %q) vendor %q cur %q", x.InvoiceNumber, o.doc.Truth.InvoiceNumber,
				x.Total, o.doc.Truth.Total, x.IssueDate, o.doc.Truth.IssueDate, x.Vendor, x.Currency)
		}
		fmt.Fprintln(w)
	}
}
