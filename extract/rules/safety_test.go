package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// The rules never commit a value they did not read: each test below is a
// layout that once committed a wrong field on a real document.

func TestRules_ANetBelowDocumentChargesIsNotTheLinesSum(t *testing.T) {
	t.Parallel()
	head := "Le Fournisseur SARL\nFACTURE N° : F20200027\nDate : 15/01/2020\n\n"
	table := "Désignation              Qté   Prix unitaire  Montant HT\nPrestation support         1       60,00        60,00\n" +
		"Fournitures diverses       3       10,00        30,00\nAppel                      1        5,00         5,00\n\n"
	totals := "REMISE : REMISE COMMERCIALE                       -5,00\nFrais de port                                     10,00\n\n" +
		"TOTAL HT      100,00 €\nTOTAL TVA      10,00 €\nTOTAL TTC     110,00 €\n"
	inv, err := run(t, head+table+totals)
	require.NoError(t, err)
	require.Equal(t, "95.00", inv.Subtotal, "the lines' sum, not the net after the allowance and the charge")
	require.True(t, inv.Evidence["subtotal"].Computed)
	require.Len(t, inv.Charges, 2)
	require.Equal(t, "110.00", inv.Total)

	// Without the lines, nothing states the lines' sum: a rejection, not
	// the net committed as the subtotal.
	_, err = run(t, head+"Prestations de décembre selon contrat.\n\n"+totals)
	require.Equal(t, extract.ReasonTotalMismatch, reasonOf(t, err))
}

func TestRules_AChargeWordThatIsAnItemOfTheTableIsALine(t *testing.T) {
	t.Parallel()
	doc := "Tipografia Bellini S.r.l.                                   Fattura\n                               Numero fattura: 2024/FE/142\n" +
		"                               Data: 04/03/2024\nPartita IVA IT02841570379\n\n" +
		"Descrizione                  Prezzo unitario  Quantità  Importo     IVA     Totale\n" +
		"Brochure A4                  € 385,00         1         € 385,00    22 %    € 469,70\n" +
		"Spedizione corriere          € 15,00          3         € 45,00     22 %    € 54,90\n\n" +
		"Pagamento a 30 giorni data fattura.\n" +
		"                                    Imponibile    € 430,00\n                                    IVA           € 94,60\n" +
		"                                    Totale documento      € 524,60\n"
	x := extractText(t, doc)
	require.Empty(t, x.Charges, "the shipping row multiplies out: an item")
	require.Equal(t, "430.00", x.Subtotal)
}

func TestRules_ATaxLabelOverAnItemsAmountIsNoTaxRow(t *testing.T) {
	t.Parallel()
	// A hosting company's invoice without VAT: "zzgl. MwSt." heads the
	// price column; 3,89 is the first line's amount, not the tax.
	doc := "Hosting Nord GmbH\nMusterstraße 1, 20095 Hamburg\n\nRECHNUNG\nRechnungsnummer: 2024-0815\nRechnungsdatum: 01.02.2024\n\n" +
		"Vertrag                              Preis\n                                     zzgl. MwSt.\n" +
		"Webhosting Paket M  01.02.-29.02.         3,89 €\nDomain example.de   01.02.-31.01.        30,84 €\n\nGesamtbetrag                             34,73 €\n"
	x := extractText(t, doc)
	require.Empty(t, x.Tax)
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "34.73", inv.Subtotal)
	require.Equal(t, "0.00", inv.Tax)
	require.True(t, inv.Evidence["tax"].Computed, "no row states the tax")
}

func TestRules_ABracketedTaxWordQualifiesTheNetBeforeIt(t *testing.T) {
	t.Parallel()
	doc := "Alphabet Fuhrparkmanagement GmbH\nRechnungsnummer:      2015738820\nDatum:  01.11.2024\n\nRechnung\n\n" +
		"Nettobetrag     (zzgl. 19,00% MwSt.)                 376,37\n\n" +
		"Gesamtbeträge                Netto EUR    MwSt. EUR    Brutto EUR\n" +
		"                 19,00% MwSt.:   376,37       71,51        447,88\n" +
		"                 Summe gesamt                               447,88\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "376.37", inv.Subtotal)
	require.Equal(t, "71.51", inv.Tax)
}

func TestRules_ATaxThatIsTheWholeTotalOrAnUnreadRateIsRefused(t *testing.T) {
	t.Parallel()
	_, err := run(t, "Acme GmbH\nRECHNUNG\nRechnungsnummer: 7\nDatum: 01.02.2024\n\nMwSt. 19%    19,00 €\nGesamtbetrag    19,00 €\n")
	require.Equal(t, extract.ReasonTotalMismatch, reasonOf(t, err), "a tax that is the whole total")
	_, err = run(t, "Acme GmbH\nRECHNUNG\nRechnungsnummer: 7\nDatum: 01.02.2024\n\nMwSt. 19%    siehe Anlage\nGesamtbetrag    119,00 €\n")
	require.Equal(t, "missing_field:tax", reasonOf(t, err), "a positive rate whose tax was not read is no zero tax")
}

func TestRules_HeaderRowOfAsManyValuesAsLabels_PairsThemInOrder(t *testing.T) {
	t.Parallel()
	doc := "Faktura\nNumer faktury: FA/7/2025\nData wystawienia: 31.10.2025\nSprzedawca: Bartkowiak Sp. z o.o.\n\n" +
		"Kwota należności ogółem: 33 569,50 PLN\n\n" +
		" Lp.  Stawka podatku                   Kwota netto                     Kwota podatku                    Kwota brutto\n\n" +
		" 1    23% lub 22%                                            27 292,28                         6 277,22                       33 569,50\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "27292.28", inv.Subtotal)
	require.Equal(t, "6277.22", inv.Tax)
}

func TestRules_IssueDate_APrintStampIsNoIssueDate(t *testing.T) {
	t.Parallel()
	doc := "Alphabet GmbH\nRechnungsnummer: 2015738820\nMünchen, den          01.11.2024\n\nRechnung\n\nGesamtbetrag   119,00 €\n\n" +
		"                                     Datum:  30.10.2024  Zeit:  04:59:13  Seite:  1\n"
	x := extractText(t, doc)
	require.Equal(t, "2024-11-01", x.IssueDate, "the letter's own date, not the time the page was printed")
}

func TestRules_IssueDate_AnotherFieldsDateIsNotTheIssueDate(t *testing.T) {
	t.Parallel()
	for name, line := range map[string]string{
		"a known label's value cell": "Due date:         20/08/2022",
		"an unknown label":           "Delv. Date: 5/16/2024  Order: 15931",
		"a label beside the date":    "Delivery   6/12/2024",
		"a payment":                  "18/08/2022: The bill is paid.",
	} {
		doc := "My Company Ltd\nINVOICE\nInvoice No: MG-7\n" + line + "\nAmount due:  181.50 EUR\n"
		x := extractText(t, doc)
		require.Empty(t, x.IssueDate, name)
	}
}

func TestRules_Vendor_ALabelTheTablesDoNotKnowIsNoName(t *testing.T) {
	t.Parallel()
	doc := "                 HOTEL INVOICE\n\nInvoice Number   5331              Guest Name       Thomas Johnson\n" +
		"Date of Issue    2022-01-14\nNo. of Adults    1\nOthers           0\n\nTotal   $493.20\n"
	x := extractText(t, doc)
	require.Empty(t, x.Vendor)
}

func TestRules_Vendor_TwoPartiesSideBySide(t *testing.T) {
	t.Parallel()
	head := "Invoice 103767\nFebruary 17, 2026\n\nAdatum Corporation                                     CRONUS DE\nStation Road, 21                                      Hofstraße 12\n\n"
	tail := "Subtotal     573.00\n19% VAT     108.87\nTotal € Incl. VAT     681.87\n\n"
	x := extractText(t, head+tail+"VAT Registration No.   DE777777777     Email   info@cronus.com\n")
	require.Equal(t, "CRONUS DE", x.Vendor, "the page's own e-mail domain names the issuer")
	x = extractText(t, head+tail)
	require.Empty(t, x.Vendor, "nothing tells the window address from the letterhead")
}

func TestRules_Vendor_ACustomerBlockAfterABlankLineIsTheCustomers(t *testing.T) {
	t.Parallel()
	doc := "                               Invoice\n\n                            Invoice ID: BL-2024-018\n                          Issuing Date: 2024-03-01\n\n\n" +
		"Customer\n\nKestrel Foods Ltd\nReading RG1 8HF\n\nTotal:  3000.00 £\n"
	x := extractText(t, doc)
	require.Empty(t, x.Vendor)
	require.Equal(t, "2024-03-01", x.IssueDate)
	x = extractText(t, "                               Invoice\n\n                            Invoice ID: BL-2024-018\n"+
		"Recipient                                Biller\n\nKestrel Foods Ltd                        Brightline Consulting Ltd\n\nTotal:  3000.00 £\n")
	require.Equal(t, "Brightline Consulting Ltd", x.Vendor)
}

func TestRules_ASubtotalThatHoldsTheTaxIsNoNet(t *testing.T) {
	t.Parallel()
	head := "Gartenbau Seidel GmbH                                              Rechnung\n" +
		"Am Anger 9                                                         Rechnungsnummer: GS-2024-0502\n" +
		"99084 Erfurt                                                       Rechnungsdatum: 08.04.2024\n\n" +
		" Leistung                            Menge  Einzelpreis  MwSt.     Rabatt     Betrag\n" +
		" Heckenschnitt (Std.)                2      52,00 €      19%       -          123,76 €\n" +
		" Rasenmähen inkl. Entsorgung         1      85,00 €      19%       -          101,15 €\n" +
		" Pflanzung Bodendecker (m²)          5      24,00 €      19%       -          142,80 €\n\n"
	doc := head + "                                       Zwischensumme   367,71 €\n\n                                       MwSt.           58,71 €\n\n" +
		"                                       Gesamtbetrag    367,71 €\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "309.00", inv.Subtotal, "the total less the tax the page's 19 % includes")
	require.True(t, inv.Evidence["subtotal"].Computed)
	require.Equal(t, "58.71", inv.Tax)
	require.Empty(t, inv.LineItems, "lines priced with their tax are not net lines")

	// A tax that no rate on the page explains leaves the row's meaning
	// unknown: a rejection.
	doc = head + "                                       Zwischensumme   367,71 €\n\n                                       MwSt.           60,00 €\n\n" +
		"                                       Gesamtbetrag    367,71 €\n"
	_, err = run(t, doc)
	require.Error(t, err)
}

func TestRules_ALabelsCurrencyInBracketsIsNoValue(t *testing.T) {
	t.Parallel()
	require.True(t, currencyQualifier("($)"))
	require.True(t, currencyQualifier("(EUR)"))
	require.False(t, currencyQualifier("($) 65.33"))
	x := extractText(t, "Jaxson Van Doorn\nInvoice\nInvoice Number: 1\nDate: January 26, 2019\n\n Total Due ($)\n         65.33\n")
	require.Equal(t, "65.33", x.Total, "the amount under the label")
}

func TestRules_DueDate_ReadFromItsLabelNeverGuessed(t *testing.T) {
	t.Parallel()
	head := "Acme Ltd\nINVOICE\nInvoice No: 4471\nDate: 03/03/2026\n"
	x := extractText(t, head+"Due date: 17/03/2026\nTotal: €10.00\n")
	require.Equal(t, "2026-03-17", x.DueDate)
	require.Equal(t, "Due date", x.Evidence["dueDate"].Label)
	x = extractText(t, head+"Due date: 01/02/2026\nTotal: €10.00\n")
	require.Empty(t, x.DueDate, "a due date before the issue date is a misread, left out")
	x = extractText(t, head+"Fällig am: siehe Vertrag\nTotal: €10.00\n")
	require.Empty(t, x.DueDate)
	require.Empty(t, x.Problems, "no due date is no rejection")
}

func TestRules_DueDate_FromASentenceAboutPaying(t *testing.T) {
	t.Parallel()
	head := "Studio Kranich\nRechnung\nRechnungsnummer: 2024-041\nAusstellungsdatum: 2024-02-12\n\nGesamt:  856.80 €\n\n"
	for line, want := range map[string]string{
		"Bitte überweise den Betrag bis 2024-02-26 auf folgendes Konto:":                 "2024-02-26",
		"Please transfer the money onto following bank account due to 2024-03-22:":       "2024-03-22",
		"Prosimy o przelew do dnia 2024-03-25 na rachunek:":                              "2024-03-25",
		"Gelieve het bedrag uiterlijk 2024-03-21 over te maken op de volgende rekening:": "2024-03-21",
		"Merci de régler d’ici le 2024-02-21 par virement au compte bancaire suivant:":   "2024-02-21",
		"Leistungszeitraum 2024-02-01 bis 2024-02-29":                                    "",
		"Bitte überweisen Sie den Betrag. Lieferung erfolgte am 2024-02-26.":             "",
	} {
		x := extractText(t, head+line+"\n")
		require.Equal(t, want, x.DueDate, line)
	}
}

func TestRules_AStatedNetStaysWhenAGrossTotalComesBeforeTheTax(t *testing.T) {
	t.Parallel()
	doc := "Acme GmbH\nRECHNUNG\nRechnungsnummer: 7\nDatum: 01.02.2024\n\nZwischensumme    100,00 €\nSumme    119,00 €\nMwSt. 19%    19,00 €\nZu zahlen    119,00 €\n"
	x := extractText(t, doc)
	require.Equal(t, "100.00", x.Subtotal)
}
