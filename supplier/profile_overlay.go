package supplier

import (
	"maps"
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// overlaid are the fields a profile's read may give.
var overlaid = []string{fieldNumber, fieldIssueDate, fieldDueDate, fieldVendor, fieldCurrency, fieldSubtotal, fieldTax, fieldTotal}

// Overlay puts a profile's read over the rules' extraction: each field the
// profile read replaces the rules' (with the profile's evidence), and the
// problems the rules recorded about it (an ambiguous date, an amount they
// could not parse) go with it; a subtotal or tax the profile knows the
// layout does not print (computed evidence, no value) clears what the
// rules read for it, so the validator derives it. The rules fill the
// rest: lines, charges, the tax breakdown, the payment terms, the
// document type; but not lines that add up to the total with its tax
// where the profile knows the layout prints no net subtotal (see
// grossLines). The result is judged by extract.ValidateExtraction
// exactly as the rules' own: the amounts must add up, the lines must
// make the subtotal.
func Overlay(rules, read extract.Extraction) extract.Extraction {
	x := rules
	x.Evidence = maps.Clone(rules.Evidence)
	x.Problems = slices.Clone(rules.Problems)
	for _, f := range overlaid {
		v := *read.Scalar(f)
		e, has := read.Evidence[f]
		if v == "" && !(has && e.Computed && (f == fieldSubtotal || f == fieldTax)) {
			continue
		}
		setField(&x, f, v)
		if x.Evidence == nil {
			x.Evidence = map[string]extract.Evidence{}
		}
		if has {
			x.Evidence[f] = e
		} else {
			delete(x.Evidence, f)
		}
		x.Problems = slices.DeleteFunc(x.Problems, func(p string) bool { return problemField(p) == f })
	}
	if grossLines(x.LineItems, read) {
		x.LineItems = nil
	}
	if len(x.Problems) == 0 {
		x.Problems = nil
	}
	return x
}

// grossLines reports whether lines, as the rules read them, are the
// lines' amounts with their tax where the profile knows the layout prints
// no net subtotal: every line states an amount, and they add up to the
// total the profile read, which holds a tax it read too. Such lines cannot
// make the net subtotal; kept, they would refuse a document whose total,
// tax and lines all agree. Without them the validator derives the
// subtotal as the total less the tax and marks it computed.
func grossLines(lines []extract.ExtractedLine, read extract.Extraction) bool {
	e, ok := read.Evidence[fieldSubtotal]
	if !ok || !e.Computed || len(lines) == 0 || read.Total == "" || read.Tax == "" || extract.SameDecimal(read.Tax, "0") {
		return false
	}
	amounts := make([]string, 0, len(lines))
	for _, l := range lines {
		if l.Amount == "" {
			return false
		}
		amounts = append(amounts, l.Amount)
	}
	sum, ok := extract.AddDecimals(amounts)
	return ok && extract.SameDecimal(sum, read.Total)
}

// problemField is the field a problem code the rules recorded concerns:
// "ambiguous_date" the issue date, "<reason>:<field>" its field, any
// other (a subtotal or line mismatch) none of the profile's.
func problemField(code string) string {
	if code == extract.ReasonAmbiguousDate {
		return fieldIssueDate
	}
	_, f, _ := strings.Cut(code, ":")
	return f
}
