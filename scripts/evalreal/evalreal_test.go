package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestCIITruth_ReadsTheBusinessTerms(t *testing.T) {
	t.Parallel()
	xml := `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="r" xmlns:ram="a" xmlns:udt="u">
 <rsm:ExchangedDocument><ram:ID>471102</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20180305</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem><ram:SpecifiedLineTradeSettlement><ram:SpecifiedTradeSettlementLineMonetarySummation>
   <ram:LineTotalAmount>198.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name></ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:GrandTotalAmount>529.87</ram:GrandTotalAmount>
    <ram:DuePayableAmount>479.87</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`
	tr, err := ciiTruth(strings.NewReader(xml))
	require.NoError(t, err)
	require.Equal(t, truth{DocumentType: "invoice", InvoiceNumber: "471102", IssueDate: "2018-03-05", Currency: "EUR",
		Vendor: "Lieferant GmbH", Total: "529.87", AmountDue: "479.87",
		Fields: []string{"invoiceNumber", "issueDate", "currency", "vendor", "total"}}, tr)

	for code, want := range map[string]string{"381": docCreditNote, "396": docCreditNote, "384": docCorrectiveInvoice, "751": "other"} {
		tr, err = ciiTruth(strings.NewReader(strings.Replace(xml, "<ram:TypeCode>380", "<ram:TypeCode>"+code, 1)))
		require.NoError(t, err)
		require.Equal(t, want, tr.DocumentType, code)
	}

	_, err = ciiTruth(strings.NewReader(`<SCRDMCCBDACIOMessageStructure/>`))
	require.ErrorIs(t, err, errNoXML, "an Order-X order is no invoice XML")
}

func TestCIITruth_ReadsTaxSubtotalDueDateAndIdentity(t *testing.T) {
	t.Parallel()
	xml := `<rsm:CrossIndustryInvoice xmlns:rsm="r" xmlns:ram="a" xmlns:udt="u">
 <rsm:ExchangedDocument><ram:ID>C-7</ram:ID><ram:TypeCode>381</ram:TypeCode></rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
   <ram:SpecifiedLegalOrganization><ram:TradingBusinessName>Lieferant</ram:TradingBusinessName></ram:SpecifiedLegalOrganization>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
  </ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementPaymentMeans><ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02120300000000202051</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
   <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">20240131</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:LineTotalAmount>100.00</ram:LineTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">19.00</ram:TaxTotalAmount><ram:TaxTotalAmount currencyID="USD">20.50</ram:TaxTotalAmount>
    <ram:GrandTotalAmount>119.00</ram:GrandTotalAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
   <ram:InvoiceReferencedDocument><ram:IssuerAssignedID>R-6</ram:IssuerAssignedID></ram:InvoiceReferencedDocument>
  </ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`
	tr, err := ciiTruth(strings.NewReader(xml))
	require.NoError(t, err)
	require.Equal(t, docCreditNote, tr.DocumentType)
	require.Equal(t, "100.00", tr.Subtotal)
	require.Equal(t, "19.00", tr.Tax, "the tax in the invoice currency, not BT-111")
	require.Equal(t, "2024-01-31", tr.DueDate)
	require.Equal(t, "DE123456789", tr.SellerVATID, "the VAT id, not the tax number")
	require.Equal(t, "DE02120300000000202051", tr.IBAN)
	require.Equal(t, "R-6", tr.PrecedingInvoice)
	require.Equal(t, []string{"Lieferant"}, tr.VendorAliases)
	require.Equal(t, []string{"invoiceNumber", "currency", "vendor", "total", "subtotal", "tax", "dueDate"}, tr.Fields)
}

func TestOutcome_AnyWrongVouchedFieldIsAFalseSuccess(t *testing.T) {
	t.Parallel()
	tr := truth{DocumentType: docInvoice, InvoiceNumber: "R-1", Total: "119.00", Subtotal: "100.00", Tax: "19.00",
		Vendor: "Muster GmbH", VendorAliases: []string{"Muster Shop"}, IssueDate: "2024-01-02", Currency: "EUR",
		Fields: []string{"invoiceNumber", "total", "subtotal", "tax", "vendor", "issueDate", "currency", "dueDate"}}
	right := extract.Invoice{DocumentType: "invoice", InvoiceNumber: "R-1", Total: "119", Subtotal: "100.0", Tax: "19.00",
		Vendor: "MUSTER GmbH", IssueDate: "2024-01-02", Currency: "EUR"}
	o := outcome{doc: document{truth: tr}, invoice: &right}
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
		o := outcome{doc: document{truth: tr}, invoice: &inv}
		require.True(t, o.falseSuccess(), field)
		require.Equal(t, field, o.wrongFields()[0].field)
	}

	alias := right
	alias.Vendor = "Muster Shop"
	require.True(t, outcome{doc: document{truth: tr}, invoice: &alias}.correct(), "a vendor alias is right")

	unvouched := tr
	unvouched.Fields = []string{"invoiceNumber", "total"}
	inv := right
	inv.Tax, inv.Vendor = "3.89", "Someone"
	require.True(t, outcome{doc: document{truth: unvouched}, invoice: &inv}.correct(), "fields the truth does not vouch for are not judged")
}

func TestOutcome_CreditNotesAreBookedAndJudgedByType(t *testing.T) {
	t.Parallel()
	tr := truth{DocumentType: docCreditNote, InvoiceNumber: "G-3", Total: "50.00", Fields: []string{"invoiceNumber", "total"}}
	for _, typ := range []string{"creditNote", "credit_note"} {
		o := outcome{doc: document{truth: tr}, invoice: &extract.Invoice{DocumentType: typ, InvoiceNumber: "G-3", Total: "50.00"}}
		require.True(t, o.correct(), typ)
	}
	asInvoice := outcome{doc: document{truth: tr}, invoice: &extract.Invoice{DocumentType: "invoice", InvoiceNumber: "G-3", Total: "50.00"}}
	require.True(t, asInvoice.falseSuccess(), "a credit note booked as an invoice would be paid")
	negated := outcome{doc: document{truth: tr}, invoice: &extract.Invoice{DocumentType: "creditNote", InvoiceNumber: "G-3", Total: "-50.00"}}
	require.True(t, negated.falseSuccess(), "amounts are as printed")
	rejected := outcome{doc: document{truth: tr}, reason: extract.ReasonNotAnInvoice}
	require.False(t, rejected.falseSuccess())
	require.True(t, rejected.isInvoice(), "a credit note is booked: its rejection is a miss, not a correct rejection")
}

func TestTruthCheck_NamesTheBadField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tr   truth
		want string
	}{
		{truth{DocumentType: "credit_note"}, "documentType"},
		{truth{DocumentType: docInvoice, InvoiceNumber: "1", Total: "1", Fields: []string{"invoiceNumber", "total", "iban"}}, "fields"},
		{truth{DocumentType: docInvoice, InvoiceNumber: "1", Total: "1", Fields: []string{"invoiceNumber"}}, "total"},
		{truth{DocumentType: docInvoice, InvoiceNumber: "1", Total: "1,00", Fields: []string{"invoiceNumber", "total"}}, "no decimal"},
		{truth{DocumentType: docInvoice, Expect: "reject"}, "expect"},
	} {
		err := tc.tr.check()
		require.ErrorContains(t, err, tc.want, "%+v", tc.tr)
	}
	require.NoError(t, truth{DocumentType: docInvoice, Expect: expectRejection}.check(), "an expected rejection needs no number")
}

func TestOutcome_AWrongNumberOrTotalIsAFalseSuccess(t *testing.T) {
	t.Parallel()
	doc := document{truth: truth{DocumentType: docInvoice, InvoiceNumber: "471102", Total: "529.87"}}
	right := outcome{doc: doc, invoice: &extract.Invoice{InvoiceNumber: "471102", Total: "529.870"}}
	require.True(t, right.correct())
	require.False(t, right.falseSuccess())
	for _, inv := range []*extract.Invoice{{InvoiceNumber: "471102", Total: "160.00"}, {InvoiceNumber: "1.2", Total: "529.87"}} {
		o := outcome{doc: doc, invoice: inv}
		require.True(t, o.falseSuccess(), "%+v", inv)
	}
	rejected := outcome{doc: doc, reason: extract.ReasonTotalMismatch}
	require.False(t, rejected.falseSuccess())
	notInvoice := outcome{doc: document{truth: truth{DocumentType: extract.DocPurchaseOrder}}, invoice: &extract.Invoice{}}
	require.True(t, notInvoice.falseSuccess(), "a non-invoice that succeeds")
}

func TestSuppliers_LaterDocumentsCountedInFileOrder(t *testing.T) {
	t.Parallel()
	doc := func(file, supplier string) document {
		return document{file: file, truth: truth{DocumentType: docInvoice, Supplier: supplier, InvoiceNumber: file, Total: "1.00",
			Fields: []string{"invoiceNumber", "total"}}}
	}
	right := func(d document) outcome {
		return outcome{doc: d, invoice: &extract.Invoice{InvoiceNumber: d.truth.InvoiceNumber, Total: "1.00"}}
	}
	rejected := func(d document) outcome { return outcome{doc: d, reason: extract.ReasonTotalMismatch} }
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
