package rules

import (
	"testing"

	"github.com/relayops/relayops/extract"
)

func TestCzech_LabelsNameTheirField(t *testing.T) {
	t.Parallel()
	requireLabelKinds(t, map[string]labelKind{
		"Faktura č.": lkInvoiceNo, "Číslo faktury": lkInvoiceNo, "Daňový doklad č.": lkInvoiceNo, "Faktúra č.": lkInvoiceNo,
		"Daňový doklad č. (Invoice No)": lkInvoiceNo,
		"Dodavatel":                     lkVendor, "Dodavatel (Supplier)": lkVendor, "Prodávající": lkVendor, "Dodávateľ": lkVendor,
		"Odběratel": lkCustomer, "Odberatel": lkCustomer, "Odberateľ": lkCustomer, "Kupující": lkCustomer,
		"Datum vystavení": lkIssueDate, "Datum vystaveni": lkIssueDate, "Dátum vystavenia": lkIssueDate,
		"Datum splatnosti": lkDueDate, "Splatnost": lkDueDate,
		"Datum zdan. plnění": lkOtherDate, "DUZP": lkOtherDate, "Datum uskutečnění zdanitelného plnění": lkOtherDate,
		"Měna": lkCurrency, "Základ daně 21%": lkSubtotal, "Celkem bez DPH": lkSubtotal,
		"DPH 21 %": lkTax, "DPH celkem": lkTax, "Včetně DPH": lkTaxIncluded,
		"Celkem": lkTotal, "Celkem s DPH": lkTotal, "Spolu": lkTotal,
		"Celkem k úhradě": lkAmountDue, "K úhradě": lkAmountDue, "Zbývá uhradit": lkAmountDue,
		"Uhrazeno": lkPaid, "Uhrazeno zálohou": lkPaid, "Doprava": lkShipping, "Sleva": lkDiscount, "Zľava": lkDiscount,
		"Poplatek": lkFee, "Zaokrouhlení": lkRounding, "Haléřové vyrovnání": lkRounding,
		"IČO": lkOtherRef, "DIČ": lkOtherRef, "IČ DPH": lkOtherRef, "Variabilní symbol": lkOtherRef, "Bankovní účet": lkOtherRef,
	})
}

func TestCzech_TitlesNameTheKind(t *testing.T) {
	t.Parallel()
	requireTitleKinds(t, map[string]string{
		"Faktura": extract.DocInvoice, "Faktura - daňový doklad": extract.DocInvoice, "Daňový doklad": extract.DocInvoice,
		"Faktúra":          extract.DocInvoice,
		"Zálohová faktura": extract.DocQuote, "ZÁLOHOVÁ FAKTURA": extract.DocQuote, "Cenová nabídka": extract.DocQuote,
		"Dobropis": extract.DocCreditNote, "Opravný daňový doklad": extract.DocCorrectiveInvoice,
		"Daňový doklad k přijaté platbě": extract.DocReceipt, "Účtenka": extract.DocReceipt,
		"Objednávka": extract.DocPurchaseOrder, "Dodací list": extract.DocOther, "Upomínka": extract.DocOther,
	})
}

func TestCzech_DatesWriteTheMonthInTheGenitive(t *testing.T) {
	t.Parallel()
	requireDates(t, map[string]string{
		"3. října 2006": "2006-10-03", "3. rijna 2006": "2006-10-03", "1. ledna 2024": "2024-01-01",
		"14. února 2024": "2024-02-14", "30. června 2024": "2024-06-30", "31. července 2024": "2024-07-31",
		"17. listopadu 1989": "1989-11-17", "24. prosince 2024": "2024-12-24",
		"1. mája 2024": "2024-05-01", "15. októbra 2024": "2024-10-15", // Slovak
		"10.02.2015": "2015-02-10",
	})
}
