package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// germanInvoice is a German invoice in the DIN 5008 letter layout: the
// sender line, the recipient's window address (block), then the title.
func germanInvoice(block string) string {
	return "Muster Logistik GmbH · Hafenstraße 5 · 20457 Hamburg\n\n" + block +
		"\n                                            RECHNUNG\n\nRechnungsnummer:   RE-2024-117\nRechnungsdatum:    12.03.2024\n\n" +
		"Pos.  Bezeichnung                 Menge   Einzelpreis     Gesamt\n1     Beratung                        10       100,00 €   1.000,00 €\n\n" +
		"                                   Nettobetrag           1.000,00 €\n                                   zzgl. 19 % USt.         190,00 €\n" +
		"                                   Gesamtbetrag          1.190,00 €\n\nMuster Logistik GmbH · USt-IdNr. DE123456789\n"
}

func TestRules_ABillToBlockNeverTurnsAnInvoiceIntoAnotherDocument(t *testing.T) {
	t.Parallel()
	for _, block := range []string{
		"Beispiel AG\nAccounts Payable Dept.\nKaiserstraße 12\n60311 Frankfurt am Main\n",
		"Beispiel AG\nKreditorenbuchhaltung\nKaiserstraße 12\n60311 Frankfurt am Main\n",
		"Rechnungsempfänger:\nBeispiel AG\nAccounts Payable Department\nKaiserstraße 12\n60311 Frankfurt am Main\n",
		"Beispiel AG\nFinance - Accounts Payable\nPostfach 1234\n60311 Frankfurt am Main\n",
		"Beispiel AG\nEinkauf\nIhre Bestellung vom 01.03.2024\nKaiserstraße 12\n60311 Frankfurt am Main\n",
	} {
		doc := germanInvoice(block)
		require.Equal(t, extract.DocInvoice, classifyContent(doc).DocumentType, block)
		inv, err := run(t, doc)
		require.NoError(t, err, block)
		require.Equal(t, "RE-2024-117", inv.InvoiceNumber)
		require.Equal(t, "1190.00", inv.Total)
	}
}

func TestRules_AMentionOfAnotherDocumentIsNoTitle(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"Ihre Bestellung vom 01.03.2024", "Your order 4471", "gemäß Angebot 17", "Votre bon de commande 88"} {
		require.Empty(t, titleType(line), line)
	}
	require.Equal(t, extract.DocQuote, titleType("Angebot 17"))
	require.Equal(t, extract.DocInvoice, titleType("Ihre Rechnung"), "an invoice title stays one: a letter about it is told apart by its markers")
}

func TestRules_ATitleUnderALetterheadIsStillATitle(t *testing.T) {
	t.Parallel()
	doc := "Muster GmbH\nHauptstraße 5\n12345 Berlin\nANGEBOT\nAngebotsnummer: 17\nDatum: 01.03.2024\n\nGesamtbetrag  100,00 €\n"
	require.Equal(t, extract.DocQuote, classifyContent(doc).DocumentType)
}

func TestRules_AnOrderOrDeliveryItBillsDoesNotTitleAnInvoice(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"Lieferschein Nr. 4711 vom 01.03.2024", "Lieferschein-Nr. 4711", "Bestellung 4500123", "Auftragsbestätigung Nr. 4711"} {
		doc := "Muster Logistik GmbH · Hafenstraße 5 · 20457 Hamburg\n\n" + line + germanInvoice("Beispiel AG\nKaiserstraße 12\n60311 Frankfurt am Main\n")[len("Muster Logistik GmbH · Hafenstraße 5 · 20457 Hamburg\n\n"):]
		require.Equal(t, extract.DocInvoice, classifyContent(doc).DocumentType, line)
	}
	// A delivery note stays one: no invoice title follows its own.
	doc := "Muster Logistik GmbH\n\nLieferschein Nr. 4711\nDatum: 01.03.2024\nRechnung folgt separat.\n\nGesamt  10 Stück\n"
	require.NotEqual(t, extract.DocInvoice, classifyContent(doc).DocumentType)
}
