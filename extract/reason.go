package extract

import (
	"errors"
	"slices"
)

// Reason codes of a rejected document: a small fixed set, safe to store,
// log, show an operator and use as a metric label, because none of them
// quotes the document. A code is either a bare reason or "<reason>:<field>"
// with a field from Fields.
const (
	ReasonNotAnInvoice = "not_an_invoice"
	// ReasonMissingField + ":" + field: a required field was not found.
	ReasonMissingField = "missing_field"
	// ReasonInvalidField + ":" + field: found but not acceptable (an
	// unknown currency code, an impossible date, an over-long number).
	ReasonInvalidField = "invalid_field"
	// ReasonUnparseableAmount + ":" + field: an amount that is not a number
	// in any format the document uses consistently.
	ReasonUnparseableAmount = "unparseable_amount"
	// ReasonAmbiguousDate: a date such as 03/04/2026 with no evidence of
	// the document's convention.
	ReasonAmbiguousDate = "ambiguous_date"
	// ReasonLineMismatch: a line's amount differs from quantity × unit
	// price by more than half a minor unit.
	ReasonLineMismatch = "line_mismatch"
	// ReasonSubtotalMismatch: the lines do not add up to the stated
	// subtotal.
	ReasonSubtotalMismatch = "subtotal_mismatch"
	// ReasonTotalMismatch: subtotal (or the lines) + charges + tax is not
	// the total.
	ReasonTotalMismatch = "total_mismatch"
	// ReasonModelOutputInvalid: the model's answer did not match the schema
	// after the bounded number of tries.
	ReasonModelOutputInvalid = "model_output_invalid"
)

// Fields are the invoice fields a reason code may name.
var Fields = []string{"invoiceNumber", "vendor", "issueDate", "currency", "lineItems", "subtotal", "charges", "tax", "total"}

// fieldReasons are the reasons that take a field.
var fieldReasons = []string{ReasonMissingField, ReasonInvalidField, ReasonUnparseableAmount}

// bareReasons are the reasons that stand alone.
var bareReasons = []string{
	ReasonNotAnInvoice, ReasonAmbiguousDate, ReasonLineMismatch, ReasonSubtotalMismatch,
	ReasonTotalMismatch, ReasonModelOutputInvalid,
}

// Reasons returns every reason code, in a stable order: the bounded set of
// values of the errorReason field and of the reason metric label.
func Reasons() []string {
	out := slices.Clone(bareReasons)
	for _, r := range fieldReasons {
		for _, f := range Fields {
			out = append(out, r+":"+f)
		}
	}
	return out
}

// ValidReason reports whether code is one of Reasons().
func ValidReason(code string) bool { return slices.Contains(Reasons(), code) }

// FieldReason returns "<reason>:<field>".
func FieldReason(reason, field string) string { return reason + ":" + field }

// Rejection is a permanent verdict on a document: it is not an invoice, or
// it is one that cannot be accepted. Reason is one of Reasons(). Error()
// carries only the code, never document text.
type Rejection struct {
	Reason string
}

// Reject returns a *Rejection with reason.
func Reject(reason string) *Rejection { return &Rejection{Reason: reason} }

func (r *Rejection) Error() string { return "extract: rejected: " + r.Reason }

// Unwrap makes every rejection permanent.
func (r *Rejection) Unwrap() error { return ErrPermanent }

// RejectReason returns the reason code (the worker records it as the job's
// errorReason).
func (r *Rejection) RejectReason() string { return r.Reason }

// Classification sentinels for failures that are not a verdict on the
// document. Errors wrapping neither are transient.
var (
	// ErrPermanent marks a failure no retry can fix (a model endpoint that
	// rejects the request as malformed).
	ErrPermanent = errors.New("extract: permanent failure")
	// ErrTransient marks a failure a later attempt may not have.
	ErrTransient = errors.New("extract: transient failure")
)
