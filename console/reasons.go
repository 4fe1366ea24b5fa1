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
}

// einvoiceRules say what each rule an invalid_einvoice reason or an
// einvoice_rule flag may name checks (every rule of extract.EInvoiceRules;
// the console package test holds the table against them).
var einvoiceRules = map[string]string{
	"syntax": "it is not a readable UBL, CII or ZUGFeRD invoice, or a value in it is not of its type (an amount that is no number, an impossible date)",
	// EN 16931: required business terms
	"BR-01": "it states no specification identifier (BT-24)",
	"BR-02": "it states no invoice number (BT-1)",
	"BR-03": "it states no issue date (BT-2)",
	"BR-04": "it states no invoice type code (BT-3)",
	"BR-05": "it states no invoice currency (BT-5)",
	"BR-06": "it states no seller name (BT-27)",
	"BR-07": "it states no buyer name (BT-44)",
	"BR-08": "it states no seller postal address (BG-5)",
	"BR-09": "the seller's postal address has no country code (BT-40)",
	"BR-10": "it states no buyer postal address (BG-8)",
	"BR-11": "the buyer's postal address has no country code (BT-55)",
	"BR-12": "it states no sum of the line net amounts (BT-106)",
	"BR-13": "it states no total without VAT (BT-109)",
	"BR-14": "it states no total with VAT (BT-112)",
	"BR-15": "it states no amount due for payment (BT-115)",
	"BR-16": "it has no invoice line (BG-25)",
	// EN 16931: at most two decimals
	"BR-DEC-01": "a document allowance amount (BT-92) has more than two decimals",
	"BR-DEC-02": "a document allowance base amount (BT-93) has more than two decimals",
	"BR-DEC-05": "a document charge amount (BT-99) has more than two decimals",
	"BR-DEC-06": "a document charge base amount (BT-100) has more than two decimals",
	"BR-DEC-09": "the sum of the line net amounts (BT-106) has more than two decimals",
	"BR-DEC-10": "the allowance total (BT-107) has more than two decimals",
	"BR-DEC-11": "the charge total (BT-108) has more than two decimals",
	"BR-DEC-12": "the total without VAT (BT-109) has more than two decimals",
	"BR-DEC-13": "the VAT total (BT-110) has more than two decimals",
	"BR-DEC-14": "the total with VAT (BT-112) has more than two decimals",
	"BR-DEC-15": "the VAT total in the accounting currency (BT-111) has more than two decimals",
	"BR-DEC-16": "the paid amount (BT-113) has more than two decimals",
	"BR-DEC-17": "the rounding amount (BT-114) has more than two decimals",
	"BR-DEC-18": "the amount due (BT-115) has more than two decimals",
	"BR-DEC-19": "a VAT category's taxable amount (BT-116) has more than two decimals",
	"BR-DEC-20": "a VAT category's tax amount (BT-117) has more than two decimals",
	"BR-DEC-23": "a line net amount (BT-131) has more than two decimals",
	// EN 16931: lines and arithmetic
	"BR-LIN-01": "a line has no identifier (BT-126)",
	"BR-LIN-03": "a line has no net amount (BT-131)",
	"BR-CO-10":  "the sum of the line net amounts is not the stated line total (BT-106)",
	"BR-CO-11":  "the sum of the document allowances is not the stated allowance total (BT-107)",
	"BR-CO-12":  "the sum of the document charges is not the stated charge total (BT-108)",
	"BR-CO-13":  "the total without VAT (BT-109) is not lines − allowances + charges",
	"BR-CO-14":  "the VAT total (BT-110) is not the sum of the VAT breakdown",
	"BR-CO-15":  "the total with VAT (BT-112) is not the total without VAT plus the VAT",
	"BR-CO-16":  "the amount due (BT-115) is not the total with VAT − paid + rounding",
	"BR-CO-17":  "a VAT category's tax (BT-117) is not its taxable amount times its rate, within one currency unit",
	"BR-S-08":   "a standard rated VAT category's taxable amount (BT-116) is not the sum of its lines, allowances and charges",
	"BR-S-09":   "a standard rated VAT category's tax (BT-117) is not its taxable amount times its rate",
	// XRechnung
	"BR-DE-1":  "it states no payment instructions (BG-16)",
	"BR-DE-14": "a VAT breakdown states no rate (BT-119)",
	"BR-DE-15": "it states no buyer reference (BT-10, the Leitweg-ID)",
	"BR-DE-16": "it uses a taxed VAT category but names neither the seller's VAT identifier (BT-31), its tax number (BT-32) nor a tax representative (BG-11)",
	// ZUGFeRD 1.0
	"ZF1-NUMBER":          "it states no invoice number",
	"ZF1-DATE":            "it states no issue date",
	"ZF1-TYPE":            "it states no invoice type code",
	"ZF1-PROFILE":         "it states no ZUGFeRD profile (the guideline ID)",
	"ZF1-CURRENCY":        "it states no currency, neither as InvoiceCurrencyCode nor on its totals",
	"ZF1-SELLER":          "it states no seller name",
	"ZF1-BUYER":           "it states no buyer name",
	"ZF1-LINES":           "it has no invoice line",
	"ZF1-TOTALS":          "it does not state each of the total without VAT (TaxBasisTotalAmount), the VAT (TaxTotalAmount) and the total with VAT (GrandTotalAmount)",
	"ZF1-SUMS":            "it does not state each of the line total, the allowance total and the charge total",
	"ZF1-VAT":             "a VAT breakdown does not state its tax, its basis and its rate",
	"ZF1-LINE-TOTAL":      "the line total (LineTotalAmount) is not the sum of the lines' totals",
	"ZF1-ALLOWANCE-TOTAL": "the allowance total (AllowanceTotalAmount) is not the sum of the document allowances",
	"ZF1-CHARGE-TOTAL":    "the charge total (ChargeTotalAmount) is not the sum of the document and logistics charges",
	"ZF1-TAX-BASIS":       "the total without VAT (TaxBasisTotalAmount) is not the line total − allowances + charges",
	"ZF1-TAX-TOTAL":       "the VAT total (TaxTotalAmount) is not the sum of the VAT breakdown",
	"ZF1-TAX-RATE":        "a VAT breakdown's tax is not its basis times its rate, within one currency unit",
	"ZF1-GRAND-TOTAL":     "the total with VAT (GrandTotalAmount) is not the total without VAT plus the VAT",
	"ZF1-DUE":             "the amount due (DuePayableAmount) is not the total with VAT less the amount prepaid",
}

// einvoiceStandard names the rule set a rule belongs to.
func einvoiceStandard(rule string) string {
	switch {
	case strings.HasPrefix(rule, "ZF1-"):
		return "ZUGFeRD 1.0"
	case strings.HasPrefix(rule, "BR-DE-"):
		return "XRechnung"
	}
	return "EN 16931"
}

// einvoiceRule is a rule in words: "EN 16931 BR-CO-15: the total with
// VAT …"; ok is false for a rule without a sentence.
func einvoiceRule(rule string) (string, bool) {
	w, ok := einvoiceRules[rule]
	if !ok {
		return einvoiceStandard(rule) + " " + rule, false
	}
	return einvoiceStandard(rule) + " " + rule + ": " + w, true
}

// flagWords say what each flag of a result means (the extractor's flags
// and every flag extract.EInvoiceFlags lists; the console package test
// holds the table against them).
var flagWords = map[string]string{
	extract.FlagVisibleTotalMismatch:   "the hybrid PDF's visible page states a total that is not its XML's; the XML's, the legally binding one, was committed",
	extract.FlagOCR:                    "some fields were read by OCR from a scan",
	extract.FlagEInvoiceUnreadable:     "the hybrid PDF's embedded e-invoice could not be read; its visible text was read instead",
	extract.FlagTaxRateMismatch:        "a rate's tax is not its taxable amount times its rate; the stated amounts, which add up, were committed",
	extract.FlagEInvoiceDetailsOmitted: "some of the e-invoice's details (its lines, VAT breakdown, due date or the invoice it refers to) could not be committed as its XML states them and are not in the result; the XML keeps them",
}

// DescribeFlag returns a result's flag in words, and whether the flag is
// known; an einvoice_rule flag names its rule and says the invoice was
// committed because the amounts that decide the payment agree.
func DescribeFlag(flag string) (string, bool) {
	if s, ok := flagWords[flag]; ok {
		return s, true
	}
	if rule, ok := strings.CutPrefix(flag, extract.FlagEInvoiceRulePrefix); ok {
		w, known := einvoiceRule(rule)
		return "the e-invoice breaks " + w + "; it was committed because the amounts that decide the payment agree", known
	}
	return "unrecognised flag", false
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
	if ok && reason == extract.ReasonInvalidEInvoice {
		if field == "syntax" {
			return "the e-invoice cannot be read: " + einvoiceRules[field], true
		}
		w, known := einvoiceRule(field)
		return "the e-invoice breaks " + w, known
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
