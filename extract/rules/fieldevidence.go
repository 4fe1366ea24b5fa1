package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// fieldEvidence says where each field of x was read: the page, the line
// and the label it followed, for the reviewer and the console. A value the
// rules derived rather than read (the currency from a symbol, a date in
// another format) points at the line it came from when one is known.
func fieldEvidence(d *document, hits []hit, rows []amountRow, x extract.Extraction) map[string]extract.Evidence {
	ev := map[string]extract.Evidence{}
	put := func(field string, line int, label string) {
		if line >= 0 {
			ev[field] = extract.Evidence{Source: extract.EvidenceText, Page: d.pageOf(line), Line: line + 1, Label: strings.TrimRight(labelText(label), ":")}
		}
	}
	for _, f := range []struct {
		name  string
		kind  labelKind
		value string
	}{{"invoiceNumber", lkInvoiceNo, x.InvoiceNumber}, {"vendor", lkVendor, x.Vendor}} {
		if f.value == "" {
			continue
		}
		line, label := valueHit(hits, f.kind, f.value)
		if line < 0 {
			line = lineWith(d, f.value)
		}
		put(f.name, line, label)
	}
	for _, f := range []struct {
		name, value string
		kind        labelKind
	}{{"issueDate", x.IssueDate, lkIssueDate}, {"dueDate", x.DueDate, lkDueDate}} {
		if f.value == "" {
			continue
		}
		for _, h := range byRank(hits, f.kind) {
			if len(findDates(h.value())) > 0 {
				put(f.name, h.line, h.raw)
				break
			}
		}
	}
	for _, f := range []struct {
		name  string
		value string
		kinds []labelKind
	}{{"total", x.Total, []labelKind{lkTotal, lkAmountDue}}, {"subtotal", x.Subtotal, []labelKind{lkSubtotal, lkTotal}},
		{"tax", x.Tax, []labelKind{lkTax, lkTaxIncluded}}} {
		if f.value == "" {
			continue
		}
		if i := amountRowOf(rows, f.kinds, f.value); i >= 0 {
			put(f.name, rows[i].line, rows[i].raw)
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return ev
}

// valueHit returns the line and label of the best-ranked hit of kind whose
// value holds v, or -1.
func valueHit(hits []hit, kind labelKind, v string) (int, string) {
	for _, h := range byRank(hits, kind) {
		if strings.Contains(h.value(), v) {
			return h.line, h.raw
		}
	}
	return -1, ""
}

// lineWith returns the first line of d that holds v, or -1.
func lineWith(d *document, v string) int {
	for i := range d.lines {
		if strings.Contains(d.lines[i].text, v) {
			return i
		}
	}
	return -1
}

// amountRowOf returns the last row of the first of kinds that states v,
// or -1: a total before the amount due that repeats it.
func amountRowOf(rows []amountRow, kinds []labelKind, v string) int {
	for _, k := range kinds {
		for i := len(rows) - 1; i >= 0; i-- {
			if r := rows[i]; r.kind == k && r.amount != "" && sameDecimal(r.amount, v) {
				return i
			}
		}
	}
	return -1
}
