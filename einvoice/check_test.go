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

	zf1 := valid()
	zf1.Syntax = ZUGFeRD1
	zf1.Lines[0].ID = ""
	require.Empty(t, zf1.Check())
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
	for _, skip := range [][]string{minimumSkips, basicWLSkips, zugferd1Skips} {
		for _, r := range skip {
			seen[r] = true
		}
	}
	for r := range maps.Keys(seen) {
		require.Contains(t, Rules, r)
	}
	require.Len(t, Rules, len(slices.Compact(slices.Sorted(slices.Values(Rules)))), "Rules has a duplicate")
}
