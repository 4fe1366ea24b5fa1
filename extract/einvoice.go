package extract

import (
	"encoding/json"
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

// Flags of a result read from an e-invoice.
const (
	// FlagEInvoiceRulePrefix + rule (one of einvoice.DetailRules, e.g.
	// "einvoice_rule:BR-CO-10"): the e-invoice breaks a rule about its
	// details (its lines, the sums of its allowances and charges, its VAT
	// breakdown) while the amounts that decide the payment agree; it was
	// committed, and the reviewer sees which rule.
	FlagEInvoiceRulePrefix = "einvoice_rule:"
	// FlagEInvoiceDetailsOmitted: a detail the e-invoice states (its
	// lines, its VAT breakdown, its document charges, its due date or the
	// invoice it refers to) is not in the result, because it cannot be
	// committed as stated: an amount finer than the currency, a breakdown
	// that does not add up to the VAT, a due date before the issue date.
	// The XML keeps it; the amounts that decide the payment were committed.
	FlagEInvoiceDetailsOmitted = "einvoice_details_omitted"
)

// EInvoiceRuleFlag is the flag naming a broken detail rule.
func EInvoiceRuleFlag(rule string) string { return FlagEInvoiceRulePrefix + rule }

// EInvoiceFlags are the flags FromEInvoice may set: a small fixed set,
// content-free, for the console to describe.
func EInvoiceFlags() []string {
	out := []string{FlagEInvoiceDetailsOmitted}
	for _, r := range einvoice.DetailRules {
		out = append(out, EInvoiceRuleFlag(r))
	}
	return out
}

// FromEInvoice maps a parsed e-invoice onto the pipeline's result and
// returns the JSON of an Invoice, or a *Rejection. The invoice is judged
// by the rule set of its syntax and profile (einvoice's Check: EN 16931
// for UBL and CII, with XRechnung's rules where BT-24 names it, ZUGFeRD
// 1.0's own for ZUGFeRD 1.0), and the amounts that decide the payment
// decide. In this order, the first failure rejects:
//
//  1. a violated rule that is not about a detail (einvoice.Violation.Detail):
//     a term the profile requires, a malformed value, or the payment's own
//     arithmetic (net + VAT = gross, gross − paid + rounding = due) is
//     invalid_einvoice:<rule>, the first such rule;
//  2. the scalars (invalid_field:<field>): an invoice number as for any
//     extraction (IsInvoiceNumber: as printed, spaces included, "210111
//     mit LV"), a vendor as for any extraction, a calendar date, a
//     currency relayops trades in;
//  3. the amounts that decide the payment (BT-109, BT-110, BT-112, BT-113,
//     BT-114, BT-115) must be exact in the currency's minor unit: a value
//     with more decimals than the currency has (nonzero ones, "100.50"
//     JPY) is invalid_field:<field>, never rounded. Trailing zeros are not
//     information and go ("12.500" EUR is "12.50"). Negative amounts stay
//     negative, as the document states them;
//  4. the result, judged again as the validator judges any extraction
//     (ValidateExtraction of ExtractionOf), must commit: what a review's
//     corrections are put over must hold.
//
// A rule about a detail does not reject when the payment's amounts agree:
// the invoice is committed with the rule named in its flags
// (EInvoiceRuleFlag) and the fields it concerns toCheck in its Status,
// and a detail that cannot be committed as stated is
// left out of the result (FlagEInvoiceDetailsOmitted), never rounded or
// made up. The total without VAT is committed as the subtotal and the
// document charges that make it (see einvoiceMoney.net).
//
// A credit note (a UBL CreditNote, type 381, …) and a corrective invoice
// (384) are booked like invoices, with their type, direction and the
// invoice they refer to (BT-25). A rejection keeps the terms as the XML
// states them and the detail flags (Rejection.Extraction), so a person
// can correct what is wrong.
//
// The result carries the business terms and XML path of every field
// (Evidence, Source "einvoice"), the seller's identifiers (Seller) and
// Source{Extractor: "einvoice"}.
func FromEInvoice(inv *einvoice.Invoice) ([]byte, error) {
	vs := inv.Check()
	out, err := fromEInvoice(inv, vs)
	if r, ok := err.(*Rejection); ok {
		x := einvoiceExtraction(inv)
		x.Flags = detailFlags(vs)
		r.Extraction = &x
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// detailFlags name the violated rules about details, each once, in the
// order Check reports them.
func detailFlags(vs []einvoice.Violation) []string {
	var out []string
	for _, v := range vs {
		if f := EInvoiceRuleFlag(v.Rule); v.Detail() && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func fromEInvoice(inv *einvoice.Invoice, vs []einvoice.Violation) (*Invoice, error) {
	for _, v := range vs {
		if !v.Detail() {
			return nil, Reject(ReasonInvalidEInvoice + ":" + v.Rule)
		}
	}
	vendor := collapseSpace(inv.SellerName)
	if err := checkEInvoiceScalars(inv.Number, vendor, inv.IssueDate, inv.Currency); err != nil {
		return nil, err
	}
	m := einvoiceMoney{minor: currencyMinor[inv.Currency]}
	out := &Invoice{
		DocumentType: EInvoiceDocumentType(inv), InvoiceNumber: inv.Number, Vendor: vendor,
		IssueDate: inv.IssueDate, Currency: inv.Currency,
		Total:            m.amount(inv.TaxInclusive, "total"),
		Tax:              m.amount(orZero(inv.TaxTotal), "tax"),
		PaidAmount:       m.optional(inv.Prepaid, "paidAmount"),
		Rounding:         m.optional(inv.Rounding, "rounding"),
		AmountDue:        m.optional(inv.DueAmount, "amountDue"),
		DueDate:          inv.DueDate,
		OrderReference:   inv.OrderReference,
		PrecedingInvoice: collapseSpace(inv.PrecedingInvoice),
		SellerVATID:      inv.SellerVATID,
		Buyer:            collapseSpace(inv.BuyerName),
		IBAN:             compact(inv.IBAN),
		InvoiceTypeCode:  inv.TypeCode,
		Seller:           einvoiceSeller(inv),
		Source:           Source{Extractor: ExtractorEInvoice},
	}
	net := m.units(inv.TaxExclusive, "subtotal")
	third := m.thirdPartyPaid(inv)
	if m.err != nil {
		return nil, m.err
	}
	parts := m.net(inv, net)
	out.Subtotal, out.Charges = formatMinor(parts.subtotal, m.minor), parts.charges
	out.LineItems = m.lines(inv)
	out.TaxBreakdown = m.breakdown(inv)
	out.AccountingTax = m.accountingTax(inv)
	paidFrom := m.paid(inv, out, third)
	total, _ := parseMoney(out.Total, m.minor, "total", true)
	out.DocumentType, out.Direction = bookedType(out.DocumentType, total)
	out.SignedTotal = formatMinor(signedTotal(total, out.Direction), m.minor)
	out.Evidence = einvoiceEvidence(inv, out, parts, paidFrom)
	out.Flags = detailFlags(vs)
	if err := rejudge(out, m.omitted); err != nil {
		return nil, err
	}
	out.Status = einvoiceStatus(out, vs)
	return out, nil
}

// einvoiceStatus is FieldStatus, with the fields a broken detail rule
// concerns toCheck: the reviewer looks at those first.
func einvoiceStatus(out *Invoice, vs []einvoice.Violation) map[string]string {
	status := FieldStatus(out)
	for _, v := range vs {
		for _, f := range detailFields[v.Rule] {
			if _, ok := status[f]; ok {
				status[f] = StatusToCheck
			}
		}
	}
	return status
}

// detailFields are the committed fields each rule about a detail
// concerns: the reviewer checks those of a flagged rule.
var detailFields = map[string][]string{
	"BR-CO-10": {"lineItems", "subtotal"}, "BR-LIN-01": {"lineItems"}, "BR-LIN-03": {"lineItems"}, "BR-DEC-23": {"lineItems"},
	"BR-DEC-09": {"subtotal"}, "ZF1-LINE-TOTAL": {"lineItems", "subtotal"}, "ZF1-SUMS": {"subtotal", "charges"},
	"BR-CO-11": {"charges"}, "BR-CO-12": {"charges"}, "BR-DEC-01": {"charges"}, "BR-DEC-02": {"charges"},
	"BR-DEC-05": {"charges"}, "BR-DEC-06": {"charges"}, "BR-DEC-10": {"charges"}, "BR-DEC-11": {"charges"},
	"ZF1-ALLOWANCE-TOTAL": {"charges"}, "ZF1-CHARGE-TOTAL": {"charges"},
	"BR-CO-13": {"subtotal", "charges"}, "ZF1-TAX-BASIS": {"subtotal", "charges"},
	"BR-CO-14": {"taxBreakdown"}, "BR-CO-17": {"taxBreakdown"}, "BR-S-08": {"taxBreakdown"}, "BR-S-09": {"taxBreakdown"},
	"BR-DEC-19": {"taxBreakdown"}, "BR-DEC-20": {"taxBreakdown"},
	"ZF1-VAT": {"taxBreakdown"}, "ZF1-TAX-TOTAL": {"taxBreakdown"}, "ZF1-TAX-RATE": {"taxBreakdown"},
}

// omittable are the details a result may leave out when the validator
// cannot commit them as the e-invoice states them.
var omittable = []string{"lineItems", "taxBreakdown", "dueDate", "precedingInvoice", "accountingTax"}

// rejudge holds the result to what the validator commits: ExtractionOf
// the result, validated again, must pass, for a review's corrections are
// judged over it. A detail the validator refuses (a tax breakdown whose
// rate has a negative base on an invoice, a due date before the issue
// date) is left out and the result flagged FlagEInvoiceDetailsOmitted; any
// other refusal is the verdict. omitted says a detail was already left
// out.
func rejudge(out *Invoice, omitted bool) error {
	for range len(omittable) + 1 {
		_, err := ValidateExtraction(ExtractionOf(*out))
		r, ok := err.(*Rejection)
		if !ok {
			if omitted && !slices.Contains(out.Flags, FlagEInvoiceDetailsOmitted) {
				out.Flags = append(out.Flags, FlagEInvoiceDetailsOmitted)
			}
			return err
		}
		field := omittableField(r.Reason)
		if field == "" || !out.omit(field) {
			return Reject(r.Reason)
		}
		omitted = true
	}
	return Reject(ReasonTotalMismatch) // unreachable: each pass omits one more detail
}

// omittableField is the detail a validator's reason concerns, when it is
// one a result may leave out.
func omittableField(reason string) string {
	switch reason {
	case ReasonTaxMismatch:
		return "taxBreakdown"
	case ReasonLineMismatch, ReasonSubtotalMismatch:
		return "lineItems"
	}
	if _, f, ok := strings.Cut(reason, ":"); ok && slices.Contains(omittable, f) {
		return f
	}
	return ""
}

// omit leaves detail f (one of omittable) out of the result, and reports
// whether there was one to leave out.
func (inv *Invoice) omit(f string) bool {
	had := true
	switch f {
	case "lineItems":
		had, inv.LineItems = len(inv.LineItems) > 0, []LineItem{}
	case "taxBreakdown":
		had, inv.TaxBreakdown = len(inv.TaxBreakdown) > 0, nil
	case "dueDate":
		had, inv.DueDate = inv.DueDate != "", ""
	case "precedingInvoice":
		had, inv.PrecedingInvoice = inv.PrecedingInvoice != "", ""
	case "accountingTax":
		had, inv.AccountingTax = inv.AccountingTax != nil, nil
	default:
		return false
	}
	delete(inv.Evidence, f)
	return had
}

// einvoiceExtraction is what a rejected e-invoice keeps: its terms as the
// XML states them, for the person who corrects it.
func einvoiceExtraction(inv *einvoice.Invoice) Extraction {
	x := Extraction{
		DocumentType: EInvoiceDocumentType(inv), InvoiceNumber: strings.TrimSpace(inv.Number),
		Vendor: collapseSpace(inv.SellerName), IssueDate: inv.IssueDate, Currency: inv.Currency,
		Subtotal: inv.LineTotal, Tax: inv.TaxTotal, Total: inv.TaxInclusive, DueDate: inv.DueDate,
		PaidAmount: inv.Prepaid, Rounding: inv.Rounding, AmountDue: inv.DueAmount,
		PrecedingInvoice: collapseSpace(inv.PrecedingInvoice),
		Seller:           einvoiceSeller(inv), Source: Source{Extractor: ExtractorEInvoice},
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
	{"precedingInvoice", []string{"BT-25"}}, {"sellerVatId", []string{"BT-31"}}, {"buyer", []string{"BT-44"}},
	{"iban", []string{"BT-84"}}, {"paidAmount", []string{"BT-113"}}, {"amountDue", []string{"BT-115"}},
	{"invoiceTypeCode", []string{"BT-3"}},
}

// einvoiceEvidence says, per committed field, which business terms and
// which XML element it came from. A subtotal not BT-106 is BT-109 less the
// charges (computed when there are charges); charges from the stated
// totals are BT-107 and BT-108; a paid amount the payment's arithmetic
// needed is computed from the terms it was derived from (paidFrom); a tax
// the document does not state is BT-110 absent (zero), with no path.
func einvoiceEvidence(inv *einvoice.Invoice, out *Invoice, parts netParts, paidFrom string) map[string]Evidence {
	ev := map[string]Evidence{}
	present := map[string]bool{
		"dueDate": out.DueDate != "", "orderReference": out.OrderReference != "",
		"precedingInvoice": out.PrecedingInvoice != "", "sellerVatId": out.SellerVATID != "",
		"buyer": out.Buyer != "", "iban": out.IBAN != "", "paidAmount": out.PaidAmount != "",
		"amountDue": out.AmountDue != "",
	}
	for _, f := range einvoiceFields {
		if p, optional := present[f.field]; optional && !p {
			continue
		}
		ev[f.field] = Evidence{Source: EvidenceEInvoice, BusinessTerms: f.terms, Path: inv.Paths[f.terms[0]]}
	}
	if parts.from == "net" {
		ev["subtotal"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-109", "BT-107", "BT-108"},
			Path: inv.Paths["BT-109"], Computed: len(parts.charges) > 0}
	}
	switch paidFrom {
	case "BT-DEX-002":
		ev["paidAmount"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-113", "BT-DEX-002"}, Computed: true}
	case "BT-115":
		ev["paidAmount"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-112", "BT-115"}, Computed: true}
	}
	if len(out.LineItems) > 0 {
		ev["lineItems"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BG-25"}, Path: groupPath(inv.Paths["BG-25[1]"])}
	}
	switch {
	case len(out.Charges) > 0 && parts.from == "totals":
		ev["charges"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BT-107", "BT-108"}, Path: inv.Paths["BT-107"]}
	case len(out.Charges) > 0:
		ev["charges"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BG-20", "BG-21"}}
	}
	if len(out.TaxBreakdown) > 0 {
		ev["taxBreakdown"] = Evidence{Source: EvidenceEInvoice, BusinessTerms: []string{"BG-23"}, Path: groupPath(inv.Paths["BG-23[1]"])}
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
