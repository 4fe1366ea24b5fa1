package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the validated fields.
const (
	maxVendorRunes      = 200
	maxDescriptionBytes = 1000
	maxLineItems        = 1000
)

// invoiceNumberRe: letters, digits and . _ / -, starting with a letter or
// digit, at most 64 characters.
var invoiceNumberRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`)

// ValidateExtraction judges an extraction from any extractor and returns
// the invoice, or a *Rejection whose reason is one of Reasons(). It decides
// in this order, and rejects with the first failure:
//
//  1. the document type must be DocInvoice (not_an_invoice);
//  2. a problem the extractor already recorded (the first valid one);
//  3. required fields: invoice number, vendor, issue date, currency and
//     total (missing_field:<field>). Line items are not required: an
//     invoice that states only a total (a retainer, a one-line e-mail
//     invoice) is accepted, its subtotal being total − charges − tax;
//  4. field formats (invalid_field:<field>): invoice number as
//     invoiceNumberRe, a printable vendor of at most 200 characters, a
//     calendar date YYYY-MM-DD, an ISO 4217 code of a currency used for
//     trade; a due date, when given, a calendar date not before the issue
//     date;
//  5. amounts: canonical decimals (unparseable_amount:<field>), at most
//     the currency's decimals, non-negative subtotal, tax and total, at most
//     10^15 minor units (invalid_field:<field>);
//  6. each line: a positive quantity, and an amount within half a minor
//     unit of quantity × unit price (line_mismatch);
//  7. the lines add up to the stated subtotal (subtotal_mismatch);
//  8. subtotal (or the lines) + charges + tax = total, exactly in minor
//     units; without tax when the tax is stated as included (total_mismatch).
//
// A discount charge is subtracted whatever its sign; other charges are
// added with theirs. Money is integer minor units throughout.
//
// A rejection keeps what was read (Rejection.Extraction, a copy of x) and
// names the fields its check concerns (Rejection.Fields), so an operator
// can correct them (see Corrections).
func ValidateExtraction(x Extraction) (*Invoice, error) {
	inv, err := validateExtraction(x)
	if r, ok := err.(*Rejection); ok {
		kept := x
		r.Extraction = &kept
		r.Fields = rejectedFields(r.Reason, x)
	}
	return inv, err
}

// rejectedFields are the fields a reason's check concerns: the field of a
// field reason, the fields an arithmetic check added up.
func rejectedFields(reason string, x Extraction) []string {
	if _, field, ok := strings.Cut(reason, ":"); ok {
		return []string{field}
	}
	switch reason {
	case ReasonAmbiguousDate:
		return []string{"issueDate"}
	case ReasonLineMismatch:
		return []string{"lineItems"}
	case ReasonSubtotalMismatch:
		return []string{"subtotal", "lineItems"}
	case ReasonTotalMismatch:
		out := []string{"total"}
		for _, f := range []struct {
			name    string
			present bool
		}{{"subtotal", x.Subtotal != ""}, {"lineItems", x.Subtotal == "" && len(x.LineItems) > 0}, {"tax", x.Tax != ""}, {"charges", len(x.Charges) > 0}} {
			if f.present {
				out = append(out, f.name)
			}
		}
		return out
	}
	return nil
}

func validateExtraction(x Extraction) (*Invoice, error) {
	if x.DocumentType != DocInvoice {
		return nil, Reject(ReasonNotAnInvoice)
	}
	if err := checkProblems(x.Problems); err != nil {
		return nil, err
	}
	if err := checkRequired(x); err != nil {
		return nil, err
	}
	if err := checkScalars(x); err != nil {
		return nil, err
	}
	minor := currencyMinor[x.Currency]
	a, err := parseAmounts(x, minor)
	if err != nil {
		return nil, err
	}
	lines, lineSum, err := validateLines(x.LineItems, minor)
	if err != nil {
		return nil, err
	}
	subtotal, err := reconcile(a, lines, lineSum, x.TaxIncluded)
	if err != nil {
		return nil, err
	}
	return &Invoice{
		DocumentType: DocInvoice, InvoiceNumber: x.InvoiceNumber, Vendor: x.Vendor,
		IssueDate: x.IssueDate, Currency: x.Currency, LineItems: lines,
		Subtotal: formatMinor(subtotal, minor), Charges: a.charges, Tax: formatMinor(a.tax, minor),
		TaxIncluded: x.TaxIncluded, Total: formatMinor(a.total, minor), Source: x.Source,
		DueDate: x.DueDate, Evidence: x.Evidence,
	}, nil
}

// checkProblems rejects with the first problem that is a known reason; a
// problem list of nothing but unknown codes (a model's invention) is still
// a rejection, as model_output_invalid.
func checkProblems(problems []string) error {
	for _, p := range problems {
		if ValidReason(p) {
			return Reject(p)
		}
	}
	if len(problems) > 0 {
		return Reject(ReasonModelOutputInvalid)
	}
	return nil
}

func checkRequired(x Extraction) error {
	for _, f := range []struct{ name, v string }{
		{"invoiceNumber", x.InvoiceNumber}, {"vendor", x.Vendor}, {"issueDate", x.IssueDate},
		{"currency", x.Currency}, {"total", x.Total},
	} {
		if strings.TrimSpace(f.v) == "" {
			return Reject(FieldReason(ReasonMissingField, f.name))
		}
	}
	return nil
}

func checkScalars(x Extraction) error {
	invalid := func(field string) error { return Reject(FieldReason(ReasonInvalidField, field)) }
	if !invoiceNumberRe.MatchString(x.InvoiceNumber) {
		return invalid("invoiceNumber")
	}
	if utf8.RuneCountInString(x.Vendor) > maxVendorRunes || !printable(x.Vendor) ||
		strings.TrimSpace(x.Vendor) != x.Vendor {
		return invalid("vendor")
	}
	if d, err := time.Parse(time.DateOnly, x.IssueDate); err != nil || d.Format(time.DateOnly) != x.IssueDate {
		return invalid("issueDate")
	}
	if _, ok := currencyMinor[x.Currency]; !ok {
		return invalid("currency")
	}
	if x.DueDate != "" {
		if d, err := time.Parse(time.DateOnly, x.DueDate); err != nil || d.Format(time.DateOnly) != x.DueDate || x.DueDate < x.IssueDate {
			return invalid("dueDate")
		}
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// amounts are the document-level amounts in minor units.
type amounts struct {
	subtotal    int64
	hasSubtotal bool
	charges     []Charge
	chargeSum   int64
	tax, total  int64
}

func parseAmounts(x Extraction, minor int) (amounts, error) {
	var a amounts
	var err error
	if a.total, err = parseMoney(x.Total, minor, "total", false); err != nil {
		return a, err
	}
	if x.Tax != "" {
		if a.tax, err = parseMoney(x.Tax, minor, "tax", false); err != nil {
			return a, err
		}
	}
	if x.Subtotal != "" {
		a.hasSubtotal = true
		if a.subtotal, err = parseMoney(x.Subtotal, minor, "subtotal", false); err != nil {
			return a, err
		}
	}
	a.charges, a.chargeSum, err = parseCharges(x.Charges, minor)
	return a, err
}

// parseMoney parses a canonical decimal amount of a field into minor units.
func parseMoney(s string, minor int, field string, allowNegative bool) (int64, error) {
	d, err := parseDecimal(s)
	if errors.Is(err, errNotDecimal) {
		return 0, Reject(FieldReason(ReasonUnparseableAmount, field))
	}
	if err != nil {
		return 0, Reject(FieldReason(ReasonInvalidField, field))
	}
	n, err := d.toMinor(minor)
	if err != nil || (n < 0 && !allowNegative) {
		return 0, Reject(FieldReason(ReasonInvalidField, field))
	}
	return n, nil
}

var chargeKinds = []string{ChargeShipping, ChargeDiscount, ChargeFee, ChargeRounding}

// parseCharges returns the charges with amounts in the currency's precision
// (discounts negative) and their sum.
func parseCharges(in []Charge, minor int) ([]Charge, int64, error) {
	var out []Charge
	var sum int64
	for _, c := range in {
		n, err := parseMoney(c.Amount, minor, "charges", true)
		if err != nil {
			return nil, 0, err
		}
		if !slices.Contains(chargeKinds, c.Kind) {
			return nil, 0, Reject(FieldReason(ReasonInvalidField, "charges"))
		}
		if c.Kind == ChargeDiscount && n > 0 {
			n = -n
		}
		if sum, err = addChecked(sum, n); err != nil {
			return nil, 0, Reject(FieldReason(ReasonInvalidField, "charges"))
		}
		out = append(out, Charge{Kind: c.Kind, Amount: formatMinor(n, minor)})
	}
	return out, sum, nil
}

// reconcile checks that the amounts add up and returns the subtotal: the
// stated one, else the lines' sum, else what the total leaves.
func reconcile(a amounts, lines []LineItem, lineSum int64, taxIncluded bool) (int64, error) {
	if a.hasSubtotal && len(lines) > 0 && lineSum != a.subtotal {
		return 0, Reject(ReasonSubtotalMismatch)
	}
	tax := a.tax
	if taxIncluded {
		tax = 0
	}
	extra, err := addChecked(a.chargeSum, tax)
	if err != nil {
		return 0, Reject(ReasonTotalMismatch)
	}
	switch {
	case a.hasSubtotal:
	case len(lines) > 0:
		a.subtotal = lineSum
	default:
		a.subtotal = a.total - extra
		if a.subtotal < 0 {
			return 0, Reject(ReasonTotalMismatch)
		}
	}
	sum, err := addChecked(a.subtotal, extra)
	if err != nil || sum != a.total {
		return 0, Reject(ReasonTotalMismatch)
	}
	return a.subtotal, nil
}

// Validate is the validate stage of every extractor: it decodes the
// extraction JSON, judges it with ValidateExtraction and returns the
// Invoice JSON, or a *Rejection.
func Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := DecodeExtraction(extraction)
	if err != nil {
		return nil, fmt.Errorf("extract: validate: decode extraction: %w", ErrPermanent)
	}
	inv, err := ValidateExtraction(x)
	if err != nil {
		return nil, err
	}
	if inv == nil {
		return json.Marshal(inv)
	}
	return marshalInvoice(*inv)
}

// IsInvoiceNumber reports whether s has the shape the validator accepts
// for an invoice number.
func IsInvoiceNumber(s string) bool { return invoiceNumberRe.MatchString(s) }
