package realcorpus

import (
	"os"
	"os/exec"
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
	tr, err := CIITruth(strings.NewReader(xml))
	require.NoError(t, err)
	require.Equal(t, Truth{DocumentType: "invoice", InvoiceNumber: "471102", IssueDate: "2018-03-05", Currency: "EUR",
		Vendor: "Lieferant GmbH", Total: "529.87", AmountDue: "479.87",
		Fields: []string{"invoiceNumber", "issueDate", "currency", "vendor", "total"}}, tr)

	for code, want := range map[string]string{"381": DocCreditNote, "396": DocCreditNote, "384": DocCorrectiveInvoice, "751": "other"} {
		tr, err = CIITruth(strings.NewReader(strings.Replace(xml, "<ram:TypeCode>380", "<ram:TypeCode>"+code, 1)))
		require.NoError(t, err)
		require.Equal(t, want, tr.DocumentType, code)
	}

	_, err = CIITruth(strings.NewReader(`<SCRDMCCBDACIOMessageStructure/>`))
	require.ErrorIs(t, err, ErrNoXML, "an Order-X order is no invoice XML")
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
	tr, err := CIITruth(strings.NewReader(xml))
	require.NoError(t, err)
	require.Equal(t, DocCreditNote, tr.DocumentType)
	require.Equal(t, "100.00", tr.Subtotal)
	require.Equal(t, "19.00", tr.Tax, "the tax in the invoice currency, not BT-111")
	require.Equal(t, "2024-01-31", tr.DueDate)
	require.Equal(t, "DE123456789", tr.SellerVATID, "the VAT id, not the tax number")
	require.Equal(t, "DE02120300000000202051", tr.IBAN)
	require.Equal(t, "R-6", tr.PrecedingInvoice)
	require.Equal(t, []string{"Lieferant"}, tr.VendorAliases)
	require.Equal(t, []string{"invoiceNumber", "currency", "vendor", "total", "subtotal", "tax", "dueDate"}, tr.Fields)
}

func TestTruthCheck_NamesTheBadField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tr   Truth
		want string
	}{
		{Truth{DocumentType: "credit_note"}, "documentType"},
		{Truth{DocumentType: DocInvoice, InvoiceNumber: "1", Total: "1", Fields: []string{"invoiceNumber", "total", "iban"}}, "fields"},
		{Truth{DocumentType: DocInvoice, InvoiceNumber: "1", Total: "1", Fields: []string{"invoiceNumber"}}, "total"},
		{Truth{DocumentType: DocInvoice, InvoiceNumber: "1", Total: "1,00", Fields: []string{"invoiceNumber", "total"}}, "no decimal"},
		{Truth{DocumentType: DocInvoice, Expect: "reject"}, "expect"},
	} {
		err := tc.tr.Check()
		require.ErrorContains(t, err, tc.want, "%+v", tc.tr)
	}
	require.NoError(t, Truth{DocumentType: DocInvoice, Expect: ExpectRejection}.Check(), "an expected rejection needs no number")
}

// TestLoad_HybridWhosePageDiffers_KeepsTheXMLTruthBeside: a hybrid PDF
// whose visible page states another total than its XML is judged by the
// page where the page is read (Truth) and by the XML where the XML is
// (XML); a hybrid whose page agrees has no XML truth of its own.
func TestLoad_HybridWhosePageDiffers_KeepsTheXMLTruthBeside(t *testing.T) {
	if _, err := exec.LookPath("pdfdetach"); err != nil {
		if os.Getenv("RELAYOPS_REQUIRE_QPDF") == "1" {
			t.Fatal("RELAYOPS_REQUIRE_QPDF=1 but pdfdetach is not installed (apt-get install poppler-utils)")
		}
		t.Skip("SKIPPED: pdfdetach is not installed (apt-get install poppler-utils); it reads the hybrid PDFs' truth")
	}
	docs, err := Load("../..")
	require.NoError(t, err)
	byFile := map[string]Document{}
	for _, d := range docs {
		byFile[d.File] = d
	}
	d := byFile["testdata/einvoice/mustang/library/MustangBeispiel20221026.pdf"]
	require.NotNil(t, d.XML)
	require.Equal(t, "963.12", d.Truth.Total)
	require.Equal(t, "963.11", d.XML.Total)
	require.Equal(t, d.Truth.Supplier, d.XML.Supplier)
	require.Nil(t, byFile["testdata/einvoice/horstoeko/pdf_fx_minimum_1.pdf"].XML, "only a vendor alias differs")
	require.Nil(t, byFile["testdata/einvoice/horstoeko/pdf_fx_extended_1.pdf"].XML)
}

func TestWrongFields_TheClerksBookingDate_IsNoFalseSuccess(t *testing.T) {
	t.Parallel()
	truth := Truth{DocumentType: DocInvoice, InvoiceNumber: "3847193", Total: "293.52", BookingDate: "2024-05-16",
		Fields: []string{"invoiceNumber", "issueDate", "total"}}
	require.NoError(t, truth.Check())
	typed := &extract.Invoice{DocumentType: "invoice", InvoiceNumber: "3847193", Total: "293.52", IssueDate: "2024-05-16",
		Evidence: map[string]extract.Evidence{"issueDate": {Source: extract.EvidenceCorrection}}}
	require.Empty(t, WrongFields(truth, typed), "the clerk's date, typed")
	read := &extract.Invoice{DocumentType: "invoice", InvoiceNumber: "3847193", Total: "293.52", IssueDate: "2024-05-16",
		Evidence: map[string]extract.Evidence{"issueDate": {Source: extract.EvidenceText}}}
	require.Equal(t, []Wrong{{"issueDate", "2024-05-16", ""}}, WrongFields(truth, read), "a date the machine found where the page prints none")
	truth.IssueDate = "2024-05-10"
	require.Error(t, truth.Check(), "a booking date beside an issue date")
}
