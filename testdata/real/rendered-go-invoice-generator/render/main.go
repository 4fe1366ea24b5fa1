// Command render lays out the documents of documents.json (written by
// scripts/inboxcorpus) with github.com/angelodlfrtr/go-invoice-generator,
// the template unchanged: only its labels (Options.Text*) are set to the
// supplier's language, as the library offers. Run from this folder:
//
//	go run . -out ..
//
// A "reprint" copy is made afterwards with pdftocairo, a Factur-X copy and
// its XML with facturx.cjs (see ../README.md).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	generator "github.com/angelodlfrtr/go-invoice-generator"
)

type party struct {
	Name, Street, Zip, City, Country string
	VATID, IBAN, BIC, Email, Phone   string
}

type labels struct {
	Invoice, CreditNote, Corrective                 string
	Number, Date, DueDate, Customer, Seller, Status string
	Description, Quantity, UnitPrice, Amount, Item  string
	Subtotal, VAT, Total, Bank, VATID, PaymentTerms string
	Thanks, Open, Discount                          string
}

type line struct {
	Desc      string  `json:"desc"`
	Qty       float64 `json:"qty"`
	UnitCents int64   `json:"unitCents"`
}

type doc struct {
	File, Lang, Currency, Symbol, Title, Number string
	CopyOf, CopyMode                            string
	IssueDateText, DueDateText                  string
	PaymentTerms, Reference, VATRate            string
	Labels                                      labels
	Seller, Buyer                               party
	Lines                                       []line
}

func main() {
	out := flag.String("out", "..", "folder to write the PDFs to")
	flag.Parse()
	b, err := os.ReadFile("documents.json")
	if err != nil {
		fail(err)
	}
	var docs []doc
	if err := json.Unmarshal(b, &docs); err != nil {
		fail(err)
	}
	for _, d := range docs {
		if d.CopyMode != "" && d.CopyMode != "rerender" {
			continue // made from the first copy: pdftocairo, facturx.cjs
		}
		created := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
		if d.CopyMode == "rerender" {
			created = created.Add(72 * time.Hour)
		}
		if err := render(d, filepath.Join(*out, d.File), created); err != nil {
			fail(fmt.Errorf("%s: %w", d.File, err))
		}
	}
}

func render(d doc, path string, created time.Time) error {
	l := d.Labels
	opt := &generator.Options{
		CurrencySymbol: d.Symbol, CurrencyPrecision: 2, CurrencyDecimal: ",", CurrencyThousand: ".",
		TextTypeInvoice: d.Title, TextRefTitle: l.Number, TextDateTitle: l.Date, TextPaymentTermTitle: l.DueDate,
		TextItemsNameTitle: l.Description, TextItemsUnitCostTitle: l.UnitPrice, TextItemsQuantityTitle: l.Quantity,
		TextItemsTotalHTTitle: l.Amount, TextItemsTaxTitle: l.VAT, TextItemsDiscountTitle: l.Discount, TextItemsTotalTTCTitle: l.Total,
		TextTotalTotal: l.Subtotal, TextTotalDiscounted: l.Subtotal, TextTotalTax: l.VAT, TextTotalWithTax: l.Total,
	}
	if d.Lang == "en" {
		opt.CurrencyDecimal, opt.CurrencyThousand = ".", ","
	}
	doc, err := generator.New(generator.Invoice, opt)
	if err != nil {
		return err
	}
	doc.SetUnicodeTranslator(doc.Pdf().UnicodeTranslatorFromDescriptor(""))
	doc.Pdf().SetCreationDate(created)
	doc.Pdf().SetModificationDate(created)
	doc.SetRef(d.Number)
	doc.SetDate(d.IssueDateText)
	if d.DueDateText != "" {
		doc.SetPaymentTerm(d.DueDateText)
	}
	if d.Reference != "" {
		doc.SetDescription(d.Reference)
	}
	notes := l.Thanks
	if d.PaymentTerms != "" {
		notes = d.PaymentTerms + ". " + notes
	}
	doc.SetNotes(notes)
	seller := contact(d.Seller)
	if d.Seller.VATID != "" {
		seller.AddtionnalInfo = append(seller.AddtionnalInfo, l.VATID+" "+d.Seller.VATID)
	}
	if d.Seller.IBAN != "" {
		seller.AddtionnalInfo = append(seller.AddtionnalInfo, "IBAN "+d.Seller.IBAN, "BIC "+d.Seller.BIC)
	}
	seller.AddtionnalInfo = append(seller.AddtionnalInfo, d.Seller.Email)
	doc.SetCompany(seller)
	buyer := contact(d.Buyer)
	if d.Buyer.VATID != "" {
		buyer.AddtionnalInfo = append(buyer.AddtionnalInfo, l.VATID+" "+d.Buyer.VATID)
	}
	doc.SetCustomer(buyer)
	for _, ln := range d.Lines {
		doc.AppendItem(&generator.Item{Name: ln.Desc, UnitCost: cents(ln.UnitCents), Quantity: fmt.Sprint(ln.Qty),
			Tax: &generator.Tax{Percent: d.VATRate}})
	}
	pdf, err := doc.Build()
	if err != nil {
		return err
	}
	return pdf.OutputFileAndClose(path)
}

func contact(p party) *generator.Contact {
	return &generator.Contact{Name: p.Name, Address: &generator.Address{Address: p.Street, PostalCode: p.Zip, City: p.City, Country: p.Country}}
}

func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "render:", err)
	os.Exit(1)
}
