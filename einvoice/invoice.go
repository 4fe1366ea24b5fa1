// Package einvoice reads structured electronic invoices into one type whose
// fields are the business terms of the European standard EN 16931 (BT-1 the
// invoice number, BT-112 the total with VAT, BG-25 the lines, …), and checks
// them by the rules of their own syntax and profile (Profile, Check):
// EN 16931's, XRechnung's where BT-24 names it, ZUGFeRD 1.0's own for
// ZUGFeRD 1.0.
//
// Three syntaxes are read, each through its own mapping table (ubl.go,
// cii.go, zugferd1.go):
//
//   - UBL 2.1 Invoice and CreditNote (Peppol BIS Billing 3.0, XRechnung UBL);
//   - UN/CEFACT Cross Industry Invoice D16B (rsm:CrossIndustryInvoice):
//     XRechnung CII and the Factur-X / ZUGFeRD 2.x profiles;
//   - ZUGFeRD 1.0 (rsm:CrossIndustryDocument), which predates EN 16931 and
//     maps onto the same terms.
//
// Values are kept as written: amounts and quantities are canonical decimal
// strings with every digit the document states ("1234.50" stays
// "1234.50"), never floats; dates are YYYY-MM-DD; codes and names are
// trimmed. A term the document does not state is "". Parse does not judge;
// Check does.
//
// The XML is read with encoding/xml, which resolves no external entity;
// on top of it Parse refuses any DOCTYPE and bounds size, depth and element
// count (see MaxBytes), so a hostile file costs bounded time and memory.
package einvoice

// Syntax is the XML syntax of an e-invoice.
type Syntax string

// The syntaxes Parse reads.
const (
	UBLInvoice    Syntax = "ubl-invoice"    // UBL 2.1 Invoice
	UBLCreditNote Syntax = "ubl-creditnote" // UBL 2.1 CreditNote
	CII           Syntax = "cii"            // UN/CEFACT CII D16B (Factur-X, ZUGFeRD 2.x, XRechnung CII)
	ZUGFeRD1      Syntax = "zugferd1"       // ZUGFeRD 1.0 CrossIndustryDocument
)

// Invoice is an e-invoice's business terms. The comments name each term
// as EN 16931 does.
type Invoice struct {
	Syntax Syntax

	Specification  string // BT-24 specification identifier (the CIUS or profile URN)
	Number         string // BT-1 invoice number
	IssueDate      string // BT-2 invoice issue date, YYYY-MM-DD
	TypeCode       string // BT-3 invoice type code (UNTDID 1001: 380 invoice, 381 credit note, …)
	Currency       string // BT-5 invoice currency code (ISO 4217)
	TaxCurrency    string // BT-6 VAT accounting currency code
	DueDate        string // BT-9 payment due date, YYYY-MM-DD
	BuyerReference string // BT-10 buyer reference
	OrderReference string // BT-13 purchase order reference

	PrecedingInvoice   string // BT-25 preceding invoice reference (the invoice a credit note or correction refers to)
	PrecedingIssueDate string // BT-26 preceding invoice issue date, YYYY-MM-DD

	SellerName        string       // BT-27 seller name: the legal name, not BT-28
	SellerTradingName string       // BT-28 seller trading name
	SellerIDs         []Identifier // BT-29 seller identifier, with its scheme (ISO 6523 ICD: 0088 GLN, …)
	SellerLegalID     Identifier   // BT-30 seller legal registration identifier, with its scheme
	SellerVATID       string       // BT-31 seller VAT identifier
	SellerTaxID       string       // BT-32 seller tax registration identifier (a national tax number)
	SellerEndpoint    Identifier   // BT-34 seller electronic address, with its scheme (EAS: EM e-mail, 0088 GLN, …)
	SellerCountry     string       // BT-40 seller country code
	BuyerName         string       // BT-44 buyer name
	BuyerCountry      string       // BT-55 buyer country code
	IBAN              string       // BT-84 payment account identifier (an IBAN or a proprietary id), as written

	Allowances []AllowanceCharge // BG-20 document level allowances
	Charges    []AllowanceCharge // BG-21 document level charges

	LineTotal           string // BT-106 sum of invoice line net amount
	AllowanceTotal      string // BT-107 sum of allowances on document level
	ChargeTotal         string // BT-108 sum of charges on document level
	TaxExclusive        string // BT-109 invoice total amount without VAT
	TaxTotal            string // BT-110 invoice total VAT amount (in the invoice currency)
	TaxTotalTaxCurrency string // BT-111 invoice total VAT amount in accounting currency
	TaxInclusive        string // BT-112 invoice total amount with VAT
	Prepaid             string // BT-113 paid amount
	Rounding            string // BT-114 rounding amount
	DueAmount           string // BT-115 amount due for payment
	// ThirdPartyPaid are XRechnung's third party payments (extension
	// BG-DEX-09, BT-DEX-002 third party payment amount, UBL
	// cac:PrepaidPayment): amounts paid to others that the amount due
	// includes (BR-DEX-09: BT-115 = BT-112 − BT-113 + BT-114 + Σ BT-DEX-002).
	ThirdPartyPaid []string

	VAT   []VATBreakdown // BG-23 VAT breakdown
	Lines []Line         // BG-25 invoice lines

	// Paths maps each business term found ("BT-112") to the XML element it
	// came from ("/Invoice/cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"),
	// written with the standard's usual prefixes whatever the document's
	// own. Repeated groups are keyed with their 1-based position: "BG-25[2]",
	// "BG-23[1]", "BG-20[1]", "BG-21[1]"; "BG-5" and "BG-8" are the seller's
	// and buyer's postal addresses, "BG-11" the seller's tax representative,
	// "BG-16" the payment instructions.
	Paths map[string]string
}

// Identifier is an identifier and the scheme it belongs to (an ISO 6523
// ICD such as 0088 for a GLN, or an EAS code such as EM for an e-mail
// address), as written; Scheme is "" when the document names none.
type Identifier struct {
	ID     string
	Scheme string
}

// VATBreakdown is one BG-23 VAT breakdown.
type VATBreakdown struct {
	TaxableAmount   string // BT-116 VAT category taxable amount
	TaxAmount       string // BT-117 VAT category tax amount
	Category        string // BT-118 VAT category code (S, Z, E, AE, K, G, O, L, M)
	Rate            string // BT-119 VAT category rate, percent
	ExemptionReason string // BT-120 VAT exemption reason text
	ExemptionCode   string // BT-121 VAT exemption reason code
}

// AllowanceCharge is one document level allowance (BG-20, the first term
// of each pair) or charge (BG-21, the second).
type AllowanceCharge struct {
	Charge     bool   // false: BG-20 allowance; true: BG-21 charge
	Amount     string // BT-92 / BT-99 amount
	BaseAmount string // BT-93 / BT-100 base amount
	Percent    string // BT-94 / BT-101 percentage
	Category   string // BT-95 / BT-102 VAT category code
	Rate       string // BT-96 / BT-103 VAT rate
	Reason     string // BT-97 / BT-104 reason
	ReasonCode string // BT-98 / BT-105 reason code (UNTDID 5189 / 7161)
}

// Line is one BG-25 invoice line.
type Line struct {
	ID           string // BT-126 invoice line identifier
	Quantity     string // BT-129 invoiced quantity
	Unit         string // BT-130 invoiced quantity unit of measure code
	NetAmount    string // BT-131 invoice line net amount
	NetPrice     string // BT-146 item net price
	GrossPrice   string // BT-148 item gross price
	BaseQuantity string // BT-149 item price base quantity
	BaseUnit     string // BT-150 item price base quantity unit of measure code
	Category     string // BT-151 invoiced item VAT category code
	Rate         string // BT-152 invoiced item VAT rate
	Name         string // BT-153 item name
	// Status is the Factur-X / ZUGFeRD Extended line status reason code
	// (ram:LineStatusReasonCode): "" or DETAIL for a line that counts in
	// the sums, GROUP or INFORMATION for a line that does not.
	Status string
	// Path is the line's element ("/Invoice/cac:InvoiceLine[2]").
	Path string
}
