// Package corpus is the evaluation corpus of the document extractors: a
// deterministic generator of invoices written the way suppliers write them,
// of documents that are not invoices and of invoices that do not add up,
// each with its ground truth; and a loader for hand-written documents with a
// ground-truth JSON file beside each.
//
// The truth follows these conventions, which an extractor is scored against:
//   - amounts are canonical decimal strings in the currency's precision
//     ("912.40", "20420", "396.250"), tax "0.00" when there is none;
//   - a line is a row of the items part with an amount; a shipping row inside
//     the item table, counted in the stated subtotal, is a line; shipping,
//     discounts and rounding stated between the subtotal and the total are
//     charges, not lines;
//   - the subtotal is the stated one, or the sum of the lines when the
//     document states none; the tax is the sum of every tax line;
//   - the issue date is the invoice's own date (an e-mail that dates its
//     invoice in the body may have been sent later);
//   - a document that must be rejected carries the reason code the pipeline
//     should give (not_an_invoice for every document that is not an invoice).
package corpus

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Layouts of the generated invoices.
const (
	// LayoutVendorBlock: plain text, the supplier's name and address on top,
	// labelled fields and an aligned item table.
	LayoutVendorBlock = "vendor-block"
	// LayoutTwoColumn: the customer block on the left, the invoice fields on
	// the right of the same lines.
	LayoutTwoColumn = "two-column"
	// LayoutLabelRow: a row of labels with the values on the line below.
	LayoutLabelRow = "label-row"
	// LayoutMarkdown: headings, bold labels and pipe tables.
	LayoutMarkdown = "markdown"
	// LayoutEmail: an e-mail with the invoice in its prose.
	LayoutEmail = "email"
	// LayoutContinental: a European business letter with continental numbers
	// and dates.
	LayoutContinental = "continental"
	// LayoutNumbered: numbered items, the description on one line and the
	// quantity, price and amount on the next.
	LayoutNumbered = "numbered"
	// LayoutBullets: inline bullet items ("- 3 x Widget @ $4.00 = $12.00").
	LayoutBullets = "bullets"
	// LayoutUSSalesTax: a US invoice with bill-to and ship-to, item numbers,
	// shipping and sales tax.
	LayoutUSSalesTax = "us-sales-tax"
	// LayoutBoxed: an ERP text export, the items and the totals inside one
	// ASCII box table.
	LayoutBoxed = "boxed"
)

// Kinds of document that are not invoices (Truth.Kind, and the Layout of
// such a document).
const (
	KindInvoice           = "invoice"
	KindReceipt           = "receipt"
	KindCardSlip          = "card-slip"
	KindPaymentReceipt    = "payment-receipt"
	KindMemo              = "memo"
	KindPurchaseOrder     = "purchase-order"
	KindStatement         = "statement"
	KindQuote             = "quote"
	KindEstimate          = "estimate"
	KindCreditNote        = "credit-note"
	KindDeliveryNote      = "delivery-note"
	KindEmpty             = "empty"
	KindWhitespace        = "whitespace"
	KindMeetingNote       = "meeting-note"
	KindRemittanceAdvice  = "remittance-advice"
	KindPaymentReminder   = "payment-reminder"
	KindOrderConfirmation = "order-confirmation"
)

// Reason codes a document of the corpus expects (the pipeline's codes).
const (
	ReasonNotAnInvoice       = "not_an_invoice"
	ReasonTotalMismatch      = "total_mismatch"
	ReasonSubtotalMismatch   = "subtotal_mismatch"
	ReasonLineMismatch       = "line_mismatch"
	ReasonMissingTotal       = "missing_field:total"
	ReasonMissingNumber      = "missing_field:invoiceNumber"
	ReasonUnparseableTotal   = "unparseable_amount:total"
	ReasonAmbiguousIssueDate = "ambiguous_date"
)

// Document is one document of the corpus and what an extractor should make
// of it.
type Document struct {
	// ID names the document in reports; it never says what is in it.
	ID string
	// Layout is the invoice layout, or the kind of a document that is not
	// an invoice.
	Layout string
	Text   string
	Truth  Truth
}

// Truth is the ground truth of a document.
type Truth struct {
	// IsInvoice is true for invoices, including those that must be
	// rejected because they do not add up.
	IsInvoice bool `json:"isInvoice"`
	// Kind is KindInvoice or the kind of document it is instead.
	Kind string `json:"kind"`
	// Reason is the reason code of a document the pipeline must reject;
	// empty for an invoice that must succeed.
	Reason        string   `json:"reason,omitempty"`
	InvoiceNumber string   `json:"invoiceNumber,omitempty"`
	Vendor        string   `json:"vendor,omitempty"`
	IssueDate     string   `json:"issueDate,omitempty"`
	Currency      string   `json:"currency,omitempty"`
	Subtotal      string   `json:"subtotal,omitempty"`
	Charges       []Charge `json:"charges,omitempty"`
	Tax           string   `json:"tax,omitempty"`
	Total         string   `json:"total,omitempty"`
	LineCount     int      `json:"lineCount"`
	Lines         []Line   `json:"lines,omitempty"`
}

// MustSucceed reports whether the pipeline must accept the document.
func (t Truth) MustSucceed() bool { return t.IsInvoice && t.Reason == "" }

// Line is one line item as the document states it.
type Line struct {
	Quantity  string `json:"quantity"`
	UnitPrice string `json:"unitPrice"`
	Amount    string `json:"amount"`
}

// Charge is an amount between the subtotal and the total that is not tax.
type Charge struct {
	Kind   string `json:"kind"` // shipping, discount, fee, rounding
	Amount string `json:"amount"`
}

// Layouts returns the generated invoice layouts.
func Layouts() []string {
	return []string{
		LayoutVendorBlock, LayoutTwoColumn, LayoutLabelRow, LayoutMarkdown, LayoutEmail,
		LayoutContinental, LayoutNumbered, LayoutBullets, LayoutUSSalesTax, LayoutBoxed,
	}
}

// NonInvoiceKinds returns the generated kinds of document that are not
// invoices.
func NonInvoiceKinds() []string {
	return []string{
		KindReceipt, KindCardSlip, KindPaymentReceipt, KindMemo, KindPurchaseOrder,
		KindStatement, KindQuote, KindEstimate, KindCreditNote, KindDeliveryNote, KindEmpty,
		KindWhitespace, KindMeetingNote, KindRemittanceAdvice, KindPaymentReminder,
		KindOrderConfirmation,
	}
}

// BrokenReasons returns the reasons of the generated invoices that must be
// rejected.
func BrokenReasons() []string {
	return []string{
		ReasonTotalMismatch, ReasonSubtotalMismatch, ReasonLineMismatch,
		ReasonMissingTotal, ReasonMissingNumber,
	}
}

// category is what a generated document is meant to test.
type category int

const (
	catInvoice category = iota
	catNonInvoice
	catBroken
)

// slot is one document of the plan: its category and its layout, kind or
// reason.
type slot struct {
	cat  category
	name string
}

// Shares of the documents beyond the first of each layout, kind and reason,
// in percent.
const (
	shareNonInvoice = 18
	shareBroken     = 12
)

// ErrInvalidCount is returned by Generate for a negative count.
var ErrInvalidCount = errors.New("corpus: n must not be negative")

// Generate returns n documents, the same for the same seed and n. When n is
// at least MinimumSize, every layout, every kind of non-invoice and every
// reason of a broken invoice is present; the rest is drawn at random, about
// 70% invoices that must succeed.
func Generate(seed int64, n int) ([]Document, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w (got %d)", ErrInvalidCount, n)
	}
	plan := planDocuments(rand.New(rand.NewPCG(uint64(seed), 0x636f72707573)), n)
	docs := make([]Document, n)
	for i, s := range plan {
		r := rand.New(rand.NewPCG(uint64(seed), uint64(i)+1))
		d := generateOne(r, s)
		d.ID = fmt.Sprintf("gen-%d-%04d", seed, i)
		docs[i] = d
	}
	return docs, nil
}

// MinimumSize is the smallest n for which Generate covers every layout, kind
// and reason.
var MinimumSize = len(Layouts()) + len(NonInvoiceKinds()) + len(BrokenReasons())

func planDocuments(r *rand.Rand, n int) []slot {
	var plan []slot
	for _, l := range Layouts() {
		plan = append(plan, slot{catInvoice, l})
	}
	for _, k := range NonInvoiceKinds() {
		plan = append(plan, slot{catNonInvoice, k})
	}
	for _, reason := range BrokenReasons() {
		plan = append(plan, slot{catBroken, reason})
	}
	r.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	if n <= len(plan) {
		return plan[:n]
	}
	for len(plan) < n {
		switch p := r.IntN(100); {
		case p < shareNonInvoice:
			plan = append(plan, slot{catNonInvoice, pick(r, NonInvoiceKinds())})
		case p < shareNonInvoice+shareBroken:
			plan = append(plan, slot{catBroken, pick(r, BrokenReasons())})
		default:
			plan = append(plan, slot{catInvoice, pick(r, Layouts())})
		}
	}
	r.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	return plan
}

func generateOne(r *rand.Rand, s slot) Document {
	switch s.cat {
	case catNonInvoice:
		text := renderNonInvoice(r, s.name)
		return Document{Layout: s.name, Text: text, Truth: Truth{Kind: s.name, Reason: ReasonNotAnInvoice}}
	case catBroken:
		layout := pick(r, Layouts())
		inv := newInvoice(r, pick(r, layoutLocales[layout]), layout)
		// Without a tax or a charge the subtotal is all there is to pay, and
		// a document stating only it does not clearly lack its total: such
		// an invoice is no test of a missing total.
		for i := 0; s.name == ReasonMissingTotal && inv.tax() == 0 && i < 20; i++ {
			inv = newInvoice(r, pick(r, layoutLocales[layout]), layout)
		}
		breakInvoice(r, inv, s.name)
		return Document{Layout: layout, Text: render(r, inv), Truth: inv.truth()}
	default:
		inv := newInvoice(r, pick(r, layoutLocales[s.name]), s.name)
		return Document{Layout: s.name, Text: render(r, inv), Truth: inv.truth()}
	}
}

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// chance reports true with probability percent/100.
func chance(r *rand.Rand, percent int) bool { return r.IntN(100) < percent }

// between returns a random integer in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
