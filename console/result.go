package console

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// resultView is a committed result as the job and review pages show it:
// what the document is and which way it moves money, its flags in words,
// and every field with what vouches for it.
type resultView struct {
	Type      string // the booked type's code
	TypeWord  string // "credit note"
	Credit    bool
	Direction string // "credit −179.99 GBP"
	// Preceding is the invoice a credit note or corrective invoice
	// corrects, as printed.
	Preceding string
	Flags     []flagView
	Header    []shownValue // vendor, number, dates, currency, corrected invoice
	Lines     []extract.LineItem
	LinesMark string
	Totals    []shownValue // subtotal, each charge, tax, total; then paid, rounding, due
	Rates     []extract.TaxSubtotal
	RatesMark string
	// Accounting is the tax in the buyer's accounting currency (BT-111).
	Accounting     string
	AccountingMark string
}

// shownValue is one value of a result with its status.
type shownValue struct {
	ID, Label, Value, Status string
	Total                    bool // the document's total: stands out
}

// flagView is one flag of a result, in words.
type flagView struct{ Code, Words string }

func flagsOf(codes []string) []flagView {
	out := make([]flagView, 0, len(codes))
	for _, f := range codes {
		out = append(out, flagView{Code: f, Words: describeFlag(f)})
	}
	return out
}

// newResultView builds the view of a committed result.
func newResultView(inv *extract.Invoice) *resultView {
	st := statusOf(inv)
	v := &resultView{Type: inv.DocumentType, TypeWord: typeWord(inv.DocumentType), Credit: inv.Direction == extract.DirectionCredit,
		Direction: directionText(inv), Preceding: inv.PrecedingInvoice, Flags: flagsOf(inv.Flags),
		Lines: inv.LineItems, LinesMark: st["lineItems"], Rates: inv.TaxBreakdown, RatesMark: st["taxBreakdown"]}
	header := []shownValue{
		{ID: "f-vendor", Label: "Vendor", Value: inv.Vendor, Status: st["vendor"]},
		{ID: "f-number", Label: "Invoice number", Value: inv.InvoiceNumber, Status: st["invoiceNumber"]},
		{ID: "f-preceding", Label: "Corrects invoice", Value: inv.PrecedingInvoice, Status: st["precedingInvoice"]},
		{ID: "f-date", Label: "Issue date", Value: inv.IssueDate, Status: st["issueDate"]},
		{ID: "f-due", Label: "Due date", Value: inv.DueDate, Status: st["dueDate"]},
		{ID: "f-currency", Label: "Currency", Value: inv.Currency, Status: st["currency"]},
	}
	for _, h := range header {
		if h.Value != "" || h.ID == "f-vendor" || h.ID == "f-number" || h.ID == "f-date" || h.ID == "f-currency" {
			v.Header = append(v.Header, h)
		}
	}
	v.Totals = append(v.Totals, shownValue{ID: "f-subtotal", Label: "Subtotal", Value: inv.Subtotal, Status: st["subtotal"]})
	for _, c := range inv.Charges {
		v.Totals = append(v.Totals, shownValue{Label: chargeLabel(c), Value: c.Amount, Status: st["charges"]})
	}
	if len(inv.Charges) == 0 && inv.Evidence["charges"].Source == extract.EvidenceCorrection {
		v.Totals = append(v.Totals, shownValue{ID: "f-charges", Label: "Charges and allowances",
			Value: "none: removed by a correction", Status: extract.StatusCorrected})
	}
	taxLabel := "Tax"
	if inv.TaxIncluded {
		taxLabel = "Tax (included in the prices)"
	}
	v.Totals = append(v.Totals,
		shownValue{ID: "f-tax", Label: taxLabel, Value: inv.Tax, Status: st["tax"]},
		shownValue{ID: "f-total", Label: "Total", Value: strings.TrimSpace(inv.Total + " " + inv.Currency), Status: st["total"], Total: true})
	for _, p := range []shownValue{
		{ID: "f-paid", Label: "Paid", Value: inv.PaidAmount, Status: st["paidAmount"]},
		{ID: "f-rounding", Label: "Rounding", Value: inv.Rounding, Status: st["rounding"]},
		{ID: "f-due-amount", Label: "Amount due", Value: inv.AmountDue, Status: st["amountDue"]},
	} {
		if p.Value != "" {
			v.Totals = append(v.Totals, p)
		}
	}
	if t := inv.AccountingTax; t != nil {
		v.Accounting, v.AccountingMark = strings.TrimSpace(t.Amount+" "+t.Currency), st["accountingTax"]
	}
	return v
}

// chargeLabel names a charge: its kind and, when stated, its words.
func chargeLabel(c extract.Charge) string {
	kind := c.Kind
	if kind == "" {
		kind = "charge"
	}
	label := strings.ToUpper(kind[:1]) + kind[1:]
	if c.Reason != "" {
		label += " (" + c.Reason + ")"
	}
	return label
}

// directionText says which way a document moves money, with its signed
// total: "credit −179.99 GBP", "debit 120.00 EUR".
func directionText(inv *extract.Invoice) string {
	d := inv.Direction
	if d == "" {
		d = extract.DirectionDebit // a result committed before results carried it
	}
	signed := inv.SignedTotal
	if signed == "" {
		signed = inv.Total
	}
	return d + " " + signedMoney(signed, inv.Currency)
}

// signedMoney is money with a true minus sign, which reads as one.
func signedMoney(amount, currency string) string {
	s := money(amount, currency)
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + rest
	}
	return s
}
