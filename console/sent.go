package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/relayops/relayops/extract"
)

// The correction form as the browser sent it, and the corrections it
// makes: only what the operator changed from what was read.

// place names the part of a field a problem concerns as the form shows
// it: "[1].kind" of the charges sent is "charge 3, kind" when the form's
// second row was removed; ".currency" is "currency".
func (s *sentForm) place(field, rest string) string {
	spec := specOf(field)
	if spec == nil || !strings.HasPrefix(rest, "[") {
		return strings.TrimPrefix(rest, ".")
	}
	idx, col, _ := strings.Cut(rest[1:], "]")
	i, err := strconv.Atoi(idx)
	row := i
	if s != nil && err == nil && i >= 0 && i < len(s.keptAt[field]) {
		row = s.keptAt[field][i]
	}
	out := spec.row + " " + strconv.Itoa(row+1)
	if col = strings.TrimPrefix(col, "."); col != "" {
		out += ", " + col
	}
	return out
}

// sentForm is the correction form as the browser sent it. A part the form
// did not hold (an input, or a list's count) is absent: never a change.
type sentForm struct {
	reason  string
	scalars map[string]string // by name, as in formValues; only those sent
	lists   map[string][][]string
	rows    map[string][]sentRow // every row with a value, removed ones too, for the form shown again
	// keptAt are, per list, the positions in rows of the rows sent (not
	// removed): the row a problem of the list's nth entry concerns.
	keptAt map[string][]int
}

// sentRow is one row of a list as sent.
type sentRow struct {
	cells  []string
	remove bool
}

// formScalars are the names of the scalar inputs: extract.CorrectionScalars,
// taxIncluded, and the tax in another currency's two.
var formScalars = append(slices.Clone(extract.CorrectionScalars), "taxIncluded", "accountingTax.currency", "accountingTax.amount")

func parseSentForm(r *http.Request) *sentForm {
	s := &sentForm{reason: r.PostForm.Get("reason"), scalars: map[string]string{},
		lists: map[string][][]string{}, rows: map[string][]sentRow{}, keptAt: map[string][]int{}}
	for _, name := range formScalars {
		key := "f-" + strings.ReplaceAll(name, ".", "-")
		if r.PostForm.Has(key) {
			s.scalars[name] = strings.TrimSpace(r.PostForm.Get(key))
		}
	}
	for i := range listSpecs {
		spec := &listSpecs[i]
		if !r.PostForm.Has(spec.count) {
			continue
		}
		n, _ := strconv.Atoi(r.PostForm.Get(spec.count))
		kept := [][]string{}
		for row := range min(max(n, 0), maxFormRows) {
			cells := make([]string, len(spec.cols))
			for j, c := range spec.cols {
				cells[j] = strings.TrimSpace(r.PostForm.Get(rowInput(spec, row, c.Name)))
			}
			if !hasValue(spec, cells) {
				continue
			}
			remove := r.PostForm.Get(rowInput(spec, row, "remove")) != ""
			if !remove {
				kept = append(kept, cells)
				s.keptAt[spec.field] = append(s.keptAt[spec.field], len(s.rows[spec.field]))
			}
			s.rows[spec.field] = append(s.rows[spec.field], sentRow{cells, remove})
		}
		s.lists[spec.field] = kept
	}
	return s
}

// hasValue reports whether a row holds anything: a select's choice alone
// (a charge's kind) is not a row.
func hasValue(spec *listSpec, cells []string) bool {
	for j, c := range spec.cols {
		if c.Options == nil && cells[j] != "" {
			return true
		}
	}
	return false
}

// corrections are the fields the operator changed from what was read.
func (s *sentForm) corrections(rd read) extract.Corrections {
	var c extract.Corrections
	changed := func(name string) (string, bool) {
		v, ok := s.scalars[name]
		return v, ok && v != rd.values.scalars[name]
	}
	for _, name := range extract.CorrectionScalars {
		if v, ok := changed(name); ok {
			*c.Scalar(name) = &v
		}
	}
	if v, ok := changed("taxIncluded"); ok {
		b := v == "true"
		c.TaxIncluded = &b
	}
	cur, amt := s.valueOr("accountingTax.currency", rd), s.valueOr("accountingTax.amount", rd)
	if cur != rd.values.scalars["accountingTax.currency"] || amt != rd.values.scalars["accountingTax.amount"] {
		c.AccountingTax = &extract.AccountingTax{Currency: cur, Amount: amt} // both empty: {} removes it
	}
	for field, rows := range s.lists {
		if slices.EqualFunc(rows, rd.values.lists[field], slices.Equal) {
			continue
		}
		setList(&c, field, rows)
	}
	return c
}

// valueOr is a scalar as sent, or as read when the form did not hold it.
func (s *sentForm) valueOr(name string, rd read) string {
	if v, ok := s.scalars[name]; ok {
		return v
	}
	return rd.values.scalars[name]
}

// setList makes c replace list field with rows (an empty list removes
// what was read).
func setList(c *extract.Corrections, field string, rows [][]string) {
	switch field {
	case "lineItems":
		lines := make([]extract.ExtractedLine, len(rows))
		for i, r := range rows {
			lines[i] = extract.ExtractedLine{Description: r[0], Quantity: r[1], UnitPrice: r[2], Amount: r[3]}
		}
		c.LineItems = &lines
	case "charges":
		charges := make([]extract.Charge, len(rows))
		for i, r := range rows {
			charges[i] = extract.Charge{Kind: r[0], Amount: r[1], Reason: r[2]}
		}
		c.Charges = &charges
	case "taxBreakdown":
		rates := make([]extract.TaxSubtotal, len(rows))
		for i, r := range rows {
			rates[i] = extract.TaxSubtotal{Rate: r[0], TaxableAmount: r[1], TaxAmount: r[2], Category: r[3]}
		}
		c.TaxBreakdown = &rates
	}
}
