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
	// ReasonTaxMismatch: the tax breakdown does not add up: its rates' tax
	// is not the stated tax, or their taxable amounts are not the net
	// total.
	ReasonTaxMismatch = "tax_mismatch"
	// ReasonAmountDueMismatch: the amount due is not the total less what
	// was paid plus the rounding.
	ReasonAmountDueMismatch = "amount_due_mismatch"
	// ReasonNotAccepted: a credit note or corrective invoice where the
	// deployment books only other types (RELAYOPS_ACCEPT_DOCUMENTS).
	ReasonNotAccepted = "document_not_accepted"

	// Reasons of the read stage, which turns a file into a document before
	// any field is read.

	// ReasonUnreadableDocument: the file is corrupt, truncated, empty or not
	// what its media type says.
	ReasonUnreadableDocument = "unreadable_document"
	// ReasonEncryptedDocument: a password-protected PDF.
	ReasonEncryptedDocument = "encrypted_document"
	// ReasonNoTextLayer: a PDF without text (a scan) and no OCR to read it.
	ReasonNoTextLayer = "no_text_layer"
	// ReasonTooManyPages: more pages than the deployment reads (a scan:
	// more than OCR reads).
	ReasonTooManyPages = "too_many_pages"
	// ReasonTooLargeToRead: reading the file would take more memory than
	// the read stage's whole budget (a small file that declares a huge
	// image), found from its headers before anything is decoded.
	ReasonTooLargeToRead = "too_large_to_read"
	// ReasonReadTimeout: the read (OCR of a scan) did not finish within the
	// job's attempts: an attempt ran out of time without reading a page, or
	// the last attempt ran out of time.
	ReasonReadTimeout = "read_timeout"
	// ReasonOCRUncertain: the invoice number or an amount of a scan was
	// read by OCR from words it was unsure of; a person confirms it
	// (a correction) rather than the machine committing it.
	ReasonOCRUncertain = "ocr_uncertain"
	// ReasonInvalidEInvoice + ":" + rule: a structured e-invoice that breaks
	// a rule of its syntax and profile that decides whether it can be paid
	// (a rule from EInvoiceRules), or is not a readable e-invoice at all
	// ("syntax").
	ReasonInvalidEInvoice = "invalid_einvoice"
)

// EInvoiceRules are the rules an invalid_einvoice reason may name: every
// rule package einvoice's Check applies (einvoice.Rules, a test holds
// them equal): EN 16931's
// (BR-01 … BR-16 required terms, BR-DEC-* at most two decimals, BR-LIN-01
// and BR-LIN-03 line terms, BR-CO-10 … BR-CO-17 the document arithmetic,
// BR-S-08 and BR-S-09 the standard rated VAT breakdown), XRechnung's
// (BR-DE-1, BR-DE-14, BR-DE-15, BR-DE-16), ZUGFeRD 1.0's (ZF1-*), and
// "syntax" for XML that is not a readable invoice of a supported syntax,
// or a value not of its type. A rule about a detail (einvoice.DetailRules)
// rejects no invoice whose payment amounts agree (it is a flag then,
// EInvoiceRuleFlag), but it names the rejection of jobs judged before that
// policy, so it stays a reason code.
var EInvoiceRules = []string{
	"syntax",
	"BR-01", "BR-02", "BR-03", "BR-04", "BR-05", "BR-06", "BR-07", "BR-08",
	"BR-09", "BR-10", "BR-11", "BR-12", "BR-13", "BR-14", "BR-15", "BR-16",
	"BR-CO-10", "BR-CO-11", "BR-CO-12", "BR-CO-13", "BR-CO-14", "BR-CO-15", "BR-CO-16",
	"BR-CO-17", "BR-S-08", "BR-S-09", "BR-LIN-01", "BR-LIN-03",
	"BR-DEC-01", "BR-DEC-02", "BR-DEC-05", "BR-DEC-06", "BR-DEC-09", "BR-DEC-10", "BR-DEC-11",
	"BR-DEC-12", "BR-DEC-13", "BR-DEC-14", "BR-DEC-15", "BR-DEC-16", "BR-DEC-17", "BR-DEC-18",
	"BR-DEC-19", "BR-DEC-20", "BR-DEC-23",
	"BR-DE-1", "BR-DE-14", "BR-DE-15", "BR-DE-16",
	"ZF1-NUMBER", "ZF1-DATE", "ZF1-TYPE", "ZF1-PROFILE", "ZF1-CURRENCY", "ZF1-SELLER", "ZF1-BUYER",
	"ZF1-LINES", "ZF1-TOTALS", "ZF1-SUMS", "ZF1-VAT",
	"ZF1-LINE-TOTAL", "ZF1-ALLOWANCE-TOTAL", "ZF1-CHARGE-TOTAL", "ZF1-TAX-BASIS", "ZF1-TAX-TOTAL",
	"ZF1-TAX-RATE", "ZF1-GRAND-TOTAL", "ZF1-DUE",
}

// Fields are the invoice fields a reason code may name.
var Fields = []string{"invoiceNumber", "vendor", "issueDate", "dueDate", "currency", "lineItems", "subtotal", "charges", "tax", "total",
	"paidAmount", "amountDue", "documentType", "rounding", "taxBreakdown", "accountingTax", "precedingInvoice"}

// fieldReasons are the reasons that take a field.
var fieldReasons = []string{ReasonMissingField, ReasonInvalidField, ReasonUnparseableAmount}

// bareReasons are the reasons that stand alone.
var bareReasons = []string{
	ReasonNotAnInvoice, ReasonAmbiguousDate, ReasonLineMismatch, ReasonSubtotalMismatch,
	ReasonTotalMismatch, ReasonModelOutputInvalid, ReasonTaxMismatch, ReasonAmountDueMismatch, ReasonNotAccepted,
	ReasonUnreadableDocument, ReasonEncryptedDocument, ReasonNoTextLayer, ReasonTooManyPages,
	ReasonOCRUncertain, ReasonTooLargeToRead, ReasonReadTimeout,
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
	for _, rule := range EInvoiceRules {
		out = append(out, ReasonInvalidEInvoice+":"+rule)
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
//
// A rejection for the document's content keeps what was read: Extraction is
// the partial extraction (the fields found, with their evidence), nil when
// nothing was read (a read-stage rejection, not_an_invoice from the
// classifier); Fields names the fields the failing check concerns
// ("total", "subtotal" for a total_mismatch). Both are document data: the
// store keeps them with the job's result, never in logs, metrics or Asynq.
type Rejection struct {
	Reason     string
	Extraction *Extraction
	Fields     []string
}

// Reject returns a *Rejection with reason.
func Reject(reason string) *Rejection { return &Rejection{Reason: reason} }

func (r *Rejection) Error() string { return "extract: rejected: " + r.Reason }

// Unwrap makes every rejection permanent.
func (r *Rejection) Unwrap() error { return ErrPermanent }

// RejectReason returns the reason code (the worker records it as the job's
// errorReason).
func (r *Rejection) RejectReason() string { return r.Reason }

// Kept is what a job rejected for its content keeps of it, for the
// operator who corrects it: the fields that were read (with their
// evidence) and which check failed on which field. It is document data.
type Kept struct {
	Fields *Extraction   `json:"fields,omitempty"`
	Failed []FailedCheck `json:"failed,omitempty"`
	// Status says what vouches for each field read (KeptStatus).
	Status map[string]string `json:"fieldStatus,omitempty"`
}

// WithStatus returns k with the status of each field read, computed when
// k was stored without one.
func (k Kept) WithStatus() Kept {
	if k.Status == nil && k.Fields != nil {
		k.Status = KeptStatus(*k.Fields, k.Failed)
	}
	return k
}

// FailedCheck is one field a failing check concerns; Check is the
// rejection's reason code.
type FailedCheck struct {
	Field string `json:"field"`
	Check string `json:"check"`
}

// Kept returns what r keeps, or nil when it kept nothing (a read-stage
// rejection, not_an_invoice from the classifier). Failed lists every check
// the extraction fails that can be told at once (FailedChecks), r's own
// first.
func (r *Rejection) Kept() *Kept {
	if r.Extraction == nil && len(r.Fields) == 0 {
		return nil
	}
	k := &Kept{Fields: r.Extraction}
	if r.Extraction != nil && IsBooked(r.Extraction.DocumentType) {
		k.Failed = FailedChecks(*r.Extraction)
	}
	if len(k.Failed) == 0 || k.Failed[0].Check != r.Reason {
		k.Failed = nil // another extractor's verdict: name only its own fields
		for _, f := range r.Fields {
			k.Failed = append(k.Failed, FailedCheck{Field: f, Check: r.Reason})
		}
	}
	w := k.WithStatus()
	return &w
}

// Classification sentinels for failures that are not a verdict on the
// document. Errors wrapping neither are transient.
var (
	// ErrPermanent marks a failure no retry can fix (a model endpoint that
	// rejects the request as malformed).
	ErrPermanent = errors.New("extract: permanent failure")
	// ErrTransient marks a failure a later attempt may not have.
	ErrTransient = errors.New("extract: transient failure")
)
