package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// InvoiceExtractor is the default Extractor: deterministic rules for
// plain-text invoices. A document is an invoice when it says so (a title line
// or an "Invoice Number" label) and has a total. Fields are "Label: value"
// lines (case-insensitive labels, several synonyms each); line items follow
// an "Items:" (or "Line items:") line, one per line as "description qty x
// unit-price", up to a blank line or the next label. testdata/invoices holds
// samples.
//
// Validation rejects, as permanent errors, a document that is not an
// invoice, a missing or ill-formed required field (invoice number, vendor,
// issue date YYYY-MM-DD, ISO 4217 currency, total, at least one line item),
// and totals that do not add up (sum of line items + optional tax = total,
// exactly, in the currency's minor units).
type InvoiceExtractor struct{}

var _ Extractor = InvoiceExtractor{}

// Classification is the JSON output of InvoiceExtractor.Classify.
type Classification struct {
	DocumentType string   `json:"documentType"` // "invoice" or "unknown"
	Signals      []string `json:"signals"`      // what made it one
}

// Extraction is the JSON output of InvoiceExtractor.Extract: raw field text,
// not yet validated.
type Extraction struct {
	DocumentType  string        `json:"documentType"`
	InvoiceNumber string        `json:"invoiceNumber,omitempty"`
	Vendor        string        `json:"vendor,omitempty"`
	IssueDate     string        `json:"issueDate,omitempty"`
	Currency      string        `json:"currency,omitempty"`
	Tax           string        `json:"tax,omitempty"`
	Total         string        `json:"total,omitempty"`
	LineItems     []RawLineItem `json:"lineItems,omitempty"`
}

// RawLineItem is one item line as extracted; Malformed is set when the line
// sat among the items but did not parse.
type RawLineItem struct {
	Description string `json:"description,omitempty"`
	Quantity    string `json:"quantity,omitempty"`
	UnitPrice   string `json:"unitPrice,omitempty"`
	Malformed   bool   `json:"malformed,omitempty"`
}

// Invoice is the validated result: the JSON output of Validate. Amounts are
// decimal strings in the currency's minor unit precision, never floats.
type Invoice struct {
	DocumentType  string     `json:"documentType"`
	InvoiceNumber string     `json:"invoiceNumber"`
	Vendor        string     `json:"vendor"`
	IssueDate     string     `json:"issueDate"`
	Currency      string     `json:"currency"`
	LineItems     []LineItem `json:"lineItems"`
	Subtotal      string     `json:"subtotal"`
	Tax           string     `json:"tax"`
	Total         string     `json:"total"`
}

// LineItem is one validated invoice line.
type LineItem struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitPrice   string `json:"unitPrice"`
	Amount      string `json:"amount"`
}

// Rejection reasons of InvoiceExtractor.Validate.
const (
	RejectNotInvoice    = "not_an_invoice"
	RejectMissingField  = "missing_field"
	RejectInvalidField  = "invalid_field"
	RejectTotalMismatch = "total_mismatch"
)

// RejectError is a permanent validation failure. Reason and Field come from
// a fixed vocabulary and are safe to log; Detail may quote the document.
type RejectError struct {
	Reason string
	Field  string
	Detail string
}

func (e *RejectError) Error() string {
	s := "invoice rejected: " + e.Reason
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap makes every rejection permanent.
func (e *RejectError) Unwrap() error { return ErrPermanent }

// RejectReason returns "reason" or "reason:field", without any content.
func (e *RejectError) RejectReason() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Reason + ":" + e.Field
}

func reject(reason, field, format string, args ...any) error {
	return &RejectError{Reason: reason, Field: field, Detail: fmt.Sprintf(format, args...)}
}

const docInvoice, docUnknown = "invoice", "unknown"

// splitLabel splits a "Label: value" line. The label is 1–41 characters of
// letters, spaces, '.' and '#', starting with a letter; both parts are
// trimmed.
func splitLabel(line string) (label, value string, ok bool) {
	before, after, found := strings.Cut(line, ":")
	label = strings.TrimSpace(before)
	if !found || label == "" || len(label) > 41 || !isASCIILetter(label[0]) {
		return "", "", false
	}
	for i := 1; i < len(label); i++ {
		if c := label[i]; !isASCIILetter(c) && c != ' ' && c != '.' && c != '#' && c != '\t' {
			return "", "", false
		}
	}
	return label, strings.TrimSpace(after), true
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// itemRe matches "description  qty x price".
var itemRe = regexp.MustCompile(`^\s*(.*\S)\s+([0-9]+)\s*[xX×]\s*(\S+)\s*$`)

// field names an invoice field by its normalized label.
var fieldOf = map[string]string{
	"invoice number": "invoiceNumber", "invoice no": "invoiceNumber", "invoice no.": "invoiceNumber",
	"invoice #": "invoiceNumber", "invoice id": "invoiceNumber",
	"vendor": "vendor", "seller": "vendor", "supplier": "vendor", "from": "vendor",
	"issue date": "issueDate", "invoice date": "issueDate", "date": "issueDate", "date of issue": "issueDate",
	"currency": "currency",
	"tax":      "tax", "vat": "tax", "sales tax": "tax",
	"total": "total", "total due": "total", "amount due": "total", "grand total": "total",
	"items": "items", "line items": "items",
}

func normalizeLabel(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Classify decides whether content is an invoice.
func (InvoiceExtractor) Classify(ctx context.Context, content string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var signals []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			signals = append(signals, s)
		}
	}
	first := true
	scanLines(content, func(line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		if first && (strings.EqualFold(t, "invoice") || strings.EqualFold(t, "tax invoice")) {
			add("title")
		}
		first = false
		if label, _, ok := splitLabel(line); ok {
			switch fieldOf[normalizeLabel(label)] {
			case "invoiceNumber":
				add("invoice_number")
			case "total":
				add("total")
			}
		}
	})
	c := Classification{DocumentType: docUnknown, Signals: signals}
	if (seen["title"] || seen["invoice_number"]) && seen["total"] {
		c.DocumentType = docInvoice
	}
	if c.Signals == nil {
		c.Signals = []string{}
	}
	return json.Marshal(c)
}

// Extract pulls the raw fields and line items out of an invoice. It extracts
// nothing from a document classified as something else; Validate rejects it.
func (InvoiceExtractor) Extract(ctx context.Context, content string, classification []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var c Classification
	if err := json.Unmarshal(classification, &c); err != nil {
		return nil, Permanent(fmt.Errorf("invoice: decode classification: %w", err))
	}
	x := Extraction{DocumentType: c.DocumentType}
	if c.DocumentType != docInvoice {
		return json.Marshal(x)
	}
	inItems := false
	scanLines(content, func(line string) {
		if strings.TrimSpace(line) == "" {
			inItems = false
			return
		}
		if label, value, ok := splitLabel(line); ok {
			if f, ok := fieldOf[normalizeLabel(label)]; ok {
				inItems = f == "items"
				x.set(f, value)
				return
			}
			if !itemRe.MatchString(line) {
				inItems = false // another label, such as "Subtotal: …", ends the items
				return
			}
		}
		if inItems {
			x.LineItems = append(x.LineItems, parseItem(line))
		}
	})
	return json.Marshal(x)
}

// set records the first value of each field; a repeated label is ignored.
func (x *Extraction) set(field, v string) {
	dst := map[string]*string{
		"invoiceNumber": &x.InvoiceNumber, "vendor": &x.Vendor, "issueDate": &x.IssueDate,
		"currency": &x.Currency, "tax": &x.Tax, "total": &x.Total,
	}[field]
	if dst != nil && *dst == "" {
		*dst = v
	}
}

func parseItem(line string) RawLineItem {
	m := itemRe.FindStringSubmatch(line)
	if m == nil {
		return RawLineItem{Malformed: true}
	}
	return RawLineItem{Description: m[1], Quantity: m[2], UnitPrice: m[3]}
}

func scanLines(content string, fn func(line string)) {
	for line := range strings.Lines(content) {
		fn(strings.TrimRight(line, "\r\n"))
	}
}

// invoiceNumberRe: letters, digits and . _ / - , starting with a letter or digit.
var invoiceNumberRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`)

// Validate checks an extraction and returns the Invoice as JSON.
func (InvoiceExtractor) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var x Extraction
	if err := json.Unmarshal(extraction, &x); err != nil {
		return nil, Permanent(fmt.Errorf("invoice: decode extraction: %w", err))
	}
	inv, err := x.validate()
	if err != nil {
		return nil, err
	}
	return json.Marshal(inv)
}

func (x *Extraction) validate() (*Invoice, error) {
	if x.DocumentType != docInvoice {
		return nil, reject(RejectNotInvoice, "", "document type %q", x.DocumentType)
	}
	if err := x.checkRequired(); err != nil {
		return nil, err
	}
	if err := x.checkScalars(); err != nil {
		return nil, err
	}
	minor := currencyMinorUnits[x.Currency]
	inv := &Invoice{
		DocumentType: docInvoice, InvoiceNumber: x.InvoiceNumber, Vendor: x.Vendor,
		IssueDate: x.IssueDate, Currency: x.Currency, LineItems: make([]LineItem, 0, len(x.LineItems)),
	}
	var subtotal int64
	for i, it := range x.LineItems {
		li, amount, err := it.validate(i, minor)
		if err != nil {
			return nil, err
		}
		if subtotal > maxMinorUnits-amount {
			return nil, reject(RejectInvalidField, "lineItems", "subtotal too large")
		}
		subtotal += amount
		inv.LineItems = append(inv.LineItems, li)
	}
	var tax int64
	if x.Tax != "" {
		var err error
		if tax, err = parseAmount(x.Tax, minor); err != nil {
			return nil, reject(RejectInvalidField, "tax", "%v", err)
		}
	}
	total, err := parseAmount(x.Total, minor)
	if err != nil {
		return nil, reject(RejectInvalidField, "total", "%v", err)
	}
	if subtotal+tax != total {
		return nil, reject(RejectTotalMismatch, "total", "items %s + tax %s != total %s",
			formatAmount(subtotal, minor), formatAmount(tax, minor), formatAmount(total, minor))
	}
	inv.Subtotal, inv.Tax, inv.Total = formatAmount(subtotal, minor), formatAmount(tax, minor), formatAmount(total, minor)
	return inv, nil
}

func (x *Extraction) checkRequired() error {
	for _, f := range []struct{ name, v string }{
		{"invoiceNumber", x.InvoiceNumber}, {"vendor", x.Vendor}, {"issueDate", x.IssueDate},
		{"currency", x.Currency}, {"total", x.Total},
	} {
		if strings.TrimSpace(f.v) == "" {
			return reject(RejectMissingField, f.name, "")
		}
	}
	if len(x.LineItems) == 0 {
		return reject(RejectMissingField, "lineItems", "")
	}
	return nil
}

func (x *Extraction) checkScalars() error {
	if !invoiceNumberRe.MatchString(x.InvoiceNumber) {
		return reject(RejectInvalidField, "invoiceNumber", "%q", x.InvoiceNumber)
	}
	if len(x.Vendor) > 200 || !printable(x.Vendor) {
		return reject(RejectInvalidField, "vendor", "%q", x.Vendor)
	}
	if d, err := time.Parse(time.DateOnly, x.IssueDate); err != nil || d.Format(time.DateOnly) != x.IssueDate {
		return reject(RejectInvalidField, "issueDate", "%q is not a YYYY-MM-DD date", x.IssueDate)
	}
	if _, ok := currencyMinorUnits[x.Currency]; !ok {
		return reject(RejectInvalidField, "currency", "%q is not an ISO 4217 code", x.Currency)
	}
	return nil
}

// maxQuantity bounds an item's quantity; maxMinorUnits bounds every amount so
// that sums and products cannot overflow int64.
const (
	maxQuantity   = 1_000_000
	maxMinorUnits = int64(1e15)
)

func (it RawLineItem) validate(i, minor int) (LineItem, int64, error) {
	field := "lineItems[" + strconv.Itoa(i) + "]"
	if it.Malformed {
		return LineItem{}, 0, reject(RejectInvalidField, field, "not \"description qty x price\"")
	}
	qty, err := strconv.ParseInt(it.Quantity, 10, 64)
	if err != nil || qty < 1 || qty > maxQuantity {
		return LineItem{}, 0, reject(RejectInvalidField, field, "quantity %q", it.Quantity)
	}
	price, err := parseAmount(it.UnitPrice, minor)
	if err != nil {
		return LineItem{}, 0, reject(RejectInvalidField, field, "unit price: %v", err)
	}
	if price > maxMinorUnits/qty {
		return LineItem{}, 0, reject(RejectInvalidField, field, "amount too large")
	}
	amount := qty * price
	return LineItem{
		Description: it.Description, Quantity: qty,
		UnitPrice: formatAmount(price, minor), Amount: formatAmount(amount, minor),
	}, amount, nil
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// amountRe: digits with optional comma thousands groups, optional decimals.
var amountRe = regexp.MustCompile(`^([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]+))?$`)

// parseAmount parses a non-negative decimal amount into minor units of a
// currency with `minor` decimal places.
func parseAmount(s string, minor int) (int64, error) {
	m := amountRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not an amount", s)
	}
	whole, frac := strings.ReplaceAll(m[1], ",", ""), m[2]
	if len(frac) > minor {
		return 0, fmt.Errorf("%q has more than %d decimals", s, minor)
	}
	if len(whole) > 15 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	digits := whole + frac + strings.Repeat("0", minor-len(frac))
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > maxMinorUnits {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n, nil
}

// formatAmount writes n minor units with `minor` decimals.
func formatAmount(n int64, minor int) string {
	s := strconv.FormatInt(n, 10)
	if minor == 0 {
		return s
	}
	if len(s) <= minor {
		s = strings.Repeat("0", minor-len(s)+1) + s
	}
	return s[:len(s)-minor] + "." + s[len(s)-minor:]
}

// currencyMinorUnits holds the active ISO 4217 currency codes used for
// trade, with their minor unit digits (funds, metals and test codes are not
// accepted on an invoice).
var currencyMinorUnits = func() map[string]int {
	m := map[string]int{}
	for _, c := range strings.Fields(`AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB
		BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP
		GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP
		LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB
		PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
		THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD YER ZAR ZMW ZWG`) {
		m[c] = 2
	}
	for _, c := range strings.Fields(`BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF`) {
		m[c] = 0
	}
	for _, c := range strings.Fields(`BHD IQD JOD KWD LYD OMR TND`) {
		m[c] = 3
	}
	return m
}()
