package console

import (
	"slices"
	"strconv"
	"strings"

	"github.com/relayops/relayops/extract"
)

// What was read of a document (a rejection's kept extraction, a committed
// result), as the correction form's values and as a person reads them.

// formValues are a form's values as strings: the scalar inputs by name
// ("invoiceNumber", "taxIncluded", "accountingTax.currency", …) and each
// list's rows, one string per column.
type formValues struct {
	scalars map[string]string
	lists   map[string][][]string
}

// valuesOf is an extraction as form values.
func valuesOf(x extract.Extraction) formValues {
	v := formValues{scalars: scalarsOf(x), lists: map[string][][]string{}}
	if !extract.IsBooked(v.scalars["documentType"]) {
		v.scalars["documentType"] = "" // not a booked type: the select shows that nothing was chosen
	}
	v.scalars["taxIncluded"] = strconv.FormatBool(x.TaxIncluded)
	if t := x.AccountingTax; t != nil {
		v.scalars["accountingTax.currency"], v.scalars["accountingTax.amount"] = t.Currency, t.Amount
	}
	for _, l := range x.LineItems {
		v.lists["lineItems"] = append(v.lists["lineItems"], []string{l.Description, l.Quantity, l.UnitPrice, l.Amount})
	}
	for _, c := range x.Charges {
		v.lists["charges"] = append(v.lists["charges"], []string{c.Kind, c.Amount, c.Reason})
	}
	for _, r := range x.TaxBreakdown {
		v.lists["taxBreakdown"] = append(v.lists["taxBreakdown"], []string{r.Rate, r.TaxableAmount, r.TaxAmount, r.Category})
	}
	return v
}

// scalarsOf are x's string fields by name (extract.CorrectionScalars).
func scalarsOf(x extract.Extraction) map[string]string {
	return map[string]string{
		"documentType": x.DocumentType, "invoiceNumber": x.InvoiceNumber, "issueDate": x.IssueDate,
		"dueDate": x.DueDate, "vendor": x.Vendor, "currency": x.Currency, "subtotal": x.Subtotal,
		"tax": x.Tax, "total": x.Total, "paidAmount": x.PaidAmount, "rounding": x.Rounding,
		"amountDue": x.AmountDue, "precedingInvoice": x.PrecedingInvoice,
	}
}

// read is what was read of a document, as the form shows it: its values,
// what vouches for each, and the failing check of each field.
type read struct {
	x      extract.Extraction
	values formValues
	status map[string]string
	failed map[string]string // field -> the check it fails
}

// empty reports whether nothing was read.
func (r read) empty() bool {
	for name, v := range r.values.scalars {
		if v != "" && name != "taxIncluded" && name != "documentType" {
			return false
		}
	}
	for _, rows := range r.values.lists {
		if len(rows) > 0 {
			return false
		}
	}
	return true
}

// readOf is what a rejection kept (nil: nothing).
func readOf(k *extract.Kept) read {
	r := read{failed: map[string]string{}}
	if k != nil {
		if k.Fields != nil {
			r.x = *k.Fields
		}
		kk := k.WithStatus()
		r.status = kk.Status
		for _, f := range k.Failed {
			if _, seen := r.failed[f.Field]; !seen {
				r.failed[f.Field] = f.Check
			}
		}
	}
	r.values = valuesOf(r.x)
	return r
}

// resultRead is a committed result as the approval form shows it: its
// lines as committed (the API puts an approval's corrections over
// extract.ExtractionOf, which may leave out lines it cannot judge again;
// the form sends the lines only when the operator changed them).
func resultRead(inv *extract.Invoice) read {
	r := read{failed: map[string]string{}}
	if inv == nil {
		r.values = valuesOf(r.x)
		return r
	}
	r.x = extract.ExtractionOf(*inv)
	r.x.LineItems = nil
	for _, l := range inv.LineItems {
		r.x.LineItems = append(r.x.LineItems, extract.ExtractedLine(l))
	}
	r.status = statusOf(inv)
	r.values = valuesOf(r.x)
	return r
}

// statusOf is what vouches for each field of a result: as committed, or
// computed for a result committed before results carried it.
func statusOf(inv *extract.Invoice) map[string]string {
	if inv.Status != nil {
		return inv.Status
	}
	return extract.FieldStatus(inv)
}

// valueText is field of x as a person reads it: a list's rows separated
// by semicolons, "" when absent.
func valueText(x extract.Extraction, field string) string {
	v := valuesOf(x)
	switch field {
	case "documentType":
		return typeWord(x.DocumentType)
	case "taxIncluded":
		if x.TaxIncluded {
			return "included in the prices"
		}
		return "added to the net amount"
	case "accountingTax":
		return strings.TrimSpace(v.scalars["accountingTax.amount"] + " " + v.scalars["accountingTax.currency"])
	}
	if spec := specOf(field); spec != nil {
		rows := make([]string, 0, len(v.lists[field]))
		for _, cells := range v.lists[field] {
			rows = append(rows, strings.Join(slices.DeleteFunc(slices.Clone(cells), func(s string) bool { return s == "" }), " "))
		}
		return strings.Join(rows, "; ")
	}
	return scalarsOf(x)[field]
}
