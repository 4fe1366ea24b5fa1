package extract

// Document types a Classification names. The booked types (BookedTypes:
// an invoice, a credit note, a corrective invoice) are extracted and
// judged; any other is rejected with ReasonNotAnInvoice, its name saying
// what it looked like, for the signals and the evaluation, never for a
// decision.
const (
	DocInvoice    = "invoice"
	DocCreditNote = "creditNote"
	// DocCorrectiveInvoice corrects an earlier invoice (UNTDID 1001 code
	// 384, "Rechnungskorrektur", "faktura korygująca"): it may add to
	// what is owed or take back from it; its amounts say which.
	DocCorrectiveInvoice = "correctiveInvoice"
	DocReceipt           = "receipt"
	DocPurchaseOrder     = "purchase_order"
	DocQuote             = "quote"
	DocStatement         = "statement"
	DocOther             = "other"
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
// the document's own number format, and signed as the document prints them
// (see Invoice); dates are YYYY-MM-DD; the currency is an ISO 4217 code. An
// empty string means "not found".
type Extraction struct {
	// DocumentType is one of BookedTypes for a document to judge; any
	// other is not_an_invoice.
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
	// The payment terms after the total (EN 16931 BT-113 … BT-115):
	// AmountDue = Total − PaidAmount + Rounding when any is stated.
	PaidAmount string `json:"paidAmount,omitempty"`
	Rounding   string `json:"rounding,omitempty"`
	AmountDue  string `json:"amountDue,omitempty"`
	// TaxBreakdown is the tax per rate (BG-23), when the document states it.
	TaxBreakdown []TaxSubtotal `json:"taxBreakdown,omitempty"`
	// AccountingTax is the total tax stated in a second currency for the
	// buyer's books (BT-111): never part of the total.
	AccountingTax *AccountingTax `json:"accountingTax,omitempty"`
	// PrecedingInvoice is the invoice a credit note or corrective invoice
	// refers to (BT-25), as printed.
	PrecedingInvoice string `json:"precedingInvoice,omitempty"`
	// Seller are the issuer's identifiers read from the page (VAT id,
	// IBAN, registration ids, …): who sent it, not a field to judge.
	Seller []PartyID `json:"seller,omitempty"`
	// Problems are reason codes the extractor already knows apply (a date
	// it cannot read unambiguously, an amount it cannot parse). Validate
	// rejects with the first of them.
	Problems []string `json:"problems,omitempty"`
	// Source says who extracted the fields.
	Source Source `json:"source"`
	// Evidence says, per field found, where it came from (see
	// Invoice.Evidence).
	Evidence map[string]Evidence `json:"evidence,omitempty"`
	// Flags are the read's content-free notes (see the Flag constants),
	// carried with what a rejection keeps so a corrected version commits
	// them too.
	Flags []string `json:"flags,omitempty"`
}

// ExtractedLine is one line item as found. Amount is the line's stated
// amount when the document states one.
type ExtractedLine struct {
	Description string `json:"description,omitempty"`
	Quantity    string `json:"quantity,omitempty"`
	UnitPrice   string `json:"unitPrice,omitempty"`
	Amount      string `json:"amount,omitempty"`
}

// Charge is an amount between subtotal and total that is not tax: a
// document-level charge (BG-21) or allowance (BG-20, a discount).
type Charge struct {
	Kind   string `json:"kind"` // ChargeShipping, ChargeDiscount, ChargeFee, ChargeRounding
	Amount string `json:"amount"`
	// Reason is the charge's own words on the document ("Rabatt 3 %",
	// "Fracht"), or an operator's.
	Reason string `json:"reason,omitempty"`
}

// Charge kinds.
const (
	ChargeShipping = "shipping"
	ChargeDiscount = "discount"
	ChargeFee      = "fee"
	ChargeRounding = "rounding"
)

// TaxSubtotal is the tax of one rate (EN 16931 BG-23 VAT breakdown).
type TaxSubtotal struct {
	// Rate is the percentage ("19", "7.7", "0").
	Rate string `json:"rate"` // BT-119
	// TaxableAmount is the base the rate applies to, when stated.
	TaxableAmount string `json:"taxableAmount,omitempty"` // BT-116
	TaxAmount     string `json:"taxAmount"`               // BT-117
	// Category is the VAT category code (S, Z, E, AE, K, G, O, L, M).
	Category string `json:"category,omitempty"` // BT-118
}

// AccountingTax is the total tax in the currency the buyer books in
// (BT-111), stated beside the invoice currency's: information only.
type AccountingTax struct {
	Currency string `json:"currency"` // BT-6
	Amount   string `json:"amount"`   // BT-111
}

// PartyID is one identifier of a party as the document states it.
type PartyID struct {
	// Scheme is one of the ID* constants.
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

// Identifier schemes of a PartyID, strongest first: the order in which
// they identify a supplier.
const (
	IDVAT   = "vat"   // a VAT identifier with its country prefix (BT-31)
	IDTax   = "tax"   // another tax registration (BT-32: a Steuernummer, an ABN, a NIP)
	IDLegal = "legal" // a company registration (BT-30: HRB, SIREN/SIRET, KvK, IČO)
	IDGLN   = "gln"   // a GS1 global location number
	IDIBAN  = "iban"  // the account it asks to be paid to (BT-84)
	IDEmail = "email" // the domain of its e-mail address
)

// Source names the extractor of a result and, for a model, its cost.
type Source struct {
	Extractor        string `json:"extractor"` // "rules", "llm", "einvoice" (ExtractorEInvoice) or "correction"
	Model            string `json:"model,omitempty"`
	PromptTokens     int64  `json:"promptTokens,omitempty"`
	CompletionTokens int64  `json:"completionTokens,omitempty"`
}

// Invoice is the output of Validate: a booked document (an invoice, a
// credit note or a corrective invoice) that adds up. Amounts are decimal
// strings with exactly the currency's minor-unit digits ("912.40", "20420",
// "396.250"); money is never a float.
//
// The sign convention: amounts are as the document prints them (a credit
// note's usually positive, a corrective invoice's that takes money back
// usually negative) and the arithmetic holds on them as printed; Direction
// says which way the document moves money, and SignedTotal is the total
// with that sign: what the document adds to (debit) or takes from (credit)
// what the buyer owes the supplier.
type Invoice struct {
	DocumentType  string     `json:"documentType"` // one of BookedTypes
	Direction     string     `json:"direction"`    // DirectionDebit or DirectionCredit
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
	SignedTotal   string     `json:"signedTotal"`
	Source        Source     `json:"source"`

	// Fields a structured e-invoice states (EN 16931 business terms), and
	// that a text extractor or a correction fills when it reads them;
	// empty when unknown.
	DueDate          string         `json:"dueDate,omitempty"`          // BT-9
	OrderReference   string         `json:"orderReference,omitempty"`   // BT-13
	PrecedingInvoice string         `json:"precedingInvoice,omitempty"` // BT-25
	SellerVATID      string         `json:"sellerVatId,omitempty"`      // BT-31
	Buyer            string         `json:"buyer,omitempty"`            // BT-44
	IBAN             string         `json:"iban,omitempty"`             // BT-84
	PaidAmount       string         `json:"paidAmount,omitempty"`       // BT-113
	Rounding         string         `json:"rounding,omitempty"`         // BT-114
	AmountDue        string         `json:"amountDue,omitempty"`        // BT-115
	TaxBreakdown     []TaxSubtotal  `json:"taxBreakdown,omitempty"`     // BG-23
	AccountingTax    *AccountingTax `json:"accountingTax,omitempty"`    // BT-6, BT-111
	// InvoiceTypeCode is the UNTDID 1001 code of an e-invoice (BT-3: 380
	// commercial invoice, 381 credit note, …).
	InvoiceTypeCode string `json:"invoiceTypeCode,omitempty"`
	// Seller are the issuer's identifiers (Extraction.Seller).
	Seller []PartyID `json:"seller,omitempty"`

	// Evidence says, per committed field (the JSON names above:
	// "invoiceNumber", "total", …), where its value came from, for the
	// reviewer and the console.
	Evidence map[string]Evidence `json:"evidence,omitempty"`
	// Status says, per committed field, what vouches for its value (see
	// the Status constants and FieldStatus).
	Status map[string]string `json:"fieldStatus,omitempty"`
	// Flags are content-free notes on the result a reviewer must see (see
	// the Flag constants), e.g. a hybrid PDF whose visible total differs
	// from its XML.
	Flags []string `json:"flags,omitempty"`
}

// Directions of a booked document.
const (
	// DirectionDebit: the document adds to what the buyer owes (an
	// invoice; a corrective invoice that charges more).
	DirectionDebit = "debit"
	// DirectionCredit: the document takes from what the buyer owes (a
	// credit note; a corrective invoice that takes money back).
	DirectionCredit = "credit"
)

// Evidence is where one field's value came from. Every member is optional;
// a text extractor gives the page, line and label, an e-invoice its
// business terms and XML path.
type Evidence struct {
	// Source: "text" (a PDF's text layer or submitted text), "ocr",
	// "einvoice" (the structured XML), "model", "correction" (an operator),
	// "profile" (a supplier profile's anchor on the page).
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
	// Computed: no row of the document states the value; it was derived
	// (a subtotal as the sum of the lines, a tax of zero where none is
	// stated). A check that uses it vouches for nothing through it.
	Computed bool `json:"computed,omitempty"`
	// Profile names the supplier profile whose anchor found the value
	// ("<supplierId>@v<version>"), and Learned the job whose correction
	// or approval taught that anchor.
	Profile string `json:"profile,omitempty"`
	Learned string `json:"learned,omitempty"`
}

// Evidence sources.
const (
	EvidenceText       = "text"
	EvidenceOCR        = "ocr"
	EvidenceEInvoice   = "einvoice"
	EvidenceModel      = "model"
	EvidenceCorrection = "correction"
	// EvidenceProfile: read from the page where a supplier profile's
	// anchor points (Evidence.Profile names it).
	EvidenceProfile = "profile"
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
	// FlagTaxRateMismatch: a rate's stated tax is not its taxable amount
	// times its rate (beyond the rounding of its lines); the stated amounts,
	// which add up, were committed.
	FlagTaxRateMismatch = "tax_rate_mismatch"
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
