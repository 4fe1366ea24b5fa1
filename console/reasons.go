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
	"taxIncluded":      "tax included",
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

// statusWords say what vouches for a value (extract.FieldStatus,
// extract.KeptStatus): the word shown beside it, a sign that carries the
// status without colour, and what it means, for the legend and the
// mark's title.
var statusWords = map[string]struct{ Word, Icon, Means string }{
	extract.StatusChecked: {"checked", "✓",
		"a check vouches for it: the e-invoice's XML states it, or the total's arithmetic ties it to other amounts the document states"},
	extract.StatusUnchecked: {"read, not checked", "○",
		"read from the document, but nothing proves it: compare it with the original"},
	extract.StatusToCheck: {"to check", "!",
		"a check fails on it, or OCR was unsure of its words, or its tax rate does not fit: look at it first"},
	extract.StatusComputed: {"computed", "=",
		"no row of the document states it: it was derived from other amounts"},
	extract.StatusCorrected: {"corrected", "✎",
		"a person gave it"},
}

// statuses are the marks in the legend's order.
var statuses = []string{extract.StatusToCheck, extract.StatusUnchecked, extract.StatusChecked,
	extract.StatusComputed, extract.StatusCorrected}

func statusWord(s string) string {
	if w, ok := statusWords[s]; ok {
		return w.Word
	}
	return s
}

func statusIcon(s string) string { return statusWords[s].Icon }

func statusMeans(s string) string { return statusWords[s].Means }

// typeWords name the booked document types.
var typeWords = map[string]string{
	extract.DocInvoice:           "invoice",
	extract.DocCreditNote:        "credit note",
	extract.DocCorrectiveInvoice: "corrective invoice",
}

// typeWord names a document type: a booked one in words, any other as
// it is.
func typeWord(t string) string {
	if w, ok := typeWords[t]; ok {
		return w
	}
	return t
}

// flagWords say what each flag of a result means for the person who
// approves it.
var flagWords = map[string]string{
	extract.FlagVisibleTotalMismatch: "the total printed on the PDF's page is not the total of the e-invoice it carries; " +
		"the e-invoice's (the legally binding XML) was taken: compare the two before approving",
	extract.FlagOCR: "some fields were read by OCR from an image of the page: compare them with the original",
	extract.FlagEInvoiceUnreadable: "the PDF carries an e-invoice that could not be read; " +
		"the fields were read from the visible page instead",
	extract.FlagTaxRateMismatch: "a rate's tax is not its taxable amount times its rate; " +
		"the stated amounts, which add up, were taken: check the tax per rate",
	extract.FlagEInvoiceDetailsOmitted: "some of the e-invoice's details (its lines, tax per rate, due date or the invoice it " +
		"refers to) could not be taken as its XML states them and are left out: the original keeps them",
}

// DescribeFlag returns a result's flag in words, and whether it is
// known. A flag that names an e-invoice rule ("<flag>:BR-CO-10") is an
// e-invoice committed although it breaks that rule, because the amounts
// that decide the payment agree.
func DescribeFlag(flag string) (string, bool) {
	if w, ok := flagWords[flag]; ok {
		return w, true
	}
	if _, rule, ok := strings.Cut(flag, ":"); ok && isEInvoiceRule(rule) {
		w, _ := einvoiceRule(rule)
		return "the e-invoice breaks " + w + "; the amounts that decide the payment agree, so it was taken: check it before approving", true
	}
	return "a note without a description in this console", false
}

// isEInvoiceRule reports whether rule names a business rule of an
// e-invoice standard (EN 16931's BR-*, or a rule its syntaxes add).
func isEInvoiceRule(rule string) bool {
	if slices.Contains(extract.EInvoiceRules, rule) {
		return true
	}
	for _, prefix := range []string{"BR-", "PEPPOL-", "ZF-", "UBL-", "CII-"} {
		if strings.HasPrefix(rule, prefix) && len(rule) > len(prefix) && len(rule) <= 32 {
			return true
		}
	}
	return false
}

func describeFlag(flag string) string {
	s, _ := DescribeFlag(flag)
	return s
}

// reasonHelp says, for the rejections a person finishes through the
// correction form, what usually went wrong and what to correct.
var reasonHelp = map[string]string{
	extract.ReasonTotalMismatch: "Charges and allowances count: a discount that the document offers but does not deduct " +
		"(an early-payment discount) or a fee read from another line makes the sum fail. Remove a row that was misread " +
		"with its remove box, and correct the amounts that were read wrongly.",
	extract.ReasonTaxMismatch: "The tax per rate must add up to the tax, and its taxable amounts (when given) to the net " +
		"amount plus charges. Correct the rows that were misread, or remove them: the tax alone is enough.",
	extract.ReasonAmountDueMismatch: "The amount due must be the total less what was paid plus the rounding. Correct the " +
		"amount paid, the rounding or the amount due, or empty those that were misread.",
	extract.ReasonNotAccepted: "This deployment books only some document types (the setting RELAYOPS_ACCEPT_DOCUMENTS). " +
		"If the document type was read wrongly, correct it below; if not, the document is handled outside relayops.",
}
