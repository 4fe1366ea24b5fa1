package einvoice

import "encoding/xml"

// UN/CEFACT CII D16B namespaces.
const (
	nsCIIRSM = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
	nsCIIRAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
	nsCIIUDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"
	nsCIIQDT = "urn:un:unece:uncefact:data:standard:QualifiedDataType:100"
)

// The parts of a CII invoice the rows below start from.
const (
	ciiDoc       = "rsm:ExchangedDocument/"
	ciiTrade     = "rsm:SupplyChainTradeTransaction/"
	ciiAgreement = ciiTrade + "ram:ApplicableHeaderTradeAgreement/"
	ciiSettle    = ciiTrade + "ram:ApplicableHeaderTradeSettlement/"
	ciiTotals    = ciiSettle + "ram:SpecifiedTradeSettlementHeaderMonetarySummation/"
	ciiSeller    = ciiAgreement + "ram:SellerTradeParty/"
	ciiBuyer     = ciiAgreement + "ram:BuyerTradeParty/"
	ciiAccount   = ciiSettle + "ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/"
)

// The EN 16931 CII binding (CEN/TS 16931-3-3), one row per business term;
// Factur-X and ZUGFeRD 2.x profiles and XRechnung CII use the same paths.
var ciiHeader = []field[Invoice]{
	// BT-24 specification identifier
	{term: "BT-24", src: "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID", at: func(i *Invoice) *string { return &i.Specification }},
	// BT-1 invoice number
	{term: "BT-1", src: ciiDoc + "ram:ID", at: func(i *Invoice) *string { return &i.Number }},
	// BT-2 invoice issue date
	{term: "BT-2", src: ciiDoc + "ram:IssueDateTime/udt:DateTimeString", kind: date102, at: func(i *Invoice) *string { return &i.IssueDate }},
	// BT-3 invoice type code
	{term: "BT-3", src: ciiDoc + "ram:TypeCode", at: func(i *Invoice) *string { return &i.TypeCode }},
	// BT-5 invoice currency code
	{term: "BT-5", src: ciiSettle + "ram:InvoiceCurrencyCode", at: func(i *Invoice) *string { return &i.Currency }},
	// BT-6 VAT accounting currency code
	{term: "BT-6", src: ciiSettle + "ram:TaxCurrencyCode", at: func(i *Invoice) *string { return &i.TaxCurrency }},
	// BT-9 payment due date
	{term: "BT-9", src: ciiSettle + "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString", kind: date102, at: func(i *Invoice) *string { return &i.DueDate }},
	// BT-10 buyer reference
	{term: "BT-10", src: ciiAgreement + "ram:BuyerReference", at: func(i *Invoice) *string { return &i.BuyerReference }},
	// BT-13 purchase order reference
	{term: "BT-13", src: ciiAgreement + "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID", at: func(i *Invoice) *string { return &i.OrderReference }},
	// BT-25 preceding invoice reference
	{term: "BT-25", src: ciiSettle + "ram:InvoiceReferencedDocument/ram:IssuerAssignedID", at: func(i *Invoice) *string { return &i.PrecedingInvoice }},
	// BT-26 preceding invoice issue date
	{term: "BT-26", src: ciiSettle + "ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString", kind: date102, at: func(i *Invoice) *string { return &i.PrecedingIssueDate }},
	// BT-27 seller name (in CII the party's Name is the legal name)
	{term: "BT-27", src: ciiSeller + "ram:Name", at: func(i *Invoice) *string { return &i.SellerName }},
	// BT-28 seller trading name
	{term: "BT-28", src: ciiSeller + "ram:SpecifiedLegalOrganization/ram:TradingBusinessName", at: func(i *Invoice) *string { return &i.SellerTradingName }},
	// BT-30 seller legal registration identifier and BT-30-1 its scheme
	{term: "BT-30", src: ciiSeller + "ram:SpecifiedLegalOrganization/ram:ID", at: func(i *Invoice) *string { return &i.SellerLegalID.ID }},
	{term: "BT-30-1", src: ciiSeller + "ram:SpecifiedLegalOrganization/ram:ID/@schemeID", at: func(i *Invoice) *string { return &i.SellerLegalID.Scheme }},
	// BT-31 seller VAT identifier: scheme "VA" (scheme "FC" is BT-32)
	{term: "BT-31", src: ciiSeller + "ram:SpecifiedTaxRegistration/ram:ID[@schemeID=VA]", at: func(i *Invoice) *string { return &i.SellerVATID }},
	// BT-32 seller tax registration identifier
	{term: "BT-32", src: ciiSeller + "ram:SpecifiedTaxRegistration/ram:ID[@schemeID=FC]", at: func(i *Invoice) *string { return &i.SellerTaxID }},
	// BT-34 seller electronic address and BT-34-1 its scheme
	{term: "BT-34", src: ciiSeller + "ram:URIUniversalCommunication/ram:URIID", at: func(i *Invoice) *string { return &i.SellerEndpoint.ID }},
	{term: "BT-34-1", src: ciiSeller + "ram:URIUniversalCommunication/ram:URIID/@schemeID", at: func(i *Invoice) *string { return &i.SellerEndpoint.Scheme }},
	// BT-40 seller country code
	{term: "BT-40", src: ciiSeller + "ram:PostalTradeAddress/ram:CountryID", at: func(i *Invoice) *string { return &i.SellerCountry }},
	// BT-44 buyer name
	{term: "BT-44", src: ciiBuyer + "ram:Name", at: func(i *Invoice) *string { return &i.BuyerName }},
	// BT-55 buyer country code
	{term: "BT-55", src: ciiBuyer + "ram:PostalTradeAddress/ram:CountryID", at: func(i *Invoice) *string { return &i.BuyerCountry }},
	// BT-84 payment account identifier: the IBAN, else a proprietary id
	{term: "BT-84", src: ciiAccount + "ram:IBANID", at: func(i *Invoice) *string { return &i.IBAN }},
	{term: "BT-84", src: ciiAccount + "ram:ProprietaryID", at: func(i *Invoice) *string { return &i.IBAN }},
	// BT-106 sum of invoice line net amount
	{term: "BT-106", src: ciiTotals + "ram:LineTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.LineTotal }},
	// BT-107 sum of allowances on document level
	{term: "BT-107", src: ciiTotals + "ram:AllowanceTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.AllowanceTotal }},
	// BT-108 sum of charges on document level
	{term: "BT-108", src: ciiTotals + "ram:ChargeTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.ChargeTotal }},
	// BT-109 invoice total amount without VAT
	{term: "BT-109", src: ciiTotals + "ram:TaxBasisTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxExclusive }},
	// BT-110 invoice total VAT amount: the one in the invoice currency
	{term: "BT-110", src: ciiTotals + "ram:TaxTotalAmount[@currencyID?=$BT-5]", kind: amount, at: func(i *Invoice) *string { return &i.TaxTotal }},
	// BT-111 invoice total VAT amount in accounting currency
	{term: "BT-111", src: ciiTotals + "ram:TaxTotalAmount[@currencyID=$BT-6]", kind: amount, at: func(i *Invoice) *string { return &i.TaxTotalTaxCurrency }},
	// BT-112 invoice total amount with VAT
	{term: "BT-112", src: ciiTotals + "ram:GrandTotalAmount", kind: amount, at: func(i *Invoice) *string { return &i.TaxInclusive }},
	// BT-113 paid amount
	{term: "BT-113", src: ciiTotals + "ram:TotalPrepaidAmount", kind: amount, at: func(i *Invoice) *string { return &i.Prepaid }},
	// BT-114 rounding amount
	{term: "BT-114", src: ciiTotals + "ram:RoundingAmount", kind: amount, at: func(i *Invoice) *string { return &i.Rounding }},
	// BT-115 amount due for payment
	{term: "BT-115", src: ciiTotals + "ram:DuePayableAmount", kind: amount, at: func(i *Invoice) *string { return &i.DueAmount }},
}

// BT-29 seller identifiers: ram:ID (no scheme) and ram:GlobalID with its
// scheme (BT-29-1, e.g. 0088 for a GLN).
var ciiSellerIDs = group[Identifier]{
	term: "BT-29",
	srcs: []string{ciiSeller + "ram:ID", ciiSeller + "ram:GlobalID"},
	fields: []field[Identifier]{
		{term: "BT-29", src: ".", at: func(i *Identifier) *string { return &i.ID }},
		{term: "BT-29-1", src: "@schemeID", at: func(i *Identifier) *string { return &i.Scheme }},
	},
}

// BG-23 VAT breakdown.
var ciiVAT = group[VATBreakdown]{
	term: "BG-23",
	srcs: []string{ciiSettle + "ram:ApplicableTradeTax"},
	fields: []field[VATBreakdown]{
		// BT-116 VAT category taxable amount
		{term: "BT-116", src: "ram:BasisAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxableAmount }},
		// BT-117 VAT category tax amount
		{term: "BT-117", src: "ram:CalculatedAmount", kind: amount, at: func(v *VATBreakdown) *string { return &v.TaxAmount }},
		// BT-118 VAT category code
		{term: "BT-118", src: "ram:CategoryCode", at: func(v *VATBreakdown) *string { return &v.Category }},
		// BT-119 VAT category rate
		{term: "BT-119", src: "ram:RateApplicablePercent", kind: quantity, at: func(v *VATBreakdown) *string { return &v.Rate }},
		// BT-120 VAT exemption reason text
		{term: "BT-120", src: "ram:ExemptionReason", at: func(v *VATBreakdown) *string { return &v.ExemptionReason }},
		// BT-121 VAT exemption reason code
		{term: "BT-121", src: "ram:ExemptionReasonCode", at: func(v *VATBreakdown) *string { return &v.ExemptionCode }},
	},
}

// BG-20 document level allowances and BG-21 charges.
var ciiAllowances = allowanceGroup{
	indicator: "ram:ChargeIndicator/udt:Indicator",
	group: group[AllowanceCharge]{
		term: "BG-20/BG-21",
		srcs: []string{ciiSettle + "ram:SpecifiedTradeAllowanceCharge"},
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
			{term: "BT-96/BT-103", src: "ram:CategoryTradeTax/ram:RateApplicablePercent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Rate }},
			// BT-97 / BT-104 reason
			{term: "BT-97/BT-104", src: "ram:Reason", at: func(a *AllowanceCharge) *string { return &a.Reason }},
			// BT-98 / BT-105 reason code
			{term: "BT-98/BT-105", src: "ram:ReasonCode", at: func(a *AllowanceCharge) *string { return &a.ReasonCode }},
		},
	},
	logistics: group[AllowanceCharge]{
		term: "BG-21",
		srcs: []string{ciiSettle + "ram:SpecifiedLogisticsServiceCharge"},
		fields: []field[AllowanceCharge]{
			// BT-99 document level charge amount
			{term: "BT-99", src: "ram:AppliedAmount", kind: amount, at: func(a *AllowanceCharge) *string { return &a.Amount }},
			// BT-102 document level charge VAT category code
			{term: "BT-102", src: "ram:AppliedTradeTax/ram:CategoryCode", at: func(a *AllowanceCharge) *string { return &a.Category }},
			// BT-103 document level charge VAT rate
			{term: "BT-103", src: "ram:AppliedTradeTax/ram:RateApplicablePercent", kind: quantity, at: func(a *AllowanceCharge) *string { return &a.Rate }},
			// BT-104 document level charge reason
			{term: "BT-104", src: "ram:Description", at: func(a *AllowanceCharge) *string { return &a.Reason }},
		},
	},
}

// BG-25 invoice lines.
var ciiLines = group[Line]{
	term: "BG-25",
	srcs: []string{ciiTrade + "ram:IncludedSupplyChainTradeLineItem"},
	fields: []field[Line]{
		// BT-126 invoice line identifier
		{term: "BT-126", src: "ram:AssociatedDocumentLineDocument/ram:LineID", at: func(l *Line) *string { return &l.ID }},
		// BT-129 invoiced quantity
		{term: "BT-129", src: "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity", kind: quantity, at: func(l *Line) *string { return &l.Quantity }},
		// BT-130 invoiced quantity unit of measure code
		{term: "BT-130", src: "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity/@unitCode", at: func(l *Line) *string { return &l.Unit }},
		// BT-131 invoice line net amount
		{term: "BT-131", src: "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount", kind: amount, at: func(l *Line) *string { return &l.NetAmount }},
		// BT-146 item net price
		{term: "BT-146", src: "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount", kind: quantity, at: func(l *Line) *string { return &l.NetPrice }},
		// BT-148 item gross price
		{term: "BT-148", src: "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount", kind: quantity, at: func(l *Line) *string { return &l.GrossPrice }},
		// BT-149 item price base quantity
		{term: "BT-149", src: "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity", kind: quantity, at: func(l *Line) *string { return &l.BaseQuantity }},
		// BT-150 item price base quantity unit of measure code
		{term: "BT-150", src: "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity/@unitCode", at: func(l *Line) *string { return &l.BaseUnit }},
		// BT-151 invoiced item VAT category code
		{term: "BT-151", src: "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode", at: func(l *Line) *string { return &l.Category }},
		// BT-152 invoiced item VAT rate
		{term: "BT-152", src: "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent", kind: quantity, at: func(l *Line) *string { return &l.Rate }},
		// BT-153 item name
		{term: "BT-153", src: "ram:SpecifiedTradeProduct/ram:Name", at: func(l *Line) *string { return &l.Name }},
		// Extended profile: line status reason code (DETAIL, GROUP, INFORMATION)
		{term: "Extended", src: "ram:AssociatedDocumentLineDocument/ram:LineStatusReasonCode", at: func(l *Line) *string { return &l.Status }},
	},
}

var cii = &syntaxDef{
	syntax: CII,
	root:   xml.Name{Space: nsCIIRSM, Local: "CrossIndustryInvoice"},
	ns:     map[string]string{"rsm": nsCIIRSM, "ram": nsCIIRAM, "udt": nsCIIUDT, "qdt": nsCIIQDT},
	header: ciiHeader,
	presence: []presence{
		{term: "BG-5", src: ciiSeller + "ram:PostalTradeAddress"},
		{term: "BG-8", src: ciiBuyer + "ram:PostalTradeAddress"},
		{term: "BG-11", src: ciiAgreement + "ram:SellerTaxRepresentativeTradeParty"},
		{term: "BG-16", src: ciiSettle + "ram:SpecifiedTradeSettlementPaymentMeans"},
	},
	sellerIDs:  ciiSellerIDs,
	vat:        ciiVAT,
	allowances: ciiAllowances,
	lines:      ciiLines,
}
