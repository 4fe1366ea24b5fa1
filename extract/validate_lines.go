package extract

import (
	"math/big"
	"strings"
)

// validateLines checks every line and returns the validated lines and the
// sum of their amounts in minor units. On a credit document a line may
// take back what an earlier invoice charged: a negative quantity.
func validateLines(in []ExtractedLine, minor int, credit bool) ([]LineItem, int64, error) {
	if len(in) > maxLineItems {
		return nil, 0, Reject(FieldReason(ReasonInvalidField, "lineItems"))
	}
	out := make([]LineItem, 0, len(in))
	var sum int64
	for _, l := range in {
		li, amount, err := validateLine(l, minor, credit)
		if err != nil {
			return nil, 0, err
		}
		if sum, err = addChecked(sum, amount); err != nil {
			return nil, 0, Reject(FieldReason(ReasonInvalidField, "lineItems"))
		}
		out = append(out, li)
	}
	return out, sum, nil
}

// lineParts are a line's parsed numbers; a missing one has ok false.
type lineParts struct {
	qty, price       decimal
	hasQty, hasPrice bool
	amount           int64
	hasAmount        bool
}

// validateLine checks one line: a printable description, a positive
// quantity (or a negative one on a credit document), and an amount within
// half a minor unit of quantity × unit price. It fills in what the line
// implies: the amount of a quantity and a price, the quantity 1 of a line
// with only an amount.
func validateLine(l ExtractedLine, minor int, credit bool) (LineItem, int64, error) {
	if len(l.Description) > maxDescriptionBytes || !printable(l.Description) {
		return LineItem{}, 0, invalidLineItems()
	}
	p, err := parseLineParts(l, minor, credit)
	if err != nil {
		return LineItem{}, 0, err
	}
	switch {
	case p.hasQty && p.hasPrice && p.hasAmount:
		if !mulDecimal(p.qty, p.price).withinHalfMinor(p.amount, minor) && !roundedPriceFits(p, l.UnitPrice, minor) {
			return LineItem{}, 0, Reject(ReasonLineMismatch)
		}
	case p.hasQty && p.hasPrice:
		if p.amount, err = mulDecimal(p.qty, p.price).roundMinor(minor); err != nil {
			return LineItem{}, 0, invalidLineItems()
		}
	case p.hasAmount:
		p.fillFromAmount(minor)
	default:
		return LineItem{}, 0, invalidLineItems()
	}
	li := LineItem{
		Description: strings.TrimSpace(l.Description),
		Amount:      formatMinor(p.amount, minor),
	}
	if p.hasQty {
		li.Quantity = p.qty.normalized().String()
	}
	if p.hasPrice {
		li.UnitPrice = priceString(p.price, minor)
	}
	return li, p.amount, nil
}

// roundedPriceFits reports a line whose unit price is shown rounded: a
// price written with s decimals (two at least, and at least the
// currency's) stands for any
// price within half of its last digit, so the amount may differ from
// quantity × price by quantity × ½·10^-s, plus the amount's own half minor
// unit ("3 m² at 3,33 = 10,00": the price is 10,00 / 3, shown rounded).
func roundedPriceFits(p lineParts, shown string, minor int) bool {
	s := 0
	if _, frac, ok := strings.Cut(shown, "."); ok {
		s = len(frac)
	}
	if s < minor || s < 2 {
		return false // a whole price (9700 yen, 3.3 €) is taken as exact
	}
	half := func(digits int) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Mul(big.NewInt(2), pow10(digits)))
	}
	qty := new(big.Rat).SetFrac(big.NewInt(p.qty.units), pow10(p.qty.scale))
	price := new(big.Rat).SetFrac(big.NewInt(p.price.units), pow10(p.price.scale))
	amount := new(big.Rat).SetFrac(big.NewInt(p.amount), pow10(minor))
	diff := new(big.Rat).Sub(amount, new(big.Rat).Mul(qty, price))
	bound := new(big.Rat).Add(new(big.Rat).Mul(new(big.Rat).Abs(qty), half(s)), half(minor))
	return diff.Abs(diff).Cmp(bound) < 0 // the ends round away: 12.02 / 3 = 4.0067 shows as 4.01
}

// invalidLineItems is the rejection of a line that cannot be read, made
// only when one is found (not for every line).
func invalidLineItems() error { return Reject(FieldReason(ReasonInvalidField, "lineItems")) }

func parseLineParts(l ExtractedLine, minor int, credit bool) (lineParts, error) {
	var p lineParts
	var err error
	if l.Quantity != "" {
		if p.qty, err = parseQuantity(l.Quantity, credit); err != nil {
			return p, err
		}
		p.hasQty = true
	}
	if l.UnitPrice != "" {
		if p.price, err = parseUnitPrice(l.UnitPrice, minor); err != nil {
			return p, err
		}
		p.hasPrice = true
	}
	if l.Amount != "" {
		if p.amount, err = parseMoney(l.Amount, minor, "lineItems", true); err != nil {
			return p, err
		}
		p.hasAmount = true
	}
	return p, nil
}

// maxQuantityUnits bounds a quantity: a billion units.
const maxQuantityUnits = 1_000_000_000

func parseQuantity(s string, credit bool) (decimal, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return decimal{}, Reject(FieldReason(ReasonUnparseableAmount, "lineItems"))
	}
	d = d.normalized()
	if d.units == 0 || d.units < 0 && !credit || d.scale > maxQuantityScale || abs64(d.units)/pow10Int(d.scale) >= maxQuantityUnits {
		return decimal{}, Reject(FieldReason(ReasonInvalidField, "lineItems"))
	}
	return d, nil
}

// parseUnitPrice parses a unit price: it may be finer than the currency
// (up to maxQuantityScale decimals) and negative (a discount line).
func parseUnitPrice(s string, minor int) (decimal, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return decimal{}, Reject(FieldReason(ReasonUnparseableAmount, "lineItems"))
	}
	d = d.normalized()
	if d.scale > max(minor, maxQuantityScale) || abs64(d.units)/pow10Int(d.scale) > maxMinorUnits {
		return decimal{}, Reject(FieldReason(ReasonInvalidField, "lineItems"))
	}
	return d, nil
}

// fillFromAmount completes a line that states an amount: without a
// quantity and a price it is one unit at the amount; with one of them the
// other is derived when it divides exactly.
func (p *lineParts) fillFromAmount(minor int) {
	amount := decimal{units: p.amount, scale: minor}
	switch {
	case !p.hasQty && !p.hasPrice:
		p.qty, p.price, p.hasQty, p.hasPrice = decimal{units: 1}, amount, true, true
	case p.hasQty && p.qty.units != 0:
		if price, ok := exactQuotient(p.amount, p.qty); ok {
			p.price, p.hasPrice = decimal{units: price, scale: minor}, true
		}
	case p.hasPrice && p.price.scale <= minor:
		pm, _ := p.price.toMinor(minor)
		if pm != 0 && p.amount%pm == 0 && p.amount/pm > 0 {
			p.qty, p.hasQty = decimal{units: p.amount / pm}, true
		}
	}
}

// exactQuotient divides an amount in minor units by a quantity (a decimal,
// "2.5" hours) and reports whether the unit price comes out in whole minor
// units: 120.00 / 2.5 = 48.00 does, 10.00 / 1.5 does not. big.Int keeps
// amount × 10^scale from overflowing.
func exactQuotient(amount int64, qty decimal) (int64, bool) {
	num := new(big.Int).Mul(big.NewInt(amount), big.NewInt(pow10Int(qty.scale)))
	q, r := new(big.Int).QuoRem(num, big.NewInt(qty.units), new(big.Int))
	if r.Sign() != 0 || !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// priceString writes a unit price with at least the currency's decimals.
func priceString(d decimal, minor int) string {
	if d.scale < minor {
		n, _ := d.toMinor(minor)
		return formatMinor(n, minor)
	}
	return d.String()
}

func pow10Int(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
