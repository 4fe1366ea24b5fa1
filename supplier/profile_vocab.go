package supplier

import "strings"

// The vocabularies a profile needs, as data: month names (to find a date
// a person confirmed in the form the document prints it), the words that
// tell which field a label names (to prefer, where a value is printed
// several times, the occurrence whose label names its field) and the
// words that tell a document's language. Each language is one entry.

// monthTable holds, per language, the names and abbreviations of each
// month (lower case, space-separated), as the rules extractor reads them.
var monthTable = map[string][12]string{
	"en": {"january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
		"august aug", "september sep sept", "october oct", "november nov", "december dec"},
	"de": {"januar jän jan", "februar feb", "märz maerz marz mär mrz", "april apr", "mai", "juni jun", "juli jul",
		"august aug", "september sep sept", "oktober okt", "november nov", "dezember dez"},
	"fr": {"janvier janv", "février fevrier févr fevr", "mars", "avril avr", "mai", "juin", "juillet juil",
		"août aout", "septembre sept", "octobre oct", "novembre nov", "décembre decembre déc dec"},
	"nl": {"januari jan", "februari feb", "maart mrt", "april apr", "mei", "juni jun", "juli jul",
		"augustus aug", "september sep sept", "oktober okt", "november nov", "december dec"},
	"es": {"enero ene", "febrero feb", "marzo mar", "abril abr", "mayo may", "junio jun", "julio jul",
		"agosto ago", "septiembre setiembre sep sept set", "octubre oct", "noviembre nov", "diciembre dic"},
	"it": {"gennaio gen", "febbraio feb", "marzo mar", "aprile apr", "maggio mag", "giugno giu", "luglio lug",
		"agosto ago", "settembre set sett", "ottobre ott", "novembre nov", "dicembre dic"},
	"pt": {"janeiro jan", "fevereiro fev", "março marco mar", "abril abr", "maio mai", "junho jun", "julho jul",
		"agosto ago", "setembro set", "outubro out", "novembro nov", "dezembro dez"},
	"pl": {"styczeń styczen stycznia sty", "luty lutego lut", "marzec marca mar", "kwiecień kwiecien kwietnia kwi",
		"maj maja", "czerwiec czerwca cze", "lipiec lipca lip", "sierpień sierpien sierpnia sie",
		"wrzesień wrzesien września wrzesnia wrz", "październik pazdziernik października pazdziernika paź paz",
		"listopad listopada lis", "grudzień grudzien grudnia gru"},
	"cs": {"leden ledna január januára januar januara", "únor února unor unora február februára februar februara",
		"březen března brezen brezna marec marca", "duben dubna apríl apríla aprila", "květen května kveten kvetna máj mája maja",
		"červen června cerven cervna jún júna juna", "červenec července cervenec cervence júl júla jula", "srpen srpna august augusta",
		"září zari september septembra", "říjen října rijen rijna október októbra oktober oktobra",
		"listopad listopadu november novembra", "prosinec prosince december decembra"},
	"nordic": {"januari januar jan", "februari februar feb", "mars marts mar", "april apr", "maj mai", "juni jun", "juli jul",
		"augusti august aug", "september sep sept", "oktober okt", "november nov", "december desember dec"},
	"et": {"jaanuar jaan", "veebruar veebr", "märts marts", "aprill apr", "mai", "juuni", "juuli", "august aug",
		"september sept sep", "oktoober okt", "november nov", "detsember dets"},
}

// months maps each month name or abbreviation to its month (1–12); a
// name two languages give different months would be left out (none do).
var months = func() map[string]int {
	m := map[string]int{}
	for _, names := range monthTable {
		for i, list := range names {
			for _, n := range strings.Fields(list) {
				m[n] = i + 1
			}
		}
	}
	return m
}()

// fieldHints are, per field, label words that name it: a label holding
// one is the field's own; a label holding another field's names that
// field. A document's title word ("Rechnung", "Invoice") names none:
// labels of every field hold it. Words are matched as label words in match form (lower case,
// ':' trimmed): a hint of four letters or more anywhere inside a word, a
// shorter one as the whole word.
var fieldHints = map[string][]string{
	fieldTotal: {"total", "totaal", "totale", "totalt", "gesamt", "summe", "brutto", "endbetrag", "rechnungsbetrag",
		"ttc", "grand", "due", "payable", "zahlen", "payer", "betalen", "pagar", "pagare", "zapłaty", "razem",
		"celkem", "kokku", "betala"},
	fieldSubtotal: {"subtotal", "sub-total", "sous-total", "zwischensumme", "netto", "nettobetrag", "net", "ht",
		"subtotaal", "imponible", "imponibile", "excl", "exkl", "excl.", "exkl.", "excluding", "hors", "bez",
		"netbedrag", "neto", "netto:", "base", "zonder"},
	fieldTax: {"vat", "tax", "mwst", "mwst.", "ust", "ust.", "umsatzsteuer", "mehrwertsteuer", "tva", "btw", "iva",
		"gst", "hst", "moms", "mva", "dph", "käibemaks", "podatek", "steuer", "impuesto", "imposta"},
	fieldIssueDate: {"date", "datum", "fecha", "data", "dato", "émission", "emission", "issued", "kuupäev",
		"wystawienia", "vystavení", "ausstellungsdatum", "rechnungsdatum", "factuurdatum", "fakturadatum",
		"fakturadato"},
	fieldDueDate: {"due", "fällig", "fällig:", "zahlbar", "échéance", "echeance", "vervaldatum", "vencimiento",
		"scadenza", "termin", "splatnosti", "forfallsdato", "förfallodatum", "förfallodag", "forfaldsdato",
		"maksetähtaeg", "payable", "pay", "till", "bis"},
	fieldNumber: {"no", "no.", "nr", "nr.", "number", "nummer", "numéro", "numero", "número", "numer", "n°", "nº", "#",
		"číslo", "rechnungsnummer", "factuurnummer", "fakturanummer"},
}

// otherHints are label words that name neither field but something a
// value of the same form is often printed beside: a label holding one
// is another field's, whatever it also holds.
var otherHints = map[string][]string{
	fieldNumber: {"customer", "kunden", "kunde", "client", "klant", "cliente", "klient", "order", "bestell",
		"auftrag", "commande", "bestelling", "pedido", "ordine", "zamówienia", "iban", "bic", "vat", "ust-idnr",
		"tax", "phone", "tel", "tel.", "fax", "siret", "siren", "nip", "kvk", "abn", "account", "konto", "ref",
		"reference", "referenz", "référence", "bezug", "delivery", "lieferschein", "contract", "vertrag"},
	fieldIssueDate: {"liefer", "livraison", "delivery", "leistung", "levering", "entrega", "consegna", "dostawy",
		"period", "zeitraum", "période", "periode", "order", "bestell", "auftrag", "vom", "du", "from", "due",
		"fällig", "échéance", "vervaldatum", "vencimiento", "scadenza", "termin", "splatnosti", "zahlbar"},
	fieldDueDate: {"liefer", "livraison", "delivery", "leistung", "levering", "entrega", "consegna", "dostawy",
		"period", "zeitraum", "période", "periode", "order", "bestell", "auftrag"},
	fieldTotal:    {"paid", "bezahlt", "payé", "betaald", "pagado", "pagato", "zapłacono", "discount", "rabatt", "remise"},
	fieldSubtotal: {"paid", "bezahlt", "payé", "betaald", "pagado", "pagato", "discount", "rabatt", "remise"},
	fieldTax:      {"id", "idnr", "idnr.", "nummer", "number", "no", "no.", "nr", "nr.", "reg", "intracom.", "intracom"},
}

// languageWords are label and title words that tell a document's
// language, per language; a word two languages share tells neither.
var languageWords = map[string][]string{
	"en": {"invoice", "subtotal", "due", "amount", "bill", "payment", "total:"},
	"de": {"rechnung", "rechnungsnummer", "rechnungsdatum", "gesamtbetrag", "nettobetrag", "mwst.", "mwst", "fällig",
		"zwischensumme", "umsatzsteuer", "gutschrift", "betrag", "ausstellungsdatum", "rechnungskorrektur"},
	"fr": {"facture", "échéance", "ttc", "ht", "tva", "montant", "émission", "avoir", "sous-total"},
	"nl": {"factuur", "factuurnummer", "factuurdatum", "totaal", "btw", "vervaldatum", "bedrag", "subtotaal", "creditnota"},
	"es": {"factura", "fecha", "vencimiento", "importe", "imponible", "rectificativa"},
	"it": {"fattura", "scadenza", "imponibile", "totale", "documento"},
	"pl": {"faktury", "wystawienia", "płatności", "razem", "brutto", "korygująca", "numer"},
	"pt": {"fatura", "vencimento"},
	"cs": {"faktura-daňový", "vystavení", "splatnosti", "celkem", "dph"},
	"et": {"arve", "kuupäev", "maksetähtaeg", "kokku", "käibemaks"},
	"nordic": {"fakturanummer", "fakturadato", "fakturadatum", "förfallodatum", "forfallsdato", "moms", "mva",
		"totalt", "betala"},
}

// wordLanguage maps each word of languageWords to its one language.
var wordLanguage = func() map[string]string {
	m := map[string]string{}
	shared := map[string]bool{}
	for lang, ws := range languageWords {
		for _, w := range ws {
			if other, ok := m[w]; ok && other != lang {
				shared[w] = true
			}
			m[w] = lang
		}
	}
	for w := range shared {
		delete(m, w)
	}
	return m
}()

// hintScore is how strongly a label in match form names field: +2 when
// it holds one of the field's words, −1 for each other field whose words
// it holds, −2 when it holds a word of something else a value of the
// field's form is printed beside (a customer number, a delivery date).
func hintScore(field, match string) int {
	words := strings.Fields(match)
	score := 0
	for f, hints := range fieldHints {
		switch {
		case !holds(words, hints):
		case f == field:
			score += 2
		default:
			score--
		}
	}
	if holds(words, otherHints[field]) {
		score -= 2
	}
	return score
}

// holds reports whether one of words holds one of hints.
func holds(words, hints []string) bool {
	for _, w := range words {
		for _, h := range hints {
			if w == h || len([]rune(h)) >= 4 && strings.Contains(w, h) {
				return true
			}
		}
	}
	return false
}
