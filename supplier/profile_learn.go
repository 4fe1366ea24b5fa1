package supplier

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/relayops/relayops/extract"
)

// Learn returns what p becomes after a person confirmed v on the document
// whose layout text is pages (p nil: a new profile). p is not changed.
//
// For each field it finds the confirmed value on the pages in every form
// the document could print it (an amount with either decimal mark, with
// or without grouping and currency; a date in any order, with any
// separator, with the month's name in the languages the rules read) and
// records the label before it on its line, or above it in its column.
// Where the value is printed several times (a total in the lines and in
// the totals), the occurrence whose label names the field wins, then a
// label on the value's line over one above it; the anchor records which
// of its label's occurrences holds the value. A date or number whose best
// occurrences have different labels is not anchored: which one is meant
// cannot be told.
//
// A later learning refines: an anchor that reads the confirmed value again
// is kept (its format completed, e.g. the thousands separator a larger
// amount shows); one that reads another value, or none where the value
// is found elsewhere, is replaced; one that reads another value where the
// value is not printed, or that reads a value a person removed, is
// dropped. A subtotal the layout does not print (the total less the tax)
// and a tax of zero it does not print are learned as computed.
func Learn(p *Profile, pages []Page, v Values, from LearnedFrom) *Profile {
	q := clone(p)
	q.Version++
	l := newLayout(pages)
	var anchored []string
	for _, f := range anchorFields {
		if learnField(q, l, f, v, from) {
			anchored = append(anchored, f)
		}
	}
	if learnVendor(q, l, v, from) {
		anchored = append(anchored, fieldVendor)
	}
	if learnCurrency(q, v, from) {
		anchored = append(anchored, fieldCurrency)
	}
	if lang := q.language(); lang != "" {
		q.Language = lang
	}
	from.Anchored = anchored
	q.Learned = appendBounded(q.Learned, from, MaxLearned)
	if v.InvoiceNumber != "" {
		h := numberHash(v.InvoiceNumber)
		q.Numbers = appendBounded(slices.DeleteFunc(q.Numbers, func(s string) bool { return s == h }), h, MaxNumbers)
	}
	return q
}

// appendBounded appends v to s and keeps its last n members.
func appendBounded[T any](s []T, v T, n int) []T {
	s = append(s, v)
	if len(s) > n {
		s = slices.Clone(s[len(s)-n:])
	}
	return s
}

// clone is a deep copy of p, or a new profile.
func clone(p *Profile) *Profile {
	if p == nil {
		return &Profile{Anchors: map[string]Anchor{}}
	}
	q := *p
	q.Anchors = maps.Clone(p.Anchors)
	if q.Anchors == nil {
		q.Anchors = map[string]Anchor{}
	}
	q.Learned = slices.Clone(p.Learned)
	q.Numbers = slices.Clone(p.Numbers)
	return &q
}

// learnField learns the anchor of one field and reports whether the
// learning set or confirmed it.
func learnField(q *Profile, l *layout, f string, v Values, from LearnedFrom) bool {
	val := v.value(f)
	old, had := q.Anchors[f]
	oldReads, oldSilent := false, false
	if had && old.Relation != RelationComputed {
		got, by, ok := l.read(old)
		oldReads, oldSilent = ok, len(l.candidates(old)) == 0
		if ok && val != "" && sameValue(f, got.value, val) {
			if oldSilent { // its alternate read it
				alt := confirm(l, by, f, val)
				old.Alternate = &alt
			} else {
				old = confirm(l, old, f, val)
			}
			q.Anchors[f] = old
			return true
		}
	}
	if val == "" {
		if oldReads && slices.Contains(from.Fields, f) {
			delete(q.Anchors, f) // a person removed what it read
		}
		return false
	}
	if a, ok := l.learnAnchor(f, val, from.Job); ok {
		switch {
		case had && old.Relation != RelationComputed && oldSilent && a.Match != old.Match:
			// another layout of the supplier's: kept beside this one
			a.Alternate, old.Alternate = nil, &a
			q.Anchors[f] = old
		default:
			// new, or replacing one that read another value here
			a.Alternate = old.Alternate
			q.Anchors[f] = a
		}
		return true
	}
	if computedField(f, v) { // and no label names it: the layout does not print it
		switch {
		case had && old.Relation == RelationComputed:
			old.Confirmed++
			q.Anchors[f] = old
		case !had || oldReads:
			q.Anchors[f] = Anchor{Relation: RelationComputed, Job: from.Job}
		default:
			return false // an anchor whose label this layout does not print is not contradicted
		}
		return true
	}
	if oldReads || had && old.Relation == RelationComputed {
		delete(q.Anchors, f) // contradicted, and nothing to replace it with
	}
	return false
}

// confirm is a, which read val again on l: counted, its occurrence the
// one found now, and its format completed with what this document shows
// (a thousands separator, a date's order) when the anchor learned here
// would be the same.
func confirm(l *layout, a Anchor, f, val string) Anchor {
	a.Confirmed++
	cands := l.candidates(a)
	if got, ok := pick(a, cands); ok {
		if i := slices.Index(cands, got); i >= 0 {
			a.Occurrence, a.Occurrences = i+1, len(cands)
		}
	}
	fresh, ok := l.learnAnchor(f, val, a.Job)
	if !ok || fresh.Match != a.Match || fresh.Relation != a.Relation || fresh.Below != a.Below {
		return a
	}
	switch a.Format.Kind {
	case FormatAmount:
		if fresh.Format.Currency == a.Format.Currency {
			a.Format = mergeAmountFormat(a.Format, fresh.Format)
		}
	case FormatDate:
		if a.Format.Order == "" && fresh.Format.Order != "" && fresh.Format.Separator == a.Format.Separator {
			a.Format.Order = fresh.Format.Order
		}
	}
	return a
}

// sameValue compares a read value with a confirmed one: amounts as
// decimals, anything else exactly.
func sameValue(field, a, b string) bool {
	if slices.Contains(amountFields, field) {
		return extract.SameDecimal(a, b)
	}
	return a == b
}

// computedField: a subtotal that is the total less the tax, or a tax of
// zero where the subtotal is the total, may be left unprinted by a
// layout (the validator derives either).
func computedField(f string, v Values) bool {
	switch f {
	case fieldSubtotal:
		sum, ok := extract.AddDecimals([]string{v.Subtotal, v.Tax})
		return ok && v.Total != "" && extract.SameDecimal(sum, v.Total)
	case fieldTax:
		return extract.SameDecimal(v.Tax, "0") && v.Subtotal != "" && extract.SameDecimal(v.Subtotal, v.Total)
	}
	return false
}

// occurrence is one place a confirmed value is printed, with the anchor
// that would read it there and how well its label names the field.
type occurrence struct {
	anchor Anchor
	score  int
	line   int
}

// learnAnchor finds val on l and returns the anchor of its best
// occurrence, checked by reading it back.
func (l *layout) learnAnchor(f, val, job string) (Anchor, bool) {
	occs := l.occurrences(f, val)
	if len(occs) == 0 {
		return Anchor{}, false
	}
	slices.SortStableFunc(occs, func(a, b occurrence) int { return b.score - a.score })
	best := occs[0].score
	top := slices.DeleteFunc(slices.Clone(occs), func(o occurrence) bool { return o.score < best })
	if !slices.Contains(amountFields, f) {
		// which of two labels names a date or number cannot be told
		for _, o := range top[1:] {
			if o.anchor.Match != top[0].anchor.Match || o.anchor.Relation != top[0].anchor.Relation {
				return Anchor{}, false
			}
		}
	}
	o := top[0]
	if slices.Contains(amountFields, f) {
		o = top[len(top)-1] // the totals are under the lines
	}
	a := o.anchor
	a.Job = job
	return a, true
}

// occurrences lists every place val is printed on l in a form of field f
// that a labelled anchor reads back, in document order. A zero amount, or
// an amount printed beside another field's label, counts only where its
// label names the field: a page holds many. A value printed more than
// maxOccurrences times is not anchored at all: no label tells which.
func (l *layout) occurrences(f, val string) []occurrence {
	type key struct {
		relation, match, region string
		below                   int
		format                  Format
	}
	cache := map[key][]found{}
	var out []occurrence
	seen := 0
	for i := range l.lines {
		t := &l.lines[i]
		for k := range t.words {
			if !l.printedAt(f, val, t, k) {
				continue
			}
			if seen++; seen > maxOccurrences {
				return nil
			}
			for _, a := range l.anchorsAt(f, val, i, k) {
				ck := key{a.Relation, a.Match, a.Region, a.Below, a.Format}
				cands, ok := cache[ck]
				if !ok {
					cands = l.candidates(a)
					cache[ck] = cands
				}
				if o, ok := l.occurrence(f, val, a, cands, i); ok {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// maxOccurrences bounds the places a confirmed value is looked at.
const maxOccurrences = 64

// occurrence is anchor a of the value val printed on line i, when a
// reads it back there among its candidates, with its score.
func (l *layout) occurrence(f, val string, a Anchor, cands []found, i int) (occurrence, bool) {
	idx := slices.IndexFunc(cands, func(c found) bool { return c.line == i && sameValue(f, c.value, val) })
	if idx < 0 {
		return occurrence{}, false
	}
	a.Occurrence, a.Occurrences = idx+1, len(cands)
	if got, ok := pick(a, cands); !ok || got.line != i || !sameValue(f, got.value, val) {
		return occurrence{}, false
	}
	score := hintScore(f, a.Match)
	amount := slices.Contains(amountFields, f)
	if score < 0 || amount && score == 0 && (a.Relation == RelationBelow || extract.SameDecimal(val, "0")) {
		return occurrence{}, false // another field's label; for an amount, a column or a zero no label names
	}
	if !amount && holds(strings.Fields(a.Match), otherHints[f]) {
		// A date or number beside a label that also names something else
		// ("Liefer- und Leistungsdatum", "Kunden-Nr."): on this document it
		// may be the same value, on the next it is not, and no sum checks it.
		return occurrence{}, false
	}
	if a.Relation == RelationRight {
		score++ // a label on the value's line is surer than a column's
	}
	return occurrence{anchor: a, score: score, line: i}, true
}

// printedAt reports whether val, a value of field f, is printed from
// word k of t on.
func (l *layout) printedAt(f, val string, t *textLine, k int) bool {
	if f == fieldNumber {
		_, ok := textFormat(t.words, k, val)
		return ok
	}
	return len(l.formsAt(f, val, t, t.words[k])) > 0
}

// formsAt returns the formats in which val, a value of field f, is
// printed at word w of t.
func (l *layout) formsAt(f, val string, t *textLine, w word) []Format {
	var out []Format
	switch {
	case slices.Contains(amountFields, f):
		for _, spaces := range []bool{false, true} {
			tok, ok := scanAmount(t.text, w.start, spaces)
			if !ok {
				continue
			}
			for _, r := range tok.readings {
				if extract.SameDecimal(r.value, val) {
					out = appendFormat(out, amountFormat(tok, r))
				}
			}
		}
	case f == fieldIssueDate || f == fieldDueDate:
		if tok, ok := scanDate(t.text, w.start); ok {
			var orders []string
			for _, r := range tok.readings {
				if r.value == val {
					orders = append(orders, r.order)
				}
			}
			if len(orders) > 0 {
				fm := tok.format
				if len(orders) == 1 { // the confirmed date tells day from month
					fm.Order = orders[0]
				}
				out = append(out, fm)
			}
		}
	}
	return out
}

func appendFormat(out []Format, f Format) []Format {
	if slices.Contains(out, f) {
		return out
	}
	return append(out, f)
}

// anchorsAt returns the anchors that would read val where word k of line
// i starts it: for each form it is printed in there, the label on its
// line before it, or else the label above it in its column.
func (l *layout) anchorsAt(f, val string, i, k int) []Anchor {
	t := &l.lines[i]
	w := t.words[k]
	var formats []Format
	if f == fieldNumber {
		fm, ok := textFormat(t.words, k, val)
		if !ok {
			return nil
		}
		formats = []Format{fm}
	} else {
		formats = l.formsAt(f, val, t, w)
	}
	var out []Anchor
	for _, fm := range formats {
		base := Anchor{Format: fm, Page: t.page, Region: region(w.col)}
		if label, ok := rightLabel(t.words, k); ok {
			a := base
			a.Relation, a.Label, a.Match = RelationRight, labelText(t, label), strings.Join(labelWords(label), " ")
			out = append(out, a)
			continue
		}
		if a, ok := l.belowAnchor(i, k, base); ok {
			out = append(out, a)
		}
	}
	return out
}

// textFormat is the format of an invoice number printed from word k of
// ws on: the words it spans, what its first word prints before it and its
// last after it (punctuation only: "#202410712"), its shape.
func textFormat(ws []word, k int, val string) (Format, bool) {
	w := ws[k]
	at := strings.Index(w.text, firstWord(val))
	if at < 0 || strings.IndexFunc(w.text[:at], isAlnum) >= 0 {
		return Format{}, false
	}
	n := len(strings.Fields(val))
	if k+n > len(ws) {
		return Format{}, false
	}
	parts := make([]string, 0, n)
	for j := k; j < k+n; j++ {
		if j > k && ws[j].cellStart {
			return Format{}, false
		}
		parts = append(parts, ws[j].text)
	}
	printed := strings.Join(parts, " ")
	rest, ok := strings.CutPrefix(printed[at:], val)
	if !ok || strings.IndexFunc(rest, isAlnum) >= 0 {
		return Format{}, false
	}
	return Format{Kind: FormatText, Shape: shapeOf(val), Prefix: w.text[:at], Suffix: rest, Words: n}, true
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// rightLabel returns the label before word k on its line: the words of
// its cell before it, or, when it opens its cell, the cell before.
func rightLabel(ws []word, k int) ([]word, bool) {
	cs := cellStartOf(ws, k)
	label := ws[cs:k]
	if allFillers(label) {
		if cs == 0 {
			return nil, false
		}
		label = ws[cellStartOf(ws, cs-1):cs]
	}
	return label, labelLike(label)
}

// labelText is a label as printed.
func labelText(t *textLine, ws []word) string {
	return t.text[ws[0].start:ws[len(ws)-1].end]
}

// belowAnchor returns the anchor of a value that opens its cell at word k
// of line i with a label above it in its column: the first cell up the
// column that can be a label, within a few cells.
func (l *layout) belowAnchor(i, k int, base Anchor) (Anchor, bool) {
	t := &l.lines[i]
	if cellStartOf(t.words, k) != k {
		return Anchor{}, false
	}
	col, end := t.words[k].col, t.words[cellEnd(t.words, k)-1].end2
	count := 0
	for j := i - 1; j >= 0 && j >= i-maxBelow && l.lines[j].page == t.page; j-- {
		u := &l.lines[j]
		o := u.overlapping(col, end)
		if o < 0 {
			continue
		}
		count++
		cs := cellStartOf(u.words, o)
		cell := u.words[cs:cellEnd(u.words, o)]
		if labelLike(cell) {
			a := base
			a.Relation, a.Below = RelationBelow, count
			a.Label, a.Match = labelText(u, cell), strings.Join(labelWords(cell), " ")
			return a, true
		}
		if count >= maxBelowCells {
			break
		}
	}
	return Anchor{}, false
}

// maxBelowCells bounds the cells between a label and the value under it
// (the rows of a table column).
const maxBelowCells = 8

// learnVendor learns the vendor's name: printed on the page (found by
// its name), or not (bound to the supplier's identity).
func learnVendor(q *Profile, l *layout, v Values, from LearnedFrom) bool {
	if v.Vendor == "" {
		return false
	}
	rel := RelationIdentity
	if l.nameLine(NormalizeName(v.Vendor)) >= 0 {
		rel = RelationName
	}
	old, had := q.Anchors[fieldVendor]
	if had && old.Relation == rel && q.Vendor == v.Vendor {
		old.Confirmed++
		q.Anchors[fieldVendor] = old
	} else {
		q.Anchors[fieldVendor] = Anchor{Relation: rel, Job: from.Job}
	}
	q.Vendor = v.Vendor
	return true
}

// learnCurrency learns the currency and the marker its amounts are
// printed with (the anchored amounts' marker, when they agree on one).
func learnCurrency(q *Profile, v Values, from LearnedFrom) bool {
	if v.Currency == "" {
		return false
	}
	marker := ""
	for _, f := range amountFields {
		a, ok := q.Anchors[f]
		if !ok || a.Relation == RelationComputed || a.Format.Currency == "" {
			continue
		}
		if marker != "" && marker != a.Format.Currency {
			marker = ""
			break
		}
		marker = a.Format.Currency
	}
	old, had := q.Anchors[fieldCurrency]
	switch {
	case marker == "":
		delete(q.Anchors, fieldCurrency)
	case had && old.Label == marker && q.Currency == v.Currency:
		old.Confirmed++
		q.Anchors[fieldCurrency] = old
	default:
		q.Anchors[fieldCurrency] = Anchor{Relation: RelationMarker, Label: marker, Job: from.Job}
	}
	q.Currency = v.Currency
	return marker != ""
}

// language is the language the anchors' labels are written in, when
// their words tell one language more often than any other, else "".
func (q *Profile) language() string {
	votes := map[string]int{}
	for _, a := range q.Anchors {
		for _, w := range strings.Fields(a.Match) {
			if lang, ok := wordLanguage[w]; ok {
				votes[lang]++
			}
		}
	}
	best, n, tie := "", 0, false
	for lang, c := range votes {
		switch {
		case c > n:
			best, n, tie = lang, c, false
		case c == n:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}
