package einvoice

import "encoding/xml"

// ZUGFeRD 1.0 namespaces: its own root, and the CII 12/15 libraries.
const (
	nsZF1RSM = "urn:ferd:CrossIndustryDocument:invoice:1p0"
	nsZF1RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
	nsZF1UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15"
)

// The parts of a ZUGFeRD 1.0 invoice the rows below start from.
const (
	zf1Doc       = "rsm:HeaderExchangedDocument/"
	zf1Trade     = "rsm:SpecifiedSupplyChainTradeTransaction/"
	zf1Agreement = zf1Trade + "ram:ApplicableSupplyChainTradeAgreement/"
	zf1Settle    = zf1Trade + "ram:ApplicableSupplyChainTradeSettlement/"
	zf1Totals    = zf1Settle + "ram:SpecifiedTradeSettlementMonetarySummation/"
	zf1Seller    = zf1Agreement + "ram:SellerTradeParty/"
	zf1Buyer     = zf1Agreement + "ram:BuyerTradeParty/"
	zf1Account   = zf1Settle + "ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/"
)

// ZUGFeRD 1.0 predates EN 16931; its elements are mapped onto the terms
// they became in ZUGFeRD 2.0 (the FeRD migration tables). It has no
// rounding amount (BT-114), trading name (BT-28), tax currency (BT-6),
// preceding invoice reference (BT-25), legal registration (BT-30) or
// electronic address (BT-34).
var zf1Header = []field[Invoice]{
	// BT-24 specification identifier (the ZUGFeRD 1.0 profile URN)
	{term: "BT-24", src: "rsm:SpecifiedExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID", at: func(i *Invoice) *string { return &i.Specification }},
	// BT-1 invoice number
	{term: "BT-1", src: zf1Doc + "ram:ID", at: func(i *Invoice) *string { return &i.Number }},
	// BT-2 invoice issue date
	{term: "BT-2", src: zf1Doc + "ram:IssueDateTime/udt:DateTimeString", kind: date102, at: func(i *Invoice) *string { return &i.IssueDate }},
	// BT-3 invoice type code
	{term: "BT-3", src: zf1Doc + "ram:TypeCode", at: func(i *Invoice) *string { return &i.TypeCode }},
	// BT-5 invoice currency code; ZUGFeRD 1.0 also states it on every
	// total (@currencyID, which its Schematron requires), so a document
	// without InvoiceCurrencyCode still states its currency there.
	{term: "BT-5", src: zf1Settle + "ram:InvoiceCurrencyCode", at: func(i *Invoice) *string { return &i.Currency }},
	{term: "BT-5", src: zf1Totals + "ram:GrandTotalAmount/@currencyID", at: func(i *Invoice) *string { return &i.Currency }},
	{term: "BT-5", src: zf1Totals + "ram:TaxBasisTotalAmount/@currencyID", at: func(i *Invoice) *string { return &i.Currency }},
	// BT-9 payment due date
	{term: "BT-9", src: zf1Settle + "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString", kind: date102, at: func(i *Invoice) *string { return &i.DueDate }},
	// BT-10 buyer reference
	{term: "BT-10", src: zf1Agreement + "ram:BuyerReference", at: func(i *Invoice) *string { return &i.BuyerReference }},
	// BT-13 purchase order reference
	{term: "BT-13", src: zf1Agreement + "ram:BuyerOrderReferencedDocument/ram:ID", at: func(i *Invoice) *string { return &i.OrderReference }},
	// BT-27 seller name
	{term: "BT-27", src: zf1Seller + "ram:Name", at: func(i *Invoice) *string { return &i.SellerName }},
	// BT-31 seller VAT identifier: scheme "VA" (scheme "FC" is BT-32)
	{term: "BT-31", src: zf1Seller + "ram:SpecifiedTaxRegistration/ram:ID[@schemeID=VA]", at: func(i *Invoice) *string { return &i.SellerVATID }},
	// BT-32 seller tax registration identifier
	{term: "BT-32", src: zf1Seller + "ram:SpecifiedTaxRegistration/ram:ID[@schemeID=FC]", at: func(i *Invoice) *string { return &i.SellerTaxID }},
	// BT-40 seller country code
	{term: "BT-40", src: zf1Seller + "ram:PostalTradeAddress/ram:CountryID", at: func(i *Invoice) *string { return &i.SellerCountry }},
	// BT-44 buyer name
	{term: "BT-44", src: zf1Buyer + "ram:Name", at: func(i *Invoice) *string { return &i.BuyerName }},
	// BT-55 buyer country code
	{term: "BT-55", src: zf1Buyer + "ram:PostalTradeAddress/ram:CountryID", at: func(i *Invoice) *string { return &i.BuyerCountry }},
	// BT-84 payment account identifier
	{term: "BT-84", src: zf1Account + "ram:IBANID", at: func(i *Invoice) *string { return &i.IBAN }},
	{term: "BT-84", src: zf1Account + "ram:ProprietaryID", at: func(i *Invoice) *string { return &i.IBAN }},
	// BT-106 sum of invoice line net amount
	{term: "BT-106", src: zf1Totals + "ram:LineTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.LineTotal }},
	// BT-107 sum of allowances on document level
	{term: "BT-107", src: zf1Totals + "ram:AllowanceTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.AllowanceTotal }},
	// BT-108 sum of charges on document level
	{term: "BT-108", src: zf1Totals + "ram:ChargeTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.ChargeTotal }},
	// BT-109 invoice total amount without VAT
	{term: "BT-109", src: zf1Totals + "ram:TaxBasisTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxExclusive }},
	// BT-110 invoice total VAT amount
	{term: "BT-110", src: zf1Totals + "ram:TaxTotalAmount[@currencyID?=$BT-5]", kind: amount, at: func(i *Invoice) *string { return &i.TaxTotal }},
	// BT-112 invoice total amount with VAT
	{term: "BT-112", src: zf1Totals + "ram:GrandTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxInclusive }},
	// BT-113 paid amount
	{term: "BT-113", src: zf1Totals + "ram:TotalPrepaidAmount", kind: amount, at: func(i *Invoice) *string { return &i.Prepaid }},
	// BT-115 amount due for payment
	{term: "BT-115", src: zf1Totals + "ram:DuePayableAmount", kind: amount, at: func(i *Invoice) *string { return &i.DueAmount }},
}

// BT-29 seller identifiers: ram:ID (no scheme) and ram:GlobalID with its
// scheme (BT-29-1).
var zf1SellerIDs = group[Identifier]{
	term: "BT-29",
	srcs: []string{zf1Seller + "ram:ID", zf1Seller + "ram:GlobalID"},
	fields: []field[Identifier]{
		{term: "BT-29", src: ".", at: func(i *Identifier) *string { return &i.ID }},
		{term: "BT-29-1", src: "@schemeID", at: func(i *Identifier) *string { return &i.Scheme }},
	},
}

// BG-23 VAT breakdown.
var zf1VAT = group[VATBreakdown]{
	term: "BG-23",
	srcs: []string{zf1Settle + "ram:ApplicableTradeTax"},
	fields: []field[VATBreakdown]{
		// BT-116 VAT category taxable amount
		{term: "BT-116", src: "ram:BasisAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxableAmount }},
		// BT-117 VAT category tax amount
		{term: "BT-117", src: "ram:CalculatedAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxAmount }},
		// BT-118 VAT category code
		{term: "BT-118", src: "ram:CategoryCode", at: func(v *VATBreakdown) *string { return &v.Category }},
		// BT-119 VAT category rate
		{term: "BT-119", src: "ram:ApplicablePercent", kind: quantity, at: func(v *VATBreakdown) *string { return &v.Rate }},
		// BT-120 VAT exemption reason text
		{term: "BT-120", src: "ram:ExemptionReason", at: func(v *VATBreakdown) *string { return &v.ExemptionReason }},
	},
}

// BG-20 document level allowances and BG-21 charges, with the logistics
// service charges (shipping) as charges.
var zf1Allowances = allowanceGroup{
	indicator: "ram:ChargeIndicator/udt:Indicator",
	group: group[AllowanceCharge]{
		term: "BG-20/BG-21",
		srcs: []string{zf1Settle + "ram:SpecifiedTradeAllowanceCharge"},
		fields: []field[AllowanceCharge]{
			// BT-92 / BT-99 document level allowance / charge amount
			{term: "BT-92/BT-99", src: "ram:ActualAmount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.Amount }},
			// BT-93 / BT-100 base amount
			{term: "BT-93/BT-100", src: "ram:BasisAmount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.BaseAmount }},
			// BT-94 / BT-101 percentage
			{term: "BT-94/BT-101", src: "ram:CalculationPercent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Percent }},
			// BT-95 / BT-102 VAT category code
			{term: "BT-95/BT-102", src: "ram:CategoryTradeTax/ram:CategoryCode", at: func(a *AllowanceCharge) *string { return &a.Category }},
			// BT-96 / BT-103 VAT rate
			{term: "BT-96/BT-103", src: "ram:CategoryTradeTax/ram:ApplicablePercent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Rate }},
			// BT-97 / BT-104 reason
			{term: "BT-97/BT-104", src: "ram:Reason", at: func(a *AllowanceCharge) *string { return &a.Reason }},
			// BT-98 / BT-105 reason code
			{term: "BT-98/BT-105", src: "ram:ReasonCode", at: func(a *AllowanceCharge) *string { return &a.ReasonCode }},
		},
	},
	logistics: group[AllowanceCharge]{
		term: "BG-21",
		srcs: []string{zf1Settle + "ram:SpecifiedLogisticsServiceCharge"},
		fields: []field[AllowanceCharge]{
			// BT-99 document level charge amount
			{term: "BT-99", src: "ram:AppliedAmount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.Amount }},
			// BT-102 document level charge VAT category code
			{term: "BT-102", src: "ram:AppliedTradeTax/ram:CategoryCode", at: func(a *AllowanceCharge) *string { return &a.Category }},
			// BT-103 document level charge VAT rate
			{term: "BT-103", src: "ram:AppliedTradeTax/ram:ApplicablePercent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Rate }},
			// BT-104 document level charge reason
			{term: "BT-104", src: "ram:Description", at: func(a *AllowanceCharge) *string { return &a.Reason }},
		},
	},
}

// BG-25 invoice lines.
var zf1Lines = group[Line]{
	term: "BG-25",
	srcs: []string{zf1Trade + "ram:IncludedSupplyChainTradeLineItem"},
	fields: []field[Line]{
		// BT-126 invoice line identifier
		{term: "BT-126", src: "ram:AssociatedDocumentLineDocument/ram:LineID", at: func(l *Line) *string { return &l.ID }},
		// BT-129 invoiced quantity
		{term: "BT-129", src: "ram:SpecifiedSupplyChainTradeDelivery/ram:BilledQuantity", kind: quantity, at: func(l *Line) *string { return &l.Quantity }},
		// BT-130 invoiced quantity unit of measure code
		{term: "BT-130", src: "ram:SpecifiedSupplyChainTradeDelivery/ram:BilledQuantity/@unitCode", at: func(l *Line) *string { return &l.Unit }},
		// BT-131 invoice line net amount
		{term: "BT-131", src: "ram:SpecifiedSupplyChainTradeSettlement/ram:SpecifiedTradeSettlementMonetarySummation/ram:LineTotalAmount", kind: amount, at: func(l *Line) *string { return &l.NetAmount }},
		// BT-146 item net price
		{term: "BT-146", src: "ram:SpecifiedSupplyChainTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount", kind: quantity, at: func(l *Line) *string { return &l.NetPrice }},
		// BT-148 item gross price
		{term: "BT-148", src: "ram:SpecifiedSupplyChainTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount", kind: quantity, at: func(l *Line) *string { return &l.GrossPrice }},
		// BT-149 item price base quantity
		{term: "BT-149", src: "ram:SpecifiedSupplyChainTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity", kind: quantity, at: func(l *Line) *string { return &l.BaseQuantity }},
		// BT-150 item price base quantity unit of measure code
		{term: "BT-150", src: "ram:SpecifiedSupplyChainTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity/@unitCode", at: func(l *Line) *string { return &l.BaseUnit }},
		// BT-151 invoiced item VAT category code
		{term: "BT-151", src: "ram:SpecifiedSupplyChainTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode", at: func(l *Line) *string { return &l.Category }},
		// BT-152 invoiced item VAT rate
		{term: "BT-152", src: "ram:SpecifiedSupplyChainTradeSettlement/ram:ApplicableTradeTax/ram:ApplicablePercent", kind: quantity, at: func(l *Line) *string { return &l.Rate }},
		// BT-153 item name
		{term: "BT-153", src: "ram:SpecifiedTradeProduct/ram:Name", at: func(l *Line) *string { return &l.Name }},
	},
}

var zugferd1 = &syntaxDef{
	syntax: ZUGFeRD1,
	root:   xml.Name{Space: nsZF1RSM, Local: "CrossIndustryDocument"},
	ns:     map[string]string{"rsm": nsZF1RSM, "ram": nsZF1RAM, "udt": nsZF1UDT},
	header: zf1Header,
	presence: []presence{
		{term: "BG-5", src: zf1Seller + "ram:PostalTradeAddress"},
		{term: "BG-8", src: zf1Buyer + "ram:PostalTradeAddress"},
		{term: "BG-16", src: zf1Settle + "ram:SpecifiedTradeSettlementPaymentMeans"},
	},
	sellerIDs:     zf1SellerIDs,
	vat:           zf1VAT,
	allowances:    zf1Allowances,
	lines:         zf1Lines,
	dropNoteLines: true,
}
