package extract

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/einvoice"
)

// ExtractorEInvoice names the extractor of a result read from a structured
// e-invoice (Source.Extractor).
const ExtractorEInvoice = "einvoice"

// creditNoteTypes are the UNTDID 1001 codes EN 16931 allows for a credit
// note (BT-3); every other code is an invoice of some kind (380
// commercial, 384 corrected, 389 self-billed, 877 construction, …).
var creditNoteTypes = []string{"81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532"}

// correctiveTypes are the codes of an invoice that corrects an earlier
// one (384 corrected invoice).
var correctiveTypes = []string{"384"}

// EInvoiceDocumentType classifies an e-invoice by its own statement, never
// its amounts: DocCreditNote for a UBL CreditNote or a credit note type
// code (381, …), DocCorrectiveInvoice for 384, DocInvoice otherwise. (An
// invoice whose total is negative is then booked as a credit note, as
// ValidateExtraction books any.)
func EInvoiceDocumentType(inv *einvoice.Invoice) string {
	switch {
	case inv.Syntax == einvoice.UBLCreditNote || slices.Contains(creditNoteTypes, inv.TypeCode):
		return DocCreditNote
	case slices.Contains(correctiveTypes, inv.TypeCode):
		return DocCorrectiveInvoice
	}
	return DocInvoice
}

// FromEInvoice maps a parsed e-invoice onto the pipeline's result and
// returns the JSON of an Invoice, or a *Rejection. It decides in this
// order, and rejects with the first failure:
//
//  1. the first violation of einvoice's Check is invalid_einvoice:<rule>;
//  2. the scalars (invalid_field:<field>): an invoice number as for any
//     extraction (IsInvoiceNumber: as printed, spaces included, "210111
//     mit LV"), a vendor as for any extraction, a calendar date, a
//     currency relayops trades in;
//  3. every amount must be exact in the currency's minor unit: a value
//     with more decimals than the currency has (nonzero ones, "100.50"
//     JPY) is invalid_field:<field>, never rounded. Trailing zeros are not
//     information and go ("12.500" EUR is "12.50"). Negative amounts stay
//     negative, as the document states them;
//  4. subtotal + charges + tax must be the total exactly (total_mismatch;
//     only a MINIMUM profile, whose own rules do not check it, can fail).
//
// A credit note (a UBL CreditNote, type 381, …) and a corrective invoice
// (384) are booked like invoices, with their type and direction (see
// Invoice). A rejection keeps the terms as the XML states them
// (Rejection.Extraction), so a person can correct what is wrong.
//
// The result carries the business terms and XML path of every field
// (Evidence, Source "einvoice") and Source{Extractor: "einvoice"}.
func FromEInvoice(inv *einvoice.Invoice) ([]byte, error) {
	out, err := fromEInvoice(inv)
	if r, ok := err.(*Rejection); ok {
		x := einvoiceExtraction(inv)
		r.Extraction = &x
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

func fromEInvoice(inv *einvoice.Invoice) (*Invoice, error) {
	if vs := inv.Check(); len(vs) > 0 {
		return nil, Reject(ReasonInvalidEInvoice + ":" + vs[0].Rule)
	}
	vendor := collapseSpace(inv.SellerName)
	if err := checkEInvoiceScalars(inv.Number, vendor, inv.IssueDate, inv.Currency); err != nil {
		return nil, err
	}
	m := einvoiceMoney{minor: currencyMinor[inv.Currency]}
	out := &Invoice{
		DocumentType: EInvoiceDocumentType(inv), InvoiceNumber: inv.Number, Vendor: vendor,
		IssueDate: inv.IssueDate, Currency: inv.Currency,
		Total:           m.amount(inv.TaxInclusive, "total"),
		Tax:             m.amount(orZero(inv.TaxTotal), "tax"),
		PaidAmount:      m.optional(inv.Prepaid, "paidAmount"),
		Rounding:        m.optional(inv.Rounding, "rounding"),
		AmountDue:       m.optional(inv.DueAmount, "amountDue"),
		DueDate:         inv.DueDate,
		OrderReference:  inv.OrderReference,
		SellerVATID:     inv.SellerVATID,
		Buyer:           collapseSpace(inv.BuyerName),
		IBAN:            strings.Join(strings.Fields(inv.IBAN), ""),
		InvoiceTypeCode: inv.TypeCode,
		Seller:          einvoiceSeller(inv),
		Source:          Source{Extractor: ExtractorEInvoice},
	}
	out.Charges = m.charges(inv)
	out.Subtotal = m.subtotal(inv)
	out.LineItems = m.lines(inv)
	out.TaxBreakdown = m.breakdown(inv)
	out.AccountingTax = m.accountingTax(inv)
	if m.err != nil {
		return nil, m.err
	}
	if err := m.balances(out); err != nil {
		return nil, err
	}
	total, _ := parseMoney(out.Total, m.minor, "total", true)
	out.DocumentType, out.Direction = bookedType(out.DocumentType, total)
	out.SignedTotal = formatMinor(signedTotal(total, out.Direction), m.minor)
	out.Evidence = einvoiceEvidence(inv, out)
	out.Status = FieldStatus(out)
	return out, nil
}

// einvoiceSeller are the seller's identifiers the XML states.
func einvoiceSeller(inv *einvoice.Invoice) []PartyID {
	var out []PartyID
	if v := strings.Join(strings.Fields(inv.SellerVATID), ""); v != "" {
		out = append(out, PartyID{Scheme: IDVAT, ID: v})
	}
	if v := strings.Join(strings.Fields(inv.IBAN), ""); v != "" {
		out = append(out, PartyID{Scheme: IDIBAN, ID: v})
	}
	return out
}

// einvoiceExtraction is what a rejected e-invoice keeps: its terms as the
// XML states them, for the person who corrects it.
func einvoiceExtraction(inv *einvoice.Invoice) Extraction {
	x := Extraction{
		DocumentType: EInvoiceDocumentType(inv), InvoiceNumber: strings.TrimSpace(inv.Number),
		Vendor: collapseSpace(inv.SellerName), IssueDate: inv.IssueDate, Currency: inv.Currency,
		Subtotal: inv.LineTotal, Tax: inv.TaxTotal, Total: inv.TaxInclusive, DueDate: inv.DueDate,
		PaidAmount: inv.Prepaid, Rounding: inv.Rounding, AmountDue: inv.DueAmount,
		Seller: einvoiceSeller(inv), Source: Source{Extractor: ExtractorEInvoice},
	}
	for _, a := range inv.Allowances {
		x.Charges = append(x.Charges, Charge{Kind: ChargeDiscount, Amount: a.Amount, Reason: collapseSpace(a.Reason)})
	}
	for _, c := range inv.Charges {
		x.Charges = append(x.Charges, Charge{Kind: chargeKind(c), Amount: c.Amount, Reason: collapseSpace(c.Reason)})
	}
	for _, v := range inv.VAT {
		x.TaxBreakdown = append(x.TaxBreakdown, TaxSubtotal{Rate: v.Rate, TaxableAmount: v.TaxableAmount, TaxAmount: v.TaxAmount, Category: v.Category})
	}
	for _, l := range inv.Lines {
		if l.Counted() && len(x.LineItems) < maxLineItems {
			x.LineItems = append(x.LineItems, ExtractedLine{Description: collapseSpace(l.Name), Quantity: l.Quantity, Amount: l.NetAmount})
		}
	}
	x.Evidence = map[string]Evidence{}
	for _, f := range einvoiceFields {
		if p := inv.Paths[f.terms[0]]; p != "" {
			x.Evidence[f.field] = Evidence{Source: EvidenceEInvoice, BusinessTerms: f.terms, Path: p}
		}
	}
	return x
}

func checkEInvoiceScalars(number, vendor, date, currency string) error {
	invalid := func(field string) error { return Reject(FieldReason(ReasonInvalidField, field)) }
	if !IsInvoiceNumber(number) {
		return invalid("invoiceNumber")
	}
	if !printedText(vendor, maxVendorRunes) {
		return invalid("vendor")
	}
	if d, err := time.Parse(time.DateOnly, date); err != nil || d.Format(time.DateOnly) != date {
		return invalid("issueDate")
	}
	if _, ok := currencyMinor[currency]; !ok {
		return invalid("currency")
	}
	return nil
}

// einvoiceMoney converts stated amounts to the currency's precision,
// remembering the first failure (so the mapping reads straight through).
type einvoiceMoney struct {
	minor int
	err   error
}

func (m *einvoiceMoney) fail(field string) {
	if m.err == nil {
		m.err = Reject(FieldReason(ReasonInvalidField, field))
	}
}

// units returns s in minor units, exactly; a malformed or too precise
// value fails the field.
func (m *einvoiceMoney) units(s, field string) int64 {
	d, err := parseDecimal(s)
	if err != nil {
		m.fail(field)
		return 0
	}
	n, err := d.toMinor(m.minor)
	if err != nil {
		m.fail(field)
		return 0
	}
	return n
}

func (m *einvoiceMoney) amount(s, field string) string {
	return formatMinor(m.units(s, field), m.minor)
}

func (m *einvoiceMoney) optional(s, field string) string {
	if s == "" {
		return ""
	}
	return m.amount(s, field)
}

// charges are the document level allowances (discounts, negative) and
// charges (freight, UNTDID 7161 "FC", as shipping; any other as a fee).
func (m *einvoiceMoney) charges(inv *einvoice.Invoice) []Charge {
	var out []Charge
	for _, a := range inv.Allowances {
		out = append(out, Charge{Kind: ChargeDiscount, Amount: formatMinor(-m.units(a.Amount, "charges"), m.minor), Reason: chargeReason(a)})
	}
	for _, c := range inv.Charges {
		out = append(out, Charge{Kind: chargeKind(c), Amount: m.amount(c.Amount, "charges"), Reason: chargeReason(c)})
	}
	return out
}

// chargeKind is a document charge's kind: freight (UNTDID 7161 "FC") is
// shipping, any other a fee.
func chargeKind(c einvoice.AllowanceCharge) string {
	if strings.EqualFold(c.ReasonCode, "FC") {
		return ChargeShipping
	}
	return ChargeFee
}

// chargeReason is a charge's reason as the XML states it, when it is
// printable text of a reasonable length (else it is left out: the amount
// is what counts).
func chargeReason(c einvoice.AllowanceCharge) string {
	r := collapseSpace(c.Reason)
	if !printedText(r, maxChargeReasonRunes) {
		return ""
	}
	return r
}

// breakdown is the VAT breakdown (BG-23) in the currency's precision.
func (m *einvoiceMoney) breakdown(inv *einvoice.Invoice) []TaxSubtotal {
	var out []TaxSubtotal
	for _, v := range inv.VAT {
		if len(out) == maxTaxRates {
			return out
		}
		rate := v.Rate
		if d, err := parseDecimal(orZero(rate)); err == nil {
			rate = d.normalized().String()
		}
		out = append(out, TaxSubtotal{
			Rate: rate, TaxableAmount: m.optional(v.TaxableAmount, "taxBreakdown"),
			TaxAmount: m.amount(orZero(v.TaxAmount), "taxBreakdown"), Category: v.Category,
		})
	}
	return out
}

// accountingTax is BT-111 with its currency BT-6, when the invoice states
// its tax in a second currency.
func (m *einvoiceMoney) accountingTax(inv *einvoice.Invoice) *AccountingTax {
	if inv.TaxTotalTaxCurrency == "" || inv.TaxCurrency == "" || inv.TaxCurrency == inv.Currency {
		return nil
	}
	minor, ok := currencyMinor[inv.TaxCurrency]
	if !ok {
		return nil
	}
	d, err := parseDecimal(inv.TaxTotalTaxCurrency)
	if err != nil {
		return nil
	}
	n, err := d.toMinor(minor)
	if err != nil {
		return nil
	}
	return &AccountingTax{Currency: inv.TaxCurrency, Amount: formatMinor(n, minor)}
}

// subtotal is BT-106, the sum of the lines; a profile without it
// (Factur-X MINIMUM) gives BT-109 less the document charges.
func (m *einvoiceMoney) subtotal(inv *einvoice.Invoice) string {
	if inv.LineTotal != "" {
		return m.amount(inv.LineTotal, "subtotal")
	}
	n := m.units(inv.TaxExclusive, "subtotal")
	for _, c := range inv.Charges {
		n -= m.units(c.Amount, "charges")
	}
	for _, a := range inv.Allowances {
		n += m.units(a.Amount, "charges")
	}
	return formatMinor(n, m.minor)
}

// balances checks subtotal + charges + tax = total in minor units.
func (m *einvoiceMoney) balances(out *Invoice) error {
	sum := m.units(out.Subtotal, "subtotal") + m.units(out.Tax, "tax")
	for _, c := range out.Charges {
		sum += m.units(c.Amount, "charges")
	}
	if m.err != nil {
		return m.err
	}
	if sum != m.units(out.Total, "total") {
		return Reject(ReasonTotalMismatch)
	}
	return nil
}

// lines maps the lines that count in the sums (not an Extended profile's
// GROUP and INFORMATION lines).
func (m *einvoiceMoney) lines(inv *einvoice.Invoice) []LineItem {
	out := []LineItem{}
	for _, l := range inv.Lines {
		if !l.Counted() {
			continue
		}
		if len(out) == maxLineItems {
			m.fail("lineItems")
			return nil
		}
		out = append(out, m.line(l))
	}
	return out
}

func (m *einvoiceMoney) line(l einvoice.Line) LineItem {
	desc := collapseSpace(l.Name)
	qty, errQ := parseDecimal(l.Quantity)
	if len(desc) > maxDescriptionBytes || !printable(desc) || errQ != nil {
		m.fail("lineItems")
		return LineItem{}
	}
	return LineItem{
		Description: desc,
		Quantity:    qty.normalized().String(),
		UnitPrice:   unitPrice(l.NetPrice, l.BaseQuantity, m.minor),
		Amount:      m.amount(l.NetAmount, "lineItems"),
	}
}

// unitPrice is the price of one unit: the net price (BT-146) per its base
// quantity (BT-149, default 1), when that division is exact; "" when it
// is not (a price per 1000 that does not divide into a finite decimal of
// at most 12 places). Never rounded.
func unitPrice(price, base string, minor int) string {
	p, err := parseDecimal(price)
	if err != nil {
		return ""
	}
	p = p.normalized()
	if base != "" {
		b, err := parseDecimal(base)
		if err != nil || b.units <= 0 {
			return ""
		}
		var ok bool
		if p, ok = divideExact(p, b.normalized()); !ok {
			return ""
		}
	}
	return priceString(p, minor)
}

// divideExact returns p / b when it is a decimal of at most 12 places.
func divideExact(p, b decimal) (decimal, bool) {
	const places = 12
	num := new(big.Int).Mul(big.NewInt(p.units), pow10(places+b.scale))
	den := new(big.Int).Mul(big.NewInt(b.units), pow10(p.scale))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 || !q.IsInt64() {
		return decimal{}, false
	}
	return decimal{units: q.Int64(), scale: places}.normalized(), true
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// collapseSpace turns runs of white space (an XML name's line breaks and
// indentation) into single spaces.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// einvoiceFields are the committed fields and the business terms each is
// read from, in the order the evidence is written.
var einvoiceFields = []struct {
	field string
	terms []string
}{
	{"invoiceNumber", []string{"BT-1"}}, {"vendor", []string{"BT-27"}}, {"issueDate", []string{"BT-2"}},
	{"currency", []string{"BT-5"}}, {"subtotal", []string{"BT-106"}}, {"tax", []string{"BT-110"}},
	{"total", []string{"BT-112"}}, {"dueDate", []string{"BT-9"}}, {"orderReference", []string{"BT-13"}},
	{"sellerVatId", []string{"BT-31"}}, {"buyer", []string{"BT-44"}}, {"iban", []string{"BT-84"}},
	{"paidAmount", []string{"BT-113"}}, {"amountDue", []string{"BT-115"}}, {"invoiceTypeCode", []string{"BT-3"}},
}

// einvoiceEvidence says, per committed field, which business terms and
// which XML element it came from. A subtotal without BT-106 came from
// BT-109 and the charges; a tax the document does not state is BT-110
// absent (zero), with no path.
func einvoiceEvidence(inv *einvoice.Invoice, out *Invoice) map[string]Evidence {
	ev := map[string]Evidence{}
	present := map[string]bool{
		"dueDate": out.DueDate != "", "orderReference": out.OrderReference != "",
		"sellerVatId": out.SellerVATID != "", "buyer": out.Buyer != "", "iban": out.IBAN != "",
		"paidAmount": out.PaidAmount != "", "amountDue": out.AmountDue != "",
	}
	for _, f := range einvoiceFields {
		if p, optional := present[f.field]; optional && !p {
			continue
		}
		terms := f.terms
		if f.field == "subtotal" && inv.LineTotal == "" {
			terms = []string{"BT-109", "BT-107", "BT-108"}
		}
		ev[f.field] = Evidence{Source: EvidenceEInvoice, BusinessTerms: terms, Path: inv.Paths[terms[0]]}
	}
	if len(out.LineItems) > 0 {
		ev["lineItems"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BG-25"}, Path: groupPath(inv.Paths["BG-25[1]"])}
	}
	if len(out.Charges) > 0 {
		ev["charges"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BG-20", "BG-21"}}
	}
	return ev
}

// groupPath is a repeated group's path without the position of its first
// element: /Invoice/cac:InvoiceLine[1] → /Invoice/cac:InvoiceLine.
func groupPath(p string) string {
	if i := strings.LastIndex(p, "["); i > strings.LastIndex(p, "/") {
		return p[:i]
	}
	return p
}
