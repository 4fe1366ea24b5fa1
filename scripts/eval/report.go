package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/corpus"
)

// Targets of the evaluation.
const (
	// targetPercent is the share of invoices whose number and total must
	// be right, on every layout.
	targetPercent = 98.0
)

// layoutScore counts, for the invoices of one layout that must succeed,
// how many succeeded and how many got each field right.
type layoutScore struct {
	docs, succeeded int
	right           map[string]int
}

// groupScore counts the documents of one kind of non-invoice, or of one
// reason of a broken invoice. credited counts the successes booked as a
// credit note (documentType creditNote).
type groupScore struct {
	docs, succeeded, rejected, expected, failed, credited int
	reasons                                               map[string]int
}

// report is the evaluation of one run.
type report struct {
	layouts map[string]*layoutScore
	others  map[string]*groupScore // non-invoices by kind
	credits map[string]*groupScore // credit notes, which are booked: as credit notes, never as invoices
	broken  map[string]*groupScore // broken invoices by expected reason
	outs    []outcome
}

func newReport(outs []outcome) *report {
	rep := &report{layouts: map[string]*layoutScore{}, others: map[string]*groupScore{}, credits: map[string]*groupScore{},
		broken: map[string]*groupScore{}, outs: outs}
	for _, o := range outs {
		t := o.doc.Truth
		switch {
		case t.MustSucceed():
			rep.scoreInvoice(o)
		case t.Kind == corpus.KindCreditNote:
			score(group(rep.credits, t.Kind), o)
		case !t.IsInvoice:
			score(group(rep.others, t.Kind), o)
		default:
			score(group(rep.broken, t.Reason), o)
		}
	}
	return rep
}

func (rep *report) scoreInvoice(o outcome) {
	ls := rep.layouts[o.doc.Layout]
	if ls == nil {
		ls = &layoutScore{right: map[string]int{}}
		rep.layouts[o.doc.Layout] = ls
	}
	ls.docs++
	if !o.succeeded() {
		return // every field of an invoice that did not get through is wrong
	}
	ls.succeeded++
	want, got := truthValues(o.doc.Truth), invoiceValues(o.invoice)
	for _, f := range fields {
		if sameField(f, want[f], got[f]) {
			ls.right[f]++
		}
	}
}

func group(m map[string]*groupScore, key string) *groupScore {
	g := m[key]
	if g == nil {
		g = &groupScore{reasons: map[string]int{}}
		m[key] = g
	}
	return g
}

func score(g *groupScore, o outcome) {
	g.docs++
	switch {
	case o.succeeded():
		g.succeeded++
		if o.invoice.DocumentType == extract.DocCreditNote {
			g.credited++
		}
	case o.rejected():
		g.rejected++
		g.reasons[o.reason]++
		if o.reason == o.doc.Truth.Reason {
			g.expected++
		}
	default:
		g.failed++
		g.reasons[o.failure]++
	}
}

func pct(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

// sortedKeys orders generated layouts (and kinds, reasons) first, then the
// hand-written ones ("hand-…"), each alphabetically.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		hi, hj := strings.HasPrefix(keys[i], "hand-"), strings.HasPrefix(keys[j], "hand-")
		if hi != hj {
			return hj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// write prints the tables: invoices by layout and field, non-invoices by
// kind, broken invoices by reason, the speed.
func (rep *report) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Invoices that must succeed, by layout: % succeeded, and % right per field (a field of an invoice that did not succeed counts as wrong)")
	fmt.Fprintf(tw, "layout\tdocs\tok\t%s\t\n", strings.Join(fields, "\t"))
	all := &layoutScore{right: map[string]int{}}
	for _, name := range sortedKeys(rep.layouts) {
		ls := rep.layouts[name]
		rep.writeLayout(tw, name, ls)
		all.docs += ls.docs
		all.succeeded += ls.succeeded
		for f, n := range ls.right {
			all.right[f] += n
		}
	}
	rep.writeLayout(tw, "all", all)
	tw.Flush()

	fmt.Fprintln(w, "\nDocuments that are not invoices, by kind: each must be rejected (not_an_invoice expected)")
	writeGroups(w, "kind", rep.others)
	fmt.Fprintln(w, "\nCredit notes: booked as credit notes (succeeded as creditNote) or rejected, never booked as invoices")
	writeGroups(w, "kind", rep.credits)
	fmt.Fprintln(w, "\nInvoices that do not add up or lack a field, by expected reason: none may succeed")
	writeGroups(w, "reason", rep.broken)

	rep.writeSpeed(w)
}

// writeSpeed prints documents per second and the spread of the time per
// document, naming the slowest document (by ID).
func (rep *report) writeSpeed(w io.Writer) {
	n := len(rep.outs)
	if n == 0 {
		return
	}
	var total time.Duration
	took := make([]time.Duration, n)
	slowest := rep.outs[0]
	for i, o := range rep.outs {
		total += o.took
		took[i] = o.took
		if o.took > slowest.took {
			slowest = o
		}
	}
	slices.Sort(took)
	q := func(p float64) time.Duration { return took[min(n-1, int(p*float64(n)))] }
	fmt.Fprintf(w, "\nSpeed: %d documents through classify → extract → validate in %s (one goroutine): %.0f documents/s, mean %s, p50 %s, p99 %s, slowest %s (%s)\n",
		n, total.Round(time.Microsecond), float64(n)/max(total.Seconds(), 1e-9), (total / time.Duration(n)).Round(time.Microsecond),
		q(0.50).Round(time.Microsecond), q(0.99).Round(time.Microsecond), slowest.took.Round(time.Microsecond), slowest.doc.ID)
}

func (rep *report) writeLayout(tw io.Writer, name string, ls *layoutScore) {
	cells := []string{name, fmt.Sprint(ls.docs), fmt.Sprintf("%.1f", pct(ls.succeeded, ls.docs))}
	for _, f := range fields {
		cells = append(cells, fmt.Sprintf("%.1f", pct(ls.right[f], ls.docs)))
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
}

func writeGroups(w io.Writer, label string, groups map[string]*groupScore) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tdocs\trejected\texpected reason\tsucceeded\tas credit note\terrors\treasons given\n", label)
	all := &groupScore{reasons: map[string]int{}}
	for _, k := range sortedKeys(groups) {
		g := groups[k]
		writeGroup(tw, k, g)
		all.docs += g.docs
		all.rejected += g.rejected
		all.expected += g.expected
		all.succeeded += g.succeeded
		all.credited += g.credited
		all.failed += g.failed
		for r, n := range g.reasons {
			all.reasons[r] += n
		}
	}
	writeGroup(tw, "all", all)
	tw.Flush()
}

func writeGroup(tw io.Writer, name string, g *groupScore) {
	reasons := sortedKeys(g.reasons)
	slices.SortStableFunc(reasons, func(a, b string) int { return g.reasons[b] - g.reasons[a] })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%s=%d", r, g.reasons[r])
	}
	fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%s\n", name, g.docs, pct(g.rejected, g.docs), g.expected, g.succeeded, g.credited, g.failed, strings.Join(parts, " "))
}

// verdict checks the targets, prints each and reports whether all are met.
func (rep *report) verdict(w io.Writer) bool {
	ok := true
	check := func(met bool, format string, args ...any) {
		mark := "ok  "
		if !met {
			mark, ok = "MISS", false
		}
		fmt.Fprintf(w, "  [%s] %s\n", mark, fmt.Sprintf(format, args...))
	}
	fmt.Fprintln(w, "\nTargets")
	for _, f := range []string{"number", "total"} {
		var below []string
		for _, name := range sortedKeys(rep.layouts) {
			ls := rep.layouts[name]
			if p := pct(ls.right[f], ls.docs); p < targetPercent {
				below = append(below, fmt.Sprintf("%s %.1f%%", name, p))
			}
		}
		check(len(below) == 0, "%s right on ≥ %.0f%% of every layout%s", f, targetPercent, listed(below))
	}
	var notRejected []string
	for _, k := range sortedKeys(rep.others) {
		if g := rep.others[k]; g.rejected < g.docs {
			notRejected = append(notRejected, fmt.Sprintf("%s %d of %d", k, g.docs-g.rejected, g.docs))
		}
	}
	check(len(notRejected) == 0, "every document that is not an invoice rejected%s", listed(notRejected))
	var asInvoice []string
	for _, k := range sortedKeys(rep.credits) {
		if g := rep.credits[k]; g.succeeded > g.credited {
			asInvoice = append(asInvoice, fmt.Sprintf("%s %d of %d", k, g.succeeded-g.credited, g.docs))
		}
	}
	check(len(asInvoice) == 0, "every credit note booked as a credit note or rejected%s", listed(asInvoice))
	falseOK := 0
	for _, g := range rep.broken {
		falseOK += g.succeeded
	}
	check(falseOK == 0, "no false succeeded on an invoice that must be rejected (%d)", falseOK)
	return ok
}

func listed(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return ": missed by " + strings.Join(items, ", ")
}

// failures lists, by document ID, what went wrong: never the document's
// text, only its ID, layout, the field, and the expected and obtained
// values.
func (rep *report) failures(w io.Writer) {
	fmt.Fprintln(w, "\nFailures (document ID, layout or kind: what went wrong)")
	count := 0
	for _, o := range rep.outs {
		for _, line := range failureLines(o) {
			fmt.Fprintf(w, "  %s  %s  %s\n", o.doc.ID, o.doc.Layout, line)
			count++
		}
	}
	if count == 0 {
		fmt.Fprintln(w, "  none")
	}
}

func failureLines(o outcome) []string {
	t := o.doc.Truth
	switch {
	case t.MustSucceed() && o.succeeded():
		return diffLines(diffs(t, invoiceValues(o.invoice)))
	case t.MustSucceed():
		head := "not succeeded: " + o.outcomeName()
		if o.extraction == nil {
			return []string{head}
		}
		return append([]string{head + "; its extraction:"}, diffLines(diffs(t, extractionValues(o.extraction)))...)
	case o.succeeded():
		return []string{"succeeded, expected rejection " + t.Reason}
	case o.reason != t.Reason:
		return []string{fmt.Sprintf("%s, expected %s", o.outcomeName(), t.Reason)}
	}
	return nil
}

func (o outcome) outcomeName() string {
	if o.rejected() {
		return "rejected " + o.reason
	}
	return o.failure
}

func diffLines(ds []diff) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("    %s: expected %q got %q", d.field, d.want, d.got)
	}
	return out
}

// documentsOf counts the documents of each category for the heading.
func documentsOf(docs []corpus.Document) (invoices, others, broken int) {
	for _, d := range docs {
		switch {
		case d.Truth.MustSucceed():
			invoices++
		case !d.Truth.IsInvoice:
			others++
		default:
			broken++
		}
	}
	return invoices, others, broken
}
