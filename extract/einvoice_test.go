package extract

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/einvoice"
)

const einvoiceCorpus = "../testdata/einvoice"

func parseEInvoice(t *testing.T, rel string) *einvoice.Invoice {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(einvoiceCorpus, rel))
	require.NoError(t, err)
	inv, err := einvoice.Parse(data)
	require.NoError(t, err)
	return inv
}

func mapEInvoice(t *testing.T, inv *einvoice.Invoice) (*Invoice, error) {
	t.Helper()
	b, err := FromEInvoice(inv)
	if err != nil {
		require.Nil(t, b)
		return nil, err
	}
	var out Invoice
	require.NoError(t, json.Unmarshal(b, &out))
	return &out, nil
}

func rejection(t *testing.T, err error) string {
	t.Helper()
	var r *Rejection
	require.ErrorAs(t, err, &r)
	require.True(t, ValidReason(r.Reason), r.Reason)
	require.ErrorIs(t, err, ErrPermanent)
	return r.Reason
}

// sameAmount reports whether a committed amount equals the stated one as
// a number (the committed one has the currency's digits).
func sameAmount(t *testing.T, committed, stated string) {
	t.Helper()
	a, err := parseDecimal(committed)
	require.NoError(t, err, committed)
	b, err := parseDecimal(stated)
	require.NoError(t, err, stated)
	require.Equal(t, a.normalized(), b.normalized(), "%s vs %s", committed, stated)
}

// Every official example is judged by its profile's rules and the payment
// decides: one whose payment amounts break a rule, or that lacks a
// required term, is rejected with that rule; every other is committed,
// each field equal to the value its XML states, the amounts exact, each
// detail rule it breaks named in its flags, and the result, judged again
// as an approval's corrections are judged over it, commits.
func TestFromEInvoice_OfficialExamples_MapToTheirStatedValues(t *testing.T) {
	t.Parallel()
	committed, flagged, rejected := 0, 0, 0
	err := filepath.WalkDir(einvoiceCorpus, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".xml") {
			return err
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		inv, err := einvoice.Parse(data)
		if err != nil {
			return nil
		}
		vs := inv.Check()
		out, err := mapEInvoice(t, inv)
		if i := slices.IndexFunc(vs, func(v einvoice.Violation) bool { return !v.Detail() }); i >= 0 {
			require.Equal(t, ReasonInvalidEInvoice+":"+vs[i].Rule, rejection(t, err), p)
			rejected++
			return nil
		}
		require.NoError(t, err, p)
		committed++
		omitted := slices.Contains(out.Flags, FlagEInvoiceDetailsOmitted)
		rules := slices.DeleteFunc(slices.Clone(out.Flags), func(f string) bool { return f == FlagEInvoiceDetailsOmitted })
		require.Equal(t, len(detailFlags(vs)), len(rules), p)
		require.Subset(t, rules, detailFlags(vs), p)
		if len(out.Flags) > 0 {
			flagged++
		}
		require.Equal(t, inv.Number, out.InvoiceNumber, p)
		require.Equal(t, inv.IssueDate, out.IssueDate, p)
		require.Equal(t, inv.Currency, out.Currency, p)
		require.Equal(t, inv.TypeCode, out.InvoiceTypeCode, p)
		require.Contains(t, BookedTypes, out.DocumentType, p)
		require.Equal(t, strings.Join(strings.Fields(inv.SellerName), " "), out.Vendor, p)
		if !omitted {
			require.Equal(t, inv.DueDate, out.DueDate, p)
		}
		sameAmount(t, out.Total, inv.TaxInclusive)
		sameAmount(t, out.Tax, orZero(inv.TaxTotal))
		if inv.DueAmount != "" {
			sameAmount(t, out.AmountDue, inv.DueAmount)
		}
		if slices.Equal(out.Evidence["subtotal"].BusinessTerms, []string{"BT-106"}) {
			sameAmount(t, out.Subtotal, inv.LineTotal)
		}
		var counted []einvoice.Line
		for _, l := range inv.Lines {
			if l.Counted() {
				counted = append(counted, l)
			}
		}
		if len(out.LineItems) > 0 || !omitted {
			require.Len(t, out.LineItems, len(counted), p)
			for i, l := range counted {
				sameAmount(t, out.LineItems[i].Amount, l.NetAmount)
			}
		}
		require.Equal(t, Source{Extractor: "einvoice"}, out.Source)
		require.Equal(t, Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-112"}, Path: inv.Paths["BT-112"]}, out.Evidence["total"], p)
		require.NotEmpty(t, out.Evidence["total"].Path, p)
		again, err := ValidateExtraction(ExtractionOf(*out))
		require.NoError(t, err, "%s: judged again", p)
		require.Equal(t, out.Total, again.Total, p)
		require.Equal(t, out.AmountDue, again.AmountDue, p)
		return nil
	})
	require.NoError(t, err)
	t.Logf("committed %d (%d of them flagged), rejected %d", committed, flagged, rejected)
	require.GreaterOrEqual(t, committed, 245)
}

// One example in full, every value read by hand from its XML.
func TestFromEInvoice_UBLExample_HandChecked(t *testing.T) {
	t.Parallel()
	out, err := mapEInvoice(t, parseEInvoice(t, "en16931/ubl/ubl-tc434-example1.xml"))
	require.NoError(t, err)
	require.Equal(t, "12115118", out.InvoiceNumber)
	require.Equal(t, "De Koksmaat", out.Vendor)
	require.Equal(t, "2015-01-09", out.IssueDate)
	require.Equal(t, "2015-01-09", out.DueDate)
	require.Equal(t, "EUR", out.Currency)
	require.Equal(t, "229.60", out.Subtotal)
	require.Equal(t, "20.73", out.Tax)
	require.Equal(t, "250.33", out.Total)
	require.Equal(t, "250.33", out.AmountDue)
	require.Equal(t, "NL8200.98.395.B.01", out.SellerVATID)
	require.Equal(t, "ODIN 59", out.Buyer)
	require.Equal(t, "NL57RABO0107307510", out.IBAN, "the IBAN in its electronic form")
	require.Equal(t, "380", out.InvoiceTypeCode)
	require.Len(t, out.LineItems, 20)
	require.Equal(t, LineItem{Description: "PATAT FRITES 10MM 10KG", Quantity: "2", UnitPrice: "9.95", Amount: "19.90"}, out.LineItems[0])
	require.Equal(t, Evidence{Source: "einvoice", BusinessTerms: []string{"BT-27"},
		Path: "/Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"}, out.Evidence["vendor"])
	require.Equal(t, "/Invoice/cac:InvoiceLine", out.Evidence["lineItems"].Path)
}

// The vendor is the seller's legal name (BT-27), not its trading name
// (BT-28), which UBL writes first.
func TestFromEInvoice_Vendor_IsTheLegalName(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "en16931/testfiles/Invoice-Max_content.xml")
	require.Equal(t, "Global Trade Chain", inv.SellerTradingName)
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, "The Global Chain Sweden AB", out.Vendor)
	require.Equal(t, "12500.00", out.Total)
	require.Equal(t, []Charge{{Kind: ChargeDiscount, Amount: "0.00", Reason: "Discount"}, {Kind: ChargeFee, Amount: "0.00", Reason: "Warehousing"}}, out.Charges)
}

// A ZUGFeRD 1.0 invoice maps like the others; its prices are finer than the
// currency and stay so, trailing zeros dropped.
func TestFromEInvoice_ZUGFeRD1(t *testing.T) {
	t.Parallel()
	out, err := mapEInvoice(t, parseEInvoice(t, "mustang/validator/validV1.xml"))
	require.NoError(t, err)
	require.Equal(t, "RE-20171118/506", out.InvoiceNumber)
	require.Equal(t, "Bei Spiel GmbH", out.Vendor)
	require.Equal(t, "571.04", out.Total)
	require.Equal(t, "2017-12-09", out.DueDate)
	require.Equal(t, []LineItem{
		{Description: "Künstlerische Gestaltung (Stunde): Einer Beispielrechnung", Quantity: "1", UnitPrice: "160.00", Amount: "160.00"},
		{Description: "Luftballon: Bunt, ca. 500ml", Quantity: "400", UnitPrice: "0.79", Amount: "316.00"},
		{Description: "Heiße Luft pro Liter", Quantity: "200", UnitPrice: "0.10", Amount: "20.00"},
	}, out.LineItems)
}

// A Factur-X MINIMUM invoice has no lines and no BT-106: the subtotal is
// BT-109, and says so in its evidence.
func TestFromEInvoice_MinimumProfile(t *testing.T) {
	t.Parallel()
	out, err := mapEInvoice(t, parseEInvoice(t, "mustang/library/cii/facturFrMinimum.xml"))
	require.NoError(t, err)
	require.Equal(t, "624.90", out.Subtotal)
	require.Equal(t, "46.25", out.Tax)
	require.Equal(t, "671.15", out.Total)
	require.Equal(t, "470.15", out.AmountDue)
	require.Empty(t, out.LineItems)
	require.Equal(t, []string{"BT-109", "BT-107", "BT-108"}, out.Evidence["subtotal"].BusinessTerms)
}

// A credit note is booked, not rejected: its type, its direction and its
// amounts as the XML states them; a corrective invoice (384) by the sign of
// its total.
func TestFromEInvoice_CreditNote_IsBookedAsACredit(t *testing.T) {
	t.Parallel()
	cn := parseEInvoice(t, "en16931/ubl/ubl-tc434-creditnote1.xml")
	require.Equal(t, DocCreditNote, EInvoiceDocumentType(cn))
	out, err := mapEInvoice(t, cn)
	require.NoError(t, err)
	require.Equal(t, DocCreditNote, out.DocumentType)
	require.Equal(t, DirectionCredit, out.Direction)
	require.False(t, strings.HasPrefix(out.Total, "-"), "a UBL credit note states positive amounts")
	require.Equal(t, "-"+out.Total, out.SignedTotal)

	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	require.Equal(t, DocInvoice, EInvoiceDocumentType(inv))
	inv.TypeCode = "381"
	require.Equal(t, DocCreditNote, EInvoiceDocumentType(inv))
	inv.TypeCode = "384"
	require.Equal(t, DocCorrectiveInvoice, EInvoiceDocumentType(inv))
	out, err = mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, DocCorrectiveInvoice, out.DocumentType)
	require.Equal(t, DirectionDebit, out.Direction, "a corrective invoice that charges")
}

// A rejected e-invoice keeps its terms as stated, for the person who
// corrects it.
func TestFromEInvoice_Rejection_KeepsTheTermsAsStated(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.TaxInclusive = "529.88"
	_, err := FromEInvoice(inv)
	var r *Rejection
	require.ErrorAs(t, err, &r)
	require.NotNil(t, r.Extraction)
	require.Equal(t, "529.88", r.Extraction.Total)
	require.Equal(t, inv.Number, r.Extraction.InvoiceNumber)
	require.Equal(t, EvidenceEInvoice, r.Extraction.Evidence["total"].Source)
}

// A broken rule is rejected with the first violation's rule.
func TestFromEInvoice_Violation_IsInvalidEInvoiceWithItsRule(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.TaxInclusive = "529.88"
	_, err := mapEInvoice(t, inv)
	require.Equal(t, "invalid_einvoice:BR-CO-15", rejection(t, err))
	require.NotContains(t, err.Error(), "529")
}

// An amount more precise than its currency is rejected, never rounded;
// zeros past the currency's digits are no precision and go.
func TestFromEInvoice_AmountPrecision(t *testing.T) {
	t.Parallel()
	jpy := func() *einvoice.Invoice {
		inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
		inv.Currency = "JPY"
		return inv
	}
	inv := jpy()
	_, err := mapEInvoice(t, inv)
	require.Equal(t, "invalid_field:total", rejection(t, err), "529.87 JPY is not a yen amount")

	inv = jpy()
	inv.Lines = inv.Lines[:1]
	inv.Lines[0].NetAmount, inv.Lines[0].Quantity, inv.Lines[0].NetPrice = "198.00", "20.0000", "9.9000"
	inv.LineTotal, inv.TaxExclusive, inv.TaxTotal, inv.TaxInclusive, inv.DueAmount, inv.Prepaid = "198.00", "198.00", "0", "198.00", "198.00", ""
	inv.VAT = []einvoice.VATBreakdown{{TaxableAmount: "198.00", TaxAmount: "0", Category: "Z", Rate: "0"}}
	inv.Lines[0].Category, inv.Lines[0].Rate = "Z", "0"
	require.Empty(t, inv.Check())
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, "198", out.Total)
	require.Equal(t, "9.9", out.LineItems[0].UnitPrice, "a unit price may be finer than the yen")
}

// Every rule einvoice's Check reports is a reason code the API documents.
func TestEInvoiceRules_CoverEveryRuleOfCheck(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, einvoice.Rules, EInvoiceRules)
	for _, r := range einvoice.Rules {
		require.True(t, ValidReason(ReasonInvalidEInvoice+":"+r))
	}
}

// A unit price is the net price per its base quantity, exactly or not at
// all.
func TestUnitPrice_DividesByTheBaseQuantityExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ price, base, want string }{
		{"9.9000", "", "9.90"},
		{"0.1000", "1.0000", "0.10"},
		{"36109.00", "100", "361.09"},
		{"0.125", "", "0.125"},
		{"10", "3", ""},
		{"10", "0", ""},
		{"abc", "", ""},
	} {
		require.Equal(t, tc.want, unitPrice(tc.price, tc.base, 2), "%s / %s", tc.price, tc.base)
	}
}

// An e-invoice number is taken as stated, spaces included, within bounds.
func TestFromEInvoice_InvoiceNumber_AsStated(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.Number = "210111 mit LV"
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, "210111 mit LV", out.InvoiceNumber)
	inv.Number = strings.Repeat("9", 101)
	_, err = mapEInvoice(t, inv)
	require.Equal(t, "invalid_field:invoiceNumber", rejection(t, err))
	inv.Number = "A\x00B"
	_, err = mapEInvoice(t, inv)
	require.True(t, errors.Is(err, ErrPermanent))
}
