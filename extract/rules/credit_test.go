package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestRules_CreditNotesAndCorrectiveInvoices_ReadWholeInEveryLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc                                   string
		docType, number, preceding, total, currency string
	}{
		{"en credit note", "Acme Ltd\n\nCREDIT NOTE\n\nCredit Note No.: CN-2026-07\nDate: 3 March 2026\nOriginal invoice: INV-2026-031\n\n" +
			"Subtotal: £100.00\nVAT 20%: £20.00\nTotal: £120.00\n",
			extract.DocCreditNote, "CN-2026-07", "INV-2026-031", "120.00", "GBP"},
		{"en corrective invoice", "Acme Ltd\n\nCorrective Invoice No. CI-12\nDate: 3 March 2026\nThis corrects invoice 4471.\nReplaces invoice 4471\n\n" +
			"Subtotal: -£10.00\nVAT 20%: -£2.00\nTotal: -£12.00\n",
			extract.DocCorrectiveInvoice, "CI-12", "4471", "-12.00", "GBP"},
		{"de Gutschrift", "Holzwerk Brandt GmbH\n\nGutschrift Nr. GS-2024-12\nDatum: 12.05.2024\n\nBezug: Rechnung Nr. RE-2024-0313 vom 04.04.2024\n\n" +
			"Nettobetrag     90,00 €\nMwSt. 19 %      17,10 €\nGesamtbetrag   107,10 €\n",
			extract.DocCreditNote, "GS-2024-12", "RE-2024-0313", "107.10", "EUR"},
		{"de Stornorechnung", "Studio Kranich\n\nStornorechnung\nRechnungsnummer: 2024-044\nAusstellungsdatum: 2024-05-31\n\n" +
			"Vereinbarungsgemäß erhalten Sie hiermit eine Gutschrift zur Rechnung 2024-043 vom\n2024-05-31.\n\n" +
			"Zwischensumme:  −720.00 €\nUmsatzsteuer von 19 %:  −136.80 €\nGesamt:  −856.80 €\n",
			extract.DocCreditNote, "2024-044", "2024-043", "-856.80", "EUR"},
		{"de Rechnungskorrektur", "Elektro Huber GmbH\n\nRechnungsempfänger:                     Rechnungskorrektur Nr. 2024-10235\nHausverwaltung Pichler\n\n" +
			"Rechnungsdatum: 13.04.2024\n\nNettobetrag:   -33,76 €\nMwSt. 20%:   -6,75 €\nGesamtbetrag:   -40,51 €\n\nBezug: Rechnung Nr. 2024-10234 vom 14.03.2024\n",
			extract.DocCorrectiveInvoice, "2024-10235", "2024-10234", "-40.51", "EUR"},
		{"fr avoir", "Atelier Lumière SARL\n\nAvoir n° AV-2024-5\nDate de facture: 12/06/2024\n\nAvoir sur la facture n° F2024-089 du 30/04/2024\n\n" +
			"Total HT     25,80 €\nTVA     5,16 €\nTotal TTC     30,96 €\n",
			extract.DocCreditNote, "AV-2024-5", "F2024-089", "30.96", "EUR"},
		{"it nota di credito", "Tipografia Bellini S.r.l.\n\nNota di credito n. NC-2024/7\nData: 08/06/2024\n\nNota di credito relativa alla fattura n. 2024/FE/144 del 09/05/2024\n\n" +
			"Imponibile    € 210,00\nIVA    € 46,20\nTotale documento    € 256,20\n",
			extract.DocCreditNote, "NC-2024/7", "2024/FE/144", "256.20", "EUR"},
		{"nl creditnota", "Vertaalbureau De Boer\n\nCreditnota\nCreditnotanummer: CN-2024.12\nFactuurdatum: 07-05-2024\n\nCreditering van factuur 2024.0231 van 07-04-2024\n\n" +
			"Subtotaal:  −420,00 €\nBtw 21 %:  −88,20 €\nTotaal:  −508,20 €\n",
			extract.DocCreditNote, "CN-2024.12", "2024.0231", "-508.20", "EUR"},
		{"pl faktura korygująca", "Pracownia Projektowa Lis\n\nFaktura korygująca nr FK/2024/3\nData wystawienia: 2024-06-14\n\nKorekta do faktury nr FV 2024/059 z dnia 2024-06-01\n\n" +
			"Razem netto:  −9050.00 zł\nVAT 23 %:  −2081.50 zł\nRazem brutto:  −11131.50 zł\n",
			extract.DocCorrectiveInvoice, "FK/2024/3", "FV 2024/059", "-11131.50", "PLN"},
		{"es factura rectificativa", "Distribuciones Navarro S.L.\n\nFactura rectificativa\nNº de factura: 2024-FV-20414\nFecha: 20/05/2024\n\n" +
			"Base imponible     -22,33 EUR\nIVA 21%     -4,69 EUR\nTotal factura     -27,02 EUR\n\nRectifica la factura nº 2024-FV-20413 de 26/04/2024\n",
			extract.DocCorrectiveInvoice, "2024-FV-20414", "2024-FV-20413", "-27.02", "EUR"},
		{"cs dobropis", "ACME s.r.o.\n\nDobropis č. DB-2024-7\nDatum vystavení: 12.05.2024\nK faktuře č. FV-2024-31\n\n" +
			"Základ daně    -1 000,00 Kč\nDPH 21 %    -210,00 Kč\nCelkem k úhradě    -1 210,00 Kč\n",
			extract.DocCreditNote, "DB-2024-7", "FV-2024-31", "-1210.00", "CZK"},
		{"pt nota de crédito", "Fornecedor Lda\n\nNota de crédito nº NC-2024/3\nData de emissão: 12/05/2024\nFatura original: FT-2024/88\n\n" +
			"Total líquido    100,00 €\nIVA 23%    23,00 €\nTotal a pagar    123,00 €\n",
			extract.DocCreditNote, "NC-2024/3", "FT-2024/88", "123.00", "EUR"},
		{"no kreditnota", "Snill Design AS\n\nKreditnota nr KN-4471\nFakturadato: 12.05.2024\nKreditering av faktura 4470\n\n" +
			"Sum ekskl. mva    100,00 kr\nMVA 25%    25,00 kr\nTotalt    125,00 kr\n",
			extract.DocCreditNote, "KN-4471", "4470", "125.00", "NOK"},
		{"et kreeditarve", "AS Kaupmees & Ko                  Kreeditarve LKR824191\nArve kuupäev        29.05.2026\nAlusarve : LL1192196\n\n" +
			"Ridade summa kokku KMta    \u00ad5,15\nKäibemaks    \u00ad1,24\nKokku KMga    \u00ad6,39\n\nAS Kaupmees & Ko    KMKR nr   EE100175783\n",
			extract.DocCreditNote, "LKR824191", "LL1192196", "-6.39", "EUR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := extractText(t, tt.doc)
			require.Equal(t, tt.docType, x.DocumentType)
			require.Equal(t, tt.number, x.InvoiceNumber)
			require.Equal(t, tt.preceding, x.PrecedingInvoice)
			require.Equal(t, tt.total, x.Total)
			inv, err := run(t, tt.doc)
			require.NoError(t, err)
			require.Equal(t, tt.currency, inv.Currency)
			require.Equal(t, tt.number, inv.InvoiceNumber)
		})
	}
}

func TestRules_ThePrecedingInvoicesNumberIsNeverTheDocumentsOwn(t *testing.T) {
	t.Parallel()
	doc := "Holzwerk Brandt GmbH\n\nGutschrift zu Rechnung Nr. RE-2024-0313 vom 04.04.2024\nDatum: 12.05.2024\n\nGesamtbetrag   107,10 €\n"
	x := extractText(t, doc)
	require.Equal(t, extract.DocCreditNote, x.DocumentType, "the title before the reference names the document")
	require.Equal(t, "RE-2024-0313", x.PrecedingInvoice)
	require.Empty(t, x.InvoiceNumber)
	_, err := run(t, doc)
	require.Equal(t, "missing_field:invoiceNumber", reasonOf(t, err))

	// An invoice that names the one it follows keeps its own number.
	doc = "Acme Ltd\nINVOICE\nInvoice No: 4472\nDate: 2026-03-03\nReplaces invoice 4471\nTotal: €10.00\n"
	x = extractText(t, doc)
	require.Equal(t, "4472", x.InvoiceNumber)
	require.Equal(t, "4471", x.PrecedingInvoice)

	// An invoice's own attachment names it: still its number, no
	// preceding invoice.
	doc = "Muster GmbH\nRECHNUNG\nRechnungsnummer: 2024-117\nDatum: 01.03.2024\nGesamtbetrag: 119,00 €\n\fAnlage zur Rechnung Nr. 2024-117\n"
	x = extractText(t, doc)
	require.Equal(t, "2024-117", x.InvoiceNumber)
	require.Empty(t, x.PrecedingInvoice)
}

func TestRules_ABulletedLineIsNoTitle(t *testing.T) {
	t.Parallel()
	doc := "Notes: procurement sync\nDate: 18/04/2024\n\nInvoice SI-054307 from Dana Evans Cleaning Services (total £2,476.29) is disputed.\n\n" +
		"Action items:\n- Kenji: chase the credit note\n- Hannah: update the supplier list\n"
	_, err := run(t, doc)
	require.Equal(t, extract.ReasonNotAnInvoice, reasonOf(t, err))
}

func TestRules_ASoftHyphenBeforeANumberIsAMinusSign(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Total  -6,39 \u00ad word", plainSpaces("Total  \u00ad6,39 \u00ad word"))
	require.Equal(t, "Kauplus\u00adladu", plainSpaces("Kauplus\u00adladu"), "a soft hyphen inside a word stays")
}

func TestRules_ACurrencyCodeAgainstAPlainIdentifierIsNoAmount(t *testing.T) {
	t.Parallel()
	f := numberFormat{decimal: ',', voted: true, minor: 2}
	require.Empty(t, amountTokens("Kreeditarve LKR824191", f), "a document's number")
	toks := amountTokens("EUR1.234,56", f)
	require.Len(t, toks, 1)
	require.Equal(t, "EUR", toks[0].cur)
}
