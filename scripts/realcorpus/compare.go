package realcorpus

import (
	"strings"
	"unicode"

	"github.com/relayops/relayops/extract"
)

// FieldDocumentType names a committed document type that is not the
// truth's (a credit note booked as an invoice, a receipt committed) in the
// lists of wrong fields.
const FieldDocumentType = "documentType"

// Wrong is one committed field that differs from the truth.
type Wrong struct {
	Field, Committed, Want string
}

// WrongFields lists the committed fields of inv, a success, that differ
// from t: every field the truth vouches for that was committed (a field
// vouched empty, which the document does not state, is wrong whenever
// committed), the number and total always, and the document type. A
// success with any is a false success.
func WrongFields(t Truth, inv *extract.Invoice) []Wrong {
	var ws []Wrong
	if got := CommittedType(inv.DocumentType); got != t.DocumentType {
		ws = append(ws, Wrong{FieldDocumentType, got, t.DocumentType})
	}
	if !Booked(t.DocumentType) {
		return ws
	}
	for _, f := range Vouchable {
		got := Committed(inv, f)
		required := f == "invoiceNumber" || f == "total"
		if !required && (!t.Vouches(f) || got == "") {
			continue
		}
		if !SameField(f, got, t) && !clerksDate(f, inv, t) {
			ws = append(ws, Wrong{f, got, t.Value(f)})
		}
	}
	return ws
}

// clerksDate reports whether inv's field is the date a clerk typed to book a
// document that prints no issue date (Truth.BookingDate): a person's
// date, not a misread one.
func clerksDate(field string, inv *extract.Invoice, t Truth) bool {
	return field == "issueDate" && t.IssueDate == "" && t.BookingDate != "" && inv.IssueDate == t.BookingDate &&
		inv.Evidence["issueDate"].Source == extract.EvidenceCorrection
}

// CommittedType is the committed document type in the truth's names (the
// pipeline named a credit note "credit_note" before "creditNote").
func CommittedType(v string) string {
	switch v {
	case "", extract.DocInvoice:
		return DocInvoice
	case "credit_note":
		return DocCreditNote
	}
	return v
}

// Committed returns the invoice's value of a vouchable field.
func Committed(inv *extract.Invoice, field string) string {
	switch field {
	case "invoiceNumber":
		return inv.InvoiceNumber
	case "issueDate":
		return inv.IssueDate
	case "currency":
		return inv.Currency
	case "vendor":
		return inv.Vendor
	case "total":
		return inv.Total
	case "subtotal":
		return inv.Subtotal
	case "tax":
		return inv.Tax
	case "dueDate":
		return inv.DueDate
	}
	return ""
}

// SameField compares a committed value with the truth's: amounts as
// decimals, a vendor by name (or one of its aliases), the rest exactly.
func SameField(field, got string, t Truth) bool {
	want := t.Value(field)
	switch field {
	case "total", "subtotal", "tax":
		return extract.SameDecimal(got, want)
	case "vendor":
		for _, name := range append([]string{want}, t.VendorAliases...) {
			if SameVendor(got, name) {
				return true
			}
		}
		return false
	}
	return got == want
}

// SameVendor compares two vendor names, case, spaces and punctuation aside;
// one may hold the other ("Lenze B.V." and "Lenze").
func SameVendor(a, b string) bool {
	norm := func(s string) string {
		var out []rune
		for _, r := range strings.ToLower(s) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				out = append(out, r)
			}
		}
		return string(out)
	}
	x, y := norm(a), norm(b)
	return x != "" && y != "" && (strings.Contains(x, y) || strings.Contains(y, x))
}
