package main

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/corpus"
)

// Fields scored, in the order of the report's columns.
var fields = []string{"number", "vendor", "date", "currency", "total", "subtotal", "tax", "lines"}

// fieldValues are the scored fields of a truth, of an invoice or of an
// extraction, as strings.
type fieldValues map[string]string

func truthValues(t corpus.Truth) fieldValues {
	return fieldValues{
		"number": t.InvoiceNumber, "vendor": t.Vendor, "date": t.IssueDate, "currency": t.Currency,
		"total": t.Total, "subtotal": t.Subtotal, "tax": t.Tax, "lines": strconv.Itoa(t.LineCount),
	}
}

func invoiceValues(inv *extract.Invoice) fieldValues {
	return fieldValues{
		"number": inv.InvoiceNumber, "vendor": inv.Vendor, "date": inv.IssueDate, "currency": inv.Currency,
		"total": inv.Total, "subtotal": inv.Subtotal, "tax": inv.Tax, "lines": strconv.Itoa(len(inv.LineItems)),
	}
}

func extractionValues(e *extract.Extraction) fieldValues {
	return fieldValues{
		"number": e.InvoiceNumber, "vendor": e.Vendor, "date": e.IssueDate, "currency": e.Currency,
		"total": e.Total, "subtotal": e.Subtotal, "tax": e.Tax, "lines": strconv.Itoa(len(e.LineItems)),
	}
}

// sameField reports whether got is the expected value of field, as a
// person checking the result would judge it: invoice numbers without a
// leading '#' and case; vendors without case, repeated spaces and
// surrounding punctuation; amounts as numbers ("912.4" is "912.40"); dates,
// currencies and line counts exactly.
func sameField(field, want, got string) bool {
	switch field {
	case "number":
		return normNumber(want) == normNumber(got)
	case "vendor":
		return normVendor(want) == normVendor(got)
	case "total", "subtotal", "tax":
		w, okW := normAmount(want)
		g, okG := normAmount(got)
		return okW && okG && w == g
	case "currency":
		return strings.EqualFold(want, got)
	default:
		return want == got
	}
}

func normNumber(s string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "#")))
}

func normVendor(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// normAmount writes a canonical decimal without leading zeros in the
// whole part or trailing zeros in the fraction ("0912.40" → "912.4",
// "-0.00" → "0"); ok is false for anything else.
func normAmount(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return "", false
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if whole == "" {
		whole = "0"
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}

// diff is one field an extractor got wrong.
type diff struct {
	field, want, got string
}

// diffs lists the fields of got that differ from the truth.
func diffs(t corpus.Truth, got fieldValues) []diff {
	want := truthValues(t)
	var out []diff
	for _, f := range fields {
		if !sameField(f, want[f], got[f]) {
			out = append(out, diff{field: f, want: want[f], got: got[f]})
		}
	}
	return out
}
