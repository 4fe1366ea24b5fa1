package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// A German business letter: the sender line above the address window, the
// tax stated per part of the total ("Positionen USt. 19,00% auf …").
const germanLetter = `Nordwerk GmbH | Hafenstraße 7 | 20457 Hamburg                      Nordwerk GmbH
Beispiel AG                                                        Hafenstraße 7
Feldstraße 34                                                      20457 Hamburg
54321 Hithausen

Rechnung RE2001
Kunden-Nr.:           10000                    Belegdatum:           26.10.22

Pos.  Bezeichnung                       Menge    Einheit  Preis/Einh €  Gesamt €
1     Wartung Jahresvertrag              1,00     Stk.        84,95      84,95
2     Lizenz Plus                        1,00     Stk.       719,40     719,40

                                Positionen netto                           804,35 €
                                Versandkosten netto                          4,99 €
                                Positionen USt. 19,00% auf 804,35 €        152,83 €
                                Versandkosten USt. 19,00% auf 4,99 €         0,95 €
                                Endsumme                                   963,12 €
`

func TestRules_GermanLetter_TheTaxOfEachPartAndTheSenderLine(t *testing.T) {
	t.Parallel()
	inv, err := run(t, germanLetter)
	require.NoError(t, err)
	require.Equal(t, "RE2001", inv.InvoiceNumber)
	require.Equal(t, "963.12", inv.Total)
	require.Equal(t, "153.78", inv.Tax)
	require.Equal(t, "Nordwerk GmbH", inv.Vendor, "the sender line names the vendor, not the addressee below it")

	// Without the shipping's tax row the sum is short: a rejection, not a guess.
	_, err = run(t, strings.Replace(germanLetter, "                                Versandkosten USt. 19,00% auf 4,99 €         0,95 €\n", "", 1))
	require.Equal(t, "subtotal_mismatch", reasonOf(t, err))
}

func TestQualifiedTaxLabel_NeedsARate(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Positionen USt. 19,00% auf 804,35 €": true,
		"Versandkosten MwSt. 7%":              true,
		"Positionen USt.":                     false, // no rate: a description
		"Beratung MwSt-frei 0 Stunden":        false,
		"19% USt.":                            false, // a label of its own, read by matchLabel
	} {
		_, ok := qualifiedTaxLabel(text)
		require.Equal(t, want, ok, text)
	}
}

func TestRules_Vendor_ThePartyBlockOfLabelledLines(t *testing.T) {
	t.Parallel()
	for name, block := range map[string]string{
		"a name label":                      "   Verkäufer\n   Nummer:                 12345676\n   Name:                   Rohstoff AG Salzgitter\n   Anschrift:              Marktstr. 153\n",
		"the name after the labelled lines": "Verkäufer:\nGlobale Nummer: 4000001123452 (GLN)\nRohstoff AG Salzgitter\nMarktstr. 153\n",
	} {
		doc := "RECHNUNG Nr. 47110815 vom 01.12.2025\nWährung: EUR\n\n" + block + "\n" +
			"Beschreibung                         Betrag\nStahlblech                          100,00\n\n" +
			"Summe netto                         100,00\nUSt. 19%                             19,00\nGesamtbetrag                        119,00\n"
		inv, err := run(t, doc)
		require.NoError(t, err, name)
		require.Equal(t, "Rohstoff AG Salzgitter", inv.Vendor, name)
	}
}

func TestVendorLike_ACopyMarkerOrALegalFormAloneIsNoName(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"Original", "DUPLICADO", "Copy", "GmbH", "Ltd."} {
		require.False(t, vendorLike(s), s)
	}
	require.True(t, vendorLike("Original Bakery Ltd"))
}

func TestRules_TaxAlsoStatedInTheBuyersCurrencyIsNotAdded(t *testing.T) {
	t.Parallel()
	doc := "Handelsrechnung (380) Nr. 47110815 vom 01.12.2025\nWährung:            GBP\nVerkäufer:          Rohstoff AG Salzgitter\n\n" +
		"Beschreibung                               Nettobetrag\nStahlcoil                                       850,00\n\n" +
		"Rechnungssumme ohne USt.                        850,00\n" +
		"Steuerbetrag in GBP                             161,50\n" +
		"Steuerbetrag in EUR                             181,27\n" +
		"Bruttosumme                                   1.011,50\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "GBP", inv.Currency)
	require.Equal(t, "161.50", inv.Tax)
	require.Equal(t, "1011.50", inv.Total)
}

func TestParseHeader_AnAmountBeforeTheDescriptionIsTheQuantity(t *testing.T) {
	t.Parallel()
	doc := "INVOICE\nInvoice # RE-508    issued at 2020-06-20\nSupplier: Bei Spiel GmbH\n\n" +
		" Amount      Product                 VAT        Price          Total\n" +
		" 1.00        Design (hours)          7%         160.00 €       160.00 €\n" +
		" 400.00      Ballons                 19%        0.79 €         316.00 €\n\n" +
		"Net total: 476.00 €\nVAT total: 71.24 €\nDue payable: 547.24 €\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 2)
	require.True(t, extract.SameDecimal("400", inv.LineItems[1].Quantity), inv.LineItems[1].Quantity)
	require.Equal(t, "316.00", inv.LineItems[1].Amount)
}

func TestRules_ASubtotalLessDiscountIsNoSecondDiscount(t *testing.T) {
	t.Parallel()
	doc := "Acme Plumbing LLC                                   INVOICE\n\n" +
		"Invoice No:  #INV-88\nInvoice Date: 10/18/2018\n\n" +
		"DESCRIPTION                   QTY    UNIT PRICE     TOTAL\nInstalled sink (hours)          8            90       720\nThermostat                      8            90       720\n\n" +
		"                                     SUBTOTAL        1440\n" +
		"                                     DISCOUNT           4\n" +
		"                                    SUBTOTAL\n" +
		"                               LESS DISCOUNT         1436\n" +
		"                                    TAX RATE        7.00%\n" +
		"                                   TOTAL TAX       100.52\n" +
		"                                 BALANCE DUE    $1,536.52\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "1536.52", inv.Total)
	// A second discount that is not the net after the first still counts:
	// the sum no longer adds up.
	_, err = run(t, strings.Replace(doc, "1436", "1435", 1))
	require.Error(t, err)
}

func TestRules_ABalanceCarriedInIsNotTheInvoicesTotal(t *testing.T) {
	t.Parallel()
	doc := "CONTOSO LTD.                                     INVOICE\n" +
		"                                          INVOICE: INV-100\n                                          DATE: 11/15/2019\n\n" +
		"QUANTITY   DESCRIPTION             UNIT PRICE     TOTAL\n2          Consulting hours            $50.00   $100.00\n\n" +
		"                                   SUBTOTAL        $100.00\n" +
		"                                  SALES TAX         $10.00\n" +
		"                                      TOTAL        $110.00\n" +
		"                           PREVIOUS BALANCE        $500.00\n" +
		"                                 TOTAL DUE         $610.00\n"
	cls, err := Rules{}.Classify(t.Context(), doc)
	require.NoError(t, err)
	require.Contains(t, string(cls), `"invoice"`, "a previous balance under an invoice title is no statement")
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "110.00", inv.Total)
	// A due amount the carried balance does not explain is still a rejection.
	_, err = run(t, strings.Replace(doc, "$610.00", "$620.00", 1))
	require.Equal(t, "total_mismatch", reasonOf(t, err))
}

func TestRules_TheSoleAmountOfAFormUnderItsHeader(t *testing.T) {
	t.Parallel()
	doc := "Fabrikam Services Inc.\n   Address:                       Invoice For: Northwind\n   1 Main St, Redmond, WA 99243\n\n" +
		"Invoice Number    Invoice Date       Invoice Due Date  Charges           VAT ID\n\n" +
		"34278587          6/18/2017          6/24/2017                 $56,651.49  PT\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "56651.49", inv.Total)

	// A second amount anywhere, and the form's amount is no longer the only
	// thing it could be.
	_, err = run(t, doc+"\nLate fee after the due date: $25.00\n")
	require.Equal(t, "missing_field:total", reasonOf(t, err))
}

func TestAccountingFormat_TheSymbolJoinsItsAmountAndADashIsNothing(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		" 1   Item 1    5  $            500,00  $              -   $          2.500,00": " 1   Item 1    5              $500,00                               $2.500,00",
		"Sales Tax  $              -": "Sales Tax" + strings.Repeat(" ", 18),
		"Total: $ 12.00":              "Total: $ 12.00", // one space: as written
		"No symbol here       12.00":  "No symbol here       12.00",
	} {
		got := accountingFormat(in)
		require.Equal(t, want, got, in)
		require.Equal(t, len([]rune(in)), len([]rune(got)), "columns keep their place: %q", in)
	}
}

func TestParseHeader_UnitPriceThenPriceIsTheAmount(t *testing.T) {
	t.Parallel()
	d := parseDocument(" Item #   Description     Qty    Unit Price    Discount    Price\n")
	cols, ok := parseHeader(&d.lines[0])
	require.True(t, ok)
	require.Equal(t, colAmount, cols[len(cols)-1].role)
}

func TestRules_LabelsPairedWithASlashOverTheirValues(t *testing.T) {
	t.Parallel()
	doc := "                                                  Rechnung (Original)\n" +
		"Dachbau Süd eG - Postfach 710252 - 68222 Mannheim  Rechnungsnummer / Datum\n" +
		"                                                  94165608 / 30.08.2018\n\n" +
		"Bezeichnung                                   Betrag-EUR\nFrachtaufwendungen                                 10,80\n\n" +
		"Summe Positionen                                   10,80\nMehrwertsteuer 19 %                                 2,05\nEndbetrag                                          12,85 EUR\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "94165608", inv.InvoiceNumber)
	require.Equal(t, "2018-08-30", inv.IssueDate)
}

func TestRules_InvoiceNumber_AfterABracketedWordInTheTitle(t *testing.T) {
	t.Parallel()
	doc := "SAP Beispiel GmbH\nLassallestraße 7b, 1021 Wien\n\n       Rechnung (Pflege) Nr. 6003061683 vom 16.09.2014\n\n" +
		"Produkt                                         Betrag\nEnterprise Support                      2.300,38 EUR\n\n" +
		"Summe netto                             2.300,38 EUR\nUSt. 20 %                                 460,08 EUR\nGesamtbetrag                            2.760,46 EUR\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "6003061683", inv.InvoiceNumber)
}

func TestJoinSpacedLetters_KeepsTheColumnsRightOfTheWord(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"            T O T A A L               484,00 EUR": "            TOTAAL                    484,00 EUR",
		"W A R E N R E C H N U N G  Seite 1":               "WARENRECHNUNG              Seite 1",
		"P O Box 12":                                       "P O Box 12", // three letters: an abbreviation
		"A B C":                                            "A B C",
	} {
		got := joinSpacedLetters(in)
		require.Equal(t, want, got, in)
		require.Equal(t, len([]rune(in)), len([]rune(got)))
	}
}

func TestRules_DutchTotalsAndAnInvoiceNumberInAHeaderRow(t *testing.T) {
	t.Parallel()
	doc := "                                                                     FACTUUR\n" +
		"Lenze Voorbeeld B.V.\nPostbus 3101, 5203 DC 's-Hertogenbosch\n\n" +
		"                                 Factuurdatum  Factuurnummer\n                                 01-08-2013    F2013.03.4356\n\n" +
		"Omschrijving                                   Waarde in EUR\nWormwielmotor                                         534,87\n\n" +
		"Netto goederenwaarde                                  534,87\nVrachtkosten                                           19,95\n" +
		"BTW plichtig bedrag                                   554,82\nAf te dragen BTW     21,00 %                          116,51\n" +
		"Rekeningsbedrag                                       671,33\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "F2013.03.4356", inv.InvoiceNumber)
	require.Equal(t, "671.33", inv.Total)
	require.Equal(t, "116.51", inv.Tax)
}

func TestRules_SwissApostrophesAndANumberWordCellBeforeTheNumber(t *testing.T) {
	t.Parallel()
	doc := "My Supplier Company N.V.\nDe Grote Meir 22, 2000 Antwerpen\nVAT : BE0000.000.196\n\n" +
		"Invoice           N°:           V01/15000001\n                  Date:           09/04/2018\n\n" +
		" Description                 Quantity        Price  Amount\n Shoes                       2.00          200.00   400.00\n" +
		" Ferrite cores               350             3.75   1’312.50\n\n" +
		" Total excl VAT                                     1’712.50\n VAT 21%                                              359.63\n Total                                              2’072.13\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "V01/15000001", inv.InvoiceNumber)
	require.Equal(t, "2072.13", inv.Total)
	require.Equal(t, "EUR", inv.Currency)
}

func TestRules_ANoteLeftOfTheTotalsAndAPaidStatus(t *testing.T) {
	t.Parallel()
	doc := "My Company SARL\n4 rue des Fleurs, 75000 Paris\n\nINVOICE\nInvoice No: MG2022-7\nDate: 18/08/2022\nStatus        PAID\n\n" +
		"Item              Unit price       Quantity              Total\n" +
		"Coffee            2.00 EUR              24          48.00 EUR\n" +
		"Pizza             7.00 EUR               2          14.00 EUR\n" +
		"18/08/2022: The bill is paid.    Subtotal without tax    62.00 EUR\n" +
		"                                             Tax          6.20 EUR\n" +
		"                                      Amount due         68.20 EUR\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 2, "the totals row with a note before it is no item")
	require.Equal(t, "68.20", inv.Total)
}

func TestClassify_ASystemMarkerIsNoTitleAndACancellationNoInvoice(t *testing.T) {
	t.Parallel()
	doc := "SAP_INVOICE_Z_INV_SOFT_0018_BEGIN_B866554_ S348131\n\n                       Example Norge AS\n                       P.O.Box 42, 1324 Lysaker, Norway\n\n" +
		"       Cancellation No. 6018019646 of 07.07.2014                         9.714,98 NOK\n" +
		"       For Invoice Number:          6018019645 of 07.07.2014\n\n" +
		"      Item     Product                                                    Amount\n      000110   Enterprise Support                              7.771,98 NOK\n\n" +
		"      Total net value                                              7.771,98 NOK\n      VAT 25%                                                      1.943,00 NOK\n      Total                                                        9.714,98 NOK\n"
	cls, err := Rules{}.Classify(t.Context(), doc)
	require.NoError(t, err)
	require.Contains(t, string(cls), `"creditNote"`)
	_, err = run(t, doc)
	require.Error(t, err, "a cancellation is a credit note; read whole or not committed")
}

func TestRules_CzechSpacedDatesAndANumeroUnderTheTitle(t *testing.T) {
	t.Parallel()
	d := parseDocument("Datum vystavení:  10. 02. 2015   Splatnost: 24.02.2015\n")
	require.Equal(t, "Datum vystavení:  10.02.2015     Splatnost: 24.02.2015", d.lines[0].text)

	doc := "                                   Factura\n                                   Número: 975000789\n" +
		" Fornecedor Exemplo, Lda.\n                                   Data: 28/01/2020\n\n" +
		"Descrição                      Valor\nServiço                        16,26 EUR\n\n" +
		"Total s/ IVA                   16,26 EUR\nIVA 23%                         3,74 EUR\nTotal                          20,00 EUR\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "975000789", inv.InvoiceNumber)
}

func TestRules_KSeFBlock_TheNumberUnderItsLabelAndTheNameInTheSellersBlock(t *testing.T) {
	t.Parallel()
	doc := "Krajowy System e-Faktur\n" +
		"                                                                                                 Numer Faktury:\n" +
		"                                                          FA/YUCFO-4342344706/03/2026\n" +
		"                                                                                              Faktura podstawowa\n\n" +
		"Sprzedawca                                                            Nabywca\n\n" +
		"NIP: 5265877635                                                       NIP: 6808208874\n" +
		"Nazwa: Bartkowiak i Wspólnicy sp. z o.o.                              Nazwa: Strzelczyk LLC\n\n" +
		"Adres                                                                 Adres\n" +
		"ul. Kępa 332                                                          ul. Wójcik 7255\n\n" +
		"Data wystawienia: 31.10.2025\n\n" +
		"Lp.  Nazwa towaru lub usługi                 Kwota\n1    Usługa                                   1 000,00\n\n" +
		"Razem netto                                     1 000,00 PLN\nVAT 23%                                           230,00 PLN\nDo zapłaty                                      1 230,00 PLN\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "FA/YUCFO-4342344706/03/2026", inv.InvoiceNumber)
	require.Equal(t, "Bartkowiak i Wspólnicy sp. z o.o.", inv.Vendor)
	require.Equal(t, "1230.00", inv.Total)
}

func TestParseHeader_ColumnsInMoreLanguages(t *testing.T) {
	t.Parallel()
	for _, h := range []string{
		"Element            Partner            Enhetspris     Fakturamengde     Verdi",
		"Lp.  Nazwa towaru lub usługi     Ilość   Cena jedn.   Wartość netto   Stawka VAT",
		"Popis                Množství   Cena za mj   Celkem",
		"Descrição        Quantidade    Preço unitário    Valor",
		"Beskrivning    Antal   À-pris   Belopp",
	} {
		d := parseDocument(h + "\n")
		cols, ok := parseHeader(&d.lines[0])
		require.True(t, ok, h)
		require.Equal(t, 1, countRole(cols, colAmount), h)
		require.Equal(t, 1, countRole(cols, colQty), h)
	}
}

func TestRules_Estonian(t *testing.T) {
	t.Parallel()
	doc := "Arve nr 1615\nKlient                                  Kuupäev:          17.04.2026\nFLIIS TRADE OÜ                          Tähtaeg:          24.04.2026\n\n" +
		" Toote nimetus                    Kogus     Ühik          Hind\n Ruumide rent                         1    kmpl      2 390.90\n\n" +
		"                                  Vahesumma:             2 390.90\n" +
		"                            Soodustus (10%):              -239.09\n" +
		"                         Summa käibemaksuta:             2 151.81\n" +
		"                            Käibemaks (24%):               516.43\n" +
		"                                Kokku (EUR):             2 668.24\n" +
		"_____________________________________________\nMeeltemaitsed OÜ     Rg-kood: 16218741     KMKR: EE102365986\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "1615", inv.InvoiceNumber)
	require.Equal(t, "2668.24", inv.Total)
	require.Equal(t, "2026-04-17", inv.IssueDate)

	cls, err := Rules{}.Classify(t.Context(), strings.Replace(doc, "Arve nr", "Kreeditarve nr", 1))
	require.NoError(t, err)
	require.Contains(t, string(cls), `"creditNote"`)
}

func TestRules_Vendor_TheIssuerBesideTheRecipientAndNoLabelAsName(t *testing.T) {
	t.Parallel()
	body := "\nBeratung, März 2024\n\n" +
		"                               Zwischensumme     200,00 €\n                       Umsatzsteuer 19 %          38,00 €\n                                  Gesamtbetrag     238,00 €\n"
	doc := "                                  Rechnung\n\n                          Rechnungsnummer: 2024-17\n                          Ausstellungsdatum: 2024-03-10\n\n" +
		"Empfänger                                        Aussteller\n\nScrooge McDuck                                   Gyro Gearloose\n" +
		"Duckburg 123456                                  Duckburg 123456\n" + body
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "Gyro Gearloose", inv.Vendor, "the party under a label is the line right below it, not a line with numbers further down")
	for _, v := range []string{"IBAN", "Empfänger", "Nummer:"} {
		require.Empty(t, cleanVendor(v), v)
	}
}

func TestRules_AnUnlabelledTotalTheArithmeticNames(t *testing.T) {
	t.Parallel()
	doc := "                                                 Daňový doklad č. 20150009\n" +
		"DODAVATEL                                        ODBĚRATEL\nJiná firma s.r.o.                                Apple Czech s.r.o.\n" +
		"DIČ             CZ1234567890                     Datum vystavení                  10. 02. 2015\n\n" +
		"                                              Celkem bez DPH                     1 000,00 Kč\n" +
		"                                              DPH 21 %                            210,00 Kč\n" +
		"                                                                          1 210,00 Kč\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "1210.00", inv.Total)
	// An amount the subtotal and tax do not add up to names nothing.
	_, err = run(t, strings.Replace(doc, "1 210,00 Kč", "1 200,00 Kč", 1))
	require.Equal(t, "missing_field:total", reasonOf(t, err))
}

func TestRules_StorageSoldBySizeIsAQuantity(t *testing.T) {
	t.Parallel()
	doc := "Cloudy Storage Inc.\nINVOICE # 100\nDATE: 1/30/23\n\n   QUANTITY               DESCRIPTION                      UNIT PRICE                TOTAL\n" +
		"      1 TB                 Cloud service                     99.99                    99.99\n" +
		"      1TB                  Backup                            10.00                    10.00\n\n" +
		"                                                         Subtotal      109.99\n                                                        Sales tax        4.99\n" +
		"                                                        TOTAL DUE     $114.98\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "114.98", inv.Total)
	require.Len(t, inv.LineItems, 2)
}

func TestRules_Vendor_NoAddressFragmentOrPurchaserStandsForTheIssuer(t *testing.T) {
	t.Parallel()
	// The issuer's name is a logo (no text): the page's other words are an
	// address and the purchaser, and none of them is the vendor.
	doc := "INVOICE\n    rd\n333 3  Ave                                       INVOICE # 100\nSeattle, WA 12345                                DATE: 1/30/23\n" +
		"PURCHASED BY:                                    SHIP TO:\nLiane Cormier                                    Liane Cormier\n\n" +
		"   QUANTITY               DESCRIPTION                      UNIT PRICE                TOTAL\n      1                    Cloud service                     99.99                    99.99\n\n" +
		"                                                         Subtotal       99.99\n                                                        Sales tax        4.99\n" +
		"                                                        TOTAL DUE     $104.98\n"
	_, err := run(t, doc)
	require.Equal(t, "missing_field:vendor", reasonOf(t, err))
	for _, v := range []string{"rd", "Ave", "Seattle, WA 12345", "80333 München"} {
		require.Empty(t, topCandidate(cell{text: v}), v)
	}
	require.Equal(t, "Priya Nakamura Engineering", topCandidate(cell{text: "Priya Nakamura Engineering, 874 Market Street, Portland, OR 97204"}))
}

func TestRules_AWholeNumberTotalAmongDecimalOnesCountsPieces(t *testing.T) {
	t.Parallel()
	doc := "NEXGEN Supplies Ltd\n                                                                 INVOICE\n" +
		"                                       Invoice #:  4315272\n                                       Date: 06/12/2024\n\n" +
		"PRODUCT ID         UNIT PRICE  QUANTITY   TOTAL PRICE\n H509L              5.00 GBP    150                                          750.00 GBP\n" +
		" TOTAL                          150                                          750.00 GBP\n\f" +
		"                                                               RETURNS\n" +
		"PRODUCT ID         QUANTITY   REASON\n H509M              150       Incorrect size.\n TOTAL              150\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "750.00", inv.Total)
}
