package extract

import (
	"math/big"
	"slices"
)

// The terms after the arithmetic of the total: the tax per rate (BG-23),
// the payment (BT-113 paid, BT-114 rounding, BT-115 due) and a tax stated
// in the buyer's accounting currency (BT-111).

// terms are the judged terms of an invoice, in its currency's precision.
type terms struct {
	paid, rounding, due string
	breakdown           []TaxSubtotal
	accounting          *AccountingTax
	flags               []string
}

// breakdown is a parsed tax breakdown.
type breakdown struct {
	rates []parsedRate
	// tax is the sum of the rates' tax; taxable the sum of their taxable
	// amounts, allTaxable when every rate states one.
	tax, taxable int64
	allTaxable   bool
}

type parsedRate struct {
	in            TaxSubtotal
	rate          decimal
	tax, taxable  int64
	statesTaxable bool
}

// maxRateScale bounds a rate's decimals ("7.7", "2.5", "5.125").
const maxRateScale = 4

// vatCategories are the EN 16931 VAT category codes (UNCL5305 subset).
var vatCategories = []string{"S", "Z", "E", "AE", "K", "G", "O", "L", "M"}

func parseBreakdown(in []TaxSubtotal, minor int) (breakdown, error) {
	b := breakdown{allTaxable: len(in) > 0}
	if len(in) > maxTaxRates {
		return b, Reject(FieldReason(ReasonInvalidField, "taxBreakdown"))
	}
	for _, t := range in {
		p, err := parseRate(t, minor)
		if err != nil {
			return b, err
		}
		if b.tax, err = addChecked(b.tax, p.tax); err != nil {
			return b, Reject(FieldReason(ReasonInvalidField, "taxBreakdown"))
		}
		if b.taxable, err = addChecked(b.taxable, p.taxable); err != nil {
			return b, Reject(FieldReason(ReasonInvalidField, "taxBreakdown"))
		}
		b.allTaxable = b.allTaxable && p.statesTaxable
		b.rates = append(b.rates, p)
	}
	return b, nil
}

func parseRate(t TaxSubtotal, minor int) (parsedRate, error) {
	invalid := Reject(FieldReason(ReasonInvalidField, "taxBreakdown"))
	p := parsedRate{in: t}
	rate, err := parseDecimal(t.Rate)
	if err != nil {
		return p, Reject(FieldReason(ReasonUnparseableAmount, "taxBreakdown"))
	}
	p.rate = rate.normalized()
	if p.rate.units < 0 || p.rate.scale > maxRateScale || p.rate.units > 100*pow10Int(p.rate.scale) ||
		t.Category != "" && !slices.Contains(vatCategories, t.Category) {
		return p, invalid
	}
	// A rate may carry a negative base and tax on any document (EN 16931
	// allows a category of allowances only); the sums still decide.
	if p.tax, err = parseMoney(t.TaxAmount, minor, "taxBreakdown", true); err != nil {
		return p, err
	}
	if t.TaxableAmount != "" {
		p.statesTaxable = true
		if p.taxable, err = parseMoney(t.TaxableAmount, minor, "taxBreakdown", true); err != nil {
			return p, err
		}
	}
	return p, nil
}

// checkTerms judges the breakdown against the tax and the net total, and
// the payment terms against the total.
func checkTerms(x Extraction, a amounts, b breakdown, minor, lines int) (terms, error) {
	var t terms
	if len(b.rates) > 0 {
		if b.tax != a.tax {
			return t, Reject(ReasonTaxMismatch)
		}
		net := a.subtotal + a.chargeSum
		if x.TaxIncluded {
			net -= a.tax
		}
		if b.allTaxable && b.taxable != net {
			return t, Reject(ReasonTaxMismatch)
		}
		for _, r := range b.rates {
			t.breakdown = append(t.breakdown, r.judged(minor))
			if r.statesTaxable && !r.fits(minor, lines) && !slices.Contains(t.flags, FlagTaxRateMismatch) {
				t.flags = append(t.flags, FlagTaxRateMismatch)
			}
		}
	}
	var err error
	if t.paid, t.rounding, t.due, err = checkPayment(x, a, minor); err != nil {
		return t, err
	}
	t.accounting, err = checkAccountingTax(x.AccountingTax)
	return t, err
}

// judged is the rate as committed: amounts in the currency's precision.
func (r parsedRate) judged(minor int) TaxSubtotal {
	out := TaxSubtotal{Rate: r.rate.String(), TaxAmount: formatMinor(r.tax, minor), Category: r.in.Category}
	if r.statesTaxable {
		out.TaxableAmount = formatMinor(r.taxable, minor)
	}
	return out
}

// fits reports whether the rate's tax is its taxable amount times its
// rate, give or take the rounding of its lines: each line rounded to the
// minor unit may move the sum by half a unit, so the bound is one minor
// unit or half a unit per line, whichever is more.
func (r parsedRate) fits(minor, lines int) bool {
	want := new(big.Rat).Mul(new(big.Rat).SetFrac(big.NewInt(r.taxable), big.NewInt(100)),
		new(big.Rat).SetFrac(big.NewInt(r.rate.units), pow10(r.rate.scale)))
	diff := new(big.Rat).Sub(new(big.Rat).SetInt64(r.tax), want)
	bound := new(big.Rat).SetFrac(big.NewInt(int64(max(2, lines))), big.NewInt(2))
	return diff.Abs(diff).Cmp(bound) <= 0
}

// checkPayment judges the payment terms: the amount due is total − paid +
// rounding. It returns each in the currency's precision, the due amount
// computed when only the paid amount or the rounding is stated, nothing
// when none is.
func checkPayment(x Extraction, a amounts, minor int) (paid, rounding, due string, err error) {
	if x.PaidAmount == "" && x.Rounding == "" && x.AmountDue == "" {
		return "", "", "", nil
	}
	var p, r int64
	if x.PaidAmount != "" {
		if p, err = parseMoney(x.PaidAmount, minor, "paidAmount", true); err != nil {
			return
		}
		paid = formatMinor(p, minor)
	}
	if x.Rounding != "" {
		if r, err = parseMoney(x.Rounding, minor, "rounding", true); err != nil {
			return
		}
		rounding = formatMinor(r, minor)
	}
	want := a.total - p + r
	if x.AmountDue != "" {
		var d int64
		if d, err = parseMoney(x.AmountDue, minor, "amountDue", true); err != nil {
			return
		}
		if d != want {
			return "", "", "", Reject(ReasonAmountDueMismatch)
		}
	}
	return paid, rounding, formatMinor(want, minor), nil
}

// checkAccountingTax judges BT-111: an amount in a currency relayops
// knows, exact in that currency's precision. It is information for the
// buyer's books, never part of the total.
func checkAccountingTax(t *AccountingTax) (*AccountingTax, error) {
	if t == nil {
		return nil, nil
	}
	minor, ok := currencyMinor[t.Currency]
	if !ok {
		return nil, Reject(FieldReason(ReasonInvalidField, "accountingTax"))
	}
	n, err := parseMoney(t.Amount, minor, "accountingTax", true)
	if err != nil {
		return nil, err
	}
	return &AccountingTax{Currency: t.Currency, Amount: formatMinor(n, minor)}, nil
}
