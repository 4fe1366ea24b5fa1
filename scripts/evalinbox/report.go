package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/relayops/relayops/scripts/realcorpus"
)

// tally counts the outcomes of a group of documents in one run.
type tally struct {
	docs                       int
	booked, touchless          int // booked documents (their truth expects no rejection); touchless ones
	later, laterTouchless      int // booked documents after their supplier's first
	expected, expectedRejected int // booked documents whose truth expects a rejection; rejected
	others, othersRejected     int // documents that are no invoice; rejected

	corrections, refused, failed int            // reprocesses with corrections; refused (400); accepted, then not succeeded
	removed                      map[string]int // details cleared after a refusal, by field
	typeGiven                    int            // corrections that gave a credit note's or corrective invoice's type

	falseSuccesses          int            // documents committed with a field that differs from the truth
	wrongFields             map[string]int // by field
	approvalFixes, approved int            // approvals with corrections; approvals
	approvalRefused         int            // approvals whose corrections were refused

	duplicates, caught, missed, falseAlarms int

	profileReads, waited, learned int
	rateLimited, problems         int
}

func (t *tally) add(o outcome) {
	if t.removed == nil {
		t.removed, t.wrongFields = map[string]int{}, map[string]int{}
	}
	t.docs++
	switch o.kind() {
	case kindBooked:
		t.booked++
		t.touchless += b2i(o.touchless)
		if o.later {
			t.later++
			t.laterTouchless += b2i(o.touchless)
		}
	case kindExpected:
		t.expected++
		t.expectedRejected += b2i(o.state == stateDeadLettered)
	case kindOther:
		t.others++
		t.othersRejected += b2i(o.state == stateDeadLettered)
	}
	if o.corrected {
		t.corrections++
		t.refused += b2i(o.refused != nil)
		t.failed += b2i(o.failed != "")
		t.typeGiven += b2i(o.sent[fieldDocumentType] != nil)
		for _, f := range o.removed {
			t.removed[f]++
		}
	}
	if len(o.wrong) > 0 {
		t.falseSuccesses++
		for _, w := range o.wrong {
			t.wrongFields[w.Field]++
		}
	}
	t.approved += b2i(o.decided == "approved")
	t.approvalFixes += b2i(o.approvalFixes != nil)
	t.approvalRefused += b2i(o.approvalRefused != nil)
	if o.doc.Truth.DuplicateOf != "" {
		t.duplicates++
	}
	t.caught += b2i(o.dup == dupCaught)
	t.missed += b2i(o.dup == dupMissed)
	t.falseAlarms += b2i(o.dup == dupFalseAlarm)
	t.profileReads += b2i(o.profileRead)
	t.waited += b2i(o.waited)
	t.learned += b2i(o.learned)
	t.rateLimited += o.rateLimited
	t.problems += len(o.problems)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, of, 100*float64(n)/float64(of))
}

func frac(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", n, of)
}

// noSupplier is the row of the documents whose truth names no supplier.
const noSupplier = "(no supplier key)"

// touchlessTarget is the share of a supplier's later documents that must
// go through untouched with supplier profiles, in percent.
const touchlessTarget = 90

// report prints the replay's tables, per supplier and in total, the runs
// side by side, then the targets; it reports whether every target is met.
func report(w io.Writer, runs []*inboxRun, verbose bool) bool {
	if len(runs) == 0 {
		return false
	}
	suppliers, bySupplier, totals := tallies(runs)
	head := make([]string, len(runs))
	for i, r := range runs {
		head[i] = "profiles " + r.profiles
	}
	fmt.Fprintf(w, "\nby supplier, in replay order (%s)\n", strings.Join(head, " | "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "supplier\tdocs\ttouchless\tlater touchless\tcorrections\trefused\tfailed\tFALSE SUCC.\tduplicates caught/missed/false alarms")
	for _, s := range suppliers {
		ts := bySupplier[s]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s, ts[0].docs,
			cells(ts, func(t *tally) string { return frac(t.touchless, t.booked) }),
			cells(ts, func(t *tally) string { return frac(t.laterTouchless, t.later) }),
			cells(ts, func(t *tally) string { return fmt.Sprint(t.corrections) }),
			cells(ts, func(t *tally) string { return fmt.Sprint(t.refused) }),
			cells(ts, func(t *tally) string { return fmt.Sprint(t.failed) }),
			cells(ts, func(t *tally) string { return fmt.Sprint(t.falseSuccesses) }),
			cells(ts, func(t *tally) string {
				if t.duplicates+t.falseAlarms == 0 {
					return "-"
				}
				return fmt.Sprintf("%d/%d/%d", t.caught, t.missed, t.falseAlarms)
			}))
	}
	tw.Flush()
	totalTable(w, head, totals)
	met := targets(w, runs, totals)
	if verbose {
		for _, r := range runs {
			lists(w, r)
		}
	}
	for _, r := range runs {
		unexpected(w, r)
	}
	return met
}

// tallies counts each run per supplier (in replay order) and in total.
func tallies(runs []*inboxRun) (suppliers []string, bySupplier map[string][]*tally, totals []*tally) {
	bySupplier = map[string][]*tally{}
	totals = make([]*tally, len(runs))
	for i, r := range runs {
		totals[i] = &tally{}
		for _, o := range r.outcomes {
			s := o.supplier
			if s == "" {
				s = noSupplier
			}
			if bySupplier[s] == nil {
				suppliers = append(suppliers, s)
				bySupplier[s] = make([]*tally, len(runs))
				for j := range runs {
					bySupplier[s][j] = &tally{}
				}
			}
			bySupplier[s][i].add(o)
			totals[i].add(o)
		}
	}
	// The documents without a supplier key, one row, last.
	if i := slices.Index(suppliers, noSupplier); i >= 0 {
		suppliers = append(slices.Delete(suppliers, i, i+1), noSupplier)
	}
	return suppliers, bySupplier, totals
}

// cells joins one figure of each run: "4/5 | 5/5".
func cells(ts []*tally, f func(*tally) string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = f(t)
	}
	return strings.Join(parts, " | ")
}

func totalTable(w io.Writer, head []string, ts []*tally) {
	fmt.Fprintln(w, "\nin total")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\n", strings.Join(head, "\t"))
	row := func(label string, f func(*tally) string) {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = f(t)
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, strings.Join(parts, "\t"))
	}
	num := func(f func(*tally) int) func(*tally) string { return func(t *tally) string { return fmt.Sprint(f(t)) } }
	row("documents", num(func(t *tally) int { return t.docs }))
	row("booked documents touchless", func(t *tally) string { return ratio(t.touchless, t.booked) })
	row("touchless among a supplier's later documents", func(t *tally) string { return ratio(t.laterTouchless, t.later) })
	row("corrections (a rejection corrected with the truth)", num(func(t *tally) int { return t.corrections }))
	row("  corrections refused (a 400 answer the clerk could not get past)", num(func(t *tally) int { return t.refused }))
	row("  accepted corrections that failed", num(func(t *tally) int { return t.failed }))
	row("  with the type of a credit note or corrective invoice", num(func(t *tally) int { return t.typeGiven }))
	for _, f := range removedFields(ts) {
		row(fmt.Sprintf("  %s cleared after a refusal", removalWords(f)), num(func(t *tally) int { return t.removed[f] }))
	}
	row("false successes (documents committed with a wrong field)", num(func(t *tally) int { return t.falseSuccesses }))
	row("approvals", num(func(t *tally) int { return t.approved }))
	row("  with corrections (of a false success)", num(func(t *tally) int { return t.approvalFixes }))
	row("  whose corrections were refused", num(func(t *tally) int { return t.approvalRefused }))
	row("true duplicates caught / missed", func(t *tally) string {
		return fmt.Sprintf("%d / %d of %d", t.caught, t.missed, t.duplicates)
	})
	row("duplicate false alarms", num(func(t *tally) int { return t.falseAlarms }))
	row("expected rejections rejected", func(t *tally) string { return frac(t.expectedRejected, t.expected) })
	row("non-invoices rejected", func(t *tally) string { return frac(t.othersRejected, t.others) })
	row("results read with a supplier profile", num(func(t *tally) int { return t.profileReads }))
	row("approvals that taught a profile", func(t *tally) string {
		if t.waited == 0 {
			return "not looked at"
		}
		return frac(t.learned, t.waited)
	})
	row("429 answers", num(func(t *tally) int { return t.rateLimited }))
	row("UNEXPECTED answers", num(func(t *tally) int { return t.problems }))
	tw.Flush()
	fmt.Fprintln(w, "\nfalse successes per field")
	for i, t := range ts {
		fmt.Fprintf(w, "  %s: %s\n", head[i], perField(t.wrongFields))
	}
}

// removedFields are the details any run cleared after a refusal, sorted.
func removedFields(ts []*tally) []string {
	set := map[string]bool{}
	for _, t := range ts {
		for f := range t.removed {
			set[f] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func removalWords(field string) string {
	v, _ := json.Marshal(removals[field])
	return field + ": " + string(v)
}

// perField is "documentType 0, invoiceNumber 1, …" over every field judged.
func perField(m map[string]int) string {
	fields := append([]string{realcorpus.FieldDocumentType}, realcorpus.Vouchable...)
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = fmt.Sprintf("%s %d", f, m[f])
	}
	return strings.Join(parts, ", ")
}

// targets prints the replay's targets for each run (no correction refused
// or failed, no 429, no false success, later documents touchless with
// profiles: that one with profiles only) and reports whether all are met.
func targets(w io.Writer, runs []*inboxRun, ts []*tally) bool {
	fmt.Fprintln(w, "\ntargets")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := make([]string, len(runs))
	for i, r := range runs {
		head[i] = "profiles " + r.profiles
	}
	fmt.Fprintf(tw, "\t%s\n", strings.Join(head, "\t"))
	all := true
	row := func(label string, judge func(r *inboxRun, t *tally) (ok, applies bool, figure string)) {
		parts := make([]string, len(runs))
		for i, r := range runs {
			ok, applies, figure := judge(r, ts[i])
			switch {
			case !applies:
				parts[i] = "-"
			case ok:
				parts[i] = "met (" + figure + ")"
			default:
				parts[i] = "MISSED (" + figure + ")"
				all = false
			}
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, strings.Join(parts, "\t"))
	}
	zero := func(f func(*tally) int) func(*inboxRun, *tally) (bool, bool, string) {
		return func(_ *inboxRun, t *tally) (bool, bool, string) { return f(t) == 0, true, fmt.Sprint(f(t)) }
	}
	row("corrections refused: 0", zero(func(t *tally) int { return t.refused + t.approvalRefused }))
	row("accepted corrections that failed: 0", zero(func(t *tally) int { return t.failed }))
	row("no 429", zero(func(t *tally) int { return t.rateLimited }))
	row("false successes: 0 on every field", zero(func(t *tally) int { return t.falseSuccesses }))
	row(fmt.Sprintf("touchless among later documents >= %d%% with profiles", touchlessTarget), func(r *inboxRun, t *tally) (bool, bool, string) {
		return t.laterTouchless*100 >= touchlessTarget*t.later, r.profiles == "on", ratio(t.laterTouchless, t.later)
	})
	row("no unexpected answer", zero(func(t *tally) int { return t.problems }))
	tw.Flush()
	return all
}

// lists prints, for -v, every refusal, failed correction, false success
// and duplicate miss or false alarm of a run, with its cause.
func lists(w io.Writer, r *inboxRun) {
	section := func(title string, keep func(o outcome) bool, line func(o outcome) string) {
		var lines []string
		for _, o := range r.outcomes {
			if keep(o) {
				lines = append(lines, "  "+o.doc.File+" "+line(o))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\nprofiles %s: %s (%d)\n%s\n", r.profiles, title, len(lines), strings.Join(lines, "\n"))
		}
	}
	section("corrections refused", func(o outcome) bool { return o.refused != nil }, func(o outcome) string {
		return fmt.Sprintf("[%s, rejected %s]: %s; sent %s", o.doc.Truth.DocumentType, o.reason, fieldErrors(o.refused), compact(o.sent))
	})
	section("accepted corrections that failed", func(o outcome) bool { return o.failed != "" }, func(o outcome) string {
		return fmt.Sprintf("[rejected %s] → %s %s; sent %s", o.reason, o.newJobID, o.failed, compact(o.sent))
	})
	section("false successes", func(o outcome) bool { return len(o.wrong) > 0 }, func(o outcome) string {
		return fmt.Sprintf("[%s] %s: %s", o.doc.Truth.DocumentType, o.wrongVersion, wrongFields(o.wrong))
	})
	section("approvals' corrections refused", func(o outcome) bool { return o.approvalRefused != nil }, func(o outcome) string {
		return fmt.Sprintf("%s; sent %s", fieldErrors(o.approvalRefused), compact(o.approvalFixes))
	})
	section("details cleared after a refusal", func(o outcome) bool { return len(o.removed) > 0 }, func(o outcome) string {
		return fmt.Sprintf("[rejected %s]: %s, after %s", o.reason, strings.Join(o.removed, ", "), fieldErrors(o.cleared))
	})
	section("duplicates missed", func(o outcome) bool { return o.dup == dupMissed }, func(o outcome) string {
		return "a copy of " + o.doc.Truth.DuplicateOf + ", not marked"
	})
	section("duplicate false alarms", func(o outcome) bool { return o.dup == dupFalseAlarm }, func(o outcome) string {
		return fmt.Sprintf("marked a %s duplicate of %s", o.dupStrength, o.dupOf)
	})
}

// unexpected prints every answer that must never happen, always.
func unexpected(w io.Writer, r *inboxRun) {
	for _, o := range r.outcomes {
		for _, p := range o.problems {
			fmt.Fprintf(w, "UNEXPECTED (profiles %s) %s: %s\n", r.profiles, o.doc.File, p)
		}
	}
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
