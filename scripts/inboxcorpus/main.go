// Command inboxcorpus writes the data of the inbox corpus: several
// documents per supplier layout, each rendered by a real invoicing
// template (testdata/real/rendered-<tool>/) with data written here. For
// every supplier in suppliers.go it makes the documents of its plan
// (invoices, credit notes, corrective invoices, deliberate duplicates) with
// their own numbers, dates, customers and lines, and writes
//
//   - testdata/real/rendered-<tool>/render/documents.json, what the
//     folder's renderer lays out (amounts also preformatted in the
//     supplier's language), and
//   - testdata/real/rendered-<tool>/<file>.json, the truth: the data given,
//     every field vouched for.
//
// The renderers are then run (each folder's README says how), and
// `inboxcorpus -check` compares every rendered PDF's text (pdftotext
// -layout) with its truth: the number, the vendor, the dates and each of
// subtotal, tax and total must be printed.
//
// Usage: go run ./scripts/inboxcorpus [-root .] [-check]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var sprintf = fmt.Sprintf

// line is one invoice line as the renderers print it.
type line struct {
	Desc      string  `json:"desc"`
	Qty       float64 `json:"qty"`
	QtyText   string  `json:"qtyText"`
	Unit      string  `json:"unit,omitempty"`
	UnitCents int64   `json:"unitCents"`
	UnitText  string  `json:"unitText"`
	NetCents  int64   `json:"netCents"`
	NetText   string  `json:"netText"`
}

// doc is one document for a renderer.
type doc struct {
	File     string `json:"file"`
	Supplier string `json:"supplier"`
	// Kind is the truth's document type: invoice, creditNote,
	// correctiveInvoice.
	Kind string `json:"kind"`
	// Cancellation: the template's own cancellation (storno) mode prints
	// the preceding invoice negated (invoice-maker).
	Cancellation bool `json:"cancellation,omitempty"`
	// CopyOf and CopyMode: a deliberate duplicate of CopyOf, "reprint"
	// (the first copy passed through another PDF writer), "rerender",
	// "facturx" (the first copy made a Factur-X hybrid) or "cii" (that
	// hybrid's XML alone, File ending in .xml).
	CopyOf   string `json:"copyOf,omitempty"`
	CopyMode string `json:"copyMode,omitempty"`

	Lang     string `json:"lang"`
	Country  string `json:"country"`
	Currency string `json:"currency"`
	Symbol   string `json:"symbol,omitempty"`
	Labels   labels `json:"labels"`
	Title    string `json:"title"`

	Number        string `json:"number"`
	IssueDate     string `json:"issueDate"`
	IssueDateText string `json:"issueDateText"`
	DeliveryDate  string `json:"deliveryDate"`
	DueDate       string `json:"dueDate,omitempty"`
	DueDateText   string `json:"dueDateText,omitempty"`
	PaymentTerms  string `json:"paymentTerms,omitempty"`
	Preceding     string `json:"preceding,omitempty"`
	PrecedingDate string `json:"precedingDate,omitempty"`
	Reference     string `json:"reference,omitempty"`
	Seller        party  `json:"seller"`
	Buyer         party  `json:"buyer"`
	Lines         []line `json:"lines"`
	VATRate       string `json:"vatRate"` // "19", "5.5"
	SubtotalCents int64  `json:"subtotalCents"`
	TaxCents      int64  `json:"taxCents"`
	TotalCents    int64  `json:"totalCents"`
	SubtotalText  string `json:"subtotalText"`
	TaxText       string `json:"taxText"`
	TotalText     string `json:"totalText"`
}

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "compare every rendered PDF's text with its truth instead of writing the data")
	flag.Parse()
	if *check {
		if err := checkRendered(*root); err != nil {
			fmt.Fprintln(os.Stderr, "inboxcorpus:", err)
			os.Exit(1)
		}
		return
	}
	byTool := map[string][]*doc{}
	for _, s := range suppliers {
		docs, err := generate(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "inboxcorpus: %s: %v\n", s.Key, err)
			os.Exit(2)
		}
		byTool[s.Tool] = append(byTool[s.Tool], docs...)
	}
	tools := make([]string, 0, len(byTool))
	for t := range byTool {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		if err := write(*root, tool, byTool[tool]); err != nil {
			fmt.Fprintln(os.Stderr, "inboxcorpus:", err)
			os.Exit(2)
		}
		fmt.Printf("%s: %d documents\n", tool, len(byTool[tool]))
	}
}

// generate makes the documents of one supplier's plan, deterministically
// (a seed per supplier key).
func generate(s supplier) ([]*doc, error) {
	l, ok := languages[s.Lang]
	if !ok {
		return nil, fmt.Errorf("no labels for language %q", s.Lang)
	}
	if s.DateLayout != "" {
		l.dateLayout = s.DateLayout
	}
	seed := uint64(0)
	for _, r := range s.Key {
		seed = seed*31 + uint64(r)
	}
	rng := rand.New(rand.NewPCG(seed, 2026))
	var docs []*doc
	var invoices []*doc
	seq := s.First
	date := s.Start
	for i, kind := range s.Plan {
		file := fmt.Sprintf("%s-%02d.pdf", s.Key, i+1)
		switch kind {
		case "reprint", "rerender", "facturx", "cii":
			orig := lastOriginal(docs)
			if orig == nil {
				return nil, fmt.Errorf("plan: %s without a document before it", kind)
			}
			c := *orig
			c.File, c.CopyOf, c.CopyMode = file, orig.File, kind
			if kind == "cii" {
				c.File = strings.TrimSuffix(file, ".pdf") + ".xml"
			}
			docs = append(docs, &c)
			continue
		}
		d := &doc{File: file, Supplier: s.Key, Kind: "invoice", Lang: s.Lang, Country: s.Country, Currency: s.Currency,
			Symbol: s.Symbol, Labels: l, Title: l.Invoice, Seller: s.Seller, VATRate: rate(s.VATBP)}
		d.Number = s.Number(date.Year(), seq)
		d.IssueDate, d.IssueDateText = date.Format(time.DateOnly), l.date(date)
		d.DeliveryDate = date.AddDate(0, 0, -rng.IntN(6)-1).Format(time.DateOnly)
		switch kind {
		case "invoice":
			d.Buyer = s.Buyers[rng.IntN(len(s.Buyers))]
			d.Lines = pickLines(rng, s.Catalog, l)
			invoices = append(invoices, d)
		case "creditNote", "corrective", "cancellation":
			if len(invoices) == 0 {
				return nil, fmt.Errorf("plan: %s before any invoice", kind)
			}
			pre := invoices[len(invoices)-1]
			d.Buyer, d.Preceding, d.PrecedingDate = pre.Buyer, pre.Number, pre.IssueDateText
			d.Reference = fmt.Sprintf(l.creditFor, pre.Number, pre.IssueDateText)
			d.Kind, d.Title = "creditNote", l.CreditNote
			switch {
			case kind == "corrective":
				d.Kind, d.Title = "correctiveInvoice", l.Corrective
				d.Lines = []line{mkLine(l, l.correction, 1, "", -int64(200+rng.IntN(4800)))}
			case s.Tool == "invoice-maker":
				// the template's cancellation invoice: the preceding
				// invoice negated, under its own number
				d.Cancellation, d.Lines = true, pre.Lines
				if s.Lang == "pl" {
					d.Kind, d.Title = "correctiveInvoice", l.Corrective
				}
			default:
				d.Lines = creditLines(rng, pre.Lines, l)
			}
		default:
			return nil, fmt.Errorf("plan: unknown kind %q", kind)
		}
		if s.DueDays > 0 && kind == "invoice" {
			due := date.AddDate(0, 0, s.DueDays)
			d.DueDate, d.DueDateText = due.Format(time.DateOnly), l.date(due)
			d.PaymentTerms = fmt.Sprintf(l.PaymentTerms, s.DueDays)
		}
		if d.DueDate == "" && s.Tool == "pdf-invoice" {
			// the template prints the issue date as the due date when it
			// is given none: that is what the page states
			d.DueDate, d.DueDateText = d.IssueDate, d.IssueDateText
		}
		totals(d, s, l)
		docs = append(docs, d)
		seq++
		date = date.AddDate(0, 0, s.Every+rng.IntN(7)-3)
	}
	return docs, nil
}

// lastOriginal is the last document that is no copy of another.
func lastOriginal(docs []*doc) *doc {
	for i := len(docs) - 1; i >= 0; i-- {
		if docs[i].CopyOf == "" {
			return docs[i]
		}
	}
	return nil
}

func rate(bp int64) string {
	if bp%100 == 0 {
		return fmt.Sprint(bp / 100)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%02d", bp/100, bp%100), "0")
}

func pickLines(rng *rand.Rand, catalog []product, l labels) []line {
	n := 1 + rng.IntN(min(4, len(catalog)))
	perm := rng.Perm(len(catalog))[:n]
	sort.Ints(perm)
	var ls []line
	for _, i := range perm {
		p := catalog[i]
		ls = append(ls, mkLine(l, p.Desc, float64(1+rng.IntN(8)), p.Unit, p.Cents))
	}
	return ls
}

// creditLines credits part of an invoice: one of its lines, fewer units.
func creditLines(rng *rand.Rand, of []line, l labels) []line {
	src := of[rng.IntN(len(of))]
	qty := max(1, float64(int(src.Qty)/2))
	return []line{mkLine(l, src.Desc, qty, src.Unit, src.UnitCents)}
}

func mkLine(l labels, desc string, qty float64, unit string, unitCents int64) line {
	net := int64(qty * float64(unitCents))
	return line{Desc: desc, Qty: qty, QtyText: fmt.Sprint(qty), Unit: unit, UnitCents: unitCents, UnitText: l.money(unitCents),
		NetCents: net, NetText: l.money(net)}
}

// totals sets the subtotal, tax and total as the supplier's template
// computes them: tax on the subtotal, rounded half away from zero (or
// truncated, where the template truncates), the total their sum.
func totals(d *doc, s supplier, l labels) {
	sign := int64(1)
	if d.Cancellation {
		sign = -1
	}
	var sub int64
	for _, ln := range d.Lines {
		sub += ln.NetCents
	}
	sub *= sign
	num := sub * s.VATBP // in 1/10000 cents
	tax := num / 10000
	if r := num % 10000; !s.TaxFloor && (r >= 5000 || r <= -5000) {
		tax += num / abs(num)
	}
	d.SubtotalCents, d.TaxCents, d.TotalCents = sub, tax, sub+tax
	d.SubtotalText, d.TaxText, d.TotalText = l.money(sub), l.money(tax), l.money(sub+tax)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// truthFile is the truth of one rendered document (the fields of
// scripts/evalreal's truth that a rendered document has).
type truthFile struct {
	DocumentType     string   `json:"documentType"`
	InvoiceNumber    string   `json:"invoiceNumber"`
	IssueDate        string   `json:"issueDate"`
	DueDate          string   `json:"dueDate,omitempty"`
	Currency         string   `json:"currency"`
	Vendor           string   `json:"vendor"`
	Supplier         string   `json:"supplier"`
	SellerVATID      string   `json:"sellerVatId,omitempty"`
	IBAN             string   `json:"iban,omitempty"`
	Subtotal         string   `json:"subtotal"`
	Tax              string   `json:"tax"`
	Total            string   `json:"total"`
	PrecedingInvoice string   `json:"precedingInvoice,omitempty"`
	DuplicateOf      string   `json:"duplicateOf,omitempty"`
	Fields           []string `json:"fields"`
	Language         string   `json:"language"`
	Country          string   `json:"country"`
	Note             string   `json:"note"`
}

func write(root, tool string, docs []*doc) error {
	dir := filepath.Join(root, "testdata", "real", "rendered-"+tool)
	if err := os.MkdirAll(filepath.Join(dir, "render"), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(docs, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "render", "documents.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, d := range docs {
		t := truthOf(d, tool)
		b, err := json.MarshalIndent(t, "", " ")
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimSuffix(d.File, ".pdf"), ".xml") + ".json"
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func truthOf(d *doc, tool string) truthFile {
	t := truthFile{DocumentType: d.Kind, InvoiceNumber: d.Number, IssueDate: d.IssueDate, DueDate: d.DueDate,
		Currency: d.Currency, Vendor: d.Seller.Name, Supplier: d.Supplier, SellerVATID: vatID(d.Seller.VATID), IBAN: d.Seller.IBAN,
		Subtotal: decimal(d.SubtotalCents), Tax: decimal(d.TaxCents), Total: decimal(d.TotalCents),
		PrecedingInvoice: d.Preceding, DuplicateOf: d.CopyOf,
		Fields:   []string{"invoiceNumber", "issueDate", "currency", "vendor", "total", "subtotal", "tax", "dueDate"},
		Language: d.Lang, Country: d.Country}
	what := map[string]string{"invoice": "an invoice", "creditNote": "a credit note", "correctiveInvoice": "a corrective invoice"}[d.Kind]
	t.Note = fmt.Sprintf("rendered by %s with data written for this corpus (scripts/inboxcorpus): %s %q titled %q, %s, %d line(s), %s %s + %s %s = %s %s",
		tool, what, d.Number, d.Title, d.IssueDateText, len(d.Lines), d.Labels.Subtotal, d.SubtotalText, d.Labels.VAT, d.TaxText, d.Labels.Total, d.TotalText)
	if d.DueDate == "" {
		t.Note += "; no due date is printed"
	}
	if tool == "pdf-invoice" {
		t.Note += "; the template prints no net sum (its subtotal row adds the lines with their tax, the total), so the subtotal is the lines' price x quantity; it prints the number after a '#'"
	}
	if d.Preceding != "" {
		t.Note += fmt.Sprintf("; names invoice %s", d.Preceding)
	}
	if d.CopyOf != "" {
		t.Note += fmt.Sprintf("; the same invoice as %s (%s)", d.CopyOf, map[string]string{
			"reprint":  "printed again through another PDF writer",
			"rerender": "rendered again",
			"facturx":  "made a Factur-X EN 16931 hybrid by @e-invoice-eu/core: the same page with its CII XML attached",
			"cii":      "its CII XML alone, as @e-invoice-eu/core writes it for the Factur-X hybrid",
		}[d.CopyMode])
	}
	return t
}

// vatID is the seller's VAT id as the truth holds it: a US EIN or an
// Australian ABN is no VAT id.
func vatID(v string) string {
	if strings.HasPrefix(v, "EIN") || strings.HasPrefix(v, "ABN") {
		return ""
	}
	return v
}
