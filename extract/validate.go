package extract

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the validated fields.
const (
	maxVendorRunes      = 200
	maxNumberRunes      = 100
	maxDescriptionBytes = 1000
	maxLineItems        = 1000
	maxTaxRates         = 50
	maxCharges          = 100
)

// ValidateExtraction judges an extraction from any extractor and returns
// the invoice (an invoice, credit note or corrective invoice), or a
// *Rejection whose reason is one of Reasons(). It decides in this order,
// and rejects with the first failure:
//
//  1. the document type must be one of BookedTypes (not_an_invoice);
//  2. a problem the extractor already recorded (the first valid one);
//  3. required fields: invoice number, vendor, issue date, currency and
//     total (missing_field:<field>). Line items are not required: an
//     invoice that states only a total (a retainer, a one-line e-mail
//     invoice) is accepted, its subtotal being total − charges − tax;
//  4. field formats (invalid_field:<field>): an invoice number as printed
//     (IsInvoiceNumber: any printable text of at most 100 characters with
//     a letter or digit: "FV 1/2021", "#A_17", "№ 12"), a printable vendor
//     of at most 200 characters, a calendar date YYYY-MM-DD, an ISO 4217
//     code of a currency used for trade; a due date, when given, a
//     calendar date not before the issue date;
//  5. amounts: canonical decimals (unparseable_amount:<field>), at most
//     the currency's decimals, at most 10^15 minor units, and
//     non-negative subtotal, tax and total unless the document is a credit
//     note or corrective invoice, which carry their amounts as printed
//     (invalid_field:<field>). An invoice whose total is negative takes
//     money back: it is booked as a credit note;
//  6. each line: a quantity (positive, or negative on a credit document),
//     and an amount within half a minor unit of quantity × unit price
//     (line_mismatch);
//  7. the lines add up to the stated subtotal (subtotal_mismatch);
//  8. subtotal (or the lines) + charges + tax = total, exactly in minor
//     units; without tax when the tax is stated as included (total_mismatch);
//  9. the tax breakdown, when given: its rates' tax adds up to the tax,
//     and their taxable amounts, when all are given, to the net total
//     (tax_mismatch); a rate whose tax is not its base times its rate
//     beyond its lines' rounding is flagged (tax_rate_mismatch), not
//     refused;
//  10. the amount due, when given: total − paid + rounding
//     (amount_due_mismatch).
//
// A discount charge reduces the total whatever the sign it is given with
// (on a document whose total is negative, it reduces its magnitude);
// other charges are added with theirs. Money is integer minor units
// throughout. BT-111, a tax in the buyer's accounting currency, is
// checked for its form and never added.
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
	case ReasonTaxMismatch:
		return []string{"tax", "taxBreakdown"}
	case ReasonNotAccepted:
		return []string{"documentType"}
	case ReasonAmountDueMismatch:
		return present([]string{"amountDue", "total"}, map[string]bool{"paidAmount": x.PaidAmount != "", "rounding": x.Rounding != ""})
	case ReasonTotalMismatch:
		return present([]string{"total"}, map[string]bool{
			"subtotal": x.Subtotal != "", "lineItems": x.Subtotal == "" && len(x.LineItems) > 0,
			"tax": x.Tax != "", "charges": len(x.Charges) > 0,
		})
	}
	return nil
}

// present appends to out, in Fields order, the fields of m that are true.
func present(out []string, m map[string]bool) []string {
	for _, f := range Fields {
		if m[f] {
			out = append(out, f)
		}
	}
	return out
}

func validateExtraction(x Extraction) (*Invoice, error) {
	if !IsBooked(x.DocumentType) {
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
	breakdown, err := parseBreakdown(x.TaxBreakdown, minor)
	if err != nil {
		return nil, err
	}
	if !a.taxStated && len(breakdown.rates) > 0 {
		a.tax, a.taxStated = breakdown.tax, true // the rates' rows state it
	}
	lines, lineSum, err := validateLines(x.LineItems, minor, a.credit)
	if err != nil {
		return nil, err
	}
	if a.subtotal, err = reconcile(a, lines, lineSum, x.TaxIncluded); err != nil {
		return nil, err
	}
	terms, err := checkTerms(x, a, breakdown, minor, len(lines))
	if err != nil {
		return nil, err
	}
	return invoiceOf(x, a, lines, terms, minor), nil
}

// invoiceOf is the judged invoice of x: its amounts in the currency's
// precision, its booked type and direction, and each field's status.
func invoiceOf(x Extraction, a amounts, lines []LineItem, t terms, minor int) *Invoice {
	docType, direction := bookedType(x.DocumentType, a.total)
	inv := &Invoice{
		DocumentType: docType, Direction: direction, InvoiceNumber: x.InvoiceNumber, Vendor: x.Vendor,
		IssueDate: x.IssueDate, Currency: x.Currency, LineItems: lines,
		Subtotal: formatMinor(a.subtotal, minor), Charges: a.charges, Tax: formatMinor(a.tax, minor),
		TaxIncluded: x.TaxIncluded, Total: formatMinor(a.total, minor),
		SignedTotal: formatMinor(signedTotal(a.total, direction), minor), Source: x.Source,
		DueDate: x.DueDate, PrecedingInvoice: x.PrecedingInvoice, PaidAmount: t.paid, Rounding: t.rounding,
		AmountDue: t.due, TaxBreakdown: t.breakdown, AccountingTax: t.accounting,
		Seller: x.Seller, Flags: mergeFlags(x.Flags, t.flags),
	}
	for _, id := range x.Seller {
		switch id.Scheme {
		case IDVAT:
			inv.SellerVATID = cmp.Or(inv.SellerVATID, id.ID)
		case IDIBAN:
			inv.IBAN = cmp.Or(inv.IBAN, id.ID)
		}
	}
	inv.Evidence = committedEvidence(x, a, t)
	inv.Status = FieldStatus(inv)
	return inv
}

// committedEvidence is x's evidence with what the validator derived
// marked computed: a subtotal no row stated (the lines' sum, or what the
// total leaves), a tax no row stated, the amount due.
func committedEvidence(x Extraction, a amounts, t terms) map[string]Evidence {
	ev := make(map[string]Evidence, len(x.Evidence)+2)
	for f, e := range x.Evidence {
		ev[f] = e
	}
	derive := func(field string) {
		e := ev[field]
		e.Computed, e.Label, e.Page, e.Line = true, "", 0, 0
		if e.Source == "" {
			e.Source = x.Source.Extractor
		}
		ev[field] = e
	}
	if x.Subtotal == "" {
		derive("subtotal")
	}
	if !a.taxStated {
		derive("tax")
	}
	if x.AmountDue == "" && t.due != "" {
		derive("amountDue")
	}
	if len(ev) == 0 {
		return nil
	}
	return ev
}

// mergeFlags is a and then the members of b not in a.
func mergeFlags(a, b []string) []string {
	out := slices.Clone(a)
	for _, f := range b {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
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
	if !IsInvoiceNumber(x.InvoiceNumber) {
		return invalid("invoiceNumber")
	}
	if !printedText(x.Vendor, maxVendorRunes) {
		return invalid("vendor")
	}
	if !isDate(x.IssueDate) {
		return invalid("issueDate")
	}
	if _, ok := currencyMinor[x.Currency]; !ok {
		return invalid("currency")
	}
	if x.DueDate != "" && (!isDate(x.DueDate) || x.DueDate < x.IssueDate) {
		return invalid("dueDate")
	}
	if x.PrecedingInvoice != "" && !IsInvoiceNumber(x.PrecedingInvoice) {
		return invalid("precedingInvoice")
	}
	return nil
}

// isDate reports a calendar date written YYYY-MM-DD.
func isDate(s string) bool {
	d, err := time.Parse(time.DateOnly, s)
	return err == nil && d.Format(time.DateOnly) == s
}

// IsInvoiceNumber reports whether s is acceptable as an invoice number
// exactly as printed: printable text (letters and digits of any script,
// punctuation such as # _ / -, spaces inside) of at most 100 characters,
// with at least one letter or digit, no control or invisible characters
// and no space at either end.
func IsInvoiceNumber(s string) bool {
	return printedText(s, maxNumberRunes) && strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}) >= 0
}

// printedText reports a value as a person reads it off a page: non-empty,
// at most maxRunes characters, every one printable (unicode.IsPrint: no
// control, format or bidirectional characters, and no white space but the
// plain space), none at either end a space.
func printedText(s string, maxRunes int) bool {
	return s != "" && utf8.RuneCountInString(s) <= maxRunes && printable(s) && strings.TrimSpace(s) == s
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
	// credit: the document may print negative amounts (a credit note, a
	// corrective invoice, an invoice whose total is negative).
	credit      bool
	subtotal    int64
	hasSubtotal bool
	charges     []Charge
	chargeSum   int64
	tax, total  int64
	// taxStated: a row states the tax (Extraction.Tax), or the breakdown's
	// rates do; otherwise the tax is zero, computed.
	taxStated bool
}

func parseAmounts(x Extraction, minor int) (amounts, error) {
	var a amounts
	var err error
	// The total is read signed first: a negative one makes an invoice a
	// credit note, whose other amounts may be negative too.
	if a.total, err = parseMoney(x.Total, minor, "total", true); err != nil {
		return a, err
	}
	a.credit = creditType(x.DocumentType) || a.total < 0
	if x.Tax != "" {
		a.taxStated = true
		if a.tax, err = parseMoney(x.Tax, minor, "tax", a.credit); err != nil {
			return a, err
		}
	}
	if x.Subtotal != "" {
		a.hasSubtotal = true
		if a.subtotal, err = parseMoney(x.Subtotal, minor, "subtotal", a.credit); err != nil {
			return a, err
		}
	}
	a.charges, a.chargeSum, err = parseCharges(x.Charges, minor, a.total < 0)
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

// maxChargeReasonRunes bounds a charge's reason.
const maxChargeReasonRunes = 200

// parseCharges returns the charges with amounts in the currency's
// precision and their sum. A discount reduces the total: negative on a
// document whose total is positive, positive on one whose total is
// negative (a credit printed with minus signs), whatever sign it came
// with.
func parseCharges(in []Charge, minor int, negativeTotal bool) ([]Charge, int64, error) {
	if len(in) > maxCharges {
		return nil, 0, Reject(FieldReason(ReasonInvalidField, "charges"))
	}
	var out []Charge
	var sum int64
	for _, c := range in {
		n, err := parseMoney(c.Amount, minor, "charges", true)
		if err != nil {
			return nil, 0, err
		}
		if !slices.Contains(chargeKinds, c.Kind) || c.Reason != "" && !printedText(c.Reason, maxChargeReasonRunes) {
			return nil, 0, Reject(FieldReason(ReasonInvalidField, "charges"))
		}
		if c.Kind == ChargeDiscount && (n > 0) != negativeTotal {
			n = -n
		}
		if sum, err = addChecked(sum, n); err != nil {
			return nil, 0, Reject(FieldReason(ReasonInvalidField, "charges"))
		}
		out = append(out, Charge{Kind: c.Kind, Amount: formatMinor(n, minor), Reason: c.Reason})
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
		if a.subtotal < 0 && !a.credit {
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
