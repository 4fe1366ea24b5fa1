package console

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// Reason and error codes in words. Codes are a small fixed set (the
// extractor's reason codes and the worker's and store's error codes); the
// console package test holds this table against every one of them.

var bareReasons = map[string]string{
	"not_an_invoice":        "the document is not an invoice",
	"ambiguous_date":        "a date could be read two ways and nothing in the document says which",
	"line_mismatch":         "a line's amount is not its quantity times its unit price",
	"subtotal_mismatch":     "the line items do not add up to the subtotal",
	"total_mismatch":        "the total does not equal subtotal + charges + tax",
	"model_output_invalid":  "the model's answer did not match the expected form, even after retries",
	"other":                 "the document was rejected for a reason without a code",
	"unreadable_document":   "the file is corrupt, truncated, empty or not what its type says",
	"encrypted_document":    "the PDF is password-protected",
	"no_text_layer":         "the document has no text to read (a scan) and no OCR is configured",
	"too_many_pages":        "the document has more pages than this deployment reads",
	"ocr_uncertain":         "OCR was unsure of the words the invoice number or an amount was read from; confirm them in the form",
	"tax_mismatch":          "the tax per rate does not add up to the tax, or its taxable amounts to the net total",
	"amount_due_mismatch":   "the amount due is not the total less what was paid plus the rounding",
	"document_not_accepted": "this deployment does not book documents of this type (RELAYOPS_ACCEPT_DOCUMENTS)",
	"too_large_to_read":     "reading the file would take more memory than this deployment allows (a small file that declares a huge image)",
	"read_timeout":          "reading the scan by OCR did not finish within the job's attempts",
}

// einvoiceRules say what an invalid_einvoice reason's rule checks; any
// other rule is named as it is.
var einvoiceRules = map[string]string{
	"syntax":   "it is not a readable UBL, CII or ZUGFeRD invoice",
	"BR-CO-10": "the sum of the line net amounts is not the stated line total (BT-106)",
	"BR-CO-11": "the sum of the document allowances is not the stated allowance total (BT-107)",
	"BR-CO-12": "the sum of the document charges is not the stated charge total (BT-108)",
	"BR-CO-13": "the total without VAT (BT-109) is not lines − allowances + charges",
	"BR-CO-14": "the VAT total (BT-110) is not the sum of the VAT breakdown",
	"BR-CO-15": "the total with VAT (BT-112) is not the total without VAT plus the VAT",
	"BR-CO-16": "the amount due (BT-115) is not the total with VAT − paid + rounding",
}

var fieldReasons = map[string]string{
	"missing_field":      "the %s was not found in the document",
	"invalid_field":      "the %s was found but is not acceptable",
	"unparseable_amount": "the %s is not a number in any format the document uses",
}

var fieldWords = map[string]string{
	"invoiceNumber":    "invoice number",
	"vendor":           "vendor",
	"issueDate":        "issue date",
	"dueDate":          "due date",
	"currency":         "currency",
	"lineItems":        "line items",
	"subtotal":         "subtotal",
	"charges":          "charges",
	"tax":              "tax",
	"total":            "total",
	"paidAmount":       "amount paid",
	"amountDue":        "amount due",
	"documentType":     "document type",
	"rounding":         "rounding",
	"taxBreakdown":     "tax per rate",
	"accountingTax":    "tax in the accounting currency",
	"precedingInvoice": "corrected invoice's number",
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
	if ok && reason == "invalid_einvoice" {
		if w, known := einvoiceRules[field]; known {
			return "the e-invoice breaks EN 16931 " + field + ": " + w, true
		}
		return "the e-invoice breaks the EN 16931 rule " + field, true
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

// docWords names the document types of the classifier's signals.
var docWords = map[string]string{
	extract.DocReceipt:       "a receipt",
	extract.DocPurchaseOrder: "a purchase order",
	extract.DocQuote:         "a quote",
	extract.DocStatement:     "a statement",
	extract.DocCreditNote:    "a credit note",
	extract.DocOther:         "another kind of document (a note, a delivery note, a reminder, a list of invoices, …)",
}

func docWord(t string) string {
	if w, ok := docWords[t]; ok {
		return w
	}
	return "another kind of document"
}

// notInvoiceLooksFor is what the classifier needs to take a document for an
// invoice, in words.
const notInvoiceLooksFor = "The classifier takes a document for an invoice when its first lines carry an invoice title " +
	"(Invoice, Tax invoice, Rechnung, Facture, Factura, Fattura) or, without a title, when it has both an " +
	"invoice-number label with a value (Invoice No.: 50-1187) and a total (Total: 912.40, Amount due), and nothing " +
	"typical of another document (a receipt's change due, a statement's opening balance, a quote's validity, a credit)."

// notInvoiceAdvice says, for a not_an_invoice rejection, what the
// classifier looked for and did not find, from its signals on the stored
// document. It names signals, never the document's words.
func notInvoiceAdvice(c extract.Classification) string {
	var title, marker string
	has := map[string]bool{}
	for _, s := range c.Signals {
		has[s] = true
		if t, ok := strings.CutPrefix(s, "title_"); ok {
			title = t
		}
		if m, ok := strings.CutPrefix(s, "marker_"); ok {
			marker = m
		}
	}
	switch {
	case has["empty"]:
		return "The document is empty: there is nothing to read. Submit the invoice itself."
	case has["too_large"]:
		return "The document is larger than the rules extractor reads, so it was not classified. Submit the invoice alone."
	}
	var found []string
	switch {
	case title == "":
		found = append(found, "no invoice title in its first lines")
		found = append(found, foundOrNot(has["invoice_number_label"], "an invoice-number label with a value"))
		found = append(found, foundOrNot(has["total_label"], "a total"))
	case title == extract.DocInvoice:
		found = append(found, "an invoice title")
	default:
		found = append(found, "a title that names it "+docWord(title)+", not an invoice")
	}
	if marker != "" {
		found = append(found, "wording typical of "+docWord(marker))
	}
	return notInvoiceLooksFor + " In this document it found " + strings.Join(found, "; ") + ". " +
		"If it is an invoice, add what is missing and reprocess it with the corrected content; if not, submit the invoice itself."
}

func foundOrNot(ok bool, what string) string {
	if ok {
		return what
	}
	return "no " + strings.TrimPrefix(strings.TrimPrefix(what, "an "), "a ")
}
