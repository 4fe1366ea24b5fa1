package main

import (
	"fmt"
	"strings"
	"time"
)

// labels are the words a template prints, per language: the renderers of
// the templates whose labels are data (all of them here) take them from
// the document, so that one template serves suppliers in several
// languages as it does for its users.
type labels struct {
	Invoice, CreditNote, Corrective                 string // titles
	Number, Date, DueDate, Customer, Seller, Status string
	Description, Quantity, UnitPrice, Amount, Item  string
	Subtotal, VAT, Total, Bank, VATID, PaymentTerms string
	Thanks, Open, Discount                          string
	No                                              string // the abbreviation before a number: "Nr.", "No."
	creditFor                                       string // "… for invoice %s of %s"
	correction                                      string // the line of a corrective invoice
	dateLayout                                      string // Go layout, "" for the long form with month names
	decimalComma                                    bool
}

var languages = map[string]labels{
	"en": {No: "No.", Discount: "Discount", correction: "Price reduction agreed on delivery", Invoice: "Invoice", CreditNote: "Credit Note", Corrective: "Corrective Invoice",
		Number: "Invoice No.", Date: "Invoice Date", DueDate: "Due Date", Customer: "Bill To", Seller: "From", Status: "Status",
		Description: "Description", Quantity: "Qty", UnitPrice: "Unit Price", Amount: "Amount", Item: "Item",
		Subtotal: "Subtotal", VAT: "VAT", Total: "Total", Bank: "Bank details", VATID: "VAT No.", PaymentTerms: "Payment due within %d days",
		Thanks: "Thank you for your business.", Open: "Unpaid", creditFor: "Credit note for invoice %s dated %s",
		dateLayout: "02/01/2006"},
	"de": {No: "Nr.", Discount: "Rabatt", correction: "Preisminderung wegen Reklamation", Invoice: "Rechnung", CreditNote: "Gutschrift", Corrective: "Rechnungskorrektur",
		Number: "Rechnungsnummer", Date: "Rechnungsdatum", DueDate: "Fällig am", Customer: "Rechnungsempfänger", Seller: "Absender", Status: "Status",
		Description: "Beschreibung", Quantity: "Menge", UnitPrice: "Einzelpreis", Amount: "Betrag", Item: "Leistung",
		Subtotal: "Nettobetrag", VAT: "MwSt.", Total: "Gesamtbetrag", Bank: "Bankverbindung", VATID: "USt-IdNr.", PaymentTerms: "Zahlbar innerhalb von %d Tagen ohne Abzug",
		Thanks: "Vielen Dank für Ihren Auftrag.", Open: "Offen", creditFor: "Bezug: Rechnung Nr. %s vom %s",
		dateLayout: "02.01.2006", decimalComma: true},
	"fr": {No: "n°", Discount: "Remise", correction: "Remise commerciale accordée", Invoice: "Facture", CreditNote: "Avoir", Corrective: "Facture rectificative",
		Number: "N° de facture", Date: "Date de facture", DueDate: "Échéance", Customer: "Client", Seller: "Émetteur", Status: "Statut",
		Description: "Désignation", Quantity: "Qté", UnitPrice: "Prix unitaire HT", Amount: "Montant HT", Item: "Article",
		Subtotal: "Total HT", VAT: "TVA", Total: "Total TTC", Bank: "Coordonnées bancaires", VATID: "N° TVA intracom.", PaymentTerms: "Paiement à %d jours",
		Thanks: "Merci de votre confiance.", Open: "À payer", creditFor: "Avoir sur la facture n° %s du %s",
		dateLayout: "02/01/2006", decimalComma: true},
	"nl": {No: "nr.", Discount: "Korting", correction: "Korting wegens klacht", Invoice: "Factuur", CreditNote: "Creditnota", Corrective: "Correctiefactuur",
		Number: "Factuurnummer", Date: "Factuurdatum", DueDate: "Vervaldatum", Customer: "Factuuradres", Seller: "Afzender", Status: "Status",
		Description: "Omschrijving", Quantity: "Aantal", UnitPrice: "Prijs per stuk", Amount: "Bedrag", Item: "Artikel",
		Subtotal: "Subtotaal", VAT: "BTW", Total: "Totaal", Bank: "Bankgegevens", VATID: "BTW-nummer", PaymentTerms: "Betaling binnen %d dagen",
		Thanks: "Bedankt voor uw opdracht.", Open: "Open", creditFor: "Creditering van factuur %s van %s",
		dateLayout: "02-01-2006", decimalComma: true},
	"es": {No: "nº", Discount: "Descuento", correction: "Descuento por incidencia en la entrega", Invoice: "Factura", CreditNote: "Nota de crédito", Corrective: "Factura rectificativa",
		Number: "Nº de factura", Date: "Fecha", DueDate: "Vencimiento", Customer: "Cliente", Seller: "Emisor", Status: "Estado",
		Description: "Descripción", Quantity: "Cantidad", UnitPrice: "Precio unitario", Amount: "Importe", Item: "Concepto",
		Subtotal: "Base imponible", VAT: "IVA", Total: "Total factura", Bank: "Datos bancarios", VATID: "NIF", PaymentTerms: "Pago a %d días",
		Thanks: "Gracias por su confianza.", Open: "Pendiente", creditFor: "Rectifica la factura nº %s de %s",
		dateLayout: "02/01/2006", decimalComma: true},
	"it": {No: "n.", Discount: "Sconto", correction: "Sconto concordato per reso", Invoice: "Fattura", CreditNote: "Nota di credito", Corrective: "Nota di variazione",
		Number: "Numero fattura", Date: "Data", DueDate: "Scadenza", Customer: "Cliente", Seller: "Cedente", Status: "Stato",
		Description: "Descrizione", Quantity: "Quantità", UnitPrice: "Prezzo unitario", Amount: "Importo", Item: "Articolo",
		Subtotal: "Imponibile", VAT: "IVA", Total: "Totale documento", Bank: "Coordinate bancarie", VATID: "Partita IVA", PaymentTerms: "Pagamento a %d giorni data fattura",
		Thanks: "Grazie per la fiducia.", Open: "Da pagare", creditFor: "Nota di credito relativa alla fattura n. %s del %s",
		dateLayout: "02/01/2006", decimalComma: true},
	"pl": {No: "nr", Discount: "Rabat", correction: "Rabat potransakcyjny – obniżenie ceny", Invoice: "Faktura VAT", CreditNote: "Faktura korygująca", Corrective: "Faktura korygująca",
		Number: "Numer faktury", Date: "Data wystawienia", DueDate: "Termin płatności", Customer: "Nabywca", Seller: "Sprzedawca", Status: "Status",
		Description: "Nazwa towaru lub usługi", Quantity: "Ilość", UnitPrice: "Cena netto", Amount: "Wartość netto", Item: "Towar",
		Subtotal: "Razem netto", VAT: "VAT", Total: "Razem brutto", Bank: "Numer rachunku", VATID: "NIP", PaymentTerms: "Termin płatności %d dni",
		Thanks: "Dziękujemy za współpracę.", Open: "Do zapłaty", creditFor: "Korekta do faktury nr %s z dnia %s",
		dateLayout: "2006-01-02", decimalComma: true},
}

// date prints a date as the language writes it.
func (l labels) date(t time.Time) string { return t.Format(l.dateLayout) }

// money prints an amount (in cents) with the language's decimal mark and
// thousands grouping, without a currency.
func (l labels) money(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	whole, frac := cents/100, cents%100
	digits := fmt.Sprint(whole)
	sep, dec := ",", "."
	if l.decimalComma {
		sep, dec = ".", ","
	}
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
	s := fmt.Sprintf("%s%s%02d", b.String(), dec, frac)
	if neg {
		s = "-" + s
	}
	return s
}

// decimal prints cents as the truth's canonical decimal ("-8.79").
func decimal(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}
