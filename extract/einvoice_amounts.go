package extract

import (
	"math/big"
	"strings"

	"github.com/relayops/relayops/einvoice"
)

// einvoiceMoney converts stated amounts to the currency's precision. The
// amounts that decide the payment must be exact (the first that is not
// is m.err, invalid_field:<field>); a detail that is not is left out of
// the result (m.omitted).
type einvoiceMoney struct {
	minor   int
	err     error
	omitted bool
}

func (m *einvoiceMoney) fail(field string) {
	if m.err == nil {
		m.err = Reject(FieldReason(ReasonInvalidField, field))
	}
}

// exact returns s in minor units when it is a decimal exact in the
// currency's precision.
func (m *einvoiceMoney) exact(s string) (int64, bool) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, false
	}
	n, err := d.toMinor(m.minor)
	return n, err == nil
}

// units returns s in minor units, exactly; a malformed or too precise
// value fails the field.
func (m *einvoiceMoney) units(s, field string) int64 {
	n, ok := m.exact(s)
	if !ok {
		m.fail(field)
	}
	return n
}

func (m *einvoiceMoney) amount(s, field string) string {
	return formatMinor(m.units(s, field), m.minor)
}

func (m *einvoiceMoney) optional(s, field string) string {
	if s == "" {
		return ""
	}
	return m.amount(s, field)
}

// thirdPartyPaid is the sum of XRechnung's third party payments
// (BT-DEX-002), which its amount due includes.
func (m *einvoiceMoney) thirdPartyPaid(inv *einvoice.Invoice) int64 {
	var sum int64
	for _, s := range inv.ThirdPartyPaid {
		sum += m.units(s, "paidAmount")
	}
	return sum
}

// paid sets the paid amount the payment's arithmetic needs where the
// invoice states its amount due other than as total − paid + rounding,
// and returns the terms it was computed from ("" when it is BT-113 as
// stated):
//
//   - XRechnung's third party payments (BT-DEX-002) are part of the amount
//     due (BR-DEX-09), so they are paid amounts taken back: paid is
//     BT-113 − Σ BT-DEX-002, and the amount due holds as stated;
//   - a Factur-X MINIMUM invoice has no paid amount (BT-113) and its rules
//     do not tie the amount due to the total: what the total and the
//     amount due leave is the paid amount, computed.
func (m *einvoiceMoney) paid(inv *einvoice.Invoice, out *Invoice, third int64) string {
	if out.AmountDue == "" {
		return ""
	}
	paid, _ := m.exact(orZero(out.PaidAmount))
	switch {
	case third != 0:
		out.PaidAmount = formatMinor(paid-third, m.minor)
		return "BT-DEX-002"
	case out.PaidAmount == "" && inv.Profile() == einvoice.ProfileMinimum:
		total, _ := m.exact(out.Total)
		rounding, _ := m.exact(orZero(out.Rounding))
		due, _ := m.exact(out.AmountDue)
		if due != total+rounding {
			out.PaidAmount = formatMinor(total+rounding-due, m.minor)
			return "BT-115"
		}
	}
	return ""
}

// netParts is how the total without VAT (BT-109) is made of a subtotal
// and document charges, and which terms say so.
type netParts struct {
	subtotal int64
	charges  []Charge
	// from: "lists" (BT-106 and the allowances and charges listed),
	// "totals" (BT-106 and the stated BT-107, BT-108), "net" (BT-109 less
	// the charges listed).
	from string
}

// net decomposes BT-109 into the subtotal and the document charges the
// result commits, from what the invoice states, in this order:
//
//  1. BT-106 and the document allowances (BG-20) and charges (BG-21) as
//     listed, when they make BT-109: the usual case;
//  2. BT-106 and the stated allowance and charge totals (BT-107, BT-108),
//     when those make BT-109 and the lists do not (a ZUGFeRD 1.0 invoice
//     that counts its lines' allowances in BT-107, flagged by its rules);
//  3. BT-109 less the charges listed: a profile without BT-106 (Factur-X
//     MINIMUM), or an invoice whose BT-109 is not its parts (flagged).
//
// Each way commits subtotal + charges = BT-109 exactly, so the total's
// arithmetic holds as the invoice's own does (BT-112 = BT-109 + BT-110).
func (m *einvoiceMoney) net(inv *einvoice.Invoice, net int64) netParts {
	listed, listedOK := m.listedCharges(inv)
	var sum int64
	for _, c := range listed {
		n, _ := m.exact(c.Amount)
		sum += n
	}
	lineTotal, lineOK := m.exact(inv.LineTotal)
	if inv.LineTotal != "" && lineOK {
		if listedOK && lineTotal+sum == net {
			return netParts{subtotal: lineTotal, charges: listed, from: "lists"}
		}
		allow, okA := m.exact(orZero(inv.AllowanceTotal))
		charge, okC := m.exact(orZero(inv.ChargeTotal))
		if okA && okC && lineTotal-allow+charge == net {
			var totals []Charge
			if allow != 0 {
				totals = append(totals, Charge{Kind: ChargeDiscount, Amount: formatMinor(-allow, m.minor)})
			}
			if charge != 0 {
				totals = append(totals, Charge{Kind: ChargeFee, Amount: formatMinor(charge, m.minor)})
			}
			return netParts{subtotal: lineTotal, charges: totals, from: "totals"}
		}
	}
	if !listedOK {
		listed, sum = nil, 0
		m.omitted = true
	}
	return netParts{subtotal: net - sum, charges: listed, from: "net"}
}

// listedCharges are the document level allowances (discounts, negative)
// and charges (freight, UNTDID 7161 "FC", as shipping; any other as a
// fee); false when one is not exact in the currency or there are more
// than a result keeps.
func (m *einvoiceMoney) listedCharges(inv *einvoice.Invoice) ([]Charge, bool) {
	if len(inv.Allowances)+len(inv.Charges) > maxCharges {
		return nil, false
	}
	var out []Charge
	for _, a := range inv.Allowances {
		n, ok := m.exact(a.Amount)
		if !ok {
			return nil, false
		}
		out = append(out, Charge{Kind: ChargeDiscount, Amount: formatMinor(-n, m.minor), Reason: chargeReason(a)})
	}
	for _, c := range inv.Charges {
		n, ok := m.exact(c.Amount)
		if !ok {
			return nil, false
		}
		out = append(out, Charge{Kind: chargeKind(c), Amount: formatMinor(n, m.minor), Reason: chargeReason(c)})
	}
	return out, true
}

// chargeKind is a document charge's kind: freight (UNTDID 7161 "FC") is
// shipping, any other a fee.
func chargeKind(c einvoice.AllowanceCharge) string {
	if strings.EqualFold(c.ReasonCode, "FC") {
		return ChargeShipping
	}
	return ChargeFee
}

// chargeReason is a charge's reason as the XML states it, when it is
// printable text of a reasonable length (else it is left out: the amount
// is what counts).
func chargeReason(c einvoice.AllowanceCharge) string {
	r := collapseSpace(c.Reason)
	if !printedText(r, maxChargeReasonRunes) {
		return ""
	}
	return r
}

// breakdown is the VAT breakdown (BG-23) in the currency's precision;
// nil, and m.omitted, when a rate's amounts are not exact in it or there
// are more rates than a result keeps.
func (m *einvoiceMoney) breakdown(inv *einvoice.Invoice) []TaxSubtotal {
	if len(inv.VAT) > maxTaxRates {
		m.omitted = true
		return nil
	}
	var out []TaxSubtotal
	for _, v := range inv.VAT {
		rate, err := parseDecimal(orZero(v.Rate))
		tax, okT := m.exact(orZero(v.TaxAmount))
		taxable, okB := m.exact(v.TaxableAmount)
		if err != nil || !okT || v.TaxableAmount != "" && !okB {
			m.omitted = true
			return nil
		}
		t := TaxSubtotal{Rate: rate.normalized().String(), TaxAmount: formatMinor(tax, m.minor), Category: v.Category}
		if v.TaxableAmount != "" {
			t.TaxableAmount = formatMinor(taxable, m.minor)
		}
		out = append(out, t)
	}
	return out
}

// accountingTax is BT-111 with its currency BT-6, when the invoice states
// its tax in a second currency.
func (m *einvoiceMoney) accountingTax(inv *einvoice.Invoice) *AccountingTax {
	if inv.TaxTotalTaxCurrency == "" || inv.TaxCurrency == "" || inv.TaxCurrency == inv.Currency {
		return nil
	}
	minor, ok := currencyMinor[inv.TaxCurrency]
	if !ok {
		return nil
	}
	d, err := parseDecimal(inv.TaxTotalTaxCurrency)
	if err != nil {
		return nil
	}
	n, err := d.toMinor(minor)
	if err != nil {
		return nil
	}
	return &AccountingTax{Currency: inv.TaxCurrency, Amount: formatMinor(n, minor)}
}

// lines maps the lines that count in the sums (not an Extended profile's
// GROUP and INFORMATION lines); nil, and m.omitted, when one cannot be
// committed as stated (an amount finer than the currency, no quantity, a
// description past its bound) or there are more than a result keeps.
func (m *einvoiceMoney) lines(inv *einvoice.Invoice) []LineItem {
	out := []LineItem{}
	for _, l := range inv.Lines {
		if !l.Counted() {
			continue
		}
		item, ok := m.line(l)
		if !ok || len(out) == maxLineItems {
			m.omitted = true
			return []LineItem{}
		}
		out = append(out, item)
	}
	return out
}

func (m *einvoiceMoney) line(l einvoice.Line) (LineItem, bool) {
	desc := collapseSpace(l.Name)
	qty, errQ := parseDecimal(l.Quantity)
	amount, ok := m.exact(l.NetAmount)
	if len(desc) > maxDescriptionBytes || !printable(desc) || errQ != nil || !ok {
		return LineItem{}, false
	}
	return LineItem{
		Description: desc,
		Quantity:    qty.normalized().String(),
		UnitPrice:   unitPrice(l.NetPrice, l.BaseQuantity, m.minor),
		Amount:      formatMinor(amount, m.minor),
	}, true
}

// unitPrice is the price of one unit: the net price (BT-146) per its base
// quantity (BT-149, default 1), when that division is exact; "" when it
// is not (a price per 1000 that does not divide into a finite decimal of
// at most 12 places). Never rounded.
func unitPrice(price, base string, minor int) string {
	p, err := parseDecimal(price)
	if err != nil {
		return ""
	}
	p = p.normalized()
	if base != "" {
		b, err := parseDecimal(base)
		if err != nil || b.units <= 0 {
			return ""
		}
		var ok bool
		if p, ok = divideExact(p, b.normalized()); !ok {
			return ""
		}
	}
	return priceString(p, minor)
}

// divideExact returns p / b when it is a decimal of at most 12 places.
func divideExact(p, b decimal) (decimal, bool) {
	const places = 12
	num := new(big.Int).Mul(big.NewInt(p.units), pow10(places+b.scale))
	den := new(big.Int).Mul(big.NewInt(b.units), pow10(p.scale))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 || !q.IsInt64() {
		return decimal{}, false
	}
	return decimal{units: q.Int64(), scale: places}.normalized(), true
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}
