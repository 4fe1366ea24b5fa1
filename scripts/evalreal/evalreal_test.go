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
		Vendor: "Lieferant GmbH", Total: "529.87", AmountDue: "479.87"}, tr)

	credit := strings.Replace(xml, "<ram:TypeCode>380", "<ram:TypeCode>381", 1)
	tr, err = ciiTruth(strings.NewReader(credit))
	require.NoError(t, err)
	require.Equal(t, "credit_note", tr.DocumentType)

	_, err = ciiTruth(strings.NewReader(`<SCRDMCCBDACIOMessageStructure/>`))
	require.ErrorIs(t, err, errNoXML, "an Order-X order is no invoice XML")
}

func TestOutcome_AWrongNumberOrTotalIsAFalseSuccess(t *testing.T) {
	t.Parallel()
	doc := document{truth: truth{DocumentType: extract.DocInvoice, InvoiceNumber: "471102", Total: "529.87"}}
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
