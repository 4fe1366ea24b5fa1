package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// truth is what a document says, checked by a person or read from the XML
// a hybrid PDF embeds. DocumentType is one of extract's Doc* values.
type truth struct {
	DocumentType  string `json:"documentType"`
	InvoiceNumber string `json:"invoiceNumber,omitempty"`
	IssueDate     string `json:"issueDate,omitempty"`
	Currency      string `json:"currency,omitempty"`
	Vendor        string `json:"vendor,omitempty"`
	Total         string `json:"total,omitempty"`
	// AmountDue is BT-115 when it differs from the total (a prepaid part).
	AmountDue string `json:"amountDue,omitempty"`
	Language  string `json:"language"`
	Country   string `json:"country,omitempty"`
	Kind      string `json:"kind,omitempty"` // "saas", "utility", "goods", "services", …
	Lines     []struct {
		Description string `json:"description"`
		Amount      string `json:"amount"`
	} `json:"lines,omitempty"`
	Note string `json:"note,omitempty"`
}

func readTruthFile(path string) (truth, error) {
	var t truth
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// errNoXML: the PDF embeds no CII invoice.
var errNoXML = errors.New("no embedded CII XML")

// embeddedTruth reads the fields of the CII XML a hybrid PDF embeds, with
// pdfdetach -saveall into a temporary directory.
func embeddedTruth(pdf string) (truth, error) {
	dir, err := os.MkdirTemp("", "evalreal")
	if err != nil {
		return truth{}, err
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(pdf)
	if err != nil {
		return truth{}, err
	}
	cmd := exec.Command("pdfdetach", "-saveall", "-o", dir, abs)
	if out, err := cmd.CombinedOutput(); err != nil {
		return truth{}, fmt.Errorf("pdfdetach: %v: %s", err, strings.TrimSpace(string(out)))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if !strings.HasSuffix(strings.ToLower(f), ".xml") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			return truth{}, err
		}
		t, err := ciiTruth(fh)
		fh.Close()
		if err == nil {
			return t, nil
		}
	}
	return truth{}, errNoXML
}

// ciiTruth walks a CII document (ZUGFeRD 1 CrossIndustryDocument or
// ZUGFeRD 2 / Factur-X CrossIndustryInvoice) by local element names.
func ciiTruth(r io.Reader) (truth, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var path []string
	var t truth
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
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			v := strings.TrimSpace(string(tok))
			if v == "" || len(path) < 2 {
				continue
			}
			p := strings.Join(path, "/")
			parent, leaf := path[len(path)-2], path[len(path)-1]
			switch {
			case (parent == "ExchangedDocument" || parent == "HeaderExchangedDocument") && leaf == "ID" && t.InvoiceNumber == "":
				t.InvoiceNumber = v // BT-1 invoice number
			case (parent == "ExchangedDocument" || parent == "HeaderExchangedDocument") && leaf == "TypeCode":
				typeCode = v // BT-3 invoice type code
			case strings.HasSuffix(p, "ExchangedDocument/IssueDateTime/DateTimeString") && t.IssueDate == "":
				t.IssueDate = isoDate(v) // BT-2 issue date
			case parent == "SellerTradeParty" && leaf == "Name" && t.Vendor == "":
				t.Vendor = v // BT-27 seller name
			case leaf == "InvoiceCurrencyCode" && t.Currency == "":
				t.Currency = v // BT-5 invoice currency
			case strings.HasSuffix(parent, "MonetarySummation") && leaf == "GrandTotalAmount" && !strings.Contains(p, "LineItem") && t.Total == "":
				t.Total = v // BT-112 total with VAT
			case strings.HasSuffix(parent, "MonetarySummation") && leaf == "DuePayableAmount" && !strings.Contains(p, "LineItem") && t.AmountDue == "":
				t.AmountDue = v // BT-115 amount due
			}
		}
	}
	if root != "CrossIndustryInvoice" && root != "CrossIndustryDocument" {
		return t, errNoXML
	}
	t.DocumentType = documentTypeOf(typeCode)
	if typeCode == "384" && strings.HasPrefix(t.Total, "-") {
		// a corrected invoice that credits money is scored as a credit
		// note: the pipeline rejects it, as it rejects credit notes
		t.DocumentType = "credit_note"
	}
	return t, nil
}

// documentTypeOf maps UNTDID 1001 codes (BT-3) to the pipeline's types.
func documentTypeOf(code string) string {
	switch code {
	case "381", "396", "532":
		return "credit_note"
	case "751": // invoice information for accounting purposes: a booking aid, no invoice
		return "other"
	}
	return "invoice"
}

func isoDate(v string) string {
	if len(v) == 8 {
		return v[:4] + "-" + v[4:6] + "-" + v[6:]
	}
	return v
}
