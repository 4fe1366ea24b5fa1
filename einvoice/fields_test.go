package einvoice

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// header is the part of an Invoice the hand-checked table compares.
type header struct {
	Syntax                                          Syntax
	Number, IssueDate, TypeCode, Currency, DueDate  string
	OrderReference, SellerName, SellerTradingName   string
	SellerVATID, BuyerName, IBAN                    string
	LineTotal, TaxExclusive, TaxTotal, TaxInclusive string
	Prepaid, DueAmount                              string
	Lines                                           int
}

func headerOf(inv *Invoice) header {
	return header{
		Syntax: inv.Syntax, Number: inv.Number, IssueDate: inv.IssueDate, TypeCode: inv.TypeCode,
		Currency: inv.Currency, DueDate: inv.DueDate, OrderReference: inv.OrderReference,
		SellerName: inv.SellerName, SellerTradingName: inv.SellerTradingName, SellerVATID: inv.SellerVATID,
		BuyerName: inv.BuyerName, IBAN: inv.IBAN, LineTotal: inv.LineTotal, TaxExclusive: inv.TaxExclusive,
		TaxTotal: inv.TaxTotal, TaxInclusive: inv.TaxInclusive, Prepaid: inv.Prepaid, DueAmount: inv.DueAmount,
		Lines: len(inv.Lines),
	}
}

func parseFile(t *testing.T, rel string) *Invoice {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, rel))
	require.NoError(t, err)
	inv, err := Parse(data)
	require.NoError(t, err)
	return inv
}

// The values below were read by hand from each XML file, element by
// element; they are not the output of the code under test.
func TestParse_OfficialExamples_HandCheckedFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want header
	}{
		{"en16931/ubl/ubl-tc434-example1.xml", header{
			Syntax: UBLInvoice, Number: "12115118", IssueDate: "2015-01-09", TypeCode: "380", Currency: "EUR",
			DueDate: "2015-01-09", SellerName: "De Koksmaat", SellerVATID: "NL8200.98.395.B.01", BuyerName: "ODIN 59",
			IBAN: "NL57 RABO 0107307510", LineTotal: "229.60", TaxExclusive: "229.60", TaxTotal: "20.73",
			TaxInclusive: "250.33", DueAmount: "250.33", Lines: 20}},
		// BT-27 is the legal name, BT-28 the trading name; BT-31 is the VAT
		// scheme's id, not the other tax scheme's ("Godkänd för F-skatt").
		{"en16931/testfiles/Invoice-Max_content.xml", header{
			Syntax: UBLInvoice, Number: "2018210", IssueDate: "2018-02-08", TypeCode: "380", Currency: "SEK",
			DueDate: "2018-03-07", OrderReference: "20180117", SellerName: "The Global Chain Sweden AB",
			SellerTradingName: "Global Trade Chain", SellerVATID: "SE123456789001", BuyerName: "Project services AB",
			IBAN: "SE1212341234123412341234", LineTotal: "10000", TaxExclusive: "10000", TaxTotal: "2500",
			TaxInclusive: "12500", Prepaid: "0", DueAmount: "12500", Lines: 2}},
		// BT-28 "SelCo" is written first; BT-27 is the registration name.
		{"en16931/ubl/ubl-tc434-example5.xml", header{
			Syntax: UBLInvoice, Number: "TOSL110", IssueDate: "2013-04-10", TypeCode: "380", Currency: "DKK",
			DueDate: "2013-05-10", OrderReference: "PO4711", SellerName: "SellerCompany", SellerTradingName: "SelCo",
			SellerVATID: "NL16356706", BuyerName: "Buyercompany ltd", LineTotal: "4000.00", TaxExclusive: "4000.00",
			TaxTotal: "675.00", TaxInclusive: "4675.00", Prepaid: "2337.50", DueAmount: "2337.50", Lines: 3}},
		{"xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml", header{
			Syntax: UBLInvoice, Number: "123456XX", IssueDate: "2016-04-04", TypeCode: "380", Currency: "EUR",
			SellerName: "[Seller name]", SellerTradingName: "[Seller trading name]", SellerVATID: "DE 123456789",
			BuyerName: "[Buyer name]", IBAN: "DE79000000001234567890", LineTotal: "314.86", TaxExclusive: "314.86",
			TaxTotal: "22.04", TaxInclusive: "336.9", DueAmount: "336.9", Lines: 2}},
		{"xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml", header{
			Syntax: CII, Number: "123456XX", IssueDate: "2016-04-04", TypeCode: "380", Currency: "EUR",
			SellerName: "[Seller name]", SellerTradingName: "[Seller trading name]", SellerVATID: "DE 123456789",
			BuyerName: "[Buyer name]", IBAN: "DE79000000001234567890", LineTotal: "314.86", TaxExclusive: "314.86", TaxTotal: "22.04",
			TaxInclusive: "336.9", DueAmount: "336.9", Lines: 2}},
		{"horstoeko/xml_en16931_1.xml", header{
			Syntax: CII, Number: "471102", IssueDate: "2018-03-05", TypeCode: "380", Currency: "EUR",
			SellerName: "Lieferant GmbH", SellerVATID: "DE123456789", BuyerName: "Kunden AG Mitte",
			IBAN: "DE5467894567876500", LineTotal: "473.00", TaxExclusive: "473.00", TaxTotal: "56.87",
			TaxInclusive: "529.87", Prepaid: "0.00", DueAmount: "529.87", Lines: 2}},
		{"en16931/cii/huf_example_cii.xml", header{
			Syntax: CII, Number: "21/001003559/996", IssueDate: "2021-10-05", TypeCode: "380", Currency: "HUF",
			DueDate: "2021-11-01", SellerName: "DKV Euro Service GmbH + Co. KG", SellerVATID: "HU30048650",
			BuyerName: "HIL Heeresinstandsetzungslogistik GmbH", IBAN: "DE26330403100827038100", LineTotal: "69180.00", TaxExclusive: "69180.00",
			TaxTotal: "18679.00", TaxInclusive: "87859.00", Prepaid: "0.00", DueAmount: "87859.00", Lines: 3}},
		// Factur-X MINIMUM: no lines, no BT-106; the buyer's VAT id is not BT-31.
		{"mustang/library/cii/facturFrMinimum.xml", header{
			Syntax: CII, Number: "FA-2017-0010", IssueDate: "2017-11-13", TypeCode: "380", Currency: "EUR",
			OrderReference: "PO445", SellerName: "Au bon moulin", SellerVATID: "FR11999999998",
			BuyerName: "Ma jolie boutique", TaxExclusive: "624.90", TaxTotal: "46.25", TaxInclusive: "671.15",
			DueAmount: "470.15"}},
		// ZUGFeRD 1.0: the FC tax number is not BT-31; the IBAN as written.
		{"mustang/validator/validV1.xml", header{
			Syntax: ZUGFeRD1, Number: "RE-20171118/506", IssueDate: "2017-11-18", TypeCode: "380", Currency: "EUR",
			DueDate: "2017-12-09", SellerName: "Bei Spiel GmbH", SellerVATID: "DE136695976", BuyerName: "Theodor Est",
			IBAN: "DE88 2008 0000 0970 3757 00", LineTotal: "496.00", TaxExclusive: "496.00", TaxTotal: "75.04",
			TaxInclusive: "571.04", DueAmount: "571.04", Lines: 3}},
		{"en16931/ubl/ubl-tc434-creditnote1.xml", header{
			Syntax: UBLCreditNote, Number: "018304 / 28865", IssueDate: "2019-09-23", TypeCode: "381", Currency: "EUR",
			SellerName: "My Supplier Company", SellerTradingName: "My Supplier Company N.V.", SellerVATID: "BE0000000196", BuyerName: "My Customer Company",
			IBAN: "BE91000000143476", LineTotal: "100.11", TaxExclusive: "100.11", TaxTotal: "0.00",
			TaxInclusive: "100.11", DueAmount: "100.11", Lines: 1}},
		{"mustang/library/factur-x-extended.xml", header{
			Syntax: CII, LineTotal: "410.10", TaxExclusive: "403.55", TaxTotal: "76.67", TaxInclusive: "480.22",
			Prepaid: "0.00", DueAmount: "480.22"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			t.Parallel()
			got := headerOf(parseFile(t, tc.file))
			if tc.want.Number == "" { // only the totals were read for this file
				got = header{Syntax: got.Syntax, LineTotal: got.LineTotal, TaxExclusive: got.TaxExclusive,
					TaxTotal: got.TaxTotal, TaxInclusive: got.TaxInclusive, Prepaid: got.Prepaid, DueAmount: got.DueAmount}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// A line's terms, read by hand: the UBL example's first line and the
// ZUGFeRD 1.0 example's second.
func TestParse_Lines_HandCheckedFields(t *testing.T) {
	t.Parallel()
	ubl := parseFile(t, "en16931/ubl/ubl-tc434-example1.xml")
	require.Equal(t, Line{ID: "1", Quantity: "2", Unit: "EA", NetAmount: "19.90", NetPrice: "9.95",
		Category: "S", Rate: "6", Name: "PATAT FRITES 10MM 10KG", Path: "/Invoice/cac:InvoiceLine[1]"}, ubl.Lines[0])
	zf1 := parseFile(t, "mustang/validator/validV1.xml")
	require.Equal(t, Line{ID: "2", Quantity: "400.0000", Unit: "C62", NetAmount: "316.00", NetPrice: "0.7900",
		GrossPrice: "0.7900", BaseQuantity: "1.0000", BaseUnit: "C62", Category: "S", Rate: "19.00",
		Name: "Luftballon: Bunt, ca. 500ml",
		Path: "/rsm:CrossIndustryDocument/rsm:SpecifiedSupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem[2]"},
		zf1.Lines[1])
}

// Document level allowances and charges: a CII Extended allowance and its
// logistics service charge (freight), with the VAT breakdown.
func TestParse_AllowancesChargesAndVAT(t *testing.T) {
	t.Parallel()
	inv := parseFile(t, "mustang/library/factur-x-extended.xml")
	require.Equal(t, []AllowanceCharge{{Amount: "21.55", BaseAmount: "410.10", Category: "S", Rate: "19.00",
		Reason: "Sonderrabatt"}}, inv.Allowances)
	require.Equal(t, []AllowanceCharge{{Charge: true, Amount: "15.00", Category: "S", Rate: "19.00",
		Reason: "Transportkosten: Frachbetrag"}}, inv.Charges)
	require.Len(t, inv.VAT, 1)
	require.Equal(t, VATBreakdown{TaxableAmount: "403.55", TaxAmount: "76.67", Category: "S", Rate: "19.00"}, inv.VAT[0])
	require.Empty(t, inv.Check())
}

// Paths record where each term came from, in the standard's prefixes.
func TestParse_PathsNameTheElements(t *testing.T) {
	t.Parallel()
	inv := parseFile(t, "en16931/testfiles/Invoice-Max_content.xml")
	require.Equal(t, "/Invoice/cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", inv.Paths["BT-112"])
	require.Equal(t, "/Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", inv.Paths["BT-27"])
	require.Equal(t, "/Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name", inv.Paths["BT-28"])
	require.Equal(t, "/Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme[1]/cbc:CompanyID", inv.Paths["BT-31"])
	require.Equal(t, "/Invoice/cac:TaxTotal[1]/cbc:TaxAmount", inv.Paths["BT-110"])
	require.Equal(t, "/Invoice/cac:TaxTotal[2]/cbc:TaxAmount", inv.Paths["BT-111"])
	require.Equal(t, "249", inv.TaxTotalTaxCurrency)
	require.Equal(t, "/Invoice/cac:InvoiceLine[2]", inv.Paths["BG-25[2]"])
	cii := parseFile(t, "horstoeko/xml_en16931_1.xml")
	require.Equal(t, "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:SpecifiedTaxRegistration[2]/ram:ID", cii.Paths["BT-31"])
	require.Equal(t, "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString", cii.Paths["BT-2"])
}

// XRechnung's third party payments are part of the amount due.
func TestParse_XRechnungThirdPartyPayment(t *testing.T) {
	t.Parallel()
	inv := parseFile(t, "xrechnung-testsuite/business-cases/extension/05.01a-INVOICE_ubl.xml")
	require.Equal(t, []string{"19.96", "10.00"}, inv.ThirdPartyPaid)
	require.Equal(t, "336.9", inv.TaxInclusive)
	require.Equal(t, "366.86", inv.DueAmount)
	require.Empty(t, inv.Check())
	inv.ThirdPartyPaid = nil
	require.Equal(t, "BR-CO-16", inv.Check()[0].Rule)
}

// The invoice a credit note or correction refers to (BT-25, BT-26) and
// the seller's identifiers (BT-29 with its scheme, BT-30, BT-32, BT-34),
// read by hand from a Peppol credit note and XRechnung's comprehensive
// test invoice.
func TestParse_PrecedingInvoiceAndSellerIdentifiers(t *testing.T) {
	t.Parallel()
	cn := parseFile(t, "en16931/testfiles/BIS_Billing_30-Kreditering_med_kreditnota.xml")
	require.Equal(t, UBLCreditNote, cn.Syntax)
	require.Equal(t, "2018133", cn.PrecedingInvoice)
	require.Equal(t, "2018-02-08", cn.PrecedingIssueDate)
	require.Equal(t, []Identifier{{ID: "1230123456789", Scheme: "0088"}}, cn.SellerIDs)
	require.Equal(t, Identifier{ID: "1234567890", Scheme: "0007"}, cn.SellerLegalID)
	require.Equal(t, "SE123456789001", cn.SellerVATID)
	require.Equal(t, "Godkänd för F-skatt", cn.SellerTaxID, "BT-32 is the tax scheme other than VAT")
	require.Equal(t, Identifier{ID: "1234567890", Scheme: "0007"}, cn.SellerEndpoint)

	xr := parseFile(t, "xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml")
	require.Equal(t, "PIR1234567890", xr.PrecedingInvoice)
	require.Equal(t, []Identifier{{ID: "9876543217894897438"}, {ID: "748387437438"}, {ID: "987654321", Scheme: "0088"}}, xr.SellerIDs)
	require.Equal(t, Identifier{ID: "123456789", Scheme: "0088"}, xr.SellerLegalID)
	require.Equal(t, "ATU123456789", xr.SellerVATID)
	require.Equal(t, "123/456/789", xr.SellerTaxID)
	require.Equal(t, Identifier{ID: "rechnungsausgang@test.com", Scheme: "EM"}, xr.SellerEndpoint)
	require.NotEmpty(t, xr.Paths["BG-11"], "the seller's tax representative")
	require.NotEmpty(t, xr.Paths["BG-16"], "the payment instructions")
	require.Equal(t, ProfileXRechnung, xr.Profile())
	require.Empty(t, xr.Check())

	corr := parseFile(t, "xrechnung-testsuite/business-cases/standard/01.18a-INVOICE_uncefact.xml")
	require.Equal(t, "384", corr.TypeCode)
	require.Equal(t, "PRG1502168", corr.PrecedingInvoice)
}

// A ZUGFeRD 1.0 invoice without InvoiceCurrencyCode states its currency on
// its totals, which ZUGFeRD 1.0 requires to carry one.
func TestParse_ZUGFeRD1_CurrencyFromTheTotals(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(corpusDir, "mustang/validator/validV1.xml"))
	require.NoError(t, err)
	without := regexp.MustCompile(`<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>`).ReplaceAll(data, nil)
	require.NotEqual(t, data, without)
	inv, err := Parse(without)
	require.NoError(t, err)
	require.Equal(t, "EUR", inv.Currency)
	require.Equal(t, "/rsm:CrossIndustryDocument/rsm:SpecifiedSupplyChainTradeTransaction/ram:ApplicableSupplyChainTradeSettlement/ram:SpecifiedTradeSettlementMonetarySummation/ram:GrandTotalAmount/@currencyID", inv.Paths["BT-5"])
	require.Empty(t, inv.Check())
}
