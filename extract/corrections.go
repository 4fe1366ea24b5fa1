package extract

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// Corrections are an operator's field overrides: each non-nil member
// replaces the field the extractor read. An empty string removes a
// scalar, an empty list removes every charge, line or tax rate that was
// read, an empty AccountingTax ({}) removes BT-111. They are document
// data, like the fields they replace: stored encrypted with the job,
// never in logs, metrics or Asynq.
//
// Giving corrections also says "this is a booked document": Apply makes a
// document the extractor judged not to be one an invoice (unless
// DocumentType says which), so an operator can overrule not_an_invoice.
type Corrections struct {
	DocumentType     *string          `json:"documentType,omitempty"`
	InvoiceNumber    *string          `json:"invoiceNumber,omitempty"`
	IssueDate        *string          `json:"issueDate,omitempty"`
	DueDate          *string          `json:"dueDate,omitempty"`
	Vendor           *string          `json:"vendor,omitempty"`
	Currency         *string          `json:"currency,omitempty"`
	LineItems        *[]ExtractedLine `json:"lineItems,omitempty"`
	Subtotal         *string          `json:"subtotal,omitempty"`
	Charges          *[]Charge        `json:"charges,omitempty"`
	Tax              *string          `json:"tax,omitempty"`
	TaxBreakdown     *[]TaxSubtotal   `json:"taxBreakdown,omitempty"`
	TaxIncluded      *bool            `json:"taxIncluded,omitempty"`
	Total            *string          `json:"total,omitempty"`
	PaidAmount       *string          `json:"paidAmount,omitempty"`
	Rounding         *string          `json:"rounding,omitempty"`
	AmountDue        *string          `json:"amountDue,omitempty"`
	AccountingTax    *AccountingTax   `json:"accountingTax,omitempty"`
	PrecedingInvoice *string          `json:"precedingInvoice,omitempty"`
}

// CorrectionFields are the fields a correction may set, in the order
// Fields (of a Corrections) lists them.
var CorrectionFields = []string{
	"documentType", "invoiceNumber", "issueDate", "dueDate", "vendor", "currency", "lineItems", "subtotal",
	"charges", "tax", "taxBreakdown", "taxIncluded", "total", "paidAmount", "rounding", "amountDue",
	"accountingTax", "precedingInvoice",
}

// CorrectionScalars are the correction fields whose value is one string.
var CorrectionScalars = []string{
	"documentType", "invoiceNumber", "issueDate", "dueDate", "vendor", "currency", "subtotal", "tax", "total",
	"paidAmount", "rounding", "amountDue", "precedingInvoice",
}

// scalars are the string members of c by field name.
func (c *Corrections) scalars() map[string]**string {
	return map[string]**string{
		"documentType": &c.DocumentType, "invoiceNumber": &c.InvoiceNumber, "issueDate": &c.IssueDate,
		"dueDate": &c.DueDate, "vendor": &c.Vendor, "currency": &c.Currency, "subtotal": &c.Subtotal,
		"tax": &c.Tax, "total": &c.Total, "paidAmount": &c.PaidAmount, "rounding": &c.Rounding,
		"amountDue": &c.AmountDue, "precedingInvoice": &c.PrecedingInvoice,
	}
}

// Scalar returns a pointer to the string member of c named field, nil
// for a field that is not one of CorrectionScalars.
func (c *Corrections) Scalar(field string) **string { return c.scalars()[field] }

// Scalar returns a pointer to x's string field named field (one of
// CorrectionScalars), nil for any other name.
func (x *Extraction) Scalar(field string) *string { return extractionScalars(x)[field] }

// extractionScalars are the string fields of x by field name.
func extractionScalars(x *Extraction) map[string]*string {
	return map[string]*string{
		"documentType": &x.DocumentType, "invoiceNumber": &x.InvoiceNumber, "issueDate": &x.IssueDate,
		"dueDate": &x.DueDate, "vendor": &x.Vendor, "currency": &x.Currency, "subtotal": &x.Subtotal,
		"tax": &x.Tax, "total": &x.Total, "paidAmount": &x.PaidAmount, "rounding": &x.Rounding,
		"amountDue": &x.AmountDue, "precedingInvoice": &x.PrecedingInvoice,
	}
}

// Fields names the corrected fields, in CorrectionFields order.
func (c Corrections) Fields() []string {
	set := map[string]bool{
		"lineItems": c.LineItems != nil, "charges": c.Charges != nil, "taxBreakdown": c.TaxBreakdown != nil,
		"taxIncluded": c.TaxIncluded != nil, "accountingTax": c.AccountingTax != nil,
	}
	for f, p := range c.scalars() {
		set[f] = *p != nil
	}
	var out []string
	for _, f := range CorrectionFields {
		if set[f] {
			out = append(out, f)
		}
	}
	return out
}

// Empty reports whether c corrects nothing.
func (c Corrections) Empty() bool { return len(c.Fields()) == 0 }

// Apply returns x with the corrections put over it: the corrected fields
// replaced, each with the evidence "correction", the problems the
// extractor recorded about a corrected field dropped (a corrected issue
// date is no longer ambiguous), and the document type a booked one.
func (c Corrections) Apply(x Extraction) Extraction {
	if c.Empty() {
		return x
	}
	out := x
	if !IsBooked(out.DocumentType) {
		out.DocumentType = DocInvoice
	}
	fields := c.Fields()
	xs := extractionScalars(&out)
	for f, p := range c.scalars() {
		if *p != nil {
			*xs[f] = asPrinted(**p)
		}
	}
	if c.LineItems != nil {
		out.LineItems = slices.Clone(*c.LineItems)
	}
	if c.Charges != nil {
		out.Charges = slices.Clone(*c.Charges)
	}
	if c.TaxBreakdown != nil {
		out.TaxBreakdown = slices.Clone(*c.TaxBreakdown)
	}
	if c.TaxIncluded != nil {
		out.TaxIncluded = *c.TaxIncluded
	}
	if c.AccountingTax != nil {
		out.AccountingTax = nil
		if *c.AccountingTax != (AccountingTax{}) {
			t := *c.AccountingTax
			out.AccountingTax = &t
		}
	}
	out.Problems = nil
	for _, p := range x.Problems {
		if !slices.ContainsFunc(problemFields(p, x), func(f string) bool { return slices.Contains(fields, f) }) {
			out.Problems = append(out.Problems, p)
		}
	}
	out.Evidence = make(map[string]Evidence, len(x.Evidence)+len(fields))
	for f, e := range x.Evidence {
		out.Evidence[f] = e
	}
	for _, f := range fields {
		out.Evidence[f] = Evidence{Source: EvidenceCorrection}
	}
	return out
}

// asPrinted is a corrected value as the validator sees it: trimmed, and
// every other white space (a no-break space pasted from a PDF) a plain
// space, so a number "exactly as printed" is not refused for its spaces.
func asPrinted(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r != ' ' && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s))
}

// problemFields are the fields a problem the extractor recorded concerns:
// a correction of any of them answers it, and the validator judges the
// corrected fields instead (two stated totals that disagree are a
// total_mismatch the rules record; a person's total settles it). A model's
// unknown code concerns every field.
func problemFields(code string, x Extraction) []string {
	if f := problemField(code); f != "" {
		return []string{f}
	}
	if ValidReason(code) {
		return rejectedFields(code, x)
	}
	return CorrectionFields
}

// problemField is the field a problem code concerns, or "".
func problemField(code string) string {
	if code == ReasonAmbiguousDate {
		return "issueDate"
	}
	_, f, _ := strings.Cut(code, ":")
	return f
}

// FieldChange is one corrected field: the value read (empty when none was)
// and the value given (empty when the correction removed it). Lists and
// objects are written as JSON.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new"`
}

// Changes lists what c changes in x, one entry per corrected field.
func (c Corrections) Changes(x Extraction) []FieldChange {
	y := c.Apply(x)
	var out []FieldChange
	for _, f := range c.Fields() {
		out = append(out, FieldChange{Field: f, Old: fieldText(x, f), New: fieldText(y, f)})
	}
	return out
}

// fieldText is field f of x as the audit writes it: a string as it is,
// anything else as JSON, "" when absent.
func fieldText(x Extraction, f string) string {
	if p, ok := extractionScalars(&x)[f]; ok {
		return *p
	}
	var v any
	switch f {
	case "lineItems":
		v = x.LineItems
	case "charges":
		v = x.Charges
	case "taxBreakdown":
		v = x.TaxBreakdown
	case "accountingTax":
		if x.AccountingTax == nil {
			return ""
		}
		v = x.AccountingTax
	case "taxIncluded":
		if !x.TaxIncluded {
			return "false"
		}
		return "true"
	}
	b, _ := json.Marshal(v)
	if s := string(b); s != "null" && s != "[]" {
		return s
	}
	return ""
}

// droppable are the parts of what was read that a person's values may
// overrule by contradicting them: details of the amounts, never an amount
// the arithmetic commits on its own (a subtotal, a tax, a total), which a
// person must correct to change.
var droppable = []string{"lineItems", "charges", "taxBreakdown", "paidAmount", "rounding", "amountDue"}

// Verdict is JudgeCorrections' answer: the judged invoice and the
// corrections that made it, which are c plus a removal of each part read
// by the machine that contradicted a value a person gave (Dropped).
type Verdict struct {
	Invoice   *Invoice
	Effective Corrections
	Dropped   []string
}

// JudgeCorrections is the one verdict on an operator's corrections: c put
// over base (what was read; nil when nothing was), judged by
// ValidateExtraction and admitted by p. The API calls it before it
// creates a version; the worker calls it on the same stored base and the
// effective corrections to commit that version, so a correction accepted
// once succeeds.
//
// The person's values win over the machine's: when a failing check
// concerns a value the person gave and also details the machine read that
// the person did not correct (line items, charges, the tax breakdown, a
// paid amount or rounding), those details are removed, as the person's
// values contradict them, and the judgement runs again; the removal is
// part of the effective corrections (audited like any change). A failing
// check that concerns no value the person gave is the verdict: what
// nobody looked at is never dropped to make a sum pass.
func JudgeCorrections(base *Extraction, c Corrections, p Policy) (Verdict, error) {
	x := Extraction{}
	if base != nil {
		x = *base
	}
	v := Verdict{Effective: c}
	for range len(droppable) + 1 {
		y := v.Effective.Apply(x)
		inv, err := ValidateExtraction(y)
		if err == nil {
			err = p.Admit(inv, &y)
		}
		if err == nil {
			v.Invoice = inv
			return v, nil
		}
		r, ok := err.(*Rejection)
		if !ok || !v.Effective.drop(r.Fields, y, &v.Dropped) {
			return v, err
		}
	}
	return v, Reject(ReasonTotalMismatch) // unreachable: each pass drops at least one part
}

// feeds says which amounts each detail adds up to: a person who gives
// every one of them has stated what the detail would vouch for, so a
// detail the machine read that fails its own check (a line whose quantity
// times price is not its amount) is overruled too.
var feeds = map[string][]string{
	"lineItems": {"subtotal"}, "taxBreakdown": {"tax"}, "charges": {"subtotal", "tax", "total"},
	"paidAmount": {"amountDue"}, "rounding": {"amountDue"},
}

// drop removes the uncorrected droppable parts among fields when fields
// also name a corrected value, or when the person gave every amount the
// part feeds, and reports whether it removed any. y is the extraction
// judged. A part whose removal would leave an amount derived rather than
// checked stays: lines where no subtotal is stated (the subtotal would
// become whatever the total leaves, and a typo in the total would pass), a
// tax breakdown where no tax is stated.
func (c *Corrections) drop(fields []string, y Extraction, dropped *[]string) bool {
	given := c.Fields()
	isGiven := func(f string) bool { return slices.Contains(given, f) }
	concerned := slices.ContainsFunc(fields, isGiven)
	removed := false
	for _, f := range fields {
		if !slices.Contains(droppable, f) || isGiven(f) ||
			f == "lineItems" && y.Subtotal == "" || f == "taxBreakdown" && y.Tax == "" {
			continue
		}
		if !concerned && !allOf(feeds[f], isGiven) {
			continue
		}
		c.remove(f)
		*dropped = append(*dropped, f)
		removed = true
	}
	if removed && (slices.Contains(*dropped, "paidAmount") || slices.Contains(*dropped, "rounding")) && c.AmountDue == nil {
		c.remove("amountDue") // a due amount stated beside a dropped payment goes with it
		*dropped = append(*dropped, "amountDue")
	}
	return removed
}

// allOf reports whether every member of s satisfies ok (false for none).
func allOf(s []string, ok func(string) bool) bool {
	return len(s) > 0 && !slices.ContainsFunc(s, func(v string) bool { return !ok(v) })
}

// remove makes c remove field f.
func (c *Corrections) remove(f string) {
	empty := ""
	switch f {
	case "lineItems":
		c.LineItems = &[]ExtractedLine{}
	case "charges":
		c.Charges = &[]Charge{}
	case "taxBreakdown":
		c.TaxBreakdown = &[]TaxSubtotal{}
	default:
		*c.scalars()[f] = &empty
	}
}

// ExtractionOf returns the extraction a validated invoice came from, as
// far as the invoice tells: the base a review decision's corrections are
// put over. ValidateExtraction(ExtractionOf(inv)) commits inv again.
func ExtractionOf(inv Invoice) Extraction {
	x := Extraction{
		DocumentType: inv.DocumentType, InvoiceNumber: inv.InvoiceNumber, Vendor: inv.Vendor,
		IssueDate: inv.IssueDate, DueDate: inv.DueDate, Currency: inv.Currency, Subtotal: inv.Subtotal,
		Charges: inv.Charges, Tax: inv.Tax, TaxIncluded: inv.TaxIncluded, Total: inv.Total,
		PaidAmount: inv.PaidAmount, Rounding: inv.Rounding, TaxBreakdown: inv.TaxBreakdown,
		AmountDue: inv.AmountDue, AccountingTax: inv.AccountingTax, PrecedingInvoice: inv.PrecedingInvoice, Seller: inv.Seller,
		Source: inv.Source, Evidence: inv.Evidence, Flags: inv.Flags,
	}
	x.LineItems = baseLines(inv)
	return x
}

// baseLines are inv's lines as a base the validator judges again: a line
// whose unit price does not multiply out to its amount (an e-invoice line
// with its own allowance) keeps its quantity and amount only, and lines
// that do not add up to the subtotal (a rule an e-invoice was committed
// despite, named in its flags) are left out: the committed result keeps
// them as they were.
func baseLines(inv Invoice) []ExtractedLine {
	minor, ok := currencyMinor[inv.Currency]
	if !ok || len(inv.LineItems) == 0 {
		return nil
	}
	credit := creditType(inv.DocumentType)
	out := make([]ExtractedLine, 0, len(inv.LineItems))
	var sum int64
	for _, l := range inv.LineItems {
		el := ExtractedLine(l)
		if _, _, err := validateLine(el, minor, credit); err != nil {
			el.UnitPrice = ""
		}
		_, n, err := validateLine(el, minor, credit)
		if err != nil {
			return nil
		}
		sum += n
		out = append(out, el)
	}
	if sub, err := parseMoney(inv.Subtotal, minor, "subtotal", true); err != nil || sub != sum {
		return nil
	}
	return out
}

// placeholders stand in for a field that failed a check, so the checks
// after it can run: they pass every format check and take no part in the
// arithmetic.
var placeholders = map[string]string{"invoiceNumber": "X", "vendor": "X", "issueDate": "0001-01-01", "dueDate": ""}

// maxFailedChecks bounds FailedChecks' passes (one per failing field).
const maxFailedChecks = 16

// FailedChecks lists every check x fails that an operator can see at once,
// not only the first: the validator runs again with each failed field
// that takes no part in the arithmetic (invoice number, vendor, dates, a
// problem the extractor recorded) stood in for, until it passes or fails
// on the currency or the amounts, which end the list (an amount cannot be
// judged without its currency, nor a sum without its amounts). The first
// entry is always ValidateExtraction's own verdict.
func FailedChecks(x Extraction) []FailedCheck {
	var out []FailedCheck
	for range maxFailedChecks {
		_, err := validateExtraction(x)
		r, ok := err.(*Rejection)
		if !ok {
			return out
		}
		fields := rejectedFields(r.Reason, x)
		for _, f := range fields {
			out = append(out, FailedCheck{Field: f, Check: r.Reason})
		}
		if !standIn(&x, r.Reason, fields) {
			return out
		}
	}
	return out
}

// standIn replaces the field a rejection names with its placeholder (and
// drops the problem that caused it); false when the rejection is one that
// ends FailedChecks.
func standIn(x *Extraction, reason string, fields []string) bool {
	if slices.Contains(x.Problems, reason) {
		x.Problems = slices.DeleteFunc(slices.Clone(x.Problems), func(p string) bool { return p == reason })
		if reason == ReasonAmbiguousDate {
			x.IssueDate = placeholders["issueDate"]
		}
		return problemField(reason) == "" || placeholders[problemField(reason)] != "" || reason == ReasonAmbiguousDate
	}
	if len(fields) != 1 {
		return false
	}
	p, ok := placeholders[fields[0]]
	if !ok {
		return false
	}
	*extractionScalars(x)[fields[0]] = p
	return true
}
