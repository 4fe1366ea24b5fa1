package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/scripts/realcorpus"
	"github.com/relayops/relayops/supplier"
)

// The supplier replay (-replay): the real corpus supplier by supplier, in
// file order, as an inbox would receive it, with a supplier profile
// (package supplier) learned from each person's work. The first document
// of a supplier is learned from its truth, as a clerk's correction; each
// later one is read by the rules, the profile's read is put over it
// (supplier.Overlay) and extract.ValidateExtraction judges it. A rejected
// document is learned from its truth (a correction), one that succeeded
// from its committed values (an approval), and a false success from its
// truth too (the person approving would correct it). The profile is keyed
// by the truth's supplier, standing in for the identity the service
// resolves from the page's identifiers.

// replayDoc is what the replay made of one document of a supplier.
type replayDoc struct {
	first bool
	// rules is the rules alone; profiled the rules with the profile's read
	// put over them (the same as rules for the first document, which has
	// no profile yet).
	rules, profiled outcome
	// byProfile are the fields the profile's read gave (a subtotal or tax
	// it knows the layout does not print among them).
	byProfile []string
	// alone is the profile's read with nothing from the rules but the
	// document type (what a profile brings where the rules read nothing);
	// aloneRead and aloneWrong the vouched fields it read, and those that
	// differ from the truth.
	alone                 outcome
	aloneRead, aloneWrong int
	aloneWrongs           []realcorpus.Wrong
	learned               string // "", supplier.LearnedCorrection or supplier.LearnedApproval
	read                  time.Duration
}

// touchless: a later booked realcorpus.Document committed with every vouched field
// right, untouched by a person; a correct rejection of a document a
// person verified does not add up counts as no work too.
func touchless(o outcome) bool {
	if o.expectsRejection() {
		return !o.succeeded()
	}
	return o.isInvoice() && o.correct()
}

// replaySupplier is one supplier's replay.
type replaySupplier struct {
	key     string
	inbox   bool // the inbox corpus (testdata/real/rendered-*)
	docs    []replayDoc
	profile *supplier.Profile
}

// runReplay replays every supplier with two documents or more and writes
// the report to w, progress to progress. It returns the false successes
// with the profile, field by field.
func runReplay(ctx context.Context, opt options, w, progress io.Writer) ([]falseSuccess, error) {
	docs, err := realcorpus.Load(opt.root)
	if err != nil {
		return nil, err
	}
	groups := groupBySupplier(docs, opt.only)
	if len(groups) == 0 {
		return nil, fmt.Errorf("no supplier with two documents or more%s", onlyNote(opt.only))
	}
	total := 0
	for _, g := range groups {
		total += len(g)
	}
	var sups []*replaySupplier
	done := 0
	for _, g := range groups {
		s, err := replayOne(ctx, g, func() {
			done++
			fmt.Fprintf(progress, "\revalreal -replay: %d/%d realcorpus.Documents", done, total)
		})
		if err != nil {
			return nil, err
		}
		sups = append(sups, s)
	}
	fmt.Fprintln(progress)
	return replayReport(w, sups, opt.verbose), nil
}

func onlyNote(only string) string {
	if only == "" {
		return ""
	}
	return fmt.Sprintf(" whose path contains %q", only)
}

// groupBySupplier returns the documents of each supplier with two or
// more, in file order, suppliers by key.
func groupBySupplier(docs []realcorpus.Document, only string) [][]realcorpus.Document {
	by := map[string][]realcorpus.Document{}
	for _, d := range docs {
		if k := d.Truth.Supplier; k != "" && (only == "" || strings.Contains(d.File, only)) {
			by[k] = append(by[k], d)
		}
	}
	keys := make([]string, 0, len(by))
	for k, ds := range by {
		if len(ds) >= 2 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([][]realcorpus.Document, 0, len(keys))
	for _, k := range keys {
		ds := by[k]
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].File < ds[j].File })
		out = append(out, ds)
	}
	return out
}

// replayOne replays one supplier's documents.
func replayOne(ctx context.Context, docs []realcorpus.Document, step func()) (*replaySupplier, error) {
	s := &replaySupplier{key: docs[0].Truth.Supplier, inbox: strings.HasPrefix(docs[0].Source, "rendered-")}
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := s.replayDoc(ctx, d, i, supplier.Ref(s.key, versionOf(s.profile)))
		if err != nil {
			return nil, err
		}
		s.docs = append(s.docs, r)
		step()
	}
	return s, nil
}

func versionOf(p *supplier.Profile) int {
	if p == nil {
		return 0
	}
	return p.Version
}

// replayDoc reads document i of the supplier with the rules, then with
// the profile, and learns from it.
func (s *replaySupplier) replayDoc(ctx context.Context, d realcorpus.Document, i int, ref string) (replayDoc, error) {
	r := replayDoc{first: i == 0, rules: outcome{doc: d}}
	text, err := readText(d.Path)
	if err != nil {
		return r, fmt.Errorf("%s: %w", d.File, err)
	}
	r.rules.pipeline(ctx, rules.Rules{}, text)
	r.profiled = r.rules
	pages := supplier.PagesOf(text)
	if s.profile != nil && r.rules.extraction != nil {
		start := time.Now()
		read := s.profile.Read(pages, ref)
		x := supplier.Overlay(*r.rules.extraction, read)
		r.read = time.Since(start)
		r.profiled = judged(d, x)
		for f, e := range x.Evidence {
			if e.Source == extract.EvidenceProfile {
				r.byProfile = append(r.byProfile, f)
			}
		}
		slices.Sort(r.byProfile)
		s.profile.CountRead(!touchless(r.profiled))
		r.readAlone(d, read, r.rules.extraction.DocumentType)
	}
	s.learn(&r, pages, d, i)
	return r, nil
}

// readAlone judges the profile's read of d put over nothing but the
// document type the rules classified: what the profile alone brings on a
// layout whose fields the rules cannot read.
func (r *replayDoc) readAlone(d realcorpus.Document, read extract.Extraction, docType string) {
	r.alone = judged(d, supplier.Overlay(extract.Extraction{DocumentType: docType}, read))
	got := &extract.Invoice{}
	if x := r.alone.extraction; x != nil {
		got = &extract.Invoice{InvoiceNumber: x.InvoiceNumber, IssueDate: x.IssueDate, DueDate: x.DueDate, Currency: x.Currency,
			Vendor: x.Vendor, Subtotal: x.Subtotal, Tax: x.Tax, Total: x.Total}
	}
	for _, f := range realcorpus.Vouchable {
		v := realcorpus.Committed(got, f)
		if v == "" || !d.Truth.Vouches(f) {
			continue
		}
		r.aloneRead++
		if !realcorpus.SameField(f, v, d.Truth) {
			r.aloneWrong++
			r.aloneWrongs = append(r.aloneWrongs, realcorpus.Wrong{Field: f, Committed: v, Want: d.Truth.Value(f)})
		}
	}
}

// judged is the outcome of validating x, the overlaid extraction of d.
func judged(d realcorpus.Document, x extract.Extraction) outcome {
	o := outcome{doc: d, extraction: &x}
	inv, err := extract.ValidateExtraction(x)
	if err != nil {
		o.fail(err)
		return o
	}
	o.invoice = inv
	return o
}

// learn teaches the profile what a person did with the document: the
// first document and every one not read right are corrected with the
// truth, one read right is approved with its committed values. A
// document that is no booked invoice, or whose truth expects a
// rejection, teaches nothing.
func (s *replaySupplier) learn(r *replayDoc, pages []supplier.Page, d realcorpus.Document, i int) {
	t := d.Truth
	if !realcorpus.Booked(t.DocumentType) || t.Expect == realcorpus.ExpectRejection {
		return
	}
	from := supplier.LearnedFrom{Job: fmt.Sprintf("%s:v1", strings.TrimSuffix(d.File[strings.LastIndex(d.File, "/")+1:], ".pdf")),
		Operator: "replay", At: time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)}
	if i > 0 && touchless(r.profiled) {
		from.Kind = supplier.LearnedApproval
		s.profile = supplier.Learn(s.profile, pages, supplier.ValuesOf(r.profiled.invoice), from)
		r.learned = from.Kind
		return
	}
	from.Kind = supplier.LearnedCorrection
	v := truthValues(t)
	from.Fields = corrected(r.profiled.extraction, v, t)
	s.profile = supplier.Learn(s.profile, pages, v, from)
	r.learned = from.Kind
}

// truthValues are the values a truth vouches for.
func truthValues(t realcorpus.Truth) supplier.Values {
	v := func(f string) string {
		if t.Vouches(f) {
			return t.Value(f)
		}
		return ""
	}
	return supplier.Values{DocumentType: t.DocumentType, InvoiceNumber: v("invoiceNumber"), IssueDate: v("issueDate"),
		DueDate: v("dueDate"), Currency: v("currency"), Vendor: v("vendor"), Subtotal: v("subtotal"), Tax: v("tax"), Total: v("total")}
}

// corrected are the vouched fields a clerk would change in what was read.
func corrected(x *extract.Extraction, v supplier.Values, t realcorpus.Truth) []string {
	var read extract.Extraction
	if x != nil {
		read = *x
	}
	var out []string
	for _, f := range []struct{ name, got, want string }{
		{"invoiceNumber", read.InvoiceNumber, v.InvoiceNumber}, {"issueDate", read.IssueDate, v.IssueDate},
		{"dueDate", read.DueDate, v.DueDate}, {"currency", read.Currency, v.Currency}, {"vendor", read.Vendor, v.Vendor},
		{"subtotal", read.Subtotal, v.Subtotal}, {"tax", read.Tax, v.Tax}, {"total", read.Total, v.Total},
	} {
		same := f.got == f.want || slices.Contains([]string{"subtotal", "tax", "total"}, f.name) && f.got != "" && f.want != "" && extract.SameDecimal(f.got, f.want)
		if t.Vouches(f.name) && !same {
			out = append(out, f.name)
		}
	}
	return out
}

// replayTally counts the later documents of a group of suppliers.
type replayTally struct {
	suppliers, docs, later        int
	touchRules, touchProfile      int
	fsRules, fsProfile            int
	corrections, approvals        int
	profileBytes, maxBytes, reads int
	read                          time.Duration
	flagged                       int
	// touchAlone counts the later documents the profile alone brings
	// through; aloneRead and aloneWrong its vouched fields read and wrong.
	touchAlone, aloneRead, aloneWrong int
}

func (t *replayTally) add(s *replaySupplier) {
	t.suppliers++
	t.docs += len(s.docs)
	for _, r := range s.docs {
		switch r.learned {
		case supplier.LearnedCorrection:
			t.corrections++
		case supplier.LearnedApproval:
			t.approvals++
		}
		if r.first {
			continue
		}
		if r.rules.isInvoice() || r.rules.expectsRejection() {
			t.later++
			if touchless(r.rules) {
				t.touchRules++
			}
			if touchless(r.profiled) {
				t.touchProfile++
			}
			if r.alone.extraction != nil && touchless(r.alone) {
				t.touchAlone++
			}
		}
		t.aloneRead += r.aloneRead
		t.aloneWrong += r.aloneWrong
		if r.rules.falseSuccess() {
			t.fsRules++
		}
		if r.profiled.falseSuccess() {
			t.fsProfile++
		}
		if r.read > 0 {
			t.reads++
			t.read += r.read
		}
	}
	if s.profile != nil {
		b, _ := json.Marshal(s.profile)
		t.profileBytes += len(b)
		t.maxBytes = max(t.maxBytes, len(b))
		if s.profile.Flagged() {
			t.flagged++
		}
	}
}

func (t replayTally) usPerRead() float64 {
	if t.reads == 0 {
		return 0
	}
	return float64(t.read.Nanoseconds()) / 1e3 / float64(t.reads)
}

// replayReport prints the per-supplier table, the totals and the false
// successes per field, and returns the false successes with the profile.
func replayReport(w io.Writer, sups []*replaySupplier, verbose bool) []falseSuccess {
	fmt.Fprintf(w, "supplier replay: the real corpus supplier by supplier, in file order; the first document and every one\n"+
		"not read right corrected with its truth, every one read right approved; later documents read by the rules\n"+
		"alone and by the rules with the supplier's profile put over them\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "supplier\tdocs\tlater touchless: rules\twith profile\tFALSE SUCC. rules/profile\tcorrections\tprofile bytes\tµs/read\tper document (rules → profile: + touchless, - to correct, ! false success, L learned)")
	var inbox, other, all replayTally
	for _, s := range sups {
		var t replayTally
		t.add(s)
		if s.inbox {
			inbox.add(s)
		} else {
			other.add(s)
		}
		all.add(s)
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d/%d\t%d/%d\t%d\t%d\t%.0f\t%s\n", s.key, t.docs, t.touchRules, t.later, t.touchProfile, t.later,
			t.fsRules, t.fsProfile, t.corrections, t.profileBytes, t.usPerRead(), marks(s))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tsuppliers\tdocs\tlater\ttouchless: rules\twith profile\tFALSE SUCC. rules/profile\tcorrections\tapprovals\tprofile bytes (mean/max)\tµs/read\tflagged")
	for _, g := range []struct {
		name string
		t    replayTally
	}{{"inbox (rendered-*)", inbox}, {"others", other}, {"all", all}} {
		t := g.t
		mean := 0
		if t.suppliers > 0 {
			mean = t.profileBytes / t.suppliers
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d (%s)\t%d (%s)\t%d/%d\t%d\t%d\t%d/%d\t%.0f\t%d\n", g.name, t.suppliers, t.docs, t.later,
			t.touchRules, pct(t.touchRules, t.later), t.touchProfile, pct(t.touchProfile, t.later), t.fsRules, t.fsProfile,
			t.corrections, t.approvals, mean, t.maxBytes, t.usPerRead(), t.flagged)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nthe profile alone (its read over nothing but the document type, as on a layout the rules cannot read):\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tlater\ttouchless\tvouched fields read\tof them wrong")
	for _, g := range []struct {
		name string
		t    replayTally
	}{{"inbox (rendered-*)", inbox}, {"others", other}, {"all", all}} {
		fmt.Fprintf(tw, "%s\t%d\t%d (%s)\t%d\t%d\n", g.name, g.t.later, g.t.touchAlone, pct(g.t.touchAlone, g.t.later), g.t.aloneRead, g.t.aloneWrong)
	}
	tw.Flush()
	fs := replayFalseSuccesses(sups)
	fmt.Fprintf(w, "\nfalse successes with the profile, per field: %s\n", fieldCounts(fs))
	fmt.Fprintf(w, "targets: touchless among a supplier's later documents >= 90%% (inbox) %s, 0 false successes with the profile %s\n",
		met(inbox.touchProfile*100 >= 90*inbox.later), met(len(fs) == 0))
	if verbose {
		replayMisses(w, sups)
	}
	return fs
}

// marks is a supplier's documents as one mark each, rules → profile.
func marks(s *replaySupplier) string {
	var b strings.Builder
	for _, r := range s.docs {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if r.first {
			b.WriteString("L")
			continue
		}
		b.WriteByte(mark(r.rules))
		b.WriteByte(mark(r.profiled))
	}
	return b.String()
}

func mark(o outcome) byte {
	switch {
	case o.falseSuccess():
		return '!'
	case touchless(o):
		return '+'
	}
	return '-'
}

// replayFalseSuccesses are the committed fields that differ from the truth
// on the later documents read with the profile.
func replayFalseSuccesses(sups []*replaySupplier) []falseSuccess {
	var fs []falseSuccess
	for _, s := range sups {
		for _, r := range s.docs {
			if r.first {
				continue
			}
			for _, x := range r.profiled.wrongFields() {
				fs = append(fs, falseSuccess{r.profiled.doc.File, x.Field, x.Committed, x.Want})
			}
		}
	}
	return fs
}

// fieldCounts is "field n, …" over every vouchable field and the document
// type.
func fieldCounts(fs []falseSuccess) string {
	n := map[string]int{}
	for _, f := range fs {
		n[f.field]++
	}
	parts := make([]string, 0, len(realcorpus.Vouchable)+1)
	for _, f := range append([]string{realcorpus.FieldDocumentType}, realcorpus.Vouchable...) {
		parts = append(parts, fmt.Sprintf("%s %d", f, n[f]))
	}
	return strings.Join(parts, ", ")
}

// replayMisses lists the later documents the profile did not bring
// through, and every false success, with what the profile read.
func replayMisses(w io.Writer, sups []*replaySupplier) {
	fmt.Fprintln(w, "\nlater documents not touchless with the profile")
	for _, s := range sups {
		for _, r := range s.docs {
			o := r.profiled
			if r.first || touchless(o) || !o.isInvoice() && !o.succeeded() {
				continue
			}
			fmt.Fprintf(w, "  %s [%s]", o.doc.File, o.doc.Truth.DocumentType)
			if o.falseSuccess() {
				fmt.Fprint(w, " FALSE SUCCESS")
				for _, f := range o.wrongFields() {
					fmt.Fprintf(w, " %s %q (want %q)", f.Field, f.Committed, f.Want)
				}
			} else {
				fmt.Fprintf(w, " rejected %s%s", o.reason, o.failure)
			}
			fmt.Fprintf(w, "; read by the profile: %s\n", strings.Join(r.byProfile, ", "))
		}
	}
	fmt.Fprintln(w, "\nlater documents the profile alone did not bring through")
	reasons := map[string]int{}
	for _, s := range sups {
		for _, r := range s.docs {
			if !r.first && r.alone.extraction != nil && !touchless(r.alone) && r.alone.reason != "" {
				reasons[r.alone.reason]++
				fmt.Fprintf(w, "  %s: %s\n", r.rules.doc.File, r.alone.reason)
			}
		}
	}
	fmt.Fprintf(w, "  in all: %v\n", reasons)
	fmt.Fprintln(w, "\nfields the profile alone read wrong (each judged again by the validator where it is used)")
	for _, s := range sups {
		for _, r := range s.docs {
			for _, f := range r.aloneWrongs {
				fmt.Fprintf(w, "  %s: %s %q (want %q); the profile alone: %s\n", r.rules.doc.File, f.Field, f.Committed, f.Want,
					map[bool]string{true: "FALSE SUCCESS", false: "rejected"}[r.alone.succeeded()])
			}
		}
	}
}
