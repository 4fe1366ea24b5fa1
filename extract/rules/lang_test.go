package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestLanguages_InvoiceNumberLabelsWithTheirAbbreviations(t *testing.T) {
	t.Parallel()
	for _, label := range []string{
		"Invoice No.", "Invoice #", "Rechnungsnr.", "Re.-Nr.", "Rechnungsnummer", "Rechnung Nr.", "N° de facture",
		"Numéro de facture", "Factuurnr.", "Factuurnummer", "Nº factura", "Número de factura", "Fattura n.",
		"Numero fattura", "Fakturanr", "Fakturanummer",
	} {
		m, ok := matchLabel(label + ": 2026-0042")
		require.True(t, ok, label)
		require.Equal(t, lkInvoiceNo, m.kind, label)
	}
}

func TestLanguages_TotalsLabelsPerLanguage(t *testing.T) {
	t.Parallel()
	for label, kind := range map[string]labelKind{
		"Summe inkl. USt": lkTotal, "Bruttosumme": lkTotal, "Zahlbetrag": lkAmountDue, "Nettobetrag": lkSubtotal,
		"Total TTC": lkTotal, "Total HT": lkSubtotal, "Net à payer": lkAmountDue, "Acompte": lkPaid,
		"Totaal incl. BTW": lkTotal, "Subtotaal": lkSubtotal, "Te betalen": lkAmountDue, "BTW 21%": lkTax,
		"Importe total": lkTotal, "Base imponible": lkSubtotal, "Totale documento": lkTotal, "Imponibile": lkSubtotal,
		"Att betala": lkAmountDue, "Moms 25%": lkTax, "Totalt": lkTotal, "Erhaltene Anzahlungen": lkPaid,
	} {
		m, ok := matchLabel(label + "  1.234,56")
		require.True(t, ok, label)
		require.Equal(t, kind, m.kind, label)
	}
}

func TestLanguages_TitlesNameTheKind(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"RECHNUNG": extract.DocInvoice, "Handelsrechnung (380) Nr. 471102": extract.DocInvoice, "Teilrechnung": extract.DocInvoice,
		"FACTURE N° : F20180027": extract.DocInvoice, "FACTUUR": extract.DocInvoice, "Factura": extract.DocInvoice,
		"FATTURA": extract.DocInvoice, "Faktura": extract.DocInvoice, "TAX INVOICE": extract.DocInvoice,
		"Gutschrift": extract.DocCreditNote, "Stornorechnung": extract.DocCreditNote, "Avoir AV-2017-0005": extract.DocCreditNote,
		"Creditnota": extract.DocCreditNote, "Nota di credito": extract.DocCreditNote, "Kvitto": extract.DocReceipt,
		"Offerte": extract.DocQuote, "Angebot": extract.DocQuote, "Bon de commande": extract.DocPurchaseOrder,
		"Kontoauszug": extract.DocStatement,
	} {
		require.Equal(t, want, titleType(title), title)
	}
	require.Empty(t, titleType("Bestellung Nr. Kunde:"), "a label waiting for its value is no title")
}

func TestLanguages_TitleNumber(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"HANDELSRECHNUNG (380) Nr. 471102 vom 05.03.2018": "471102",
		"Rechnung Nr. RE-2026/17":                         "RE-2026/17",
		"Factuur nr 2024-117":                             "2024-117",
		"FATTURA N. 12/2026":                              "12/2026",
	} {
		require.Equal(t, want, numberAfterInvoiceWord(text), text)
	}
}

func TestLanguages_MonthNamesAndDateForms(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"31.12.2017": "2017-12-31", "December 31, 2017": "2017-12-31", "31 déc. 2017": "2017-12-31",
		"31-dic-2017": "2017-12-31", "31 dicembre 2017": "2017-12-31", "31 december 2017": "2017-12-31",
		"31. Dezember 2017": "2017-12-31", "31 de diciembre de 2017": "", "3 mrt 2024": "2024-03-03",
		"15 maj 2024": "2024-05-15", "1 okt. 2024": "2024-10-01",
	} {
		ds := findDates(text)
		if want == "" {
			continue // a form the rules do not read; listed in docs/extraction-languages.md
		}
		require.NotEmpty(t, ds, text)
		got, ok := ds[0].iso(orderDMY)
		require.True(t, ok, text)
		require.Equal(t, want, got, text)
	}
}

func TestLanguages_AmountConventions(t *testing.T) {
	t.Parallel()
	dot := numberFormat{decimal: '.', voted: true, minor: 2}
	comma := numberFormat{decimal: ',', voted: true, minor: 2}
	for _, tt := range []struct {
		f        numberFormat
		raw, out string
	}{
		{dot, "1,22,500.00", "122500.00"}, {comma, "1.234,56", "1234.56"}, {comma, "1 234,56", "1234.56"},
		{dot, "1'234.50", "1234.50"}, {dot, "12,34,56,789.00", "123456789.00"},
	} {
		got, ok := tt.f.canonical(tt.raw, false)
		require.True(t, ok, tt.raw)
		require.Equal(t, tt.out, got, tt.raw)
	}
}

func TestLanguages_EveryTableIsWellFormed(t *testing.T) {
	t.Parallel()
	for _, l := range languages {
		require.NotEmpty(t, l.code)
		require.NotEmpty(t, l.labels[lkInvoiceNo], l.code)
		require.NotEmpty(t, l.labels[lkTotal], l.code)
		require.NotEmpty(t, l.invoiceTitles, l.code)
		for i, m := range l.months {
			require.NotEmpty(t, strings.Fields(m), "%s month %d", l.code, i+1)
		}
	}
}
