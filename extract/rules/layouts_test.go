package rules

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// extractText runs Classify and Extract and returns the extraction.
func extractText(t *testing.T, content string) extract.Extraction {
	t.Helper()
	ctx := context.Background()
	cls, err := Rules{}.Classify(ctx, content)
	require.NoError(t, err)
	ext, err := Rules{}.Extract(ctx, content, cls)
	require.NoError(t, err)
	var x extract.Extraction
	require.NoError(t, json.Unmarshal(ext, &x))
	return x
}

func TestRules_LabelSynonyms(t *testing.T) {
	t.Parallel()
	base := map[string]string{"number": "Invoice No: A-1", "vendor": "Vendor: Acme Ltd", "date": "Date: 2026-03-03",
		"total": "Total: €10.00"}
	tests := []struct {
		field, line, want string
	}{
		{"number", "Invoice No.: A-7", "A-7"},
		{"number", "Invoice #: 50-1187", "50-1187"},
		{"number", "Invoice Number  INV-88", "INV-88"},
		{"number", "Inv. No 2026/17", "2026/17"},
		{"number", "Invoice ref: MSC-9", "MSC-9"},
		{"number", "Invoice ID: BH-1", "BH-1"},
		{"number", "Document No.: DN-7", "DN-7"},
		{"number", "Invoice № 4471", "4471"},
		{"number", "Folio: A-10294", "A-10294"},
		{"vendor", "Supplier: Northwind B.V.", "Northwind B.V."},
		{"vendor", "Seller: Acme Inc.", "Acme Inc."},
		{"vendor", "From: Oakhurst Ltd", "Oakhurst Ltd"},
		{"vendor", "**Supplier:** Blue Ltd", "Blue Ltd"},
		{"date", "Invoice Date: 2026-03-04", "2026-03-04"},
		{"date", "Issued: 4 March 2026", "2026-03-04"},
		{"date", "Tax point: 04.03.2026", "2026-03-04"},
		{"date", "Date of issue  March 4, 2026", "2026-03-04"},
		{"total", "Total Due: €12.00", "12.00"},
		{"total", "Amount Due: €12.00", "12.00"},
		{"total", "Balance Due  €12.00", "12.00"},
		{"total", "Grand Total: €12.00", "12.00"},
		{"total", "Invoice Total €12.00", "12.00"},
		{"total", "Total (EUR)  12.00", "12.00"},
		{"total", "Total (GST inclusive)  €12.00", "12.00"},
		{"total", "Total this invoice: €12.00", "12.00"},
		{"total", "Please remit €12.00", "12.00"},
		{"total", "To pay  12,00 EUR", "12.00"},
		{"total", "TOTAL DUE BY 30/03/2026: €12.00", "12.00"},
		{"total", "Balance due by 30/03/2026  €12.00", "12.00"},
		{"total", "Total inclusive of VAT: €12.00", "12.00"},
	}
	for _, tt := range tests {
		lines := []string{"INVOICE"}
		for _, k := range []string{"number", "vendor", "date", "total"} {
			if k == tt.field {
				lines = append(lines, tt.line)
			} else {
				lines = append(lines, base[k])
			}
		}
		x := extractText(t, strings.Join(lines, "\n")+"\n")
		got := map[string]string{"number": x.InvoiceNumber, "vendor": x.Vendor, "date": x.IssueDate, "total": x.Total}[tt.field]
		require.Equal(t, tt.want, got, tt.line)
	}
}

func TestRules_TaxLabels(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"Tax: €2.00", "VAT 20%: €2.00", "VAT @ 20%  €2.00", "Sales Tax (8.25%)  €2.00",
		"GST  €2.00", "MwSt. 19%  €2.00", "plus 19% VAT  €2.00", "VAT 20% on €10.00  €2.00"} {
		x := extractText(t, "INVOICE\nInvoice No: A-1\nSubtotal: €10.00\n"+line+"\nTotal: €12.00\n")
		require.Equal(t, "2.00", x.Tax, line)
		require.Equal(t, "10.00", x.Subtotal, line)
	}
	for _, line := range []string{"VAT No: GB 123 4567 89", "GST/HST No. 629434529 RT0001", "Tax ID: 12-3456789"} {
		x := extractText(t, "INVOICE\nInvoice No: A-1\n"+line+"\nTotal: €12.00\n")
		require.Empty(t, x.Tax, "a registration number is not tax: %s", line)
	}
}

func TestRules_SubtotalLabels(t *testing.T) {
	t.Parallel()
	for _, label := range []string{"Subtotal", "Sub-total", "Net Total", "Net amount", "Total net", "Total excl. VAT",
		"Total charges before VAT", "Total (GST exclusive)"} {
		x := extractText(t, "INVOICE\nInvoice No: A-1\n"+label+":  €10.00\nVAT: €2.00\nTotal: €12.00\n")
		require.Equal(t, "10.00", x.Subtotal, label)
	}
}

func TestRules_Layouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want extract.Extraction
	}{
		{"two columns: Bill to beside the invoice fields", `Acme Widgets Ltd

Bill To:                          Invoice No: W-12
Globex Corporation Ltd            Date: 03/03/2026
12 Main St                        Due: 02/04/2026

Description            Qty    Price    Amount
Widget                   2     5.00     10.00

Total                                  £10.00
`, extract.Extraction{InvoiceNumber: "W-12", Vendor: "Acme Widgets Ltd", IssueDate: "2026-03-03", Currency: "GBP", Total: "10.00"}},
		{"a header row of labels, values below", `Acme Widgets Ltd
INVOICE
Invoice No.    Date          Currency
W-13           2026-03-05    EUR

Description            Amount
Widget                  10.00

Total                   10.00
`, extract.Extraction{InvoiceNumber: "W-13", Vendor: "Acme Widgets Ltd", IssueDate: "2026-03-05", Currency: "EUR", Total: "10.00"}},
		{"label on its own line, value below", `INVOICE
Invoice Number:
W-14
Vendor:
Acme Widgets Ltd
Date: 2026-03-06
Total: $10.00
`, extract.Extraction{InvoiceNumber: "W-14", Vendor: "Acme Widgets Ltd", IssueDate: "2026-03-06", Currency: "USD", Total: "10.00"}},
		{"an e-mail with the numbers in prose", `From: Acme Widgets Ltd <billing@acme.example>
To: ap@globex.example
Subject: Invoice W-15
Date: Mon, 2 Mar 2026 09:00:00 +0000

Hello,

this is invoice W-15, dated 2 March 2026. The subtotal is £10.00, plus VAT
of £2.00, so the total due is £12.00.

Regards,
Acme Widgets Ltd
`, extract.Extraction{InvoiceNumber: "W-15", Vendor: "Acme Widgets Ltd", IssueDate: "2026-03-02", Currency: "GBP", Subtotal: "10.00", Tax: "2.00", Total: "12.00"}},
		{"a semicolon export", `InvoiceNo;InvoiceDate;Supplier;Currency;Total
W-16;2026-03-07;Acme Widgets Ltd;EUR;10,00
`, extract.Extraction{InvoiceNumber: "W-16", Vendor: "Acme Widgets Ltd", IssueDate: "2026-03-07", Currency: "EUR", Total: "10.00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := extractText(t, tt.doc)
			require.Equal(t, extract.DocInvoice, x.DocumentType)
			require.Equal(t, tt.want.InvoiceNumber, x.InvoiceNumber)
			require.Equal(t, tt.want.Vendor, x.Vendor)
			require.Equal(t, tt.want.IssueDate, x.IssueDate)
			require.Equal(t, tt.want.Currency, x.Currency)
			require.Equal(t, tt.want.Total, x.Total)
			require.Equal(t, tt.want.Subtotal, x.Subtotal)
			require.Equal(t, tt.want.Tax, x.Tax)
			require.Empty(t, x.Problems)
		})
	}
}

func TestRules_LineItemForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []extract.ExtractedLine
	}{
		{"aligned, any column order", "Description      Amount   Qty   Unit Price\nWidget            12.00     3         4.00\n",
			[]extract.ExtractedLine{{Description: "Widget", Quantity: "3", UnitPrice: "4.00", Amount: "12.00"}}},
		{"pipe table", "| Item | Qty | Price | Total |\n|---|---:|---:|---:|\n| Widget | 3 | 4.00 | 12.00 |\n",
			[]extract.ExtractedLine{{Description: "Widget", Quantity: "3", UnitPrice: "4.00", Amount: "12.00"}}},
		{"inline bullet", "- 3 x Widget @ £4.00 = £12.00\n",
			[]extract.ExtractedLine{{Description: "Widget", Quantity: "3", UnitPrice: "4.00", Amount: "12.00"}}},
		{"description then quantity x price", "Items:\nWidget, blue  3 x 4.00\n",
			[]extract.ExtractedLine{{Description: "Widget, blue", Quantity: "3", UnitPrice: "4.00"}}},
		{"numbered, numbers on the next line", "1. Design work\n   9.5 hrs x 120.00 = 1,140.00\n",
			[]extract.ExtractedLine{{Description: "Design work", Quantity: "9.5", UnitPrice: "120.00", Amount: "1140.00"}}},
		{"hours at a rate", "* Waiting staff (3.25 hours @ $31.95) $103.84\n",
			[]extract.ExtractedLine{{Description: "Waiting staff", Quantity: "3.25", UnitPrice: "31.95", Amount: "103.84"}}},
		{"a size is not a quantity", "- 4 × Whiteboard 120 x 90 cm at ¥16,050 each: ¥64,200\n",
			[]extract.ExtractedLine{{Description: "Whiteboard 120 x 90 cm", Quantity: "4", UnitPrice: "16050", Amount: "64200"}}},
		{"description and amount only", "Consulting, March        4,500.00\nTravel                     320.00\n",
			[]extract.ExtractedLine{{Description: "Consulting, March", Amount: "4500.00"}, {Description: "Travel", Amount: "320.00"}}},
		{"items in a sentence", "This covers 9 x berth fee at 45.63 each (410.67) and the hull inspection at 623.00.\n",
			[]extract.ExtractedLine{{Description: "berth fee", Quantity: "9", UnitPrice: "45.63", Amount: "410.67"},
				{Description: "hull inspection", Quantity: "1", UnitPrice: "623.00"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := extractText(t, "INVOICE\nInvoice No: A-1\n\n"+tt.body+"\nTotal: 1.00\n")
			require.Equal(t, tt.want, x.LineItems)
		})
	}
}

func TestRules_FractionalQuantitiesAndRowsInsideTheTable(t *testing.T) {
	t.Parallel()
	inv, err := run(t, `Atelier Nord GmbH
INVOICE
Invoice No.: RE-9
Date: 09.02.2026

Pos  Description            Qty    Unit Price      Total
  1  Commissioning         5,25         96,00     504,00
  2  Cable set               12         18,75     225,00
     Shipping                                      10,00
                                  Subtotal        739,00
                                  Discount        -39,00
                                  VAT 19%         133,00
                                  Total (EUR)     833,00
`)
	require.NoError(t, err)
	require.Equal(t, "5.25", inv.LineItems[0].Quantity)
	require.Len(t, inv.LineItems, 3, "the shipping row above the subtotal is one of the lines")
	require.Equal(t, []extract.Charge{{Kind: extract.ChargeDiscount, Amount: "-39.00"}}, inv.Charges)
	require.Equal(t, "833.00", inv.Total)
}

func TestRules_InvoicesThatDoNotAddUpAreNeverAccepted(t *testing.T) {
	t.Parallel()
	good := "INVOICE\nInvoice No: A-1\nVendor: Acme Ltd\nDate: 2026-03-03\nCurrency: EUR\n\n" +
		"Qty  Description  Unit Price  Amount\n3    Widget       4.00        12.00\n2    Gadget       5.00        10.00\n\n" +
		"Subtotal  22.00\nShipping  3.00\nVAT 20%  4.40\nTotal  €29.40\n"
	_, err := run(t, good)
	require.NoError(t, err)
	tests := []struct{ from, to, reason string }{
		{"4.00        12.00", "4.00        13.00", extract.ReasonLineMismatch},
		{"Subtotal  22.00", "Subtotal  23.00", extract.ReasonSubtotalMismatch},
		{"Total  €29.40", "Total  €29.41", extract.ReasonTotalMismatch},
		{"Shipping  3.00", "Shipping  3.01", extract.ReasonTotalMismatch},
		{"VAT 20%  4.40", "VAT 20%  4.41", extract.ReasonTotalMismatch},
		{"Total  €29.40", "Total  €29.4O", "unparseable_amount:total"},
		{"Invoice No: A-1\n", "", "missing_field:invoiceNumber"},
		{"Total  €29.40", "", "missing_field:total"},
	}
	for _, tt := range tests {
		_, err := run(t, strings.Replace(good, tt.from, tt.to, 1))
		require.Error(t, err, tt.to)
		require.Equal(t, tt.reason, reasonOf(t, err), tt.to)
	}
}

func TestRules_NetThirtyIsAPaymentTermNotASubtotal(t *testing.T) {
	t.Parallel()
	for _, terms := range []string{"Terms          Net 30", "Terms: Net 30", "Payment terms  Net 14"} {
		x := extractText(t, "INVOICE\nInvoice No: A-1\n"+terms+"\nSubtotal: €10.00\nVAT: €2.00\nTotal: €12.00\n")
		require.Equal(t, "10.00", x.Subtotal, terms)
	}
	x := extractText(t, "INVOICE\nInvoice No: A-1\nNet  €10.00\nVAT: €2.00\nTotal: €12.00\n")
	require.Equal(t, "10.00", x.Subtotal, "a net amount with its currency")
}

func TestRules_Vendor_ACustomerLabelsValueCellsAreTheCustomers(t *testing.T) {
	t.Parallel()
	for _, label := range []string{"Buyer:", "Customer:", "Bill to:"} {
		x := extractText(t, "SOFTHAUS SP. Z O.O.\nul. Grochowska 306, Warszawa\n\nINVOICE INV/2026/0042\n"+
			label+"          Nordlicht Media GmbH, Hamburg\n\nTotal (EUR):  5,280.00\n")
		require.Equal(t, "SOFTHAUS SP. Z O.O.", x.Vendor, label)
		require.Equal(t, "INV/2026/0042", x.InvoiceNumber, label)
	}
}

func TestRules_Vendor_AJobTitleUnderTheSignatureIsNoCompany(t *testing.T) {
	t.Parallel()
	head := "From: Tom Becker <tom@tombecker.dev>\nTo: ap@client.example\nSubject: Invoice 2026-11\n\n" +
		"Here is my invoice 2026-11 dated 2 November 2026. Total due: £300.00\n\nCheers,\nTom Becker\n"
	require.Equal(t, "Tom Becker", extractText(t, head+"Facilitation & workshop design\n").Vendor)
	require.Equal(t, "Becker Facilitation", extractText(t, head+"Becker Facilitation\n").Vendor)
}

func TestRules_TaxWrittenAfterTheTotal(t *testing.T) {
	t.Parallel()
	head := "Acme Ltd\nINVOICE\nInvoice No: A-1\nDate: 2026-11-30\n\nDescription   Qty   Price   Amount\nLamp  1  £29.99  £29.99\nBulbs  2  £7.99  £15.98\n\n"
	// The rate says the total includes it.
	inv, err := run(t, head+"Invoice total  £45.97\nVAT 20%  £7.66\n")
	require.NoError(t, err)
	require.Equal(t, "7.66", inv.Tax)
	require.True(t, inv.TaxIncluded)
	require.Equal(t, "45.97", inv.Total)
	// A summary of the tax the total added.
	inv, err = run(t, head+"Subtotal  £45.97\nTotal  £55.16\nVAT 20%  £9.19\n")
	require.NoError(t, err)
	require.Equal(t, "9.19", inv.Tax)
	require.False(t, inv.TaxIncluded)
	// A tax the total leaves out is no success.
	_, err = run(t, head+"Total  £45.97\nVAT 20%  £9.19\n")
	require.Equal(t, extract.ReasonTotalMismatch, reasonOf(t, err))
}

func TestRules_ShortSectionHeadingsBetweenListedItems(t *testing.T) {
	t.Parallel()
	doc := "Miller Roofing Inc.\nInvoice Number: 7781\nInvoice Date: 11/24/2026\n\nLABOR\n" +
		"Gutter removal              6 hrs    $65.00     $390.00\n\nMaterials:\n" +
		"Downspouts, 10 ft           4        $28.00     $112.00\n\nTotal                                $502.00\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 2)
	require.Equal(t, "6", inv.LineItems[0].Quantity)
	require.Equal(t, "502.00", inv.Total)
}

func TestRules_ExtColumnIsTheAmount(t *testing.T) {
	t.Parallel()
	doc := "ACME TOOLING CORP\nINVOICE NO  A-99012          DATE  11/30/2026\n\n" +
		"ITEM       DESCRIPTION                QTY      PRICE        EXT\n" +
		"TX-100     Diamond blade 14\"           3     189.00     567.00\n" +
		"FRT        Freight                     1      45.00      45.00\n\nTOTAL USD                                          612.00\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, []extract.LineItem{{Description: "Diamond blade 14\"", Quantity: "3", UnitPrice: "189.00", Amount: "567.00"}, {Description: "Freight", Quantity: "1", UnitPrice: "45.00", Amount: "45.00"}}, inv.LineItems)
}

func TestRules_TaxContentIsIncludedTax(t *testing.T) {
	t.Parallel()
	for _, label := range []string{"GST content", "VAT content", "Total includes VAT of"} {
		x := extractText(t, "INVOICE\nInvoice No: A-1\nTotal incl. GST  $465.00\n"+label+"  $60.65\n")
		require.Equal(t, "60.65", x.Tax, label)
		require.True(t, x.TaxIncluded, label)
	}
}

func TestRules_Vendor_AnUnknownFieldIsNoName(t *testing.T) {
	t.Parallel()
	x := extractText(t, "THE HARBOUR HOTEL\n1 Quay Street, Galway\n\nINVOICE\nInvoice No.: HH-558120\n"+
		"Guest: Mr. Daniel Ortiz      Company: Ortiz Consulting Ltd\n\nTotal  €553.50\n")
	require.Equal(t, "THE HARBOUR HOTEL", x.Vendor)
}

func TestRules_SpaceThousandsWithADecimalPoint(t *testing.T) {
	t.Parallel()
	for _, total := range []string{"$1 234.56", "1 234.56 $", "USD 1 234.56", "CHF 1 234.56", "1 234,56 €"} {
		x := extractText(t, "Acme Ltd\nINVOICE\nInvoice No: A-1\nDate: 2026-11-30\nTotal: "+total+"\n")
		require.Equal(t, "1234.56", x.Total, total)
	}
	inv, err := run(t, "Karoo Solar Ltd\nVancouver, BC\n\nINVOICE\nInvoice No: KS-2211\nDate: 2026-11-30\n\n"+
		"Description          Qty     Unit Price        Amount\nInverter 5 kW          2     $12 450.00    $24 900.00\n"+
		"Installation           1      $3 500.00     $3 500.00\n\nTotal                                   $28 400.00\n")
	require.NoError(t, err)
	require.Equal(t, []extract.LineItem{{Description: "Inverter 5 kW", Quantity: "2", UnitPrice: "12450.00", Amount: "24900.00"}, {Description: "Installation", Quantity: "1", UnitPrice: "3500.00", Amount: "3500.00"}}, inv.LineItems)
	x := extractText(t, "Acme Ltd\nINVOICE\nInvoice No: A-1\nDate: 2026-11-30\nCurrency: CAD\nTotal: 1 234.50\n")
	require.Equal(t, "1234.50", x.Total, "a total's line shows the grouping without a currency")
}

func TestRules_InvoiceNumber_TheInvoiceLabelBeatsADocumentNumber(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"Acme Ltd\nINVOICE\nDocument No.: D-55\nInvoice No: 10023\nTotal: £10.00\n",
		"Acme Ltd\nINVOICE 10023\nDocument No.: D-55\nTotal: £10.00\n",
	} {
		require.Equal(t, "10023", extractText(t, doc).InvoiceNumber, doc)
	}
}

func TestRules_IssueDate_OnTheTitleLine(t *testing.T) {
	t.Parallel()
	x := extractText(t, "ACME DESIGN LTD | 12 High St, London\n\nInvoice 2041 | 30 November 2026\n\nTotal GBP  1,440.00\n")
	require.Equal(t, "2041", x.InvoiceNumber)
	require.Equal(t, "2026-11-30", x.IssueDate)
}

func TestRules_PleaseRemitToIsTheVendor(t *testing.T) {
	t.Parallel()
	x := extractText(t, "INVOICE\nInvoice No: A-1\nPlease remit to: Oakhurst Bakery Supplies Ltd\nTotal: €12.00\n")
	require.Equal(t, "Oakhurst Bakery Supplies Ltd", x.Vendor)
	require.Equal(t, "12.00", x.Total)
}

func TestRules_PaymentDescribedInWords_TheTotalIsTheInvoices(t *testing.T) {
	t.Parallel()
	for _, paid := range []string{"Paid by bank transfer on 02/12/2026     £1,234.00", "Paid on 02/12/2026 by card   £1,234.00",
		"Amount paid (card, 2 Dec)   £1,234.00"} {
		x := extractText(t, "Acme Ltd\nINVOICE\nInvoice #: 2041\nDate: 30/11/2026\nTotal     £1,234.00\n"+paid+"\nBalance due   £0.00\n")
		require.Equal(t, "1234.00", x.Total, paid)
	}
}

func TestRules_NoBreakSpacesFromAWebPageSeparateColumns(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"real-uk-aligned-columns.txt", "real-eu-continental.txt", "real-se-moms.txt"} {
		content := readSample(t, file)
		want, err := run(t, content)
		require.NoError(t, err, file)
		got, err := run(t, strings.ReplaceAll(content, "  ", "\u00a0 "))
		require.NoError(t, err, file)
		require.Equal(t, want, got, file)
	}
	x := extractText(t, "Acme SARL\nFACTURE / INVOICE\nInvoice No: A-1\nTotal\u00a0: 2\u00a0400,00\u00a0€\n")
	require.Equal(t, "2400.00", x.Total, "a no-break space between digits still groups them")
}

func TestRules_PDFTextWithoutBlankLines_ALongFieldIsNoSentence(t *testing.T) {
	t.Parallel()
	doc := "Harbour & Finch Office Supplies Ltd\nINVOICE\nInvoice #: 50-1190 Date: 12/11/2026\n" +
		"Bill to: Meridian Dental, 4 Park Row, Bristol BS1 5LJ\nQty Description Unit Price Amount\n" +
		"3 Ergonomic office chair 149.99 449.97\n2 Monitor arm, dual 89.50 179.00\nSubtotal 628.97\nVAT 20% 125.79\nAmount Due £754.76\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "628.97", inv.Subtotal)
	require.Equal(t, "125.79", inv.Tax)
	require.Equal(t, "754.76", inv.Total)
	require.Equal(t, []extract.LineItem{{Description: "Ergonomic office chair", Quantity: "3", UnitPrice: "149.99", Amount: "449.97"}, {Description: "Monitor arm, dual", Quantity: "2", UnitPrice: "89.50", Amount: "179.00"}}, inv.LineItems)
}

func TestRules_RowsOneSpaceApart_ReadByTheirArithmetic(t *testing.T) {
	t.Parallel()
	head := "Acme Ltd\nINVOICE\nInvoice #: 50-1190 Date: 12/11/2026\n"
	x := extractText(t, head+"Ergonomic office chair 3 149.99 449.97\nLogo design 10.0 80.00 800.00\nTotal £1,249.97\n")
	require.Equal(t, []extract.ExtractedLine{{Description: "Ergonomic office chair", Quantity: "3", UnitPrice: "149.99", Amount: "449.97"},
		{Description: "Logo design", Quantity: "10.0", UnitPrice: "80.00", Amount: "800.00"}}, x.LineItems)
	// Numbers that do not multiply out are no item.
	x = extractText(t, head+"Unit 4 Park Row 12 3.50 40.00\nTotal £40.00\n")
	require.Empty(t, x.LineItems)
	// Rows that miss an item of the total do not account for it: a
	// rejection, not an invoice without lines.
	_, err := run(t, head+"3 Ergonomic office chair 149.99 449.97\nAssembly, flat fee 60.00\nTotal £509.97\n")
	require.Equal(t, extract.ReasonSubtotalMismatch, reasonOf(t, err))
}

func TestRules_InvoiceNumber_ADateUnderTheTitleIsNone(t *testing.T) {
	t.Parallel()
	doc := "Ingrid Nakamura Design\nDublin 2, D02 X285\n\n                      INVOICE\n\nInvoice Date:    16 June 2025\nCurrency:        EUR\n\nTOTAL:   €2,786.50\n"
	_, err := run(t, doc)
	require.Equal(t, "missing_field:invoiceNumber", reasonOf(t, err))
}
