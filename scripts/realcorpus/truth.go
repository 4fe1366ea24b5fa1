package realcorpus

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/extract"
)

// Truth is what a document says, checked by a person or read from the XML
// a hybrid PDF embeds. Amounts are as the document prints them: a credit
// note's positive amounts stay positive, a corrective invoice's printed
// "-8.79" stays "-8.79".
type Truth struct {
	// DocumentType is DocInvoice, DocCreditNote, DocCorrectiveInvoice (the
	// booked kinds) or a kind that is no invoice ("receipt", "statement",
	// "quote", "purchase_order", "other", …: extract's Doc* values).
	DocumentType  string `json:"documentType"`
	InvoiceNumber string `json:"invoiceNumber,omitempty"`
	IssueDate     string `json:"issueDate,omitempty"`
	DueDate       string `json:"dueDate,omitempty"` // BT-9, when printed
	// BookingDate is, for a document that prints no issue date, the date a
	// clerk books it under (its delivery or tax point date, as Note says):
	// a correction needs a document date. It is never a truth a committed
	// field is judged against.
	BookingDate string `json:"bookingDate,omitempty"`
	Currency    string `json:"currency,omitempty"`
	Vendor      string `json:"vendor,omitempty"`
	// VendorAliases are other names the page prints for the same issuer
	// (a trading name, the legal form written out); a vendor matching one
	// of them is right too.
	VendorAliases []string `json:"vendorAliases,omitempty"`
	// Supplier is a stable key naming the issuer and its layout
	// ("hetzner-de"): the documents of one supplier share it, and the inbox
	// replay groups and orders by it.
	Supplier    string `json:"supplier,omitempty"`
	SellerVATID string `json:"sellerVatId,omitempty"` // BT-31 as printed
	IBAN        string `json:"iban,omitempty"`        // BT-84 as printed
	// Subtotal is the net sum of the lines before document-level charges
	// and allowances and before tax (BT-106).
	Subtotal string `json:"subtotal,omitempty"`
	// Tax is the total tax (BT-110): "0.00" when the document states none
	// or says it is exempt.
	Tax   string `json:"tax,omitempty"`
	Total string `json:"total,omitempty"` // BT-112
	// AmountDue is BT-115 when it differs from the total (a prepaid part).
	AmountDue string `json:"amountDue,omitempty"`
	// Charges are the document-level charges and allowances a clerk types
	// to finish the document (a discount as a negative amount or kind
	// discount), when it has any; not a vouched field.
	Charges []struct {
		Kind   string `json:"kind,omitempty"`
		Amount string `json:"amount"`
		Reason string `json:"reason,omitempty"`
	} `json:"charges,omitempty"`
	// PrecedingInvoice is the invoice a credit note or corrective invoice
	// names as the one it corrects (BT-25).
	PrecedingInvoice string `json:"precedingInvoice,omitempty"`
	// DuplicateOf is the file name (in the same folder) of the first copy
	// of the same invoice, for a deliberate duplicate.
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Fields lists the fields this truth vouches for (Vouchable): a person
	// checked each against the page. A field listed with an empty value
	// means the document states none, so committing one is wrong.
	Fields []string `json:"fields,omitempty"`
	// Expect is "rejection" where a person verified that the document's own
	// figures do not add up or that it names no issuer (Note says which):
	// its rejection is correct.
	Expect   string `json:"expect,omitempty"`
	Language string `json:"language"`
	Country  string `json:"country,omitempty"`
	Kind     string `json:"kind,omitempty"` // "saas", "utility", "goods", "services", …
	Lines    []struct {
		Description string `json:"description"`
		Amount      string `json:"amount"`
	} `json:"lines,omitempty"`
	Note string `json:"note,omitempty"`
}

// The booked document types of the truth (a credit note and a corrective
// invoice are booked as an invoice is; every other kind is rejected).
const (
	DocInvoice           = "invoice"
	DocCreditNote        = "creditNote"
	DocCorrectiveInvoice = "correctiveInvoice"
)

// ExpectRejection is the Expect value of a document a correct reader rejects.
const ExpectRejection = "rejection"

// Booked reports whether a document of this type is booked (committed) by
// accounts payable rather than rejected as no invoice.
func Booked(documentType string) bool {
	switch documentType {
	case DocInvoice, DocCreditNote, DocCorrectiveInvoice:
		return true
	}
	return false
}

// Vouchable are the fields a truth can vouch for, in report order.
var Vouchable = []string{"invoiceNumber", "issueDate", "currency", "vendor", "total", "subtotal", "tax", "dueDate"}

// Value returns the truth's value of a vouchable field.
func (t Truth) Value(field string) string {
	switch field {
	case "invoiceNumber":
		return t.InvoiceNumber
	case "issueDate":
		return t.IssueDate
	case "currency":
		return t.Currency
	case "vendor":
		return t.Vendor
	case "total":
		return t.Total
	case "subtotal":
		return t.Subtotal
	case "tax":
		return t.Tax
	case "dueDate":
		return t.DueDate
	}
	return ""
}

// Vouches reports whether the truth vouches for field.
func (t Truth) Vouches(field string) bool { return slices.Contains(t.Fields, field) }

// Check returns what is wrong with a truth file: an unknown document type
// or field name, a booked document that vouches for no number or total, a
// vouched amount that is no decimal, a booking date beside an issue date.
func (t Truth) Check() error {
	var errs []error
	if !Booked(t.DocumentType) && !slices.Contains(NonInvoiceTypes, t.DocumentType) {
		errs = append(errs, fmt.Errorf("documentType %q is none of %v or %v", t.DocumentType,
			[]string{DocInvoice, DocCreditNote, DocCorrectiveInvoice}, NonInvoiceTypes))
	}
	for _, f := range t.Fields {
		if !slices.Contains(Vouchable, f) {
			errs = append(errs, fmt.Errorf("fields: %q is none of %v", f, Vouchable))
		}
	}
	if Booked(t.DocumentType) && t.Expect == "" {
		for _, f := range []string{"invoiceNumber", "total"} {
			if !t.Vouches(f) || t.Value(f) == "" {
				errs = append(errs, fmt.Errorf("a booked document must vouch for its %s", f))
			}
		}
	}
	for _, f := range []string{"total", "subtotal", "tax"} {
		if v := t.Value(f); v != "" && !extract.SameDecimal(v, v) {
			errs = append(errs, fmt.Errorf("%s %q is no decimal", f, v))
		}
	}
	if t.BookingDate != "" && (t.IssueDate != "" || !isISODate(t.BookingDate)) {
		errs = append(errs, fmt.Errorf("bookingDate %q: only for a document that prints no issue date, as YYYY-MM-DD", t.BookingDate))
	}
	if t.Expect != "" && t.Expect != ExpectRejection {
		errs = append(errs, fmt.Errorf("expect %q: only %q is known", t.Expect, ExpectRejection))
	}
	return errors.Join(errs...)
}

// NonInvoiceTypes are the document types that are no invoice (extract's
// Doc* values that are rejected as not_an_invoice).
var NonInvoiceTypes = []string{extract.DocReceipt, extract.DocPurchaseOrder, extract.DocQuote, extract.DocStatement, extract.DocOther}

// ReadTruthFile reads a truth file (<name>.json beside <name>.pdf),
// refusing an unknown member, and checks it.
func ReadTruthFile(path string) (Truth, error) {
	var t Truth
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	if err := t.Check(); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ErrNoXML: the PDF embeds no CII invoice.
var ErrNoXML = errors.New("no embedded CII XML")

// EmbeddedTruth reads the fields of the CII XML a hybrid PDF embeds, with
// pdfdetach -saveall into a temporary directory.
func EmbeddedTruth(pdf string) (Truth, error) {
	dir, err := os.MkdirTemp("", "realcorpus-")
	if err != nil {
		return Truth{}, err
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(pdf)
	if err != nil {
		return Truth{}, err
	}
	cmd := exec.Command("pdfdetach", "-saveall", "-o", dir, abs)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Truth{}, fmt.Errorf("pdfdetach: %v: %s", err, strings.TrimSpace(string(out)))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if !strings.HasSuffix(strings.ToLower(f), ".xml") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			return Truth{}, err
		}
		t, err := CIITruth(fh)
		fh.Close()
		if err == nil {
			return t, nil
		}
	}
	return Truth{}, ErrNoXML
}

// CIITruth walks a CII document (ZUGFeRD 1 CrossIndustryDocument or
// ZUGFeRD 2 / Factur-X CrossIndustryInvoice) by local element names. The
// truth vouches for every field the XML states.
func CIITruth(r io.Reader) (Truth, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var path []string
	var attrs []xml.StartElement
	var t Truth
	var typeCode string
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			path = append(path, tok.Name.Local)
			attrs = append(attrs, tok)
		case xml.EndElement:
			path, attrs = path[:len(path)-1], attrs[:len(attrs)-1]
		case xml.CharData:
			v := strings.TrimSpace(string(tok))
			if v == "" || len(path) < 2 {
				continue
			}
			if code := ciiField(&t, path, attrs[len(attrs)-1], v); code != "" {
				typeCode = code
			}
		}
	}
	if root != "CrossIndustryInvoice" && root != "CrossIndustryDocument" {
		return t, ErrNoXML
	}
	t.DocumentType = documentTypeOf(typeCode)
	for _, f := range Vouchable {
		if t.Value(f) != "" {
			t.Fields = append(t.Fields, f)
		}
	}
	return t, nil
}

// ciiField sets the truth's field an element's text v states (its path of
// local names, the element itself for its attributes); it returns the
// type code (BT-3) when the element is one.
func ciiField(t *Truth, path []string, el xml.StartElement, v string) (typeCode string) {
	p := strings.Join(path, "/")
	parent, leaf := path[len(path)-2], path[len(path)-1]
	header := !strings.Contains(p, "LineItem")
	set := func(field *string, value string) {
		if *field == "" {
			*field = value
		}
	}
	switch {
	case (parent == "ExchangedDocument" || parent == "HeaderExchangedDocument") && leaf == "ID":
		set(&t.InvoiceNumber, v) // BT-1 invoice number
	case (parent == "ExchangedDocument" || parent == "HeaderExchangedDocument") && leaf == "TypeCode":
		return v // BT-3 invoice type code
	case strings.HasSuffix(p, "ExchangedDocument/IssueDateTime/DateTimeString"):
		set(&t.IssueDate, isoDate(v)) // BT-2 issue date
	case strings.HasSuffix(p, "PaymentTerms/DueDateDateTime/DateTimeString") && header:
		set(&t.DueDate, isoDate(v)) // BT-9 payment due date
	case parent == "SellerTradeParty" && leaf == "Name":
		set(&t.Vendor, v) // BT-27 seller name
	case strings.HasSuffix(p, "SellerTradeParty/SpecifiedLegalOrganization/TradingBusinessName"):
		t.VendorAliases = append(t.VendorAliases, v) // BT-28 seller trading name
	case strings.HasSuffix(p, "SellerTradeParty/SpecifiedTaxRegistration/ID") && attr(el, "schemeID") == "VA":
		set(&t.SellerVATID, v) // BT-31 seller VAT identifier
	case strings.HasSuffix(p, "PayeePartyCreditorFinancialAccount/IBANID"):
		set(&t.IBAN, v) // BT-84 payment account identifier
	case strings.HasSuffix(p, "InvoiceReferencedDocument/IssuerAssignedID") && header:
		set(&t.PrecedingInvoice, v) // BT-25 preceding invoice reference
	case leaf == "InvoiceCurrencyCode":
		set(&t.Currency, v) // BT-5 invoice currency
	case strings.HasSuffix(parent, "MonetarySummation") && header:
		ciiAmount(t, leaf, el, v)
	}
	return ""
}

// ciiAmount sets the document totals of the header's monetary summation.
func ciiAmount(t *Truth, leaf string, el xml.StartElement, v string) {
	switch leaf {
	case "LineTotalAmount":
		t.Subtotal = first(t.Subtotal, v) // BT-106 sum of invoice line net amounts
	case "TaxTotalAmount":
		// BT-110 in the invoice currency; a second one with another
		// currencyID is BT-111, the tax in the accounting currency
		if c := attr(el, "currencyID"); c == "" || t.Currency == "" || c == t.Currency {
			t.Tax = first(t.Tax, v)
		}
	case "GrandTotalAmount":
		t.Total = first(t.Total, v) // BT-112 total with VAT
	case "DuePayableAmount":
		t.AmountDue = first(t.AmountDue, v) // BT-115 amount due
	}
}

func first(have, v string) string {
	if have != "" {
		return have
	}
	return v
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// documentTypeOf maps UNTDID 1001 codes (BT-3) to the truth's types.
func documentTypeOf(code string) string {
	switch code {
	case "81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532":
		return DocCreditNote // the credit note codes EN 16931 lists
	case "384":
		return DocCorrectiveInvoice
	case "751": // invoice information for accounting purposes: a booking aid, no invoice
		return extract.DocOther
	}
	return DocInvoice
}

func isoDate(v string) string {
	if len(v) == 8 {
		return v[:4] + "-" + v[4:6] + "-" + v[6:]
	}
	return v
}

// isISODate reports whether s is a calendar date written YYYY-MM-DD.
func isISODate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}
