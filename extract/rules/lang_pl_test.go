package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// requireLabelKinds checks that each label, followed by a value, is read as
// its kind.
func requireLabelKinds(t *testing.T, want map[string]labelKind) {
	t.Helper()
	for label, kind := range want {
		m, ok := matchLabel(label + ": 1 234,56")
		require.True(t, ok, label)
		require.Equal(t, kind, m.kind, label)
	}
}

// requireTitleKinds checks the kind of document each title names.
func requireTitleKinds(t *testing.T, want map[string]string) {
	t.Helper()
	for title, kind := range want {
		require.Equal(t, kind, titleType(title), title)
	}
}

// requireDates checks the first date of each text, day before month.
func requireDates(t *testing.T, want map[string]string) {
	t.Helper()
	for text, iso := range want {
		ds := findDates(text)
		if iso == "" {
			require.Empty(t, ds, text)
			continue
		}
		require.NotEmpty(t, ds, text)
		got, ok := ds[0].iso(orderDMY)
		require.True(t, ok, text)
		require.Equal(t, iso, got, text)
	}
}

func TestPolish_LabelsNameTheirField(t *testing.T) {
	t.Parallel()
	requireLabelKinds(t, map[string]labelKind{
		"Numer faktury": lkInvoiceNo, "Nr faktury": lkInvoiceNo, "Faktura VAT nr": lkInvoiceNo, "Faktura nr": lkInvoiceNo,
		"Sprzedawca": lkVendor, "Wystawca": lkVendor, "Nabywca": lkCustomer, "Odbiorca": lkCustomer, "Płatnik": lkCustomer,
		"Data wystawienia": lkIssueDate, "Termin płatności": lkDueDate, "Termin zapłaty": lkDueDate,
		"Data sprzedaży": lkOtherDate, "Data dokonania lub zakończenia dostawy towarów": lkOtherDate, "Data zapłaty": lkOtherDate,
		"Waluta": lkCurrency, "Kod waluty": lkCurrency,
		"Wartość netto": lkSubtotal, "Razem netto": lkSubtotal, "Kwota VAT": lkTax, "VAT 23%": lkTax, "Kwota podatku": lkTax,
		"W tym VAT": lkTaxIncluded, "Razem brutto": lkTotal, "Wartość brutto": lkTotal, "Kwota należności ogółem": lkTotal,
		"Razem": lkTotal, "Do zapłaty": lkAmountDue, "Pozostało do zapłaty": lkAmountDue, "Zapłacono": lkPaid, "Zaliczka": lkPaid,
		"Koszt dostawy": lkShipping, "Rabat": lkDiscount, "Opłata": lkFee, "Zaokrąglenie": lkRounding,
		"NIP": lkOtherRef, "REGON": lkOtherRef, "Stawka VAT": lkOtherRef, "Numer rachunku bankowego": lkOtherRef,
		"Cena jedn.": lkOtherRef, "Numer KSeF": lkOtherRef,
	})
}

func TestPolish_TitlesNameTheKind(t *testing.T) {
	t.Parallel()
	requireTitleKinds(t, map[string]string{
		"FAKTURA": extract.DocInvoice, "Faktura VAT": extract.DocInvoice, "Faktura podstawowa": extract.DocInvoice,
		"Faktura zaliczkowa": extract.DocInvoice, "Rachunek nr 12/2024": extract.DocInvoice,
		"Faktura korygująca nr 1": extract.DocCorrectiveInvoice, "FAKTURA KORYGUJĄCA": extract.DocCorrectiveInvoice,
		"Faktura proforma": extract.DocQuote, "Faktura pro forma": extract.DocQuote, "Oferta": extract.DocQuote,
		"Paragon fiskalny": extract.DocReceipt, "Zamówienie": extract.DocPurchaseOrder, "Wezwanie do zapłaty": extract.DocOther,
	})
	require.Equal(t, "FV/12/2024", numberAfterInvoiceWord("Faktura VAT nr FV/12/2024"))
	require.Equal(t, "7/2024", numberAfterInvoiceWord("Rachunek nr 7/2024"))
}

func TestPolish_DatesWriteTheMonthInTheGenitive(t *testing.T) {
	t.Parallel()
	requireDates(t, map[string]string{
		"30 listopada 2023": "2023-11-30", "2 stycznia 2025": "2025-01-02", "15 września 2024": "2024-09-15",
		"1 pazdziernika 2024": "2024-10-01", "12 grudnia 2024": "2024-12-12", "3 maja 2024": "2024-05-03",
		"28 lutego 2024": "2024-02-28", "31 lipca 2024": "2024-07-31",
		// "października" is longer than the 12 bytes a month word may have
		// (dates.go monthWords): not read, never misread.
		"1 października 2024": "",
	})
}
