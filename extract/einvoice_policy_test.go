package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/einvoice"
)

// parseEInvoiceBytes parses a corpus file with one replacement made.
func parseEInvoiceBytes(t *testing.T, rel, old, new string) *einvoice.Invoice {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(einvoiceCorpus, rel))
	require.NoError(t, err)
	changed := bytes.Replace(data, []byte(old), []byte(new), 1)
	require.NotEqual(t, data, changed, "%s has no %q", rel, old)
	inv, err := einvoice.Parse(changed)
	require.NoError(t, err)
	return inv
}

// Line nets that do not add up to BT-106 by a cent break a rule about a
// detail: the payment's amounts agree, so the invoice is committed with
// the rule named, its lines and stated subtotal as the XML states them.
func TestFromEInvoice_DetailRuleBroken_CommitsWithTheRuleFlagged(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.Lines[0].NetAmount = "198.01"
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, []string{"einvoice_rule:BR-CO-10", "einvoice_rule:BR-S-08"}, out.Flags)
	require.Equal(t, "473.00", out.Subtotal, "BT-106 as stated")
	require.Equal(t, "529.87", out.Total)
	require.Equal(t, "529.87", out.AmountDue)
	require.Equal(t, "198.01", out.LineItems[0].Amount, "the lines as the XML states them")
	for _, f := range out.Flags {
		require.Contains(t, EInvoiceFlags(), f)
	}
}

// A flagged result can still be approved with corrections: what the
// corrections are put over (ExtractionOf) leaves out the lines that do not
// add up, and the one verdict commits the person's values.
func TestFromEInvoice_FlaggedResult_IsApprovedWithCorrections(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.Lines[0].NetAmount = "198.01"
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	base := ExtractionOf(*out)
	require.Empty(t, base.LineItems, "lines that do not add up to the subtotal are not judged again")
	number, due := "471102-A", "2018-04-30"
	v, err := JudgeCorrections(&base, Corrections{InvoiceNumber: &number, DueDate: &due}, Policy{})
	require.NoError(t, err)
	require.Equal(t, "471102-A", v.Invoice.InvoiceNumber)
	require.Equal(t, "2018-04-30", v.Invoice.DueDate)
	require.Equal(t, "529.87", v.Invoice.Total)
	require.Equal(t, out.Flags, v.Invoice.Flags, "the flags stay with the corrected version")
	require.Empty(t, v.Dropped)

	total := "530.00"
	_, err = JudgeCorrections(&base, Corrections{Total: &total}, Policy{})
	require.Equal(t, ReasonTotalMismatch, rejection(t, err), "a correction that breaks the payment's arithmetic is refused")
}

// When the payment's amounts disagree the invoice is rejected with that
// rule, not with a detail rule reported before it; what it keeps names
// the detail rules too.
func TestFromEInvoice_PaymentAmountsDisagree_RejectedWithThePaymentRule(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.Lines[0].NetAmount, inv.TaxInclusive = "198.01", "529.88"
	_, err := FromEInvoice(inv)
	require.Equal(t, "invalid_einvoice:BR-CO-15", rejection(t, err))
	var r *Rejection
	require.ErrorAs(t, err, &r)
	require.Contains(t, r.Extraction.Flags, "einvoice_rule:BR-CO-10")

	zf1 := parseEInvoice(t, "mustang/validator/validV1.xml")
	zf1.DueAmount = "571.05"
	_, err = FromEInvoice(zf1)
	require.Equal(t, "invalid_einvoice:ZF1-DUE", rejection(t, err))
}

// ZUGFeRD 1.0 samples from easybill's library (testdata/einvoice/easybill)
// are judged by ZUGFeRD 1.0's rules: a BASIC invoice states no amount
// due, the totals decide; a VAT breakdown that does not add up to the
// total VAT, or an allowance total that is not the allowances listed, is
// flagged, not dead-lettered. Each value read by hand from the XML.
func TestFromEInvoice_ZUGFeRD1Samples_CommittedByTheirOwnRules(t *testing.T) {
	t.Parallel()
	basic := parseEInvoice(t, "easybill/zugferd10/reader.zugferd.xml")
	require.Equal(t, einvoice.ProfileZUGFeRD1Basic, basic.Profile())
	out, err := mapEInvoice(t, basic)
	require.NoError(t, err)
	require.Equal(t, "RE1337", out.InvoiceNumber)
	require.Equal(t, "2013-03-05", out.IssueDate)
	require.Equal(t, "Lieferant GmbH", out.Vendor)
	require.Equal(t, DocInvoice, out.DocumentType)
	require.Equal(t, "198.00", out.Subtotal)
	require.Equal(t, "37.62", out.Tax)
	require.Equal(t, "235.62", out.Total)
	require.Empty(t, out.AmountDue, "ZUGFeRD 1.0 BASIC has no amount due: the total is owed")
	require.Equal(t, []string{"einvoice_rule:ZF1-TAX-TOTAL", FlagEInvoiceDetailsOmitted}, out.Flags,
		"rates of 19.25 and 37.62 VAT for a VAT total of 37.62: the breakdown is left out")
	require.Empty(t, out.TaxBreakdown)
	require.Equal(t, []PartyID{{Scheme: IDVAT, ID: "DE123456789"}, {Scheme: IDTax, ID: "201/113/40209"}}, out.Seller[:2])

	comfort := parseEInvoice(t, "easybill/zugferd10/builder.zugferd.xml")
	require.Equal(t, einvoice.ProfileZUGFeRD1Comfort, comfort.Profile())
	out, err = mapEInvoice(t, comfort)
	require.NoError(t, err)
	require.Equal(t, []string{"einvoice_rule:ZF1-ALLOWANCE-TOTAL", "einvoice_rule:ZF1-TAX-TOTAL", FlagEInvoiceDetailsOmitted}, out.Flags)
	require.Equal(t, "198.00", out.Subtotal)
	require.Empty(t, out.Charges, "BT-107 and BT-108 are 0.00 and make BT-109; the 1.00 allowance listed does not")
	require.Equal(t, "235.62", out.Total)
	require.Equal(t, "235.62", out.AmountDue)
	require.Equal(t, "2013-04-04", out.DueDate)
	require.Equal(t, "0234587234", out.OrderReference)
	require.Equal(t, []LineItem{{Description: "Trennblätter A4", Quantity: "20", UnitPrice: "9.90", Amount: "198.00"}}, out.LineItems)
}

// A ZUGFeRD 1.0 invoice without InvoiceCurrencyCode is booked in the
// currency its totals state.
func TestFromEInvoice_ZUGFeRD1_CurrencyOfTheTotals(t *testing.T) {
	t.Parallel()
	inv := parseEInvoiceBytes(t, "mustang/validator/validV1.xml", "<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>", "")
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, "EUR", out.Currency)
	require.Equal(t, "571.04", out.Total)
	require.Contains(t, out.Evidence["currency"].Path, "GrandTotalAmount/@currencyID")
}

// The stated allowance and charge totals make the total without VAT when
// the allowances listed do not (a ZUGFeRD 1.0 generator that counts its
// lines' allowances in BT-107): they are the committed charges.
func TestFromEInvoice_ChargesFromTheStatedTotals_WhenTheListDoesNotMakeTheNet(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "mustang/validator/validV1.xml")
	inv.AllowanceTotal, inv.TaxExclusive, inv.TaxTotal, inv.TaxInclusive, inv.DueAmount = "10.00", "486.00", "75.04", "561.04", "561.04"
	vs := inv.Check()
	require.Equal(t, []string{"ZF1-ALLOWANCE-TOTAL"}, []string{vs[0].Rule})
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, "496.00", out.Subtotal)
	require.Equal(t, []Charge{{Kind: ChargeDiscount, Amount: "-10.00"}}, out.Charges)
	require.Equal(t, []string{"BT-107", "BT-108"}, out.Evidence["charges"].BusinessTerms)
	require.Contains(t, out.Flags, "einvoice_rule:ZF1-ALLOWANCE-TOTAL")
}

// Credit notes and corrective invoices of the official sets are booked
// with their type, direction and the invoice they refer to (BT-25).
func TestFromEInvoice_CreditNotesAndCorrections_OfficialExamples(t *testing.T) {
	t.Parallel()
	cn, err := mapEInvoice(t, parseEInvoice(t, "en16931/testfiles/BIS_Billing_30-Kreditering_med_kreditnota.xml"))
	require.NoError(t, err)
	require.Equal(t, DocCreditNote, cn.DocumentType)
	require.Equal(t, DirectionCredit, cn.Direction)
	require.Equal(t, "2018133", cn.PrecedingInvoice)
	require.Equal(t, Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-25"},
		Path: "/CreditNote/cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID"}, cn.Evidence["precedingInvoice"])
	require.Equal(t, "-"+cn.Total, cn.SignedTotal)
	require.Equal(t, []PartyID{{Scheme: IDVAT, ID: "SE123456789001"}, {Scheme: IDLegal, ID: "1234567890"},
		{Scheme: IDGLN, ID: "1230123456789"}, {Scheme: IDIBAN, ID: "1234567"}}, cn.Seller,
		"BT-32 \"Godkänd för F-skatt\" is no identifier; BT-84 is the account as stated")

	// The XRechnung test suite's CII invoice as a credit note (381).
	cii, err := mapEInvoice(t, parseEInvoiceBytes(t, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml",
		"<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>381</ram:TypeCode>"))
	require.NoError(t, err)
	require.Equal(t, DocCreditNote, cii.DocumentType)
	require.Equal(t, DirectionCredit, cii.Direction)
	require.Equal(t, "-336.90", cii.SignedTotal)

	for _, f := range []string{"xrechnung-testsuite/business-cases/standard/01.18a-INVOICE_uncefact.xml",
		"xrechnung-testsuite/business-cases/standard/01.18a-INVOICE_ubl.xml"} {
		corr, err := mapEInvoice(t, parseEInvoice(t, f))
		require.NoError(t, err, f)
		require.Equal(t, DocCorrectiveInvoice, corr.DocumentType, f)
		require.Equal(t, "384", corr.InvoiceTypeCode, f)
		require.Equal(t, "PRG1502168", corr.PrecedingInvoice, f)
		require.Equal(t, DirectionDebit, corr.Direction, "%s: a correction that charges", f)
		require.Equal(t, StatusChecked, corr.Status["precedingInvoice"], f)
	}
}

// The seller's identifiers the XML states, strongest first: VAT id, tax
// number, legal registration, GLN, IBAN, the e-mail domain of its
// electronic address; an id whose scheme says nothing (a supplier number
// in the buyer's system) is left out.
func TestFromEInvoice_SellerIdentifiers(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml")
	require.Equal(t, []PartyID{
		{Scheme: IDVAT, ID: "ATU123456789"}, {Scheme: IDTax, ID: "123/456/789"},
		{Scheme: IDIBAN, ID: "DE79000000001234567890"}, {Scheme: IDEmail, ID: "test.com"},
	}, einvoiceSeller(inv), "BT-30 and BT-29 in scheme 0088 are no 13-digit GLN here")
	inv.SellerLegalID = einvoice.Identifier{ID: "HRB 12345", Scheme: ""}
	inv.SellerIDs = []einvoice.Identifier{{ID: "4000001123452", Scheme: "0088"}, {ID: "K-4711"}}
	inv.SellerEndpoint = einvoice.Identifier{ID: "Invoices@Example.COM", Scheme: "EM"}
	require.Equal(t, []PartyID{
		{Scheme: IDVAT, ID: "ATU123456789"}, {Scheme: IDTax, ID: "123/456/789"}, {Scheme: IDLegal, ID: "HRB 12345"},
		{Scheme: IDGLN, ID: "4000001123452"}, {Scheme: IDIBAN, ID: "DE79000000001234567890"}, {Scheme: IDEmail, ID: "example.com"},
	}, einvoiceSeller(inv))
}

// A Factur-X MINIMUM invoice has no paid amount and its rules do not tie
// the amount due to the total: the paid amount is what the two leave,
// computed, so the amount due stands as stated.
func TestFromEInvoice_Minimum_PaidAmountIsWhatTheDueAmountLeaves(t *testing.T) {
	t.Parallel()
	out, err := mapEInvoice(t, parseEInvoice(t, "mustang/library/cii/facturFrMinimum.xml"))
	require.NoError(t, err)
	require.Equal(t, "671.15", out.Total)
	require.Equal(t, "470.15", out.AmountDue)
	require.Equal(t, "201.00", out.PaidAmount)
	require.Equal(t, Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-112", "BT-115"}, Computed: true}, out.Evidence["paidAmount"])
}

// XRechnung's third party payments are part of its amount due: they are
// paid amounts taken back, so the amount due stands as stated.
func TestFromEInvoice_XRechnungThirdPartyPayments_InTheAmountDue(t *testing.T) {
	t.Parallel()
	out, err := mapEInvoice(t, parseEInvoice(t, "xrechnung-testsuite/business-cases/extension/05.01a-INVOICE_ubl.xml"))
	require.NoError(t, err)
	require.Equal(t, "336.90", out.Total)
	require.Equal(t, "366.86", out.AmountDue)
	require.Equal(t, "-29.96", out.PaidAmount)
	require.Equal(t, []string{"BT-113", "BT-DEX-002"}, out.Evidence["paidAmount"].BusinessTerms)
	require.Empty(t, out.Flags)
}

// A detail the validator cannot commit as stated (a due date before the
// issue date in one of the CEN's examples; an amount finer than the
// currency in a line) is left out and the result says so; the payment's
// amounts are committed.
func TestFromEInvoice_DetailThatCannotBeCommitted_IsLeftOutAndFlagged(t *testing.T) {
	t.Parallel()
	inv := parseEInvoice(t, "en16931/cii/CII_business_example_02.xml")
	require.Equal(t, "2013-05-10", inv.DueDate)
	require.Equal(t, "2013-08-25", inv.IssueDate)
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Empty(t, out.DueDate)
	require.NotContains(t, out.Evidence, "dueDate")
	require.Equal(t, []string{FlagEInvoiceDetailsOmitted}, out.Flags)
	require.Equal(t, "11.90", out.Total)

	out, err = mapEInvoice(t, parseEInvoice(t, "mustang/library/line-total-4-decimals.xml"))
	require.NoError(t, err)
	require.Equal(t, []string{"einvoice_rule:BR-DEC-23", FlagEInvoiceDetailsOmitted}, out.Flags)
	require.Empty(t, out.LineItems, "a line of 47.0504 EUR is not rounded")
	require.Equal(t, "55.99", out.Total)
}

// Every flag FromEInvoice sets on the corpus is one of EInvoiceFlags,
// every detail rule has one, and none other is a flag.
func TestEInvoiceFlags_AreAFixedSetOfDetailRules(t *testing.T) {
	t.Parallel()
	flags := EInvoiceFlags()
	require.Len(t, flags, len(einvoice.DetailRules)+1)
	for _, r := range einvoice.Rules {
		require.Equal(t, slices.Contains(einvoice.DetailRules, r), slices.Contains(flags, EInvoiceRuleFlag(r)), r)
	}
}

// Whatever the XML, FromEInvoice never panics, rejects only with a known
// reason, and what it commits the validator commits again.
func FuzzFromEInvoice(f *testing.F) {
	for _, rel := range []string{"easybill/zugferd10/reader.zugferd.xml", "mustang/validator/validV1.xml",
		"horstoeko/xml_en16931_1.xml", "en16931/ubl/ubl-tc434-example2.xml", "mustang/library/cii/facturFrMinimum.xml"} {
		data, err := os.ReadFile(filepath.Join(einvoiceCorpus, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := einvoice.Parse(data)
		if err != nil {
			return
		}
		b, err := FromEInvoice(inv)
		if err != nil {
			var r *Rejection
			if !errors.As(err, &r) || !ValidReason(r.Reason) {
				t.Fatalf("not a known rejection: %v", err)
			}
			return
		}
		var out Invoice
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if _, err := ValidateExtraction(ExtractionOf(out)); err != nil {
			t.Fatalf("committed, but judged again: %v", err)
		}
	})
}

// Every rule about a detail names the committed fields the reviewer
// checks, and those of a flagged rule are toCheck.
func TestFromEInvoice_FlaggedRule_MarksItsFieldsToCheck(t *testing.T) {
	t.Parallel()
	for _, r := range einvoice.DetailRules {
		require.NotEmpty(t, detailFields[r], r)
	}
	require.Len(t, detailFields, len(einvoice.DetailRules))
	inv := parseEInvoice(t, "horstoeko/xml_en16931_1.xml")
	inv.Lines[0].NetAmount = "198.01"
	out, err := mapEInvoice(t, inv)
	require.NoError(t, err)
	require.Equal(t, StatusToCheck, out.Status["lineItems"])
	require.Equal(t, StatusToCheck, out.Status["subtotal"])
	require.Equal(t, StatusChecked, out.Status["total"])
}
