package supplier

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// germanInvoice is a page in the layout of a German invoicing tool: the
// fields right of their labels, an item table, the totals right-aligned
// under it. items are description and gross amount pairs.
func germanInvoice(number, date, net, tax, total string, items ...[2]string) Page {
	var b strings.Builder
	fmt.Fprintf(&b, "Holzwerk Brandt GmbH                                             Rechnung\n")
	fmt.Fprintf(&b, "Sägewerkstraße 12                                  Rechnungsnummer: %s\n", number)
	fmt.Fprintf(&b, "34117 Kassel                                        Rechnungsdatum: %s\n", date)
	fmt.Fprintf(&b, "USt-IdNr. DE318204577                               Möbelhaus Reinhardt GmbH\n\n")
	fmt.Fprintf(&b, "Beschreibung                          MwSt.          Gesamtbetrag\n")
	for _, it := range items {
		fmt.Fprintf(&b, "%-38s19 %%           € %s\n", it[0], it[1])
	}
	fmt.Fprintf(&b, "\n                                       Nettobetrag     € %s\n", net)
	fmt.Fprintf(&b, "                                             MwSt.     € %s\n", tax)
	fmt.Fprintf(&b, "                                      Gesamtbetrag     € %s\n", total)
	return b.String()
}

var (
	holzwerk1 = germanInvoice("RE-2024-0311", "15.01.2024", "771,90", "146,66", "918,56",
		[2]string{"Leimholzplatte Buche", "229,19"}, [2]string{"Zuschnitt nach Maß", "689,37"})
	holzwerk1Values = Values{DocumentType: "invoice", InvoiceNumber: "RE-2024-0311", IssueDate: "2024-01-15", Currency: "EUR",
		Vendor: "Holzwerk Brandt GmbH", Subtotal: "771.90", Tax: "146.66", Total: "918.56"}
	holzwerk2 = germanInvoice("RE-2024-0312", "25.02.2024", "1.128,40", "214,40", "1.342,80",
		[2]string{"Leimholzplatte Buche", "152,80"}, [2]string{"Treppenstufe Eiche", "1.190,00"}, [2]string{"Lieferung", "0,00"})
)

func learnedFrom(job string) LearnedFrom {
	return LearnedFrom{Job: job, Operator: "clerk", At: time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC), Kind: LearnedCorrection}
}

func TestLearn_LabelOnTheSameLine_ReadsTheNextDocument(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("acme:doc-1:v2"))
	require.Equal(t, 1, p.Version)
	a := p.Anchors["invoiceNumber"]
	require.Equal(t, RelationRight, a.Relation)
	require.Equal(t, "Rechnungsnummer:", a.Label)
	require.Equal(t, "A-9-9", a.Format.Shape)
	require.Equal(t, "acme:doc-1:v2", a.Job)
	require.Equal(t, "right", a.Region)

	x := p.Read([]Page{holzwerk2}, "sup-1@v1")
	require.Equal(t, "RE-2024-0312", x.InvoiceNumber)
	require.Equal(t, "2024-02-25", x.IssueDate)
	require.Equal(t, "1128.40", x.Subtotal)
	require.Equal(t, "214.40", x.Tax)
	require.Equal(t, "1342.80", x.Total)
	require.Equal(t, "EUR", x.Currency)
	require.Equal(t, "Holzwerk Brandt GmbH", x.Vendor)
	require.Equal(t, extract.Evidence{Source: extract.EvidenceProfile, Page: 1, Line: 2, Label: "Rechnungsnummer:",
		Profile: "sup-1@v1", Learned: "acme:doc-1:v2"}, x.Evidence["invoiceNumber"])
	require.Equal(t, 13, x.Evidence["total"].Line)
	require.Equal(t, "Gesamtbetrag", x.Evidence["total"].Label)
}

func TestLearn_DecimalComma_LearnsTheMarksAndTheCurrencyMarker(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	require.Equal(t, Format{Kind: FormatAmount, Decimal: ",", Currency: "€"}, p.Anchors["total"].Format,
		"918,56 shows its decimal comma, not yet its grouping")
	require.Equal(t, Anchor{Relation: RelationMarker, Label: "€", Job: "j1"}, p.Anchors["currency"])
	require.Equal(t, "de", p.Language)

	// a larger total read by the anchor shows the grouping: kept, completed
	q := Learn(p, []Page{holzwerk2}, Values{InvoiceNumber: "RE-2024-0312", IssueDate: "2024-02-25", Currency: "EUR",
		Vendor: "Holzwerk Brandt GmbH", Subtotal: "1128.40", Tax: "214.40", Total: "1342.80"}, learnedFrom("j2"))
	require.Equal(t, Format{Kind: FormatAmount, Decimal: ",", Group: ".", Currency: "€"}, q.Anchors["total"].Format)
	require.Equal(t, "j1", q.Anchors["total"].Job)
	require.Equal(t, 1, q.Anchors["total"].Confirmed)

	// the same amounts printed with a decimal point are not this layout's
	x := q.Read([]Page{strings.ReplaceAll(holzwerk2, "1.342,80", "1,342.80")}, "s@v2")
	require.Empty(t, x.Total)
	require.Equal(t, "214.40", x.Tax)
}

// polishInvoice prints each field under its label, in one column.
func polishInvoice(number, date, net, tax, total string) Page {
	return `                                  Faktura VAT
                                  Numer faktury:
                                  ` + number + `
                                  Data wystawienia:
                                  ` + date + `

Nabywca:                          Sprzedawca:
Elektro-Serwis Kamiński           Hurtownia Elektryczna Zieliński Sp. z o.o.
ul. Głogowska 112                 ul. Kolejowa 45

Nazwa towaru      Ilość           Wartość netto
Przewód YDY       8               ` + net + ` PLN

                                  Razem netto        ` + net + ` PLN
                                  VAT 23%            ` + tax + ` PLN
                                  Razem brutto       ` + total + ` PLN
`
}

func TestLearn_LabelAbove_ReadsTheValueUnderItInItsColumn(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{polishInvoice("FV 2024/0812", "2024-02-02", "3.112,00", "715,76", "3.827,76")},
		Values{InvoiceNumber: "FV 2024/0812", IssueDate: "2024-02-02", Currency: "PLN", Vendor: "Hurtownia Elektryczna Zieliński Sp. z o.o.",
			Subtotal: "3112.00", Tax: "715.76", Total: "3827.76"}, learnedFrom("j1"))
	a := p.Anchors["invoiceNumber"]
	require.Equal(t, RelationBelow, a.Relation)
	require.Equal(t, 1, a.Below)
	require.Equal(t, "numer faktury", a.Match)
	require.Equal(t, Format{Kind: FormatText, Shape: "A 9/9", Words: 2}, a.Format)
	require.Equal(t, "vat #%", p.Anchors["tax"].Match, "the rate is any number")
	require.Equal(t, "razem netto", p.Anchors["subtotal"].Match, "the labelled row, not the item's amount under 'Wartość netto'")

	x := p.Read([]Page{polishInvoice("FV 2024/0813", "2024-03-01", "2.727,80", "627,39", "3.355,19")}, "s@v1")
	require.Equal(t, "FV 2024/0813", x.InvoiceNumber)
	require.Equal(t, 3, x.Evidence["invoiceNumber"].Line, "the value's line")
	require.Equal(t, "Numer faktury:", x.Evidence["invoiceNumber"].Label)
	require.Equal(t, "2024-03-01", x.IssueDate)
	require.Equal(t, "2727.80", x.Subtotal)
	require.Equal(t, "627.39", x.Tax)
	require.Equal(t, "3355.19", x.Total)
	require.Equal(t, "PLN", x.Currency)
}

func englishInvoice(date, total string) Page {
	return "Bright Sparks Ltd                      INVOICE\n" +
		"Invoice number: INV-" + strings.ReplaceAll(date, " ", "") + "\n" +
		"Invoice date: " + date + "\n" +
		"Due date: 30 days after the invoice date\n\n" +
		"Consulting                                   " + total + "\n" +
		"Total due                                    " + total + "\n"
}

func TestLearn_DateWithMonthNames_ReadsDatesInThatForm(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{englishInvoice("15 January 2024", "£1,200.00")}, Values{InvoiceNumber: "INV-15January2024",
		IssueDate: "2024-01-15", Currency: "GBP", Total: "1200.00"}, learnedFrom("j1"))
	require.Equal(t, Format{Kind: FormatDate, Order: "DMY", Separator: " ", MonthNames: true, YearDigits: 4}, p.Anchors["issueDate"].Format)
	for date, want := range map[string]string{"3 March 2024": "2024-03-03", "28 Feb. 2024": "2024-02-28", "1 août 2024": "2024-08-01",
		"03/03/2024": "", "March 3, 2024": ""} {
		x := p.Read([]Page{englishInvoice(date, "£900.00")}, "s@v1")
		require.Equal(t, want, x.IssueDate, date)
	}
}

func TestLearn_RepeatedTotal_AnchorsTheLabelledRowAndItsOccurrence(t *testing.T) {
	t.Parallel()
	// one line: its amount is the total, under a column headed "Total";
	// the totals' row is the labelled occurrence
	page := func(total string, lines ...string) Page {
		return "Invoice No. A-17\n\nItem            Qty   Total\n" + strings.Join(lines, "\n") +
			"\n\n                Subtotal   " + total + "\n                Total      " + total + "\n"
	}
	p := Learn(nil, []Page{page("100.00", "Support        1     100.00")}, Values{InvoiceNumber: "A-17", Subtotal: "100.00", Tax: "0.00", Total: "100.00"}, learnedFrom("j1"))
	a := p.Anchors["total"]
	require.Equal(t, RelationRight, a.Relation)
	require.Equal(t, "total", a.Match)
	require.Equal(t, "subtotal", p.Anchors["subtotal"].Match)
	require.Equal(t, RelationComputed, p.Anchors["tax"].Relation, "a tax of zero the layout does not print")

	x := p.Read([]Page{page("170.00", "Support        1     100.00", "Hosting        2     60.00", "Domain         1     10.00")}, "s@v1")
	require.Equal(t, "170.00", x.Total, "the totals' row, after however many item rows")
	require.Equal(t, "170.00", x.Subtotal)
	require.True(t, x.Evidence["tax"].Computed)
	require.Empty(t, x.Tax)

	// a label matched as often as learned gives the learned occurrence
	two := "Summe Material   40.00\nSumme            140.00\n"
	q := Learn(nil, []Page{"Invoice No. B-1\n" + two}, Values{InvoiceNumber: "B-1", Total: "140.00"}, learnedFrom("j1"))
	require.Equal(t, 1, q.Anchors["total"].Occurrence)
	require.Equal(t, 1, q.Anchors["total"].Occurrences, "'Summe Material' is another label")
}

func TestLearn_ContradictedAnchor_IsReplaced_AConfirmedOneKept(t *testing.T) {
	t.Parallel()
	doc := func(lines ...string) []Page { return []Page{"Rechnung\n" + strings.Join(lines, "\n") + "\n"} }
	p := Learn(nil, doc("Datum: 15.01.2024"), Values{IssueDate: "2024-01-15"}, learnedFrom("j1"))
	require.Equal(t, "datum", p.Anchors["issueDate"].Match)

	// the next document prints its delivery under "Datum": a person says the
	// issue date is the other one
	q := Learn(p, doc("Datum: 20.02.2024", "Rechnungsdatum: 25.02.2024"), Values{IssueDate: "2024-02-25"}, learnedFrom("j2"))
	require.Equal(t, 2, q.Version)
	require.Equal(t, "rechnungsdatum", q.Anchors["issueDate"].Match)
	require.Equal(t, "j2", q.Anchors["issueDate"].Job)
	require.Equal(t, "datum", p.Anchors["issueDate"].Match, "Learn does not change the profile it is given")

	r := Learn(q, doc("Datum: 01.03.2024", "Rechnungsdatum: 02.03.2024"), Values{IssueDate: "2024-03-02"}, learnedFrom("j3"))
	require.Equal(t, "rechnungsdatum", r.Anchors["issueDate"].Match)
	require.Equal(t, "j2", r.Anchors["issueDate"].Job)
	require.Equal(t, 1, r.Anchors["issueDate"].Confirmed)
	require.Equal(t, []string{"j1", "j2", "j3"}, learnedJobs(r.Learned))

	// contradicted where the value is printed nowhere: dropped
	s := Learn(r, doc("Rechnungsdatum: 05.03.2024"), Values{IssueDate: "2024-03-04"}, learnedFrom("j4"))
	require.NotContains(t, s.Anchors, "issueDate")
}

func TestLearn_ASecondLayout_IsKeptBesideTheFirst(t *testing.T) {
	t.Parallel()
	invoice := func(n string) []Page { return []Page{"Rechnung\nRechnungsnummer: R-" + n + "\n"} }
	credit := func(n string) []Page {
		return []Page{"Gutschrift\nGutschriftsnummer: G-" + n + "\nzu Rechnungsnummer R-" + n + "\n"}
	}
	p := Learn(nil, invoice("1"), Values{InvoiceNumber: "R-1"}, learnedFrom("j1"))
	require.Empty(t, p.Read(credit("2"), "s@v1").InvoiceNumber, "the invoices' label is not on a credit note")
	q := Learn(p, credit("2"), Values{InvoiceNumber: "G-2"}, learnedFrom("j2"))
	require.Equal(t, "rechnungsnummer", q.Anchors["invoiceNumber"].Match)
	require.Equal(t, "gutschriftsnummer", q.Anchors["invoiceNumber"].Alternate.Match)

	require.Equal(t, "R-3", q.Read(invoice("3"), "s@v2").InvoiceNumber)
	x := q.Read(credit("4"), "s@v2")
	require.Equal(t, "G-4", x.InvoiceNumber)
	require.Equal(t, "j2", x.Evidence["invoiceNumber"].Learned)

	r := Learn(q, credit("5"), Values{InvoiceNumber: "G-5"}, learnedFrom("j3"))
	require.Equal(t, 1, r.Anchors["invoiceNumber"].Alternate.Confirmed)
	require.Equal(t, "j1", r.Anchors["invoiceNumber"].Job)
	require.Nil(t, r.Anchors["invoiceNumber"].Alternate.Alternate)
}

func learnedJobs(ls []LearnedFrom) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Job)
	}
	return out
}

func TestLearn_AFieldAPersonRemoved_DropsItsAnchor(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{"Invoice\nDue date: 01/02/2024\n"}, Values{DueDate: "2024-02-01"}, learnedFrom("j1"))
	require.Contains(t, p.Anchors, "dueDate")
	from := learnedFrom("j2")
	from.Fields = []string{"dueDate"}
	q := Learn(p, []Page{"Invoice\nDue date: 01/03/2024\n"}, Values{}, from)
	require.NotContains(t, q.Anchors, "dueDate")
	r := Learn(p, []Page{"Invoice\nDue date: 01/03/2024\n"}, Values{}, learnedFrom("j2"))
	require.Contains(t, r.Anchors, "dueDate", "an empty value no one removed teaches nothing")
}

func TestRead_MissingLabel_ReadsNothing(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	page := strings.Replace(holzwerk2, "Rechnungsnummer:", "Belegnummer:", 1)
	page = strings.Replace(page, "Rechnungsdatum: 25.02.2024", "Rechnungsdatum: 25/02/2024", 1)
	x := p.Read([]Page{page}, "s@v1")
	require.Empty(t, x.InvoiceNumber)
	require.Empty(t, x.IssueDate, "the value under the label is not in the learned form")
	require.NotContains(t, x.Evidence, "invoiceNumber")
	require.NotContains(t, x.Evidence, "issueDate")
	require.Equal(t, "1342.80", x.Total)

	require.Equal(t, extract.Extraction{}, (*Profile)(nil).Read([]Page{holzwerk2}, "s@v1"))
	require.Equal(t, extract.Extraction{}, p.Read(nil, "s@v1"))
}

func TestRead_ALabelPrintedInsideOtherText_IsNotTheLabel(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{"                    Rechnung Nr. 2024-10233\n"}, Values{InvoiceNumber: "2024-10233"}, learnedFrom("j1"))
	x := p.Read([]Page{"                    Rechnungskorrektur Nr. 2024-10235\nBezug: Rechnung Nr. 2024-10234 vom 14.03.2024\n"}, "s@v1")
	require.Empty(t, x.InvoiceNumber)
}

func TestRead_ANumberItLearnedFrom_IsAnotherDocuments(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	x := p.Read([]Page{holzwerk1}, "s@v1")
	require.Empty(t, x.InvoiceNumber, "a credit note's reference, or a copy already booked")
	require.Equal(t, "918.56", x.Total)
}

func TestRead_TextAndDatesOnlyInTheirRegion(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{"                                              Invoice No.: A-1\n"}, Values{InvoiceNumber: "A-1"}, learnedFrom("j1"))
	require.Equal(t, "A-2", p.Read([]Page{"                                              Invoice No.: A-2\n"}, "s@v1").InvoiceNumber)
	require.Empty(t, p.Read([]Page{"Invoice No.: A-2\n"}, "s@v1").InvoiceNumber)
}

func TestRead_LabelMatchedMoreOftenThanLearned_DateOrNumberReadsNothing(t *testing.T) {
	t.Parallel()
	rest := strings.Repeat("\n", 20)
	p := Learn(nil, []Page{"Date: 01/15/2024\n" + rest}, Values{IssueDate: "2024-01-15"}, learnedFrom("j1"))
	require.Equal(t, "2024-02-16", p.Read([]Page{"Date: 02/16/2024\n" + rest}, "s@v1").IssueDate)
	require.Empty(t, p.Read([]Page{"Date: 02/16/2024\nDate: 02/18/2024\n" + rest}, "s@v1").IssueDate)
	require.Equal(t, "2024-02-16", p.Read([]Page{"Date: 02/16/2024\nDate: 02/16/2024\n" + rest}, "s@v1").IssueDate, "all agree")
}

func TestLearn_TwoLabelsForOneDate_AnchorsNeither(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{"Datum: 15.01.2024\nDate: 15.01.2024\n"}, Values{IssueDate: "2024-01-15"}, learnedFrom("j1"))
	require.NotContains(t, p.Anchors, "issueDate")
	q := Learn(nil, []Page{"Rechnungsdatum: 15.01.2024\nLieferdatum: 15.01.2024\n"}, Values{IssueDate: "2024-01-15"}, learnedFrom("j1"))
	require.Equal(t, "rechnungsdatum", q.Anchors["issueDate"].Match, "the label that names it wins")
}

func TestLearn_NumberAfterAHash_LearnsThePrefix(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{"Factuur\nFactuurnummer: #202410712\n"}, Values{InvoiceNumber: "202410712"}, learnedFrom("j1"))
	require.Equal(t, Format{Kind: FormatText, Shape: "9", Prefix: "#", Words: 1}, p.Anchors["invoiceNumber"].Format)
	require.Equal(t, "202410713", p.Read([]Page{"Factuur\nFactuurnummer: #202410713\n"}, "s@v1").InvoiceNumber)
	require.Empty(t, p.Read([]Page{"Factuur\nFactuurnummer: 202410713\n"}, "s@v1").InvoiceNumber)
}

// grossInvoice is a layout whose "Subtotal" row adds the lines with their
// tax: the net subtotal is printed nowhere.
func grossInvoice(qty, price, gross, tax string) Page {
	return "Kelpie Hosting Pty Ltd                 Invoice\n" +
		"                                       Invoice No.: #KH" + qty + price + "\n\n" +
		" Item              Qty   Unit Price   VAT   Amount\n" +
		" Malware clean-up  " + qty + "     $" + price + "      10%   $" + gross + "\n\n" +
		"                          Subtotal        $" + gross + "\n" +
		"                          VAT             $" + tax + "\n" +
		"                          Total           $" + gross + "\n"
}

func TestLearn_SubtotalTheLayoutDoesNotPrint_IsComputedAndGrossLinesGo(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{grossInvoice("5", "180.00", "990.00", "90.00")}, Values{InvoiceNumber: "KH5180.00", Currency: "AUD",
		Vendor: "Kelpie Hosting Pty Ltd", Subtotal: "900.00", Tax: "90.00", Total: "990.00"}, learnedFrom("j1"))
	require.Equal(t, Anchor{Relation: RelationComputed, Job: "j1"}, p.Anchors["subtotal"])
	require.Equal(t, "total", p.Anchors["total"].Match, "not the 'Subtotal' row, which prints the total")

	page := grossInvoice("3", "110.00", "363.00", "33.00")
	read := p.Read([]Page{page}, "s@v1")
	require.Equal(t, extract.Evidence{Source: extract.EvidenceProfile, Computed: true, Profile: "s@v1", Learned: "j1"}, read.Evidence["subtotal"])
	require.Equal(t, "AUD", read.Currency, "the currency a person gave for this supplier's '$'")

	rules := extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "KH3110.00", Vendor: "Kelpie Hosting Pty Ltd",
		IssueDate: "2024-02-01", Currency: "AUD", Subtotal: "363.00", Tax: "33.00", Total: "363.00",
		LineItems: []extract.ExtractedLine{{Description: "Malware clean-up", Quantity: "3", UnitPrice: "110.00", Amount: "363.00"}}}
	_, err := extract.ValidateExtraction(rules)
	require.Error(t, err, "the rules alone")
	inv, err := extract.ValidateExtraction(Overlay(rules, read))
	require.NoError(t, err)
	require.Equal(t, "330.00", inv.Subtotal)
	require.Empty(t, inv.LineItems, "lines that add up to the total with its tax cannot make the net subtotal")
	require.Equal(t, extract.StatusComputed, inv.Status["subtotal"])
	require.Equal(t, extract.StatusUnchecked, inv.Status["total"], "nothing ties the total once the subtotal is derived")

	// net lines stay, and make the subtotal
	rules.LineItems = []extract.ExtractedLine{{Description: "Malware clean-up", Quantity: "3", UnitPrice: "110.00"}}
	inv, err = extract.ValidateExtraction(Overlay(rules, read))
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 1)
	require.Equal(t, "330.00", inv.Subtotal)
	require.Equal(t, extract.StatusChecked, inv.Status["total"])
}

func TestOverlay_AmountsThatDoNotAddUp_AreStillRejected(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	// a document whose own figures do not add up
	page := germanInvoice("RE-2024-0312", "25.02.2024", "100,00", "19,00", "120,00", [2]string{"Leimholzplatte", "120,00"})
	read := p.Read([]Page{page}, "s@v1")
	require.Equal(t, "120.00", read.Total)
	rules := extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "RE-2024-0312", Vendor: "Holzwerk Brandt GmbH",
		IssueDate: "2024-02-25", Currency: "EUR", Subtotal: "100.00", Tax: "20.00", Total: "120.00"}
	_, err := extract.ValidateExtraction(Overlay(rules, read))
	var rej *extract.Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, extract.ReasonTotalMismatch, rej.Reason)
	require.Equal(t, "19.00", rej.Extraction.Tax, "the profile's value, judged")
	require.Equal(t, extract.EvidenceProfile, rej.Extraction.Evidence["tax"].Source)
}

func TestOverlay_ProfileFirstTheRulesFillTheRest(t *testing.T) {
	t.Parallel()
	rules := extract.Extraction{DocumentType: extract.DocCreditNote, InvoiceNumber: "R-1", Vendor: "Kestrel Foods Ltd",
		IssueDate: "2024-01-02", Currency: "EUR", Total: "10.00", LineItems: []extract.ExtractedLine{{Description: "x", Amount: "10.00"}},
		Problems: []string{extract.ReasonAmbiguousDate, "unparseable_amount:tax", extract.ReasonSubtotalMismatch},
		Evidence: map[string]extract.Evidence{"vendor": {Source: "text", Line: 7}, "total": {Source: "text", Line: 9}},
		Source:   extract.Source{Extractor: "rules"}}
	read := extract.Extraction{Vendor: "Brightline Consulting Ltd", IssueDate: "2024-02-01", Tax: "0.00",
		Evidence: map[string]extract.Evidence{"vendor": {Source: "profile", Line: 1}, "issueDate": {Source: "profile", Line: 3},
			"tax": {Source: "profile", Line: 8}}}
	x := Overlay(rules, read)
	require.Equal(t, "Brightline Consulting Ltd", x.Vendor)
	require.Equal(t, "2024-02-01", x.IssueDate)
	require.Equal(t, "0.00", x.Tax)
	require.Equal(t, "R-1", x.InvoiceNumber)
	require.Equal(t, extract.DocCreditNote, x.DocumentType)
	require.Len(t, x.LineItems, 1)
	require.Equal(t, []string{extract.ReasonSubtotalMismatch}, x.Problems, "the problems of the fields the profile read go")
	require.Equal(t, "profile", x.Evidence["vendor"].Source)
	require.Equal(t, "text", x.Evidence["total"].Source)
	require.Equal(t, "text", rules.Evidence["vendor"].Source, "the rules' extraction is not changed")
	require.Equal(t, rules, Overlay(rules, extract.Extraction{}))
}

func TestLearn_Vendor_PrintedOrBoundToTheIdentity(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	require.Equal(t, RelationName, p.Anchors["vendor"].Relation)
	require.Empty(t, p.Read([]Page{strings.Replace(holzwerk2, "Holzwerk Brandt GmbH", "Holzbau Krause KG", 1)}, "s@v1").Vendor,
		"a name learned as printed must be printed")

	logo := "                                   INVOICE\nInvoice No.: L-1\nTotal 50.00 EUR\n"
	q := Learn(nil, []Page{logo}, Values{InvoiceNumber: "L-1", Vendor: "Lumen Logo Works", Total: "50.00", Currency: "EUR"}, learnedFrom("j1"))
	require.Equal(t, RelationIdentity, q.Anchors["vendor"].Relation)
	x := q.Read([]Page{strings.Replace(logo, "L-1", "L-2", 1)}, "s@v1")
	require.Equal(t, "Lumen Logo Works", x.Vendor)
	require.Equal(t, extract.Evidence{Source: extract.EvidenceProfile, Profile: "s@v1", Learned: "j1"}, x.Evidence["vendor"])
	require.Equal(t, "EUR", x.Currency)
}

func TestLearn_HistoryAndNumbersAreBounded(t *testing.T) {
	t.Parallel()
	var p *Profile
	for i := range MaxNumbers + 5 {
		p = Learn(p, []Page{"Invoice No.: N-" + itoa(i) + "\n"}, Values{InvoiceNumber: "N-" + itoa(i)}, learnedFrom("j"+itoa(i)))
	}
	require.Equal(t, MaxNumbers+5, p.Version)
	require.Len(t, p.Learned, MaxLearned)
	require.Equal(t, "j"+itoa(MaxNumbers+4), p.Learned[MaxLearned-1].Job)
	require.Len(t, p.Numbers, MaxNumbers)
	require.Equal(t, 1, p.Anchors["invoiceNumber"].Occurrences)
	require.Equal(t, MaxNumbers+4, p.Anchors["invoiceNumber"].Confirmed)
}

func TestProfile_IsSmallJSON(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("acme:doc-1:v2"))
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.Less(t, len(b), 3000)
	var back Profile
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, *p, back)
	require.Equal(t, []string{"currency", "invoiceNumber", "issueDate", "subtotal", "tax", "total", "vendor"}, back.Fields())
}

func TestFlagged_ReadsThatKeepMissing(t *testing.T) {
	t.Parallel()
	p := &Profile{}
	require.False(t, p.Flagged())
	p.CountRead(true)
	require.False(t, p.Flagged(), "one miss is not a pattern")
	p.CountRead(true)
	require.True(t, p.Flagged(), "two of two missed")
	for range 4 {
		p.CountRead(false)
	}
	require.True(t, p.Flagged(), "two of six missed: a third")
	p.CountRead(false)
	require.False(t, p.Flagged(), "two of seven missed")
	require.Equal(t, Profile{Reads: 7, Misses: 2}, *p)
	require.False(t, (*Profile)(nil).Flagged())
}

func TestPagesOf_SplitsAtFormFeeds(t *testing.T) {
	t.Parallel()
	require.Equal(t, []Page{"a\n", "b\n"}, PagesOf("a\n\fb\n\f"))
	require.Equal(t, []Page{"plain text"}, PagesOf("plain text"))
	require.Equal(t, "sup-1@v3", Ref("sup-1", 3))
}

func TestRead_EvidenceNamesThePageAndTheLineOfTheWholeText(t *testing.T) {
	t.Parallel()
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	pages := []Page{"Seite 1 von 2\nKunde 4711\n", holzwerk2}
	x := p.Read(pages, "s@v1")
	require.Equal(t, 2, x.Evidence["total"].Page)
	require.Equal(t, 15, x.Evidence["total"].Line, "two lines of page 1, then the 13th of page 2")
	require.Equal(t, 2, x.Evidence["currency"].Page)
}

func TestLearn_ADateBesideALabelNamingAnotherDate_IsNotAnchored(t *testing.T) {
	t.Parallel()
	page := "Muster GmbH                                 HANDELSRECHNUNG Nr. 471102\n" +
		"Liefer- und Leistungsdatum:   05.06.2018\n" +
		"Gesamtbetrag                  € 119,00\n"
	v := Values{DocumentType: "invoice", InvoiceNumber: "471102", IssueDate: "2018-06-05", Currency: "EUR", Total: "119.00"}
	p := Learn(nil, []Page{page}, v, learnedFrom("j1"))
	_, ok := p.Anchors["issueDate"]
	require.False(t, ok, "the delivery date's label: the next document's issue date may be another day")
	require.Contains(t, p.Anchors, "total")
}
