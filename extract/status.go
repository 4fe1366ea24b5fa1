package extract

import "slices"

// What vouches for a field's value: the status the review page and the
// correction form show beside it, so the person approving sees what
// nothing vouched for.
const (
	// StatusChecked: a structured source states it (an e-invoice's XML),
	// or an arithmetic check ties it to other values that rows of the
	// document state (total = subtotal + charges + tax, each from its own
	// labelled row or the lines).
	StatusChecked = "checked"
	// StatusUnchecked: read, nothing proves it (a vendor name, a date, a
	// total no other stated amount ties to).
	StatusUnchecked = "unchecked"
	// StatusComputed: no row of the document states it; it was derived
	// (a subtotal as what the total leaves, a tax of zero).
	StatusComputed = "computed"
	// StatusToCheck: a failing check concerns it, or OCR read it from
	// words it was unsure of.
	StatusToCheck = "toCheck"
	// StatusCorrected: a person gave it.
	StatusCorrected = "corrected"
)

// statusFields are the fields a status is given for, when present.
var statusFields = []string{
	"documentType", "invoiceNumber", "vendor", "issueDate", "dueDate", "currency", "lineItems", "subtotal",
	"charges", "tax", "taxBreakdown", "total", "paidAmount", "rounding", "amountDue", "accountingTax",
	"precedingInvoice",
}

// FieldStatus says, for each field inv commits, what vouches for it (one
// of the Status constants).
func FieldStatus(inv *Invoice) map[string]string {
	has := map[string]bool{
		"documentType": inv.DocumentType != DocInvoice, "invoiceNumber": true, "vendor": true, "issueDate": true,
		"dueDate": inv.DueDate != "", "currency": true, "lineItems": len(inv.LineItems) > 0, "subtotal": true,
		"charges": len(inv.Charges) > 0, "tax": true, "taxBreakdown": len(inv.TaxBreakdown) > 0, "total": true,
		"paidAmount": inv.PaidAmount != "", "rounding": inv.Rounding != "", "amountDue": inv.AmountDue != "",
		"accountingTax": inv.AccountingTax != nil, "precedingInvoice": inv.PrecedingInvoice != "",
	}
	read := func(f string) bool { // stated by a row, the lines or a person
		e, ok := inv.Evidence[f]
		return has[f] && (!ok || !e.Computed)
	}
	// The total's check vouches for its terms when the total and the base
	// (a stated subtotal, or the lines) are each read, not derived.
	base := read("subtotal") || len(inv.LineItems) > 0
	sumChecked := read("total") && base
	out := map[string]string{}
	for _, f := range statusFields {
		if !has[f] {
			continue
		}
		out[f] = fieldStatus(inv.Evidence[f], f, sumChecked, inv.Flags)
	}
	if out["amountDue"] == StatusUnchecked && (read("paidAmount") || read("rounding")) {
		out["amountDue"] = StatusChecked // total − paid + rounding = due, each stated
	}
	if out["taxBreakdown"] == StatusUnchecked && read("tax") {
		out["taxBreakdown"] = StatusChecked // the rates add up to the stated tax
	}
	return out
}

// arithmeticFields are the fields the total's check ties together.
var arithmeticFields = []string{"lineItems", "subtotal", "charges", "tax", "total"}

func fieldStatus(e Evidence, field string, sumChecked bool, flags []string) string {
	switch {
	case e.Source == EvidenceCorrection:
		return StatusCorrected
	case e.LowConfidence, field == "taxBreakdown" && slices.Contains(flags, FlagTaxRateMismatch):
		return StatusToCheck
	case e.Source == EvidenceEInvoice:
		return StatusChecked
	case e.Computed:
		return StatusComputed
	case sumChecked && slices.Contains(arithmeticFields, field):
		return StatusChecked
	}
	return StatusUnchecked
}

// KeptStatus says, for each field a rejection kept, what vouches for it:
// the fields of a failing check are to check, what a person gave is
// corrected, what the document's XML states is checked, a derived value
// computed, anything else read and not checked.
func KeptStatus(x Extraction, failed []FailedCheck) map[string]string {
	has := map[string]bool{
		"documentType": x.DocumentType != "" && x.DocumentType != DocInvoice, "invoiceNumber": x.InvoiceNumber != "",
		"vendor": x.Vendor != "", "issueDate": x.IssueDate != "", "dueDate": x.DueDate != "", "currency": x.Currency != "",
		"lineItems": len(x.LineItems) > 0, "subtotal": x.Subtotal != "", "charges": len(x.Charges) > 0,
		"tax": x.Tax != "", "taxBreakdown": len(x.TaxBreakdown) > 0, "total": x.Total != "",
		"paidAmount": x.PaidAmount != "", "rounding": x.Rounding != "", "amountDue": x.AmountDue != "",
		"accountingTax": x.AccountingTax != nil, "precedingInvoice": x.PrecedingInvoice != "",
	}
	out := map[string]string{}
	for _, f := range failed {
		out[f.Field] = StatusToCheck
	}
	for _, f := range statusFields {
		if !has[f] || out[f] != "" {
			continue
		}
		out[f] = fieldStatus(x.Evidence[f], f, false, x.Flags)
	}
	return out
}
