package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// jsonSchema is the subset of JSON Schema the model's answer is held to. It is
// declared once (answerSchema) and serves twice: sent to the endpoint as a
// strict response format, and checked again here on the answer, because an
// endpoint that claims to enforce a schema may not (the answer is untrusted).
type jsonSchema struct {
	typ         string // "object", "array", "string" or "boolean"
	description string
	props       []schemaProp // object: every schemaProp is required, no others allowed
	items       *jsonSchema  // array
	enum        []string     // string
	pattern     string       // string
	maxItems    int          // array: checked here only (not every endpoint accepts it)
	maxLen      int          // string: checked here only
}

type schemaProp struct {
	name string
	s    *jsonSchema
}

// Canonical forms the model must write. An empty string means "not stated".
const (
	decimalPattern  = `^(-?[0-9]+(\.[0-9]+)?)?$`
	datePattern     = `^([0-9]{4}-[0-9]{2}-[0-9]{2})?$`
	currencyPattern = `^([A-Z]{3})?$`
)

func stringField(description string) *jsonSchema {
	return &jsonSchema{typ: "string", description: description, maxLen: 500}
}

func decimalField(description string) *jsonSchema {
	return &jsonSchema{typ: "string", description: description, pattern: decimalPattern, maxLen: 40}
}

// answerSchema mirrors Extraction (without Problems, which only an
// extractor's own parsing can know, and Source, which the Model fills in).
// Every property is required: "" (or [] or false) says "not stated".
var answerSchema = &jsonSchema{typ: "object", props: []schemaProp{
	{"documentType", &jsonSchema{typ: "string", enum: []string{
		DocInvoice, DocReceipt, DocPurchaseOrder, DocQuote, DocStatement, DocCreditNote, DocOther,
	}, description: "invoice only for a request for payment; otherwise what the document is"}},
	{"invoiceNumber", stringField("the invoice number as printed; empty if not stated")},
	{"vendor", stringField("the name of the business that issued the document; empty if not stated")},
	{"issueDate", &jsonSchema{typ: "string", pattern: datePattern, maxLen: 10,
		description: "the issue date as YYYY-MM-DD; empty if not stated or if day and month cannot be told apart"}},
	{"currency", &jsonSchema{typ: "string", pattern: currencyPattern, maxLen: 3,
		description: "ISO 4217 code, e.g. EUR for €, GBP for £; empty if it cannot be told"}},
	{"lineItems", &jsonSchema{typ: "array", maxItems: 500, items: &jsonSchema{typ: "object", props: []schemaProp{
		{"description", stringField("the item as described")},
		{"quantity", decimalField("quantity as a plain decimal, e.g. 3 or 9.5")},
		{"unitPrice", decimalField("unit price as a plain decimal")},
		{"amount", decimalField("the line's amount as stated")},
	}}}},
	{"subtotal", decimalField("the stated total before tax; empty if not stated")},
	{"charges", &jsonSchema{typ: "array", maxItems: 50, items: &jsonSchema{typ: "object", props: []schemaProp{
		{"kind", &jsonSchema{typ: "string", enum: []string{ChargeShipping, ChargeDiscount, ChargeFee, ChargeRounding}}},
		{"amount", decimalField("the amount; negative for a discount")},
	}}}},
	{"tax", decimalField("the sum of every tax amount (VAT, GST, sales tax); empty if none is stated")},
	{"taxIncluded", &jsonSchema{typ: "boolean",
		description: "true only when the document says the tax is already included in the prices and the total"}},
	{"total", decimalField("the total amount due")},
}}

// JSON returns the schema as the endpoint's strict response format wants
// it: every schemaProp required, no additional properties.
func (s *jsonSchema) JSON() map[string]any {
	out := map[string]any{"type": s.typ}
	if s.description != "" {
		out["description"] = s.description
	}
	switch s.typ {
	case "object":
		props, required := map[string]any{}, []string{}
		for _, p := range s.props {
			props[p.name] = p.s.JSON()
			required = append(required, p.name)
		}
		out["properties"], out["required"], out["additionalProperties"] = props, required, false
	case "array":
		out["items"] = s.items.JSON()
	case "string":
		if len(s.enum) > 0 {
			out["enum"] = s.enum
		}
		if s.pattern != "" {
			out["pattern"] = s.pattern
		}
	}
	return out
}

var schemaPatterns = map[string]*regexp.Regexp{}

func init() {
	for _, p := range []string{decimalPattern, datePattern, currencyPattern} {
		schemaPatterns[p] = regexp.MustCompile(p)
	}
}

// check returns "" when v (decoded with UseNumber) conforms, else a short
// problem naming the path and the rule, never the value: the problem is
// sent back to the model and may be logged.
func (s *jsonSchema) check(path string, v any) string {
	switch s.typ {
	case "object":
		return s.checkObject(path, v)
	case "array":
		a, ok := v.([]any)
		if !ok {
			return path + ": must be an array"
		}
		if s.maxItems > 0 && len(a) > s.maxItems {
			return fmt.Sprintf("%s: at most %d items", path, s.maxItems)
		}
		for i, it := range a {
			if p := s.items.check(fmt.Sprintf("%s[%d]", path, i), it); p != "" {
				return p
			}
		}
		return ""
	}
	if s.typ == "boolean" {
		if _, ok := v.(bool); !ok {
			return path + ": must be true or false"
		}
		return ""
	}
	str, ok := v.(string)
	switch {
	case !ok:
		return path + ": must be a string"
	case len(s.enum) > 0 && !inList(s.enum, str):
		return path + ": must be one of " + strings.Join(s.enum, ", ")
	case s.pattern != "" && !schemaPatterns[s.pattern].MatchString(str):
		return path + ": must match " + s.pattern
	case s.maxLen > 0 && len([]rune(str)) > s.maxLen:
		return fmt.Sprintf("%s: at most %d characters", path, s.maxLen)
	}
	return ""
}

func (s *jsonSchema) checkObject(path string, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return path + ": must be an object"
	}
	for _, p := range s.props {
		val, ok := m[p.name]
		if !ok {
			return path + "." + p.name + ": missing"
		}
		if problem := p.s.check(path+"."+p.name, val); problem != "" {
			return problem
		}
	}
	if len(m) > len(s.props) {
		return path + ": has properties the schema does not allow"
	}
	return ""
}

func inList(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// modelAnswer is the Go shape of answerSchema.
type modelAnswer struct {
	DocumentType  string          `json:"documentType"`
	InvoiceNumber string          `json:"invoiceNumber"`
	Vendor        string          `json:"vendor"`
	IssueDate     string          `json:"issueDate"`
	Currency      string          `json:"currency"`
	LineItems     []ExtractedLine `json:"lineItems"`
	Subtotal      string          `json:"subtotal"`
	Charges       []Charge        `json:"charges"`
	Tax           string          `json:"tax"`
	TaxIncluded   bool            `json:"taxIncluded"`
	Total         string          `json:"total"`
}

// decodeAnswer holds the model's answer to answerSchema: exactly one JSON
// object, every schemaProp present with its type and form, nothing else. It
// returns the Extraction, or a problem for the re-ask.
func decodeAnswer(answer string) (*Extraction, string) {
	dec := json.NewDecoder(strings.NewReader(answer))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, "the answer is not valid JSON"
	}
	if dec.More() {
		return nil, "the answer must be one JSON object and nothing else"
	}
	if problem := answerSchema.check("$", v); problem != "" {
		return nil, problem
	}
	var a modelAnswer
	strict := json.NewDecoder(bytes.NewReader([]byte(answer)))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&a); err != nil { // cannot fail after check; kept as a guard
		return nil, "the answer does not match the schema"
	}
	return &Extraction{
		DocumentType: a.DocumentType, InvoiceNumber: strings.TrimSpace(a.InvoiceNumber),
		Vendor: strings.TrimSpace(a.Vendor), IssueDate: a.IssueDate, Currency: a.Currency,
		LineItems: a.LineItems, Subtotal: a.Subtotal, Charges: a.Charges, Tax: a.Tax, TaxIncluded: a.TaxIncluded,
		Total: a.Total,
	}, ""
}
