package extract

// Document types a Classification names. A document that is not DocInvoice
// is rejected with ReasonNotAnInvoice; the other names say what it looked
// like, for the signals and the evaluation, never for a decision.
const (
	DocInvoice       = "invoice"
	DocReceipt       = "receipt"
	DocPurchaseOrder = "purchase_order"
	DocQuote         = "quote"
	DocStatement     = "statement"
	DocCreditNote    = "credit_note"
	DocOther         = "other"
	// DocDeferred: the classifier leaves the decision to the extract stage
	// (the model extractor classifies and extracts in one call).
	DocDeferred = "deferred"
)

// Classification is the output of Classify.
type Classification struct {
	DocumentType string `json:"documentType"`
	// Signals are short, content-free names of what decided it
	// ("title", "invoice_number_label", "total_label", …).
	Signals []string `json:"signals,omitempty"`
}

// Extraction is the output of Extract: the fields as found, normalised but
// not yet judged. Amounts are canonical decimal strings (an optional '-',
// digits, an optional '.' and digits: "1234.56", "-10.00", "912"), whatever
// the document's own number format; dates are YYYY-MM-DD; the currency is
// an ISO 4217 code. An empty string means "not found".
type Extraction struct {
	DocumentType  string          `json:"documentType"`
	InvoiceNumber string          `json:"invoiceNumber,omitempty"`
	Vendor        string          `json:"vendor,omitempty"`
	IssueDate     string          `json:"issueDate,omitempty"`
	Currency      string          `json:"currency,omitempty"`
	LineItems     []ExtractedLine `json:"lineItems,omitempty"`
	Subtotal      string          `json:"subtotal,omitempty"`
	// Charges are amounts between the subtotal and the total other than
	// tax: shipping, a discount (negative), a fee, rounding.
	Charges []Charge `json:"charges,omitempty"`
	// Tax is the sum of every tax line (VAT, GST, sales tax, …).
	Tax string `json:"tax,omitempty"`
	// TaxIncluded: the document states the tax as already included in the
	// prices and the total ("incl. VAT", "GST included"), so the total is
	// subtotal + charges, not subtotal + charges + tax.
	TaxIncluded bool   `json:"taxIncluded,omitempty"`
	Total       string `json:"total,omitempty"`
	DueDate     string `json:"dueDate,omitempty"` // not required; read, or given by a correction
	// Problems are reason codes the extractor already knows apply (a date
	// it cannot read unambiguously, an amount it cannot parse). Validate
	// rejects with the first of them.
	Problems []string `json:"problems,omitempty"`
	// Source says who extracted the fields.
	Source Source `json:"source"`
	// Evidence says, per field found, where it came from (see
	// Invoice.Evidence).
	Evidence map[string]Evidence `json:"evidence,omitempty"`
}

// ExtractedLine is one line item as found. Amount is the line's stated
// amount when the document states one.
type ExtractedLine struct {
	Description string `json:"description,omitempty"`
	Quantity    string `json:"quantity,omitempty"`
	UnitPrice   string `json:"unitPrice,omitempty"`
	Amount      string `json:"amount,omitempty"`
}

// Charge is an amount between subtotal and total that is not tax.
type Charge struct {
	Kind   string `json:"kind"` // ChargeShipping, ChargeDiscount, ChargeFee, ChargeRounding
	Amount string `json:"amount"`
}

// Charge kinds.
const (
	ChargeShipping = "shipping"
	ChargeDiscount = "discount"
	ChargeFee      = "fee"
	ChargeRounding = "rounding"
)

// Source names the extractor of a result and, for a model, its cost.
type Source struct {
	Extractor        string `json:"extractor"` // "rules", "llm" or "einvoice" (ExtractorEInvoice)
	Model            string `json:"model,omitempty"`
	PromptTokens     int64  `json:"promptTokens,omitempty"`
	CompletionTokens int64  `json:"completionTokens,omitempty"`
}

// Invoice is the output of Validate: a document that is an invoice and adds
// up. Amounts are decimal strings with exactly the currency's minor-unit
// digits ("912.40", "20420", "396.250"); money is never a float.
type Invoice struct {
	DocumentType  string     `json:"documentType"` // DocInvoice
	InvoiceNumber string     `json:"invoiceNumber"`
	Vendor        string     `json:"vendor"`
	IssueDate     string     `json:"issueDate"`
	Currency      string     `json:"currency"`
	LineItems     []LineItem `json:"lineItems"`
	Subtotal      string     `json:"subtotal"`
	Charges       []Charge   `json:"charges,omitempty"`
	Tax           string     `json:"tax"`
	TaxIncluded   bool       `json:"taxIncluded,omitempty"`
	Total         string     `json:"total"`
	Source        Source     `json:"source"`

	// Fields a structured e-invoice states (EN 16931 business terms), and
	// that a text extractor fills when it reads them; empty when unknown.
	DueDate        string `json:"dueDate,omitempty"`        // BT-9
	OrderReference string `json:"orderReference,omitempty"` // BT-13
	SellerVATID    string `json:"sellerVatId,omitempty"`    // BT-31
	Buyer          string `json:"buyer,omitempty"`          // BT-44
	IBAN           string `json:"iban,omitempty"`           // BT-84
	PaidAmount     string `json:"paidAmount,omitempty"`     // BT-113
	AmountDue      string `json:"amountDue,omitempty"`      // BT-115
	// InvoiceTypeCode is the UNTDID 1001 code of an e-invoice (BT-3: 380
	// commercial invoice, 381 credit note, …).
	InvoiceTypeCode string `json:"invoiceTypeCode,omitempty"`

	// Evidence says, per committed field (the JSON names above:
	// "invoiceNumber", "total", …), where its value came from, for the
	// reviewer and the console.
	Evidence map[string]Evidence `json:"evidence,omitempty"`
	// Flags are content-free notes on the result a reviewer must see (see
	// the Flag constants), e.g. a hybrid PDF whose visible total differs
	// from its XML.
	Flags []string `json:"flags,omitempty"`
}

// Evidence is where one field's value came from. Every member is optional;
// a text extractor gives the page, line and label, an e-invoice its
// business terms and XML path.
type Evidence struct {
	// Source: "text" (a PDF's text layer or submitted text), "ocr",
	// "einvoice" (the structured XML), "model", "correction" (an operator).
	Source string `json:"source,omitempty"`
	// Page and Line are 1-based positions in the read document.
	Page int `json:"page,omitempty"`
	Line int `json:"line,omitempty"`
	// Label is the label the value followed, as written ("Rechnungsnr.").
	Label string `json:"label,omitempty"`
	// BusinessTerms are the EN 16931 terms of an e-invoice value ("BT-112").
	BusinessTerms []string `json:"businessTerms,omitempty"`
	// Path is the XML element the value was read from.
	Path string `json:"path,omitempty"`
	// LowConfidence: OCR read some of the value's words below its
	// confidence threshold.
	LowConfidence bool `json:"lowConfidence,omitempty"`
}

// Evidence sources.
const (
	EvidenceText       = "text"
	EvidenceOCR        = "ocr"
	EvidenceEInvoice   = "einvoice"
	EvidenceModel      = "model"
	EvidenceCorrection = "correction"
)

// Flags of a result.
const (
	// FlagVisibleTotalMismatch: a hybrid PDF whose visible page states a
	// total that is not its XML's (BT-112); the XML, the legally binding
	// part, was committed.
	FlagVisibleTotalMismatch = "visible_total_mismatch"
	// FlagOCR: some committed fields were read by OCR.
	FlagOCR = "ocr"
	// FlagEInvoiceUnreadable: a hybrid PDF whose embedded e-invoice could
	// not be read; its visible text was read instead.
	FlagEInvoiceUnreadable = "einvoice_attachment_unreadable"
)

// LineItem is one validated line. Quantity is a decimal string ("3",
// "9.5"); Amount is in the currency's precision, UnitPrice in at least that
// precision (a unit price may be finer: "0.125"). A line that states only
// an amount is one unit at that price; UnitPrice is empty when the document
// gives a quantity and an amount but no price that divides it exactly.
type LineItem struct {
	Description string `json:"description"`
	Quantity    string `json:"quantity"`
	UnitPrice   string `json:"unitPrice"`
	Amount      string `json:"amount"`
}
