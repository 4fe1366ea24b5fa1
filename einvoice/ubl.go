package einvoice

import "encoding/xml"

// UBL 2.1 namespaces.
const (
	nsUBLInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsCAC           = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsCBC           = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

var ublNS = map[string]string{"cac": nsCAC, "cbc": nsCBC}

// ublSeller is the seller's party, where the seller's terms start.
const ublSeller = "cac:AccountingSupplierParty/cac:Party/"

// BT-29 seller identifiers, each with its scheme (BT-29-1).
var ublSellerIDs = group[Identifier]{
	term: "BT-29",
	srcs: []string{ublSeller + "cac:PartyIdentification/cbc:ID"},
	fields: []field[Identifier]{
		{term: "BT-29", src: ".", at: func(i *Identifier) *string { return &i.ID }},
		{term: "BT-29-1", src: "@schemeID", at: func(i *Identifier) *string { return &i.Scheme }},
	},
}

// The EN 16931 UBL binding (CEN/TS 16931-3-2), one row per business term.
// A CreditNote differs from an Invoice only in CreditNoteTypeCode,
// CreditNoteLine and CreditedQuantity, and in stating its due date under
// the payment means; the rows for both are listed, first found wins.
var ublHeader = []field[Invoice]{
	// BT-24 specification identifier
	{term: "BT-24", src: "cbc:CustomizationID", at: func(i *Invoice) *string { return &i.Specification }},
	// BT-1 invoice number
	{term: "BT-1", src: "cbc:ID", at: func(i *Invoice) *string { return &i.Number }},
	// BT-2 invoice issue date
	{term: "BT-2", src: "cbc:IssueDate", kind: date, at: func(i *Invoice) *string { return &i.IssueDate }},
	// BT-3 invoice type code
	{term: "BT-3", src: "cbc:InvoiceTypeCode", at: func(i *Invoice) *string { return &i.TypeCode }},
	{term: "BT-3", src: "cbc:CreditNoteTypeCode", at: func(i *Invoice) *string { return &i.TypeCode }},
	// BT-5 invoice currency code
	{term: "BT-5", src: "cbc:DocumentCurrencyCode", at: func(i *Invoice) *string { return &i.Currency }},
	// BT-6 VAT accounting currency code
	{term: "BT-6", src: "cbc:TaxCurrencyCode", at: func(i *Invoice) *string { return &i.TaxCurrency }},
	// BT-9 payment due date
	{term: "BT-9", src: "cbc:DueDate", kind: date, at: func(i *Invoice) *string { return &i.DueDate }},
	{term: "BT-9", src: "cac:PaymentMeans/cbc:PaymentDueDate", kind: date, at: func(i *Invoice) *string { return &i.DueDate }},
	// BT-10 buyer reference
	{term: "BT-10", src: "cbc:BuyerReference", at: func(i *Invoice) *string { return &i.BuyerReference }},
	// BT-13 purchase order reference
	{term: "BT-13", src: "cac:OrderReference/cbc:ID", at: func(i *Invoice) *string { return &i.OrderReference }},
	// BT-25 preceding invoice reference
	{term: "BT-25", src: "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", at: func(i *Invoice) *string { return &i.PrecedingInvoice }},
	// BT-26 preceding invoice issue date
	{term: "BT-26", src: "cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate", kind: date, at: func(i *Invoice) *string { return &i.PrecedingIssueDate }},
	// BT-27 seller name: the registration name of the legal entity
	{term: "BT-27", src: ublSeller + "cac:PartyLegalEntity/cbc:RegistrationName", at: func(i *Invoice) *string { return &i.SellerName }},
	// BT-28 seller trading name
	{term: "BT-28", src: ublSeller + "cac:PartyName/cbc:Name", at: func(i *Invoice) *string { return &i.SellerTradingName }},
	// BT-30 seller legal registration identifier and BT-30-1 its scheme
	{term: "BT-30", src: ublSeller + "cac:PartyLegalEntity/cbc:CompanyID", at: func(i *Invoice) *string { return &i.SellerLegalID.ID }},
	{term: "BT-30-1", src: ublSeller + "cac:PartyLegalEntity/cbc:CompanyID/@schemeID", at: func(i *Invoice) *string { return &i.SellerLegalID.Scheme }},
	// BT-31 seller VAT identifier: the tax scheme "VAT" (BT-32 is the other one)
	{term: "BT-31", src: ublSeller + "cac:PartyTaxScheme[cac:TaxScheme/cbc:ID=VAT]/cbc:CompanyID", at: func(i *Invoice) *string { return &i.SellerVATID }},
	// BT-32 seller tax registration identifier: a tax scheme other than VAT
	{term: "BT-32", src: ublSeller + "cac:PartyTaxScheme[cac:TaxScheme/cbc:ID!=VAT]/cbc:CompanyID", at: func(i *Invoice) *string { return &i.SellerTaxID }},
	// BT-34 seller electronic address and BT-34-1 its scheme
	{term: "BT-34", src: ublSeller + "cbc:EndpointID", at: func(i *Invoice) *string { return &i.SellerEndpoint.ID }},
	{term: "BT-34-1", src: ublSeller + "cbc:EndpointID/@schemeID", at: func(i *Invoice) *string { return &i.SellerEndpoint.Scheme }},
	// BT-40 seller country code
	{term: "BT-40", src: ublSeller + "cac:PostalAddress/cac:Country/cbc:IdentificationCode", at: func(i *Invoice) *string { return &i.SellerCountry }},
	// BT-44 buyer name
	{term: "BT-44", src: "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", at: func(i *Invoice) *string { return &i.BuyerName }},
	// BT-55 buyer country code
	{term: "BT-55", src: "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode", at: func(i *Invoice) *string { return &i.BuyerCountry }},
	// BT-84 payment account identifier
	{term: "BT-84", src: "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID", at: func(i *Invoice) *string { return &i.IBAN }},
	// BT-106 sum of invoice line net amount
	{term: "BT-106", src: "cac:LegalMonetaryTotal/cbc:LineExtensionAmount", kind: amount, at: func(i *Invoice) *string { return &i.LineTotal }},
	// BT-107 sum of allowances on document level
	{term: "BT-107", src: "cac:LegalMonetaryTotal/cbc:AllowanceTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.AllowanceTotal }},
	// BT-108 sum of charges on document level
	{term: "BT-108", src: "cac:LegalMonetaryTotal/cbc:ChargeTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.ChargeTotal }},
	// BT-109 invoice total amount without VAT
	{term: "BT-109", src: "cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxExclusive }},
	// BT-110 invoice total VAT amount: the tax total in the invoice currency
	{term: "BT-110", src: "cac:TaxTotal/cbc:TaxAmount[@currencyID=$BT-5]", kind: amount, at: func(i *Invoice) *string { return &i.TaxTotal }},
	// BT-111 invoice total VAT amount in accounting currency
	{term: "BT-111", src: "cac:TaxTotal/cbc:TaxAmount[@currencyID=$BT-6]", kind: amount, at: func(i *Invoice) *string { return &i.TaxTotalTaxCurrency }},
	// BT-112 invoice total amount with VAT
	{term: "BT-112", src: "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxInclusive }},
	// BT-113 paid amount
	{term: "BT-113", src: "cac:LegalMonetaryTotal/cbc:PrepaidAmount", kind: amount, at: func(i *Invoice) *string { return &i.Prepaid }},
	// BT-114 rounding amount
	{term: "BT-114", src: "cac:LegalMonetaryTotal/cbc:PayableRoundingAmount", kind: amount, at: func(i *Invoice) *string { return &i.Rounding }},
	// BT-115 amount due for payment
	{term: "BT-115", src: "cac:LegalMonetaryTotal/cbc:PayableAmount", kind: amount, at: func(i *Invoice) *string { return &i.DueAmount }},
}

// BG-23 VAT breakdown.
var ublVAT = group[VATBreakdown]{
	term: "BG-23",
	srcs: []string{"cac:TaxTotal/cac:TaxSubtotal"},
	fields: []field[VATBreakdown]{
		// BT-116 VAT category taxable amount
		{term: "BT-116", src: "cbc:TaxableAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxableAmount }},
		// BT-117 VAT category tax amount
		{term: "BT-117", src: "cbc:TaxAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxAmount }},
		// BT-118 VAT category code
		{term: "BT-118", src: "cac:TaxCategory/cbc:ID", at: func(v *VATBreakdown) *string { return &v.Category }},
		// BT-119 VAT category rate
		{term: "BT-119", src: "cac:TaxCategory/cbc:Percent", kind: quantity, at: func(v *VATBreakdown) *string { return &v.Rate }},
		// BT-120 VAT exemption reason text
		{term: "BT-120", src: "cac:TaxCategory/cbc:TaxExemptionReason", at: func(v *VATBreakdown) *string { return &v.ExemptionReason }},
		// BT-121 VAT exemption reason code
		{term: "BT-121", src: "cac:TaxCategory/cbc:TaxExemptionReasonCode", at: func(v *VATBreakdown) *string { return &v.ExemptionCode }},
	},
}

// BG-20 document level allowances and BG-21 charges: cac:AllowanceCharge
// directly under the root (a line's own are BG-27/BG-28, not read).
var ublAllowances = allowanceGroup{
	indicator: "cbc:ChargeIndicator",
	group: group[AllowanceCharge]{
		term: "BG-20/BG-21",
		srcs: []string{"cac:AllowanceCharge"},
		fields: []field[AllowanceCharge]{
			// BT-92 / BT-99 document level allowance / charge amount
			{term: "BT-92/BT-99", src: "cbc:Amount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.Amount }},
			// BT-93 / BT-100 base amount
			{term: "BT-93/BT-100", src: "cbc:BaseAmount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.BaseAmount }},
			// BT-94 / BT-101 percentage
			{term: "BT-94/BT-101", src: "cbc:MultiplierFactorNumeric", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Percent }},
			// BT-95 / BT-102 VAT category code
			{term: "BT-95/BT-102", src: "cac:TaxCategory/cbc:ID", at: func(a *AllowanceCharge) *string { return &a.Category }},
			// BT-96 / BT-103 VAT rate
			{term: "BT-96/BT-103", src: "cac:TaxCategory/cbc:Percent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Rate }},
			// BT-97 / BT-104 reason
			{term: "BT-97/BT-104", src: "cbc:AllowanceChargeReason", at: func(a *AllowanceCharge) *string { return &a.Reason }},
			// BT-98 / BT-105 reason code
			{term: "BT-98/BT-105", src: "cbc:AllowanceChargeReasonCode", at: func(a *AllowanceCharge) *string { return &a.ReasonCode }},
		},
	},
}

// BG-25 invoice lines (only the top level: XRechnung's sub-invoice lines
// are parts of their parent line, whose amount already includes them).
var ublLines = group[Line]{
	term: "BG-25",
	srcs: []string{"cac:InvoiceLine", "cac:CreditNoteLine"},
	fields: []field[Line]{
		// BT-126 invoice line identifier
		{term: "BT-126", src: "cbc:ID", at: func(l *Line) *string { return &l.ID }},
		// BT-129 invoiced quantity
		{term: "BT-129", src: "cbc:InvoicedQuantity", kind: quantity, at: func(l *Line) *string { return &l.Quantity }},
		{term: "BT-129", src: "cbc:CreditedQuantity", kind: quantity, at: func(l *Line) *string { return &l.Quantity }},
		// BT-130 invoiced quantity unit of measure code
		{term: "BT-130", src: "cbc:InvoicedQuantity/@unitCode", at: func(l *Line) *string { return &l.Unit }},
		{term: "BT-130", src: "cbc:CreditedQuantity/@unitCode", at: func(l *Line) *string { return &l.Unit }},
		// BT-131 invoice line net amount
		{term: "BT-131", src: "cbc:LineExtensionAmount", kind: amount, at: func(l *Line) *string { return &l.NetAmount }},
		// BT-146 item net price
		{term: "BT-146", src: "cac:Price/cbc:PriceAmount", kind: quantity, at: func(l *Line) *string { return &l.NetPrice }},
		// BT-148 item gross price
		{term: "BT-148", src: "cac:Price/cac:AllowanceCharge/cbc:BaseAmount", kind: quantity, at: func(l *Line) *string { return &l.GrossPrice }},
		// BT-149 item price base quantity
		{term: "BT-149", src: "cac:Price/cbc:BaseQuantity", kind: quantity, at: func(l *Line) *string { return &l.BaseQuantity }},
		// BT-150 item price base quantity unit of measure code
		{term: "BT-150", src: "cac:Price/cbc:BaseQuantity/@unitCode", at: func(l *Line) *string { return &l.BaseUnit }},
		// BT-151 invoiced item VAT category code
		{term: "BT-151", src: "cac:Item/cac:ClassifiedTaxCategory/cbc:ID", at: func(l *Line) *string { return &l.Category }},
		// BT-152 invoiced item VAT rate
		{term: "BT-152", src: "cac:Item/cac:ClassifiedTaxCategory/cbc:Percent", kind: quantity, at: func(l *Line) *string { return &l.Rate }},
		// BT-153 item name
		{term: "BT-153", src: "cac:Item/cbc:Name", at: func(l *Line) *string { return &l.Name }},
	},
}

var ublInvoice = ublDef(UBLInvoice, xml.Name{Space: nsUBLInvoice, Local: "Invoice"})

var ublCreditNote = ublDef(UBLCreditNote, xml.Name{Space: nsUBLCreditNote, Local: "CreditNote"})

// ublDef builds one of the two UBL documents' tables. Each gets its own
// copies so the two compile independently.
func ublDef(s Syntax, root xml.Name) *syntaxDef {
	return &syntaxDef{
		syntax: s,
		root:   root,
		ns:     ublNS,
		header: clone(ublHeader),
		presence: []presence{
			{term: "BG-5", src: ublSeller + "cac:PostalAddress"},
			{term: "BG-8", src: "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"},
			{term: "BG-11", src: "cac:TaxRepresentativeParty"},
			{term: "BG-16", src: "cac:PaymentMeans"},
		},
		sellerIDs: group[Identifier]{term: ublSellerIDs.term, srcs: ublSellerIDs.srcs, fields: clone(ublSellerIDs.fields)},
		vat:       group[VATBreakdown]{term: ublVAT.term, srcs: ublVAT.srcs, fields: clone(ublVAT.fields)},
		allowances: allowanceGroup{indicator: ublAllowances.indicator, group: group[AllowanceCharge]{
			term: ublAllowances.term, srcs: ublAllowances.srcs, fields: clone(ublAllowances.fields)}},
		lines:      group[Line]{term: ublLines.term, srcs: ublLines.srcs, fields: clone(ublLines.fields)},
		thirdParty: "cac:PrepaidPayment/cbc:PaidAmount",
	}
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }
