package einvoice

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Violation is one broken rule: a rule of the invoice's rule set (an
// EN 16931 business rule "BR-CO-15", an XRechnung rule "BR-DE-15", a
// ZUGFeRD 1.0 requirement "ZF1-GRAND-TOTAL", see Rules) or "syntax" for a
// value that is not of its type (an amount that is not a decimal, an
// impossible date). Terms are the business terms involved, and for a
// repeated group its position ("BG-23[2]"); never a value.
type Violation struct {
	Rule  string
	Terms []string
}

// Detail reports whether the violated rule concerns a detail of the
// invoice (its lines, the sums of its allowances and charges, its VAT
// breakdown) rather than the amounts that decide the payment or a term
// the invoice must state: see DetailRules.
func (v Violation) Detail() bool { return slices.Contains(DetailRules, v.Rule) }

// Rules are the rules Check applies, over every rule set, in the order it
// reports them.
var Rules = slices.Concat(en16931Rules, xrechnungRules, zugferd1Rules)

// en16931Rules are the EN 16931 rules Check applies (and "syntax").
var en16931Rules = []string{
	"BR-01", "BR-02", "BR-03", "BR-04", "BR-05", "BR-06", "BR-07", "BR-08",
	"BR-09", "BR-10", "BR-11", "BR-12", "BR-13", "BR-14", "BR-15", "BR-16",
	"syntax",
	"BR-DEC-01", "BR-DEC-02", "BR-DEC-05", "BR-DEC-06", "BR-DEC-09", "BR-DEC-10", "BR-DEC-11",
	"BR-DEC-12", "BR-DEC-13", "BR-DEC-14", "BR-DEC-15", "BR-DEC-16", "BR-DEC-17", "BR-DEC-18",
	"BR-DEC-19", "BR-DEC-20", "BR-DEC-23",
	"BR-LIN-01", "BR-LIN-03",
	"BR-CO-10", "BR-CO-11", "BR-CO-12", "BR-CO-13", "BR-CO-14", "BR-CO-15", "BR-CO-16",
	"BR-CO-17", "BR-S-08", "BR-S-09",
}

// DetailRules are the rules about an invoice's details: its lines (their
// identifiers, amounts and sum), the sums of its document allowances and
// charges and how its total without VAT is composed of them, its VAT
// breakdown, and the decimals of those amounts. The others concern a term
// the invoice must state, or the amounts that decide the payment: the
// total without VAT plus the VAT is the total with VAT, which less what
// was paid plus the rounding is the amount due.
var DetailRules = []string{
	"BR-DEC-01", "BR-DEC-02", "BR-DEC-05", "BR-DEC-06", "BR-DEC-09", "BR-DEC-10", "BR-DEC-11",
	"BR-DEC-19", "BR-DEC-20", "BR-DEC-23",
	"BR-LIN-01", "BR-LIN-03",
	"BR-CO-10", "BR-CO-11", "BR-CO-12", "BR-CO-13", "BR-CO-14", "BR-CO-17", "BR-S-08", "BR-S-09",
	"ZF1-SUMS", "ZF1-VAT", "ZF1-LINE-TOTAL", "ZF1-ALLOWANCE-TOTAL", "ZF1-CHARGE-TOTAL",
	"ZF1-TAX-BASIS", "ZF1-TAX-TOTAL", "ZF1-TAX-RATE",
}

// Check judges the invoice by the rule set of its syntax and profile
// (Profile, told from the document itself) and returns the violations,
// in the order of Rules; none for a valid invoice.
//
// UBL and CII invoices are judged by EN 16931:
//
//   - BR-01 … BR-16: the required business terms (BR-08 and BR-10 are the
//     seller's and buyer's postal addresses, recorded as BG-5 and BG-8 in
//     Paths).
//   - syntax: every amount, quantity and rate is an xs:decimal and every
//     date a calendar date.
//   - BR-DEC-01 … BR-DEC-23: amounts are written with at most two
//     decimals (a trailing zero counts, as in the Schematron's
//     string-length test), for every amount term the package reads.
//   - BR-LIN-01, BR-LIN-03: each line has its identifier and net amount.
//   - BR-CO-10 … BR-CO-16: the document totals, computed as the standard's
//     Schematron does: each sum rounded to two decimals with XPath's round
//     (half towards positive infinity), then compared exactly.
//   - BR-CO-17, BR-S-08, BR-S-09: the VAT breakdown against its rate and
//     the lines, with the Schematron's tolerance of one currency unit:
//     less than one (BR-S-09; BR-CO-17 and BR-S-08 in UBL), at most one
//     (BR-CO-17 in CII), none (BR-S-08 in CII, exact).
//
// Factur-X / ZUGFeRD MINIMUM and BASIC WL invoices are not EN 16931
// invoices: the rules their own Schematron leaves out do not apply to them
// (MINIMUM: lines, the buyer's address and every BR-CO rule; BASIC WL: the
// lines). Lines whose Extended status is GROUP or INFORMATION are not
// counted in sums, as the Factur-X Extended Schematron does. An XRechnung
// (BT-24 names the CIUS) is judged by EN 16931 and XRechnung's own rules
// (xrechnungRules). A ZUGFeRD 1.0 invoice is judged by what ZUGFeRD 1.0
// requires, not by EN 16931, which came three years later
// (zugferd1Rules).
func (inv *Invoice) Check() []Violation {
	c := &checker{inv: inv}
	switch p := inv.Profile(); {
	case p.ZUGFeRD1():
		c.zugferd1()
	default:
		c.skip = skippedRules(p)
		c.required()
		c.formats()
		c.decimals()
		c.lineTerms()
		c.totals()
		c.breakdown()
		if p == ProfileXRechnung {
			c.xrechnung()
		}
	}
	slices.SortStableFunc(c.out, func(a, b Violation) int {
		return slices.Index(Rules, a.Rule) - slices.Index(Rules, b.Rule)
	})
	return c.out
}

type checker struct {
	inv  *Invoice
	skip []string // rules that do not apply to this invoice
	out  []Violation
}

// fail records a violation once, unless the rule does not apply.
func (c *checker) fail(rule string, terms ...string) {
	if slices.Contains(c.skip, rule) {
		return
	}
	for _, v := range c.out {
		if v.Rule == rule && slices.Equal(v.Terms, terms) {
			return
		}
	}
	c.out = append(c.out, Violation{Rule: rule, Terms: terms})
}

// Rules that profiles below EN 16931 do not apply, as their own
// Schematron (Factur-X 1.0 / ZUGFeRD 2.x) leaves them out. MINIMUM states
// only the totals; BASIC WL has no lines.
var (
	minimumSkips = []string{"BR-10", "BR-11", "BR-12", "BR-16", "BR-LIN-01", "BR-LIN-03",
		"BR-CO-10", "BR-CO-11", "BR-CO-12", "BR-CO-13", "BR-CO-14", "BR-CO-15", "BR-CO-16",
		"BR-CO-17", "BR-S-08", "BR-S-09"}
	basicWLSkips = []string{"BR-16", "BR-LIN-01", "BR-LIN-03", "BR-CO-10", "BR-S-08"}
)

func skippedRules(p Profile) []string {
	switch p {
	case ProfileMinimum:
		return minimumSkips
	case ProfileBasicWL:
		return basicWLSkips
	}
	return nil
}

func (c *checker) required() {
	inv := c.inv
	for _, r := range []struct {
		rule, term string
		present    bool
		applies    bool
	}{
		{"BR-01", "BT-24", inv.Specification != "", true},
		{"BR-02", "BT-1", inv.Number != "", true},
		{"BR-03", "BT-2", inv.IssueDate != "", true},
		{"BR-04", "BT-3", inv.TypeCode != "", true},
		{"BR-05", "BT-5", inv.Currency != "", true},
		{"BR-06", "BT-27", inv.SellerName != "", true},
		{"BR-07", "BT-44", inv.BuyerName != "", true},
		{"BR-08", "BG-5", inv.Paths["BG-5"] != "", true},
		{"BR-09", "BT-40", inv.SellerCountry != "", inv.Paths["BG-5"] != ""},
		{"BR-10", "BG-8", inv.Paths["BG-8"] != "", true},
		{"BR-11", "BT-55", inv.BuyerCountry != "", inv.Paths["BG-8"] != ""},
		{"BR-12", "BT-106", inv.LineTotal != "", true},
		{"BR-13", "BT-109", inv.TaxExclusive != "", true},
		{"BR-14", "BT-112", inv.TaxInclusive != "", true},
		{"BR-15", "BT-115", inv.DueAmount != "", true},
		{"BR-16", "BG-25", len(inv.Lines) > 0, true},
	} {
		if r.applies && !r.present {
			c.fail(r.rule, r.term)
		}
	}
}

// formats reports, as one "syntax" violation, every term whose value is
// not of its type.
func (c *checker) formats() {
	var bad []string
	decimals := func(prefix string, terms []string, vals []string) {
		for i, v := range vals {
			if _, ok := parseDecimal(v); v != "" && !ok {
				bad = append(bad, prefix+terms[i])
			}
		}
	}
	inv := c.inv
	for _, d := range []struct{ term, v string }{{"BT-2", inv.IssueDate}, {"BT-9", inv.DueDate}} {
		if t, err := time.Parse(time.DateOnly, d.v); d.v != "" && (err != nil || t.Format(time.DateOnly) != d.v) {
			bad = append(bad, d.term)
		}
	}
	decimals("", []string{"BT-106", "BT-107", "BT-108", "BT-109", "BT-110", "BT-111", "BT-112", "BT-113", "BT-114", "BT-115"},
		[]string{inv.LineTotal, inv.AllowanceTotal, inv.ChargeTotal, inv.TaxExclusive, inv.TaxTotal,
			inv.TaxTotalTaxCurrency, inv.TaxInclusive, inv.Prepaid, inv.Rounding, inv.DueAmount})
	for i, v := range inv.VAT {
		decimals(fmt.Sprintf("BG-23[%d]/", i+1), []string{"BT-116", "BT-117", "BT-119"},
			[]string{v.TaxableAmount, v.TaxAmount, v.Rate})
	}
	for i, a := range inv.Allowances {
		decimals(fmt.Sprintf("BG-20[%d]/", i+1), []string{"BT-92", "BT-93", "BT-94", "BT-96"},
			[]string{a.Amount, a.BaseAmount, a.Percent, a.Rate})
	}
	for i, a := range inv.Charges {
		decimals(fmt.Sprintf("BG-21[%d]/", i+1), []string{"BT-99", "BT-100", "BT-101", "BT-103"},
			[]string{a.Amount, a.BaseAmount, a.Percent, a.Rate})
	}
	for i, l := range inv.Lines {
		decimals(fmt.Sprintf("BG-25[%d]/", i+1), []string{"BT-129", "BT-131", "BT-146", "BT-148", "BT-149", "BT-152"},
			[]string{l.Quantity, l.NetAmount, l.NetPrice, l.GrossPrice, l.BaseQuantity, l.Rate})
	}
	if len(bad) > 0 {
		c.fail("syntax", bad...)
	}
}

func (c *checker) lineTerms() {
	for _, rule := range []struct {
		name, term string
		get        func(Line) string
	}{
		{"BR-LIN-01", "BT-126", func(l Line) string { return l.ID }},
		{"BR-LIN-03", "BT-131", func(l Line) string { return l.NetAmount }},
	} {
		var at []string
		for i, l := range c.inv.Lines {
			if rule.get(l) == "" {
				at = append(at, fmt.Sprintf("BG-25[%d]", i+1))
			}
		}
		if len(at) > 0 {
			c.fail(rule.name, append(at, rule.term)...)
		}
	}
}

// Counted reports whether a line counts in the document's sums: every
// line but an Extended profile's GROUP and INFORMATION lines.
func (l Line) Counted() bool { return l.Status == "" || strings.EqualFold(l.Status, "DETAIL") }

// decimals applies BR-DEC-*: at most two decimals, as written.
func (c *checker) decimals() {
	inv := c.inv
	check := func(rule, term, v string) {
		if _, frac, ok := strings.Cut(v, "."); ok && len(frac) > 2 {
			c.fail(rule, term)
		}
	}
	for _, a := range inv.Allowances {
		check("BR-DEC-01", "BT-92", a.Amount)
		check("BR-DEC-02", "BT-93", a.BaseAmount)
	}
	for _, a := range inv.Charges {
		check("BR-DEC-05", "BT-99", a.Amount)
		check("BR-DEC-06", "BT-100", a.BaseAmount)
	}
	for _, r := range []struct{ rule, term, v string }{
		{"BR-DEC-09", "BT-106", inv.LineTotal}, {"BR-DEC-10", "BT-107", inv.AllowanceTotal},
		{"BR-DEC-11", "BT-108", inv.ChargeTotal}, {"BR-DEC-12", "BT-109", inv.TaxExclusive},
		{"BR-DEC-13", "BT-110", inv.TaxTotal}, {"BR-DEC-14", "BT-112", inv.TaxInclusive},
		{"BR-DEC-15", "BT-111", inv.TaxTotalTaxCurrency}, {"BR-DEC-16", "BT-113", inv.Prepaid},
		{"BR-DEC-17", "BT-114", inv.Rounding}, {"BR-DEC-18", "BT-115", inv.DueAmount},
	} {
		check(r.rule, r.term, r.v)
	}
	for _, v := range inv.VAT {
		check("BR-DEC-19", "BT-116", v.TaxableAmount)
		check("BR-DEC-20", "BT-117", v.TaxAmount)
	}
	for _, l := range inv.Lines {
		check("BR-DEC-23", "BT-131", l.NetAmount)
	}
}
