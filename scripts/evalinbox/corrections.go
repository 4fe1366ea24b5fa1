package main

import (
	"slices"
	"strings"

	"github.com/relayops/relayops/scripts/realcorpus"
)

// truthCorrections is what the clerk types from the PDF into a rejected
// document's correction: every value the truth gives (a vouched field the
// document does not state is sent empty, which removes what was misread;
// a subtotal or tax the truth gives unvouched is one the clerk computes
// from the page), the document-level charges and allowances when the
// truth lists any, the date the clerk books it under when it prints no
// issue date, and the type of a credit note or corrective invoice.
// Nothing else: the machine-read details (lines, tax per rate) are left
// as read; the judge removes those the clerk's values contradict.
func truthCorrections(t realcorpus.Truth) map[string]any {
	c := map[string]any{}
	for _, f := range realcorpus.Vouchable {
		if v := t.Value(f); v != "" || t.Vouches(f) {
			c[f] = v
		}
	}
	if t.IssueDate == "" && t.BookingDate != "" {
		c["issueDate"] = t.BookingDate // the page prints none: the date the clerk books it under
	}
	if len(t.Charges) > 0 {
		charges := make([]map[string]string, len(t.Charges))
		for i, ch := range t.Charges {
			charges[i] = map[string]string{"amount": ch.Amount}
			if ch.Kind != "" {
				charges[i]["kind"] = ch.Kind
			}
			if ch.Reason != "" {
				charges[i]["reason"] = ch.Reason
			}
		}
		c["charges"] = charges
	}
	if t.DocumentType == realcorpus.DocCreditNote || t.DocumentType == realcorpus.DocCorrectiveInvoice {
		c[fieldDocumentType] = t.DocumentType
	}
	return c
}

// fieldDocumentType is the corrections' member of the document type.
const fieldDocumentType = realcorpus.FieldDocumentType

// approvalCorrections are the clerk's corrections of a committed result
// that differs from the page (a false success): each wrong field's value
// from the truth, approved with the review.
func approvalCorrections(t realcorpus.Truth, wrongs []realcorpus.Wrong) map[string]any {
	c := map[string]any{}
	for _, w := range wrongs {
		if w.Field == fieldDocumentType {
			c[w.Field] = t.DocumentType
			continue
		}
		c[w.Field] = t.Value(w.Field)
	}
	return c
}

// removals are the machine-read details the clerk clears when the API
// refuses a correction because of them (the page does not state them as
// read, and the truth does not give them): the value that clears each.
var removals = map[string]any{
	"lineItems":     []any{},
	"charges":       []any{},
	"taxBreakdown":  []any{},
	"paidAmount":    "",
	"rounding":      "",
	"amountDue":     "",
	"accountingTax": nil,
}

// removalsFor lists the details a refusal names that the clerk did not
// give and may clear (sorted); none when the refusal concerns only what
// the clerk typed.
func removalsFor(refused []fieldError, given map[string]any) []string {
	var out []string
	for _, f := range refused {
		name := correctedField(f.Field)
		if _, ok := removals[name]; !ok {
			continue
		}
		if _, typed := given[name]; typed || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// correctedField is the corrections member a 400's field names
// ("corrections.lineItems[2].amount" → "lineItems").
func correctedField(field string) string {
	name, ok := strings.CutPrefix(field, "corrections.")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(name, ".["); i >= 0 {
		name = name[:i]
	}
	return name
}
