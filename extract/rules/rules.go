package rules

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// Rules is the default extractor: deterministic rules for plain-text
// invoices as suppliers write them, with no network and no per-vendor
// template. Its zero value is ready to use. Every stage is cheap and
// deterministic, so none is checkpointed: after a crash the stages run
// again and give the same answer.
type Rules struct{}

var _ extract.Extractor = Rules{}

// ExtractorRules is Source.Extractor of the rules extractor's results.
const ExtractorRules = "rules"

// Checkpointed is false for every stage: recomputing is cheaper than
// storing.
func (Rules) Checkpointed(string) bool { return false }

// Classify tells an invoice from a receipt, a purchase order, a quote, a
// statement, a credit note or anything else.
func (Rules) Classify(ctx context.Context, content string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return extract.MarshalClassification(classifyContent(content))
}

func classifyContent(content string) extract.Classification {
	if len(content) > MaxDocumentBytes {
		return extract.Classification{DocumentType: extract.DocOther, Signals: []string{"too_large"}}
	}
	if isBlank(content) {
		return extract.Classification{DocumentType: extract.DocOther, Signals: []string{"empty"}}
	}
	return classifyDocument(parseDocument(content))
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' && r != '\u00a0' {
			return false
		}
	}
	return true
}

// Extract pulls the fields of an invoice, a credit note or a corrective
// invoice out of content. A document classified as anything else yields
// an extraction of its type alone, which Validate rejects.
func (Rules) Extract(ctx context.Context, content string, classification []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := extract.DecodeClassification(classification)
	if err != nil {
		return nil, fmt.Errorf("extract: rules: decode classification: %w", extract.ErrPermanent)
	}
	if c.DocumentType == extract.DocDeferred {
		c = classifyContent(content)
	}
	x := extract.Extraction{DocumentType: c.DocumentType, Source: extract.Source{Extractor: ExtractorRules}}
	if extract.IsBooked(c.DocumentType) && len(content) <= MaxDocumentBytes {
		x = extractInvoice(content, c.DocumentType)
	}
	return extract.MarshalExtraction(x)
}

// Validate judges the extraction with extract.ValidateExtraction. A
// rejection for the content carries what was read: the partial
// extraction, with its evidence, and the field the failed check concerns,
// so that a person or the model can finish it.
func (Rules) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	out, err := extract.Validate(ctx, extraction)
	var rej *extract.Rejection
	if err == nil || !errors.As(err, &rej) || rej.Extraction != nil {
		return out, err
	}
	x, derr := extract.DecodeExtraction(extraction)
	if derr != nil || !extract.IsBooked(x.DocumentType) {
		return out, err // not_an_invoice: nothing was read
	}
	return out, &extract.Rejection{Reason: rej.Reason, Extraction: &x, Fields: reasonFields(rej.Reason)}
}

// reasonFields names the fields a rejection's check concerns.
func reasonFields(reason string) []string {
	if _, field, ok := strings.Cut(reason, ":"); ok {
		return []string{field} // "missing_field:total"
	}
	switch reason {
	case extract.ReasonTotalMismatch:
		return []string{"total", "subtotal"}
	case extract.ReasonSubtotalMismatch:
		return []string{"subtotal", "lineItems"}
	case extract.ReasonLineMismatch:
		return []string{"lineItems"}
	case extract.ReasonAmbiguousDate:
		return []string{"issueDate"}
	}
	return nil
}

// extractInvoice runs the rules over a document of a booked type (an
// invoice, a credit note, a corrective invoice): the document's
// conventions first (currency, number format, date order), then the line
// items, then the labelled fields and the totals. Amounts are read as
// printed: a credit note's stay positive, a correction's minus signs stay.
func extractInvoice(content, docType string) extract.Extraction {
	d := parseDocument(content)
	ev := gatherEvidence(d)
	x := extract.Extraction{DocumentType: docType, Source: extract.Source{Extractor: ExtractorRules}}
	x.Currency = ev.currency()
	f := ev.format(x.Currency)
	order := ev.dateOrder(x.Currency, f)
	it := findItems(d, f)
	hits := scanFields(d)
	x.PrecedingInvoice = precedingInvoice(d)
	credit := docType != extract.DocInvoice
	x.InvoiceNumber = resolveInvoiceNumber(d, hits, x.PrecedingInvoice, credit)
	if x.PrecedingInvoice == x.InvoiceNumber {
		x.PrecedingInvoice = "" // "Anlage zur Rechnung Nr. …": the invoice's own number
	}
	x.Vendor = resolveVendor(d, hits)
	var dateProblem string
	x.IssueDate, dateProblem = resolveIssueDate(d, hits, order)
	x.DueDate = resolveDueDate(d, hits, order, x.IssueDate)
	ps := paragraphs(d)
	rows := amountRows(hits, f, proseLines(d, ps))
	all := mergeRows(rows, proseRows(ps, f, rows))
	amounts := dropCountTotals(dropOtherCurrencyRows(unlabelledTotals(d, all, f), x.Currency))
	t := resolveTotals(amounts)
	guardValuesRow(d, amounts, &t, f)
	if it.spaced && !t.reconciles(it.lines) {
		// rows read by their arithmetic alone that miss some items: the
		// table does not account for the stated net total
		it.lines = nil
		it.problems = append(it.problems, extract.ReasonSubtotalMismatch)
	}
	t.settleGrossSubtotal(d, amounts, &it)
	t.absorbTableCharges(d, &it)
	t.settleNetCharges(d, it.lines, f)
	x.LineItems, x.Subtotal, x.Tax, x.Total = it.lines, t.subtotal, t.tax, t.total
	x.TaxIncluded, x.Charges = t.taxIncluded, t.charges
	t.guardUnreadTax(hits)
	x.Problems = appendProblems(dateProblem, it.problems, t.problems)
	x.Evidence = fieldEvidence(d, hits, amounts, x)
	return x
}

// unlabelledTotals adds to rows, for a document without any total row, the
// total its layout or its arithmetic names, the first of these that finds
// one: "Amount: <money>" alone (bareAmountRows), a form's one amount under
// "Charges" (soleAmountRow), the subtotal plus tax written alone below
// them (sumRow). Each finds nothing once a total row exists.
func unlabelledTotals(d *document, rows []amountRow, f numberFormat) []amountRow {
	for _, find := range []func(*document, []amountRow, numberFormat) []amountRow{bareAmountRows, soleAmountRow, sumRow} {
		rows = mergeRows(rows, find(d, rows, f))
	}
	return rows
}

// otherCurrencyRe is a label that names the currency of its amount:
// "Steuerbetrag in EUR", "VAT in GBP", "TVA en EUR".
var otherCurrencyRe = regexp.MustCompile(`\b(?:in|en|i)\s+\(?([A-Z]{3})\)?\s*:?$`)

// dropOtherCurrencyRows drops the amount rows stated in another currency
// than the invoice's: an invoice in GBP that also gives its tax in EUR for
// the buyer's books (EN 16931 BT-111) sums in GBP alone.
func dropOtherCurrencyRows(rows []amountRow, currency string) []amountRow {
	if currency == "" {
		return rows
	}
	return slices.DeleteFunc(rows, func(r amountRow) bool {
		m := otherCurrencyRe.FindStringSubmatch(strings.TrimSpace(r.raw))
		return m != nil && isCurrencyCode(m[1]) && m[1] != currency
	})
}

// dropCountTotals drops a total row whose value is a whole number where
// the document's other totals are written with decimals: "TOTAL  150" under
// a returns list counts pieces ("TOTAL  150  750.00" above it is the
// money). Where every total is whole (yen, or a sloppy writer), none is
// dropped.
func dropCountTotals(rows []amountRow) []amountRow {
	decimals := false
	for _, r := range rows {
		switch r.kind {
		case lkTotal, lkAmountDue, lkSubtotal, lkTax:
			decimals = decimals || strings.Contains(r.amount, ".")
		}
	}
	if !decimals {
		return rows
	}
	return slices.DeleteFunc(rows, func(r amountRow) bool {
		return (r.kind == lkTotal || r.kind == lkAmountDue) && r.amount != "" && !r.bad && !strings.Contains(r.amount, ".") && !isZero(r.amount)
	})
}

func appendProblems(first string, lists ...[]string) []string {
	var out []string
	if first != "" {
		out = append(out, first)
	}
	for _, l := range lists {
		for _, p := range l {
			if !containsStr(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
