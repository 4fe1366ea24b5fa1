package einvoice

import (
	"fmt"
	"slices"
	"strings"
)

// xrechnungRules are the rules of the German CIUS XRechnung that Check
// applies, beside EN 16931's, to an invoice whose BT-24 names it: the
// fatal rules of its Schematron (itplr-kosit/xrechnung-schematron) about
// the terms a payment needs. Its rules about contacts and addresses
// (BR-DE-2 … BR-DE-11), the details of payment means and discount terms
// (BR-DE-18 … BR-DE-31) and its warnings are not applied; its third party
// payments (BR-DEX-09) count in BR-CO-16.
var xrechnungRules = []string{"BR-DE-1", "BR-DE-14", "BR-DE-15", "BR-DE-16"}

// taxedCategories are the VAT categories for which BR-DE-16 asks who is
// liable: every category but O (outside the scope of VAT).
var taxedCategories = []string{"S", "Z", "E", "AE", "K", "G", "L", "M"}

func (c *checker) xrechnung() {
	inv := c.inv
	// BR-DE-1 an invoice states its payment instructions (BG-16)
	if inv.Paths["BG-16"] == "" {
		c.fail("BR-DE-1", "BG-16")
	}
	// BR-DE-14 each VAT breakdown states its rate (BT-119)
	var noRate []string
	for i, v := range inv.VAT {
		if v.Rate == "" {
			noRate = append(noRate, fmt.Sprintf("BG-23[%d]", i+1))
		}
	}
	if len(noRate) > 0 {
		c.fail("BR-DE-14", append(noRate, "BT-119")...)
	}
	// BR-DE-15 the buyer reference (BT-10, the Leitweg-ID) is stated
	if strings.TrimSpace(inv.BuyerReference) == "" {
		c.fail("BR-DE-15", "BT-10")
	}
	// BR-DE-16 an invoice with a taxed category (a line's BT-151, an
	// allowance's BT-95, a charge's BT-102) names the seller's VAT
	// identifier (BT-31), tax number (BT-32) or tax representative (BG-11)
	if usesTaxedCategory(inv) && inv.SellerVATID == "" && inv.SellerTaxID == "" && inv.Paths["BG-11"] == "" {
		c.fail("BR-DE-16", "BT-31", "BT-32", "BG-11")
	}
}

func usesTaxedCategory(inv *Invoice) bool {
	taxed := func(cat string) bool { return slices.Contains(taxedCategories, strings.TrimSpace(cat)) }
	for _, l := range inv.Lines {
		if taxed(l.Category) {
			return true
		}
	}
	for _, a := range slices.Concat(inv.Allowances, inv.Charges) {
		if taxed(a.Category) {
			return true
		}
	}
	return false
}
