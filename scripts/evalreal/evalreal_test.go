package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/scripts/realcorpus"
)

func TestOutcome_AnyWrongVouchedFieldIsAFalseSuccess(t *testing.T) {
	t.Parallel()
	tr := realcorpus.Truth{DocumentType: realcorpus.DocInvoice, InvoiceNumber: "R-1", Total: "119.00", Subtotal: "100.00", Tax: "19.00",
		Vendor: "Muster GmbH", VendorAliases: []string{"Muster Shop"}, IssueDate: "2024-01-02", Currency: "EUR",
		Fields: []string{"invoiceNumber", "total", "subtotal", "tax", "vendor", "issueDate", "currency", "dueDate"}}
	right := extract.Invoice{DocumentType: "invoice", InvoiceNumber: "R-1", Total: "119", Subtotal: "100.0", Tax: "19.00",
		Vendor: "MUSTER GmbH", IssueDate: "2024-01-02", Currency: "EUR"}
	o := outcome{doc: realcorpus.Document{Truth: tr}, invoice: &right}
	require.True(t, o.correct(), "%v", o.wrongFields())

	for field, change := range map[string]func(*extract.Invoice){
		"tax":          func(i *extract.Invoice) { i.Tax = "3.89" },
		"subtotal":     func(i *extract.Invoice) { i.Subtotal = "115.11" },
		"vendor":       func(i *extract.Invoice) { i.Vendor = "Accounts Payable Dept." },
		"issueDate":    func(i *extract.Invoice) { i.IssueDate = "2024-02-01" },
		"currency":     func(i *extract.Invoice) { i.Currency = "USD" },
		"dueDate":      func(i *extract.Invoice) { i.DueDate = "2024-02-01" }, // vouched empty: the page states none
		"documentType": func(i *extract.Invoice) { i.DocumentType = "receipt" },
	} {
		inv := right
		change(&inv)
		o := outcome{doc: realcorpus.Document{Truth: tr}, invoice: &inv}
		require.True(t, o.falseSuccess(), field)
		require.Equal(t, field, o.wrongFields()[0].Field)
	}

	alias := right
	alias.Vendor = "Muster Shop"
	require.True(t, outcome{doc: realcorpus.Document{Truth: tr}, invoice: &alias}.correct(), "a vendor alias is right")

	unvouched := tr
	unvouched.Fields = []string{"invoiceNumber", "total"}
	inv := right
	inv.Tax, inv.Vendor = "3.89", "Someone"
	require.True(t, outcome{doc: realcorpus.Document{Truth: unvouched}, invoice: &inv}.correct(), "fields the truth does not vouch for are not judged")
}

func TestOutcome_CreditNotesAreBookedAndJudgedByType(t *testing.T) {
	t.Parallel()
	tr := realcorpus.Truth{DocumentType: realcorpus.DocCreditNote, InvoiceNumber: "G-3", Total: "50.00", Fields: []string{"invoiceNumber", "total"}}
	for _, typ := range []string{"creditNote", "credit_note"} {
		o := outcome{doc: realcorpus.Document{Truth: tr}, invoice: &extract.Invoice{DocumentType: typ, InvoiceNumber: "G-3", Total: "50.00"}}
		require.True(t, o.correct(), typ)
	}
	asInvoice := outcome{doc: realcorpus.Document{Truth: tr}, invoice: &extract.Invoice{DocumentType: "invoice", InvoiceNumber: "G-3", Total: "50.00"}}
	require.True(t, asInvoice.falseSuccess(), "a credit note booked as an invoice would be paid")
	negated := outcome{doc: realcorpus.Document{Truth: tr}, invoice: &extract.Invoice{DocumentType: "creditNote", InvoiceNumber: "G-3", Total: "-50.00"}}
	require.True(t, negated.falseSuccess(), "amounts are as printed")
	rejected := outcome{doc: realcorpus.Document{Truth: tr}, reason: extract.ReasonNotAnInvoice}
	require.False(t, rejected.falseSuccess())
	require.True(t, rejected.isInvoice(), "a credit note is booked: its rejection is a miss, not a correct rejection")
}

func TestOutcome_AWrongNumberOrTotalIsAFalseSuccess(t *testing.T) {
	t.Parallel()
	doc := realcorpus.Document{Truth: realcorpus.Truth{DocumentType: realcorpus.DocInvoice, InvoiceNumber: "471102", Total: "529.87"}}
	right := outcome{doc: doc, invoice: &extract.Invoice{InvoiceNumber: "471102", Total: "529.870"}}
	require.True(t, right.correct())
	require.False(t, right.falseSuccess())
	for _, inv := range []*extract.Invoice{{InvoiceNumber: "471102", Total: "160.00"}, {InvoiceNumber: "1.2", Total: "529.87"}} {
		o := outcome{doc: doc, invoice: inv}
		require.True(t, o.falseSuccess(), "%+v", inv)
	}
	rejected := outcome{doc: doc, reason: extract.ReasonTotalMismatch}
	require.False(t, rejected.falseSuccess())
	notInvoice := outcome{doc: realcorpus.Document{Truth: realcorpus.Truth{DocumentType: extract.DocPurchaseOrder}}, invoice: &extract.Invoice{}}
	require.True(t, notInvoice.falseSuccess(), "a non-invoice that succeeds")
}

func TestSuppliers_LaterDocumentsCountedInFileOrder(t *testing.T) {
	t.Parallel()
	doc := func(file, supplier string) realcorpus.Document {
		return realcorpus.Document{File: file, Truth: realcorpus.Truth{DocumentType: realcorpus.DocInvoice, Supplier: supplier, InvoiceNumber: file, Total: "1.00",
			Fields: []string{"invoiceNumber", "total"}}}
	}
	right := func(d realcorpus.Document) outcome {
		return outcome{doc: d, invoice: &extract.Invoice{InvoiceNumber: d.Truth.InvoiceNumber, Total: "1.00"}}
	}
	rejected := func(d realcorpus.Document) outcome { return outcome{doc: d, reason: extract.ReasonTotalMismatch} }
	outs := []outcome{
		right(doc("a-02", "a")), rejected(doc("a-01", "a")), right(doc("a-03", "a")), // the first is rejected, the later two right
		right(doc("b-01", "b")), // one document: no later ones
		right(doc("c-01", "")),  // no supplier key
	}
	var w strings.Builder
	suppliers(&w, outs)
	require.Contains(t, w.String(), "later documents of a supplier correct (the rules alone): 2/2 (100%)")
	require.Contains(t, w.String(), "-++", "file order: a-01 rejected, a-02 and a-03 right")
	require.NotContains(t, w.String(), "\nb ")
}
