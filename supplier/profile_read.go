package supplier

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// anchorFields are the fields an anchor finds by its label, in the order
// a read and a learning take them.
var anchorFields = []string{fieldNumber, fieldIssueDate, fieldDueDate, fieldTotal, fieldSubtotal, fieldTax}

// Read returns the fields the profile's anchors find on pages, each with
// its evidence (source "profile", the page and line it is on, the label it
// follows, ref naming the profile and the job that taught the anchor).
// Nothing is guessed: an anchor whose label is not on the page, whose
// value does not parse in its learned form, or whose label is matched
// more or fewer times than learned where its occurrence cannot be told,
// reads nothing; a text or a date must also stand in the region of the
// page it was learned in, and an invoice number the profile learned from
// another document is not read as this one's. A subtotal or tax the layout does not print is returned
// empty with computed evidence, and only when the amounts that tie it
// were read: Overlay then clears what the rules read for it, and the
// validator derives it. The result is not judged: put it over the
// rules' extraction with Overlay.
func (p *Profile) Read(pages []Page, ref string) extract.Extraction {
	var x extract.Extraction
	if p == nil || len(p.Anchors) == 0 {
		return x
	}
	l := newLayout(pages)
	ev := map[string]extract.Evidence{}
	read := map[string]found{}
	for _, f := range anchorFields {
		a, ok := p.Anchors[f]
		if !ok || a.Relation == RelationComputed {
			continue
		}
		if got, by, ok := l.read(a); ok && !(f == fieldNumber && slices.Contains(p.Numbers, numberHash(got.value))) {
			read[f] = got
			setField(&x, f, got.value)
			ev[f] = got.evidence(l, by, ref)
		}
	}
	for f, others := range map[string][2]string{fieldSubtotal: {fieldTotal, fieldTax}, fieldTax: {fieldSubtotal, fieldTotal}} {
		a, ok := p.Anchors[f]
		_, r1 := read[others[0]]
		_, r2 := read[others[1]]
		if ok && a.Relation == RelationComputed && r1 && r2 {
			ev[f] = extract.Evidence{Source: extract.EvidenceProfile, Computed: true, Profile: ref, Learned: a.Job}
		}
	}
	p.readVendor(l, &x, ev, ref)
	p.readCurrency(l, read, &x, ev, ref)
	if len(ev) > 0 {
		x.Evidence = ev
	}
	return x
}

// found is a value an anchor reads on a line.
type found struct {
	value string
	line  int // index in layout.lines
	col   int // the rune column the value starts at
	label string
}

func (f found) evidence(l *layout, a Anchor, ref string) extract.Evidence {
	t := &l.lines[f.line]
	return extract.Evidence{Source: extract.EvidenceProfile, Page: t.page, Line: t.num, Label: f.label, Profile: ref, Learned: a.Job}
}

// setField sets field of x, one of the profile's fields.
func setField(x *extract.Extraction, field, v string) { *x.Scalar(field) = v }

// read returns the value anchor a finds on l (among its candidates, the
// one its occurrence names) and the anchor that found it: a, or, where
// a's label gives no value at all, its alternate.
func (l *layout) read(a Anchor) (found, Anchor, bool) {
	cands := l.candidates(a)
	if len(cands) == 0 && a.Alternate != nil {
		alt := *a.Alternate
		got, ok := pick(alt, l.candidates(alt))
		return got, alt, ok
	}
	got, ok := pick(a, cands)
	return got, a, ok
}

// pick chooses among the candidates of a (its label's matches that give
// a value in its format, in document order) the one it learned: the same
// one when there are as many as learned. An amount, which the arithmetic
// checks, is also found as the first or the last when it learned the
// first or the last (a total under a varying number of rows); where that
// names two candidates (one match learned, several now), they must agree.
// A text or a date, which nothing checks, is found only among as many
// candidates as learned, or where every candidate reads the same.
func pick(a Anchor, cands []found) (found, bool) {
	n := len(cands)
	if n == 0 || a.Occurrence < 1 || a.Occurrence > a.Occurrences {
		return found{}, false
	}
	if n == a.Occurrences {
		return cands[a.Occurrence-1], true
	}
	if a.Format.Kind != FormatAmount {
		for _, c := range cands[1:] {
			if c.value != cands[0].value {
				return found{}, false
			}
		}
		return cands[0], true
	}
	var chosen []found
	if a.Occurrence == 1 {
		chosen = append(chosen, cands[0])
	}
	if a.Occurrence == a.Occurrences {
		chosen = append(chosen, cands[n-1])
	}
	if len(chosen) == 0 || len(chosen) == 2 && chosen[0].value != chosen[1].value {
		return found{}, false
	}
	return chosen[0], true
}

// maxBelow bounds how far under its label a value is looked for, in
// lines.
const maxBelow = 12

// candidates are the values a's label gives on l, in document order: at
// each match of the label, the value its relation names, when it parses
// in a's format.
func (l *layout) candidates(a Anchor) []found {
	match := strings.Fields(a.Match)
	if len(match) == 0 {
		return nil
	}
	var out []found
	for i := range l.lines {
		t := &l.lines[i]
		for _, m := range t.labelMatches(match) {
			var f found
			var ok bool
			switch a.Relation {
			case RelationRight:
				f, ok = t.valueRight(m.end, a.Format)
				f.line = i
			case RelationBelow:
				if m.end == len(t.words) || t.words[m.end].cellStart {
					f, ok = l.valueBelow(i, m, a)
				}
			}
			if ok && (a.Format.Kind == FormatAmount || a.Region == "" || region(f.col) == a.Region) {
				f.label = t.text[t.words[m.start].start:t.words[m.end-1].end]
				out = append(out, f)
			}
		}
	}
	return out
}

// labelMatch is where a label is on a line: words [start, end).
type labelMatch struct{ start, end int }

// labelMatches returns where label words (in match form) stand on t, each
// at the start of a cell (only fillers before it in its cell).
func (t *textLine) labelMatches(label []string) []labelMatch {
	var out []labelMatch
	ws := t.words
	for i := range ws {
		if ws[i].filler || ws[i].norm != label[0] || !opensCell(ws, i) {
			continue
		}
		k, j := 1, i+1
		for ; j < len(ws) && k < len(label); j++ {
			if ws[j].filler {
				continue
			}
			if ws[j].norm != label[k] {
				break
			}
			k++
		}
		if k == len(label) {
			out = append(out, labelMatch{start: i, end: j})
		}
	}
	return out
}

// opensCell: word i starts its cell, or only fillers stand before it in
// its cell.
func opensCell(ws []word, i int) bool {
	for k := i; ; k-- {
		if ws[k].cellStart {
			return k == i || allFillers(ws[k:i])
		}
		if k == 0 {
			return allFillers(ws[:i])
		}
	}
}

func allFillers(ws []word) bool {
	for _, w := range ws {
		if !w.filler {
			return false
		}
	}
	return true
}

// valueRight reads the value in format f that follows the words up to
// index end of t (past spaces, ':' and '|').
func (t *textLine) valueRight(end int, f Format) (found, bool) {
	if end == 0 || end > len(t.words) {
		return found{}, false
	}
	at := skipSeparators(t.text, t.words[end-1].end)
	if at >= len(t.text) {
		return found{}, false
	}
	v, ok := t.valueAt(at, f)
	return found{value: v, col: utf8.RuneCountInString(t.text[:at])}, ok
}

// valueAt reads the value in format f that starts at byte at of t.
func (t *textLine) valueAt(at int, f Format) (string, bool) {
	switch f.Kind {
	case FormatAmount:
		v, _, ok := readAmount(t.text, at, f)
		return v, ok
	case FormatDate:
		v, _, ok := readDate(t.text, at, f)
		return v, ok
	case FormatText:
		k := slices.IndexFunc(t.words, func(w word) bool { return w.start == at })
		if k < 0 {
			return "", false
		}
		v, _, ok := readText(t.words, k, f)
		return v, ok
	}
	return "", false
}

// valueBelow reads the value of a under the label m of line i: the cell
// of the a.Below-th line under it that has a word in the label's columns.
func (l *layout) valueBelow(i int, m labelMatch, a Anchor) (found, bool) {
	t := &l.lines[i]
	col, end := t.words[m.start].col, t.words[m.end-1].end2
	count := 0
	for j := i + 1; j < len(l.lines) && j <= i+maxBelow && l.lines[j].page == t.page; j++ {
		u := &l.lines[j]
		k := u.overlapping(col, end)
		if k < 0 {
			continue
		}
		if count++; count == a.Below {
			w := u.words[cellStartOf(u.words, k)]
			v, ok := u.valueAt(w.start, a.Format)
			return found{value: v, line: j, col: w.col}, ok
		}
	}
	return found{}, false
}

// readVendor reads the vendor: the name people gave, where the page
// prints it (its line is the evidence), or, for an issuer that prints
// none, the name bound to the supplier the page's identifiers name.
func (p *Profile) readVendor(l *layout, x *extract.Extraction, ev map[string]extract.Evidence, ref string) {
	a, ok := p.Anchors[fieldVendor]
	if !ok || p.Vendor == "" {
		return
	}
	e := extract.Evidence{Source: extract.EvidenceProfile, Profile: ref, Learned: a.Job}
	switch a.Relation {
	case RelationName:
		i := l.nameLine(NormalizeName(p.Vendor))
		if i < 0 {
			return
		}
		e.Page, e.Line = l.lines[i].page, l.lines[i].num
	case RelationIdentity:
	default:
		return
	}
	x.Vendor = p.Vendor
	ev[fieldVendor] = e
}

// nameLine returns the index of the first line with a cell whose
// normalised name holds name (NormalizeName's form), or -1.
func (l *layout) nameLine(name string) int {
	if name == "" {
		return -1
	}
	for i := range l.lines {
		ws := l.lines[i].words
		for c := 0; c < len(ws); c = cellEnd(ws, c) {
			cell := l.lines[i].text[ws[c].start:ws[cellEnd(ws, c)-1].end]
			if n := NormalizeName(cell); n == name || strings.Contains(" "+n+" ", " "+name+" ") {
				return i
			}
		}
	}
	return -1
}

// readCurrency gives the profile's currency where an amount its anchors
// read is printed with the marker the currency was learned with.
func (p *Profile) readCurrency(l *layout, read map[string]found, x *extract.Extraction, ev map[string]extract.Evidence, ref string) {
	a, ok := p.Anchors[fieldCurrency]
	if !ok || a.Relation != RelationMarker || a.Label == "" || p.Currency == "" {
		return
	}
	for _, f := range amountFields {
		got, ok := read[f]
		if !ok || p.Anchors[f].Format.Currency != a.Label {
			continue
		}
		x.Currency = p.Currency
		ev[fieldCurrency] = extract.Evidence{Source: extract.EvidenceProfile, Page: l.lines[got.line].page,
			Line: l.lines[got.line].num, Label: a.Label, Profile: ref, Learned: a.Job}
		return
	}
}

// labelLike: a cell that can be a label: at most maxLabelWords words
// besides fillers, the first starting with a letter or '#' / '№'.
func labelLike(ws []word) bool {
	n := 0
	for _, w := range ws {
		if w.filler {
			continue
		}
		if n == 0 {
			r, _ := utf8.DecodeRuneInString(w.text)
			if !unicode.IsLetter(r) && r != '#' && r != '№' {
				return false
			}
		}
		if n++; n > maxLabelWords {
			return false
		}
	}
	return n > 0
}

// maxLabelWords bounds a label's words: longer text before a value is
// prose, not a label.
const maxLabelWords = 6
