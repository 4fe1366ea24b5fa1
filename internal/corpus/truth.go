package corpus

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"
)

// Check reports whether the truth is well formed and internally consistent:
// for an invoice that must succeed, every field is present, every amount is
// in the currency's precision, each line's amount is its quantity × unit
// price within half a minor unit, the lines add up to the subtotal and the
// subtotal, charges and tax to the total. For an invoice that must be
// rejected, the fault its reason names is really there. Errors name the
// field.
func (t Truth) Check() error {
	switch {
	case !t.IsInvoice:
		if t.Kind == KindInvoice || t.Kind == "" {
			return errors.New("kind: a document that is not an invoice needs its kind")
		}
		if t.Reason != ReasonNotAnInvoice {
			return fmt.Errorf("reason: %q, want %q for a document that is not an invoice", t.Reason, ReasonNotAnInvoice)
		}
		return nil
	case t.Kind != KindInvoice:
		return fmt.Errorf("kind: %q for an invoice, want %q", t.Kind, KindInvoice)
	}
	a, err := t.arithmetic()
	if err != nil {
		return err
	}
	if t.Reason == "" {
		return a.consistent()
	}
	return a.broken(t.Reason)
}

// arithmetic is a truth's amounts in minor units; nil where not stated.
type arithmetic struct {
	t                          Truth
	lines                      []*big.Int
	lineErrs                   []bool // amount differs from quantity × price by more than half a minor unit
	subtotal, charges, tax, tt *big.Int
}

func (t Truth) arithmetic() (*arithmetic, error) {
	if t.Currency == "" {
		return nil, errors.New("currency: missing")
	}
	dec, ok := currencyDecimals(t.Currency)
	if !ok {
		return nil, fmt.Errorf("currency: %q is not a currency of the corpus", t.Currency)
	}
	if _, err := time.Parse(time.DateOnly, t.IssueDate); err != nil && (t.IssueDate != "" || t.Reason == "") {
		return nil, fmt.Errorf("issueDate: %q is not a YYYY-MM-DD date", t.IssueDate)
	}
	if t.Vendor == "" {
		return nil, errors.New("vendor: missing")
	}
	if t.LineCount != len(t.Lines) {
		return nil, fmt.Errorf("lineCount: %d, but %d lines", t.LineCount, len(t.Lines))
	}
	a := &arithmetic{t: t, charges: new(big.Int)}
	var err error
	for i, l := range t.Lines {
		amount, lineErr, err := checkLine(l, dec)
		if err != nil {
			return nil, fmt.Errorf("lines[%d]: %w", i, err)
		}
		a.lines = append(a.lines, amount)
		a.lineErrs = append(a.lineErrs, lineErr)
	}
	for i, c := range t.Charges {
		if !slices.Contains([]string{"shipping", "discount", "fee", "rounding"}, c.Kind) {
			return nil, fmt.Errorf("charges[%d].kind: %q is not shipping, discount, fee or rounding", i, c.Kind)
		}
		v, err := parseMinor(c.Amount, dec)
		if err != nil {
			return nil, fmt.Errorf("charges[%d].amount: %w", i, err)
		}
		a.charges.Add(a.charges, v)
	}
	if a.subtotal, err = parseMinor(t.Subtotal, dec); err != nil {
		return nil, fmt.Errorf("subtotal: %w", err)
	}
	if a.tax, err = parseMinor(t.Tax, dec); err != nil {
		return nil, fmt.Errorf("tax: %w", err)
	}
	if t.Total != "" {
		if a.tt, err = parseMinor(t.Total, dec); err != nil {
			return nil, fmt.Errorf("total: %w", err)
		}
	}
	return a, nil
}

// checkLine parses a line and reports whether its amount is off.
func checkLine(l Line, dec int) (*big.Int, bool, error) {
	q, err := parseDecimal(l.Quantity)
	if err != nil {
		return nil, false, fmt.Errorf("quantity: %w", err)
	}
	price, err := parseMinor(l.UnitPrice, dec)
	if err != nil {
		return nil, false, fmt.Errorf("unitPrice: %w", err)
	}
	amount, err := parseMinor(l.Amount, dec)
	if err != nil {
		return nil, false, fmt.Errorf("amount: %w", err)
	}
	// |q × price − amount| ≤ half a minor unit, at the quantity's scale:
	// 2·|qu·price − amount·10^qs| ≤ 10^qs.
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q.scale)), nil)
	diff := new(big.Int).Mul(q.unscaled, price)
	diff.Sub(diff, new(big.Int).Mul(amount, scale))
	diff.Abs(diff).Lsh(diff, 1)
	return amount, diff.Cmp(scale) > 0, nil
}

func (a *arithmetic) sumLines() *big.Int {
	s := new(big.Int)
	for _, l := range a.lines {
		s.Add(s, l)
	}
	return s
}

// expectedTotal is subtotal + charges + tax.
func (a *arithmetic) expectedTotal() *big.Int {
	s := new(big.Int).Add(a.subtotal, a.charges)
	return s.Add(s, a.tax)
}

func (a *arithmetic) consistent() error {
	t := a.t
	if t.InvoiceNumber == "" {
		return errors.New("invoiceNumber: missing")
	}
	if t.Total == "" {
		return errors.New("total: missing")
	}
	if len(t.Lines) == 0 {
		return errors.New("lines: an invoice that must succeed needs its lines")
	}
	if i := slices.Index(a.lineErrs, true); i >= 0 {
		return fmt.Errorf("lines[%d]: amount %s is not quantity %s × unit price %s", i, t.Lines[i].Amount, t.Lines[i].Quantity, t.Lines[i].UnitPrice)
	}
	if a.sumLines().Cmp(a.subtotal) != 0 {
		return fmt.Errorf("subtotal: %s, but the lines add up to %s", t.Subtotal, a.sumLines())
	}
	if a.expectedTotal().Cmp(a.tt) != 0 {
		return fmt.Errorf("total: %s, but subtotal + charges + tax is %s (minor units)", t.Total, a.expectedTotal())
	}
	return nil
}

// broken checks that the fault reason names is present.
func (a *arithmetic) broken(reason string) error {
	t := a.t
	var ok bool
	switch reason {
	case ReasonTotalMismatch:
		ok = a.tt != nil && a.expectedTotal().Cmp(a.tt) != 0
	case ReasonSubtotalMismatch:
		ok = a.sumLines().Cmp(a.subtotal) != 0
	case ReasonLineMismatch:
		ok = slices.Contains(a.lineErrs, true)
	case ReasonMissingTotal:
		ok = t.Total == ""
	case ReasonMissingNumber:
		ok = t.InvoiceNumber == ""
	case ReasonUnparseableTotal, ReasonAmbiguousIssueDate:
		// The fault is in how the document writes the value, which the truth
		// does not record; the truth states the intended value.
		ok = true
	default:
		return fmt.Errorf("reason: %q is not a reason the corpus knows", reason)
	}
	if !ok {
		return fmt.Errorf("reason: %q, but the truth shows no such fault", reason)
	}
	return nil
}
