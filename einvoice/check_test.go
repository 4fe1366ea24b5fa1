package einvoice

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// valid is an invoice that breaks no rule: 150.00 of lines, an allowance
// of 10.00 and a charge of 5.00 (145.00 without VAT), 19% VAT (27.55),
// 172.55 with VAT, 20.00 paid and 0.45 rounding: 153.00 due.
func valid() *Invoice {
	return &Invoice{
		Syntax: UBLInvoice, Specification: "urn:cen.eu:en16931:2017", Number: "INV-1", IssueDate: "2024-01-15",
		TypeCode: "380", Currency: "EUR", SellerName: "Seller GmbH", SellerCountry: "DE", BuyerName: "Buyer AG",
		BuyerCountry: "DE", Paths: map[string]string{"BG-5": "/s", "BG-8": "/b"},
		Lines: []Line{
			{ID: "1", Quantity: "2", NetAmount: "100.00", NetPrice: "50", Category: "S", Rate: "19", Name: "A"},
			{ID: "2", Quantity: "1", NetAmount: "50.00", NetPrice: "50", Category: "S", Rate: "19.00", Name: "B"},
		},
		Allowances:     []AllowanceCharge{{Amount: "10.00", Category: "S", Rate: "19"}},
		Charges:        []AllowanceCharge{{Charge: true, Amount: "5.00", Category: "S", Rate: "19"}},
		LineTotal:      "150.00",
		AllowanceTotal: "10.00",
		ChargeTotal:    "5.00",
		TaxExclusive:   "145.00",
		TaxTotal:       "27.55",
		TaxInclusive:   "172.55",
		Prepaid:        "20.00",
		Rounding:       "0.45",
		DueAmount:      "153.00",
		VAT:            []VATBreakdown{{TaxableAmount: "145.00", TaxAmount: "27.55", Category: "S", Rate: "19"}},
	}
}

func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestCheck_ValidInvoice_HasNoViolation(t *testing.T) {
	t.Parallel()
	require.Empty(t, valid().Check())
}

// Each rule fires on the fault it describes, and is the first reported.
func TestCheck_EachRule_FiresOnItsFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule   string
		mutate func(*Invoice)
	}{
		{"BR-01", func(i *Invoice) { i.Specification = "" }},
		{"BR-02", func(i *Invoice) { i.Number = "" }},
		{"BR-03", func(i *Invoice) { i.IssueDate = "" }},
		{"BR-04", func(i *Invoice) { i.TypeCode = "" }},
		{"BR-05", func(i *Invoice) { i.Currency = "" }},
		{"BR-06", func(i *Invoice) { i.SellerName = "" }},
		{"BR-07", func(i *Invoice) { i.BuyerName = "" }},
		{"BR-08", func(i *Invoice) { delete(i.Paths, "BG-5") }},
		{"BR-09", func(i *Invoice) { i.SellerCountry = "" }},
		{"BR-10", func(i *Invoice) { delete(i.Paths, "BG-8") }},
		{"BR-11", func(i *Invoice) { i.BuyerCountry = "" }},
		{"BR-12", func(i *Invoice) { i.LineTotal = "" }},
		{"BR-13", func(i *Invoice) { i.TaxExclusive = "" }},
		{"BR-14", func(i *Invoice) { i.TaxInclusive = "" }},
		{"BR-15", func(i *Invoice) { i.DueAmount = "" }},
		{"BR-16", func(i *Invoice) { i.Lines = nil }},
		{"syntax", func(i *Invoice) { i.TaxInclusive = "172,55" }},
		{"syntax", func(i *Invoice) { i.IssueDate = "2024-02-30" }},
		{"syntax", func(i *Invoice) { i.Lines[1].Quantity = "one" }},
		{"BR-DEC-14", func(i *Invoice) { i.TaxInclusive = "172.550" }},
		{"BR-DEC-23", func(i *Invoice) { i.Lines[0].NetAmount = "100.001" }},
		{"BR-LIN-01", func(i *Invoice) { i.Lines[1].ID = "" }},
		{"BR-LIN-03", func(i *Invoice) { i.Lines[1].NetAmount = "" }},
		{"BR-CO-10", func(i *Invoice) { i.LineTotal = "150.01" }},
		{"BR-CO-11", func(i *Invoice) { i.AllowanceTotal = "11.00" }},
		{"BR-CO-11", func(i *Invoice) { i.AllowanceTotal = "" }},
		{"BR-CO-12", func(i *Invoice) { i.ChargeTotal = "6.00" }},
		{"BR-CO-13", func(i *Invoice) { i.TaxExclusive = "145.01" }},
		{"BR-CO-14", func(i *Invoice) { i.TaxTotal = "27.56" }},
		{"BR-CO-15", func(i *Invoice) { i.TaxInclusive = "172.56" }},
		{"BR-CO-16", func(i *Invoice) { i.DueAmount = "153.01" }},
		{"BR-CO-17", func(i *Invoice) {
			i.VAT[0].TaxAmount, i.TaxTotal, i.TaxInclusive, i.DueAmount = "29.00", "29.00", "174.00", "154.45"
		}},
		{"BR-S-08", func(i *Invoice) {
			i.VAT[0].TaxableAmount, i.TaxExclusive, i.LineTotal, i.Lines[1].Category = "147.00", "147.00", "152.00", "Z"
			i.Lines[1].NetAmount, i.TaxInclusive, i.DueAmount = "52.00", "174.55", "155.00"
		}},
	} {
		inv := valid()
		tc.mutate(inv)
		vs := inv.Check()
		require.NotEmpty(t, vs, tc.rule)
		require.Equal(t, tc.rule, vs[0].Rule, "%s: %v", tc.rule, vs)
	}
}

// The violations name terms, never values.
func TestCheck_Violations_NameTermsNotValues(t *testing.T) {
	t.Parallel()
	inv := valid()
	inv.TaxInclusive = "172.56"
	require.Equal(t, []Violation{
		{Rule: "BR-CO-15", Terms: []string{"BT-112", "BT-109", "BT-110"}},
		{Rule: "BR-CO-16", Terms: []string{"BT-115", "BT-112", "BT-113", "BT-114"}},
	}, inv.Check())
}

// Violations come in the order of Rules, each once, and every rule the
// package reports is in Rules.
func TestCheck_ReportsInRulesOrder(t *testing.T) {
	t.Parallel()
	inv := valid()
	inv.Number, inv.TaxTotal, inv.LineTotal = "", "27.56", "150.01"
	got := rules(inv.Check())
	require.Equal(t, []string{"BR-02", "BR-CO-10", "BR-CO-13", "BR-CO-14", "BR-CO-15"}, got)
	require.True(t, slices.IsSortedFunc(got, func(a, b string) int { return slices.Index(Rules, a) - slices.Index(Rules, b) }))
}

// The VAT amount of a breakdown may differ from base × rate by less than
// one unit (the Schematron's tolerance), not by more.
func TestCheck_VATBreakdown_ToleratesLessThanOneUnit(t *testing.T) {
	t.Parallel()
	inv := valid()
	inv.VAT[0].TaxAmount, inv.TaxTotal, inv.TaxInclusive, inv.DueAmount = "28.00", "28.00", "173.00", "153.45"
	require.Empty(t, inv.Check())
	inv.VAT[0].TaxAmount, inv.TaxTotal, inv.TaxInclusive, inv.DueAmount = "28.55", "28.55", "173.55", "154.00"
	require.ElementsMatch(t, []string{"BR-CO-17", "BR-S-09"}, rules(inv.Check()), "exactly one unit is not tolerated in UBL")
	inv.Syntax = CII
	require.Equal(t, []string{"BR-S-09"}, rules(inv.Check()), "CII's BR-CO-17 tolerates one unit, its BR-S-09 does not")
}

// Sums are rounded to two decimals as XPath's round does: a half goes
// towards positive infinity.
func TestCheck_LineSumRounding_IsXPathRound(t *testing.T) {
	t.Parallel()
	inv := &Invoice{Syntax: CII, Lines: []Line{{NetAmount: "0.004"}, {NetAmount: "0.001"}}}
	require.Equal(t, "0.01", sumLines(inv).round2().String())
	inv.Lines = []Line{{NetAmount: "-0.004"}, {NetAmount: "-0.001"}}
	require.Equal(t, "0.00", sumLines(inv).round2().String())
	for in, want := range map[string]string{"2.345": "2.35", "-2.345": "-2.34", "2.344": "2.34", "-2.346": "-2.35", "1": "1.00", "-0.5": "-0.50"} {
		d, ok := parseDecimal(in)
		require.True(t, ok)
		require.Equal(t, want, d.round2().String(), in)
	}
}

func sumLines(inv *Invoice) decimal {
	var s []string
	for _, l := range inv.Lines {
		s = append(s, l.NetAmount)
	}
	d, _ := sum(s)
	return d
}

// MINIMUM and BASIC WL profiles are judged by their own rules; ZUGFeRD
// 1.0 lines need no identifier.
func TestCheck_Profiles_ApplyTheirOwnRules(t *testing.T) {
	t.Parallel()
	minimum := valid()
	minimum.Specification = "urn:factur-x.eu:1p0:minimum"
	minimum.Lines, minimum.LineTotal, minimum.Allowances, minimum.Charges = nil, "", nil, nil
	minimum.AllowanceTotal, minimum.ChargeTotal, minimum.DueAmount = "", "", "100.00"
	delete(minimum.Paths, "BG-8")
	require.Empty(t, minimum.Check(), "MINIMUM states totals it does not reconcile")
	minimum.TaxInclusive = "172.555"
	require.Equal(t, []string{"BR-DEC-14"}, rules(minimum.Check()))

	basicWL := valid()
	basicWL.Specification = "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basicwl"
	basicWL.Lines = nil
	require.Empty(t, basicWL.Check())
	basicWL.DueAmount = "100.00"
	require.Equal(t, []string{"BR-CO-16"}, rules(basicWL.Check()))

	zf1 := validZUGFeRD1()
	zf1.Lines[0].ID = ""
	require.Empty(t, zf1.Check(), "ZUGFeRD 1.0 lines need no identifier")
	zf1.TaxInclusive = "172.555"
	require.Equal(t, []string{"ZF1-GRAND-TOTAL", "ZF1-DUE"}, rules(zf1.Check()), "nor have a limit on decimals")
}

// validZUGFeRD1 is valid() as a ZUGFeRD 1.0 COMFORT invoice: no rounding
// amount (ZUGFeRD 1.0 has none), so 152.55 due.
func validZUGFeRD1() *Invoice {
	inv := valid()
	inv.Syntax, inv.Specification = ZUGFeRD1, "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort"
	inv.Rounding, inv.DueAmount = "", "152.55"
	return inv
}

// A ZUGFeRD 1.0 invoice is judged by ZUGFeRD 1.0's requirements, each
// rule on the fault it describes; EN 16931's rules do not apply to it.
func TestCheck_ZUGFeRD1_EachRuleFiresOnItsFault(t *testing.T) {
	t.Parallel()
	require.Empty(t, validZUGFeRD1().Check())
	for _, tc := range []struct {
		rule   string
		mutate func(*Invoice)
	}{
		{"ZF1-NUMBER", func(i *Invoice) { i.Number = "" }},
		{"ZF1-DATE", func(i *Invoice) { i.IssueDate = "" }},
		{"ZF1-TYPE", func(i *Invoice) { i.TypeCode = "" }},
		{"ZF1-PROFILE", func(i *Invoice) { i.Specification = "" }},
		{"ZF1-CURRENCY", func(i *Invoice) { i.Currency = "" }},
		{"ZF1-SELLER", func(i *Invoice) { i.SellerName = "" }},
		{"ZF1-BUYER", func(i *Invoice) { i.BuyerName = "" }},
		{"ZF1-LINES", func(i *Invoice) {
			i.Lines, i.LineTotal, i.TaxExclusive, i.TaxTotal, i.TaxInclusive, i.DueAmount = nil, "0.00", "-5.00", "0.00", "-5.00", "-25.00"
			i.VAT = nil
		}},
		{"ZF1-TOTALS", func(i *Invoice) { i.TaxInclusive, i.DueAmount = "", "" }},
		{"ZF1-SUMS", func(i *Invoice) {
			i.AllowanceTotal, i.Allowances, i.TaxExclusive, i.TaxTotal, i.TaxInclusive, i.DueAmount = "", nil, "155.00", "29.45", "184.45", "164.45"
			i.VAT[0].TaxableAmount, i.VAT[0].TaxAmount = "155.00", "29.45"
		}},
		{"ZF1-VAT", func(i *Invoice) { i.VAT[0].TaxableAmount = "" }},
		{"syntax", func(i *Invoice) { i.TaxInclusive = "172,55" }},
		{"ZF1-LINE-TOTAL", func(i *Invoice) { i.Lines[1].NetAmount = "50.01" }},
		{"ZF1-ALLOWANCE-TOTAL", func(i *Invoice) { i.Allowances = nil }},
		{"ZF1-CHARGE-TOTAL", func(i *Invoice) { i.Charges[0].Amount = "6.00" }},
		{"ZF1-TAX-BASIS", func(i *Invoice) { i.TaxExclusive, i.TaxInclusive, i.DueAmount = "145.01", "172.56", "152.56" }},
		{"ZF1-TAX-TOTAL", func(i *Invoice) { i.TaxTotal, i.TaxInclusive, i.DueAmount = "27.56", "172.56", "152.56" }},
		{"ZF1-TAX-RATE", func(i *Invoice) {
			i.VAT[0].TaxAmount, i.TaxTotal, i.TaxInclusive, i.DueAmount = "29.00", "29.00", "174.00", "154.00"
		}},
		{"ZF1-GRAND-TOTAL", func(i *Invoice) { i.TaxInclusive, i.DueAmount = "172.56", "152.56" }},
		{"ZF1-DUE", func(i *Invoice) { i.DueAmount = "153.00" }},
	} {
		inv := validZUGFeRD1()
		tc.mutate(inv)
		require.Equal(t, []string{tc.rule}, rules(inv.Check()), tc.rule)
	}
}

// ZUGFeRD 1.0 BASIC states no amount due, nor any EN 16931 term it does
// not have (BT-115, the addresses, BR-DEC's two decimals): none of that is
// a fault; a ZUGFeRD 1.0 invoice without InvoiceCurrencyCode still states
// its currency on its totals (see the mapping).
func TestCheck_ZUGFeRD1_BasicWithoutAmountDue_IsValid(t *testing.T) {
	t.Parallel()
	inv := validZUGFeRD1()
	inv.Specification = "urn:ferd:CrossIndustryDocument:invoice:1p0:basic"
	inv.DueAmount, inv.Prepaid, inv.Paths = "", "", map[string]string{}
	inv.Lines[0].NetAmount, inv.LineTotal = "100.0000", "150.0000"
	require.Empty(t, inv.Check())
	require.Equal(t, ProfileZUGFeRD1Basic, inv.Profile())
}

// An XRechnung is judged by EN 16931 and by XRechnung's rules about the
// terms a payment needs.
func TestCheck_XRechnung_AppliesItsBRDERules(t *testing.T) {
	t.Parallel()
	xr := func() *Invoice {
		inv := valid()
		inv.Specification = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
		inv.BuyerReference, inv.SellerVATID = "04011000-12345-03", "DE123456789"
		inv.Paths["BG-16"] = "/Invoice/cac:PaymentMeans"
		return inv
	}
	require.Empty(t, xr().Check())
	for _, tc := range []struct {
		rule   string
		mutate func(*Invoice)
	}{
		{"BR-DE-1", func(i *Invoice) { delete(i.Paths, "BG-16") }},
		{"BR-DE-14", func(i *Invoice) { i.VAT[0].Rate = "" }},
		{"BR-DE-15", func(i *Invoice) { i.BuyerReference = " " }},
		{"BR-DE-16", func(i *Invoice) { i.SellerVATID = "" }},
	} {
		inv := xr()
		tc.mutate(inv)
		require.Contains(t, rules(inv.Check()), tc.rule)
	}
	inv := xr()
	inv.SellerVATID, inv.SellerTaxID = "", "201/113/40209"
	require.Empty(t, inv.Check(), "a tax number is enough for BR-DE-16")
	inv.SellerTaxID = ""
	inv.Paths["BG-11"] = "/Invoice/cac:TaxRepresentativeParty"
	require.Empty(t, inv.Check(), "so is a tax representative")
	plain := xr()
	plain.Specification, plain.BuyerReference = "urn:cen.eu:en16931:2017", ""
	require.Empty(t, plain.Check(), "BR-DE rules apply to an XRechnung only")
}

// The profile comes from the document: its syntax, then BT-24.
func TestProfile_IsToldFromTheSyntaxAndBT24(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		syntax Syntax
		spec   string
		want   Profile
	}{
		{UBLInvoice, "urn:cen.eu:en16931:2017", ProfileEN16931},
		{UBLInvoice, "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0", ProfileEN16931},
		{UBLCreditNote, "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0", ProfileXRechnung},
		{CII, "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0", ProfileXRechnung},
		{CII, "urn:xoev-de:kosit:standard:xrechnung_1.2", ProfileXRechnung},
		{CII, "urn:factur-x.eu:1p0:minimum", ProfileMinimum},
		{CII, "urn:factur-x.eu:1p0:basicwl", ProfileBasicWL},
		{CII, "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended", ProfileEN16931},
		// The CEN's own CII examples carry a ZUGFeRD 1.0 URN: the syntax decides.
		{CII, "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort", ProfileEN16931},
		{ZUGFeRD1, "urn:ferd:CrossIndustryDocument:invoice:1p0:basic", ProfileZUGFeRD1Basic},
		{ZUGFeRD1, "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort", ProfileZUGFeRD1Comfort},
		{ZUGFeRD1, " urn:ferd:CrossIndustryDocument:invoice:1p0:EXTENDED ", ProfileZUGFeRD1Extended},
		{ZUGFeRD1, "", ProfileZUGFeRD1Basic},
	} {
		inv := &Invoice{Syntax: tc.syntax, Specification: tc.spec}
		require.Equal(t, tc.want, inv.Profile(), "%s %q", tc.syntax, tc.spec)
		require.Equal(t, tc.syntax == ZUGFeRD1, inv.Profile().ZUGFeRD1())
	}
}

// The rules about details are the sums of lines, allowances, charges and
// the breakdown; the amounts that decide the payment and the required
// terms are not.
func TestViolation_Detail_SeparatesDetailsFromThePayment(t *testing.T) {
	t.Parallel()
	for _, r := range []string{"BR-CO-10", "BR-CO-11", "BR-CO-13", "BR-CO-14", "BR-DEC-23", "BR-LIN-01", "ZF1-LINE-TOTAL", "ZF1-TAX-TOTAL", "ZF1-SUMS"} {
		require.True(t, Violation{Rule: r}.Detail(), r)
	}
	for _, r := range []string{"syntax", "BR-02", "BR-05", "BR-15", "BR-CO-15", "BR-CO-16", "BR-DEC-14", "BR-DEC-18", "BR-DE-15", "ZF1-CURRENCY", "ZF1-TOTALS", "ZF1-GRAND-TOTAL", "ZF1-DUE"} {
		require.False(t, Violation{Rule: r}.Detail(), r)
	}
}

// An Extended profile's GROUP and INFORMATION lines are not counted.
func TestCheck_GroupLines_AreNotCounted(t *testing.T) {
	t.Parallel()
	inv := valid()
	inv.Lines = append(inv.Lines, Line{ID: "G", NetAmount: "150.00", Status: "GROUP"}, Line{ID: "I", NetAmount: "7.00", Status: "INFORMATION"})
	require.Empty(t, inv.Check())
	inv.Lines[2].Status = "DETAIL"
	require.Equal(t, "BR-CO-10", inv.Check()[0].Rule)
}

func TestCanonicalDecimal_KeepsEveryDigitAsWritten(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"12.50": "12.50", "+12.50": "12.50", " 7 ": "7", ".5": "0.5", "12.": "12", "-0.00": "0.00",
		"-3.10": "-3.10", "0012.3400": "12.3400", "00": "0",
	} {
		got, ok := canonicalDecimal(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "12,50", "1e3", "-", ".", "1.2.3", "١٢", "12 50"} {
		_, ok := canonicalDecimal(in)
		require.False(t, ok, in)
	}
}

// Every rule Check can report is listed in Rules (the list the reason
// codes are built from).
func TestRules_ListEveryRuleCheckReports(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, skip := range [][]string{minimumSkips, basicWLSkips, DetailRules} {
		for _, r := range skip {
			seen[r] = true
		}
	}
	for r := range maps.Keys(seen) {
		require.Contains(t, Rules, r)
	}
	require.Len(t, Rules, len(slices.Compact(slices.Sorted(slices.Values(Rules)))), "Rules has a duplicate")
}
