package console

import (
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// Reason and error codes in words. Codes are a small fixed set (the
// extractor's reason codes and the worker's and store's error codes); the
// console package test holds this table against every one of them.

var bareReasons = map[string]string{
	"not_an_invoice":       "the document is not an invoice",
	"ambiguous_date":       "a date could be read two ways and nothing in the document says which",
	"line_mismatch":        "a line's amount is not its quantity times its unit price",
	"subtotal_mismatch":    "the line items do not add up to the subtotal",
	"total_mismatch":       "the total does not equal subtotal + charges + tax",
	"model_output_invalid": "the model's answer did not match the expected form, even after retries",
	"other":                "the document was rejected for a reason without a code",
	"unreadable_document":  "the file is corrupt, truncated, empty or not what its media type says",
	"encrypted_document":   "the PDF is password-protected",
	"no_text_layer":        "the PDF has no text (a scan) and no OCR could read it",
	"too_many_pages":       "the document has more pages than this deployment reads",
}

var fieldReasons = map[string]string{
	"missing_field":      "the %s was not found in the document",
	"invalid_field":      "the %s was found but is not acceptable",
	"unparseable_amount": "the %s is not a number in any format the document uses",
}

var fieldWords = map[string]string{
	"invoiceNumber": "invoice number",
	"vendor":        "vendor",
	"issueDate":     "issue date",
	"dueDate":       "due date",
	"currency":      "currency",
	"lineItems":     "line items",
	"subtotal":      "subtotal",
	"charges":       "charges",
	"tax":           "tax",
	"total":         "total",
}

var errorCodes = map[string]string{
	"permanent_error":       "the document was rejected and retrying cannot help",
	"max_attempts_exceeded": "every attempt failed with a temporary error",
	"crash_loop":            "workers kept crashing while processing this job",
	"deadline_exceeded":     "the job's deadline passed before it finished",
	"internal_error":        "an internal error (a bug) stopped the job",
	"transient_error":       "a temporary error; the job is retried",
	"attempt_timeout":       "an attempt ran out of time",
	"store_unavailable":     "the job store could not be reached",
	"invalid_task":          "the queued task did not name a valid job",
	"input_expired":         "the document was no longer stored when the job ran",
	"idempotency_conflict":  "the document changed under a running attempt",
	"model_setup_refused":   "the extraction model refused the configured setup",
	"model_unauthorized":    "the extraction model refused the configured credentials",
	"model_not_found":       "the configured extraction model does not exist",
	"model_rate_limited":    "the extraction model's rate limit was reached",
	"model_unavailable":     "the extraction model was unavailable",
	"model_timeout":         "the extraction model did not answer in time",
	"model_unreachable":     "the extraction model could not be reached",
	"model_bad_request":     "the extraction model refused the request",
}

// Describe returns a reason or error code in words, and whether the code is
// known; an unknown code is described as such, never dropped.
func Describe(code string) (string, bool) {
	if s, ok := bareReasons[code]; ok {
		return s, true
	}
	if s, ok := errorCodes[code]; ok {
		return s, true
	}
	reason, field, ok := strings.Cut(code, ":")
	if ok && reason == extract.ReasonInvalidEInvoice && slices.Contains(extract.EInvoiceRules, field) {
		if field == "syntax" {
			return "the e-invoice XML is not a readable invoice of a supported syntax", true
		}
		return "the e-invoice breaks EN 16931 rule " + field, true
	}
	if pattern, known := fieldReasons[reason]; ok && known {
		if w, known := fieldWords[field]; known {
			return strings.Replace(pattern, "%s", w, 1), true
		}
	}
	return "unrecognised code", false
}

func describe(code string) string {
	s, _ := Describe(code)
	return s
}
