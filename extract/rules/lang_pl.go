package rules

import "github.com/relayops/relayops/extract"

// polish is the vocabulary of Polish, including the labels of the KSeF
// (Krajowy System e-Faktur) visualisation of a structured invoice. "Numer"
// is no number spelling of the matcher, so its phrases are written out;
// "Nr" reads "no".
//
// Kinds decided here: a "faktura korygująca" (correcting invoice) is a
// corrective invoice: it corrects an invoice already booked, its number is
// its own and the invoice it corrects follows "do faktury nr". A "faktura proforma" is an offer to pay, not a tax document: a
// quote, as "pro forma" is in English. A "faktura zaliczkowa" (advance
// invoice) is a VAT invoice the seller must issue for an advance received:
// an invoice. A "rachunek" is the bill of a seller outside VAT: an invoice.
var polish = language{
	code: "pl",
	labels: map[labelKind]string{
		lkInvoiceNo:   `faktura korygująca no|numer faktury korygującej|no faktury korygującej|numer korekty|korekta no|faktura no|faktura vat no|numer faktury|numer faktury vat|no faktury|no faktury vat|faktura|faktura vat|rachunek no|numer rachunku faktury`,
		lkVendor:      `sprzedawca|sprzedający|wystawca|wystawca faktury|dostawca|usługodawca|sprzedawca dane`,
		lkCustomer:    `nabywca|kupujący|odbiorca|płatnik|zamawiający|usługobiorca|nabywca dane|adres dostawy|miejsce dostawy`,
		lkIssueDate:   `data wystawienia|data wystawienia faktury|data faktury|data|wystawiono dnia|data wystawienia dokumentu`,
		lkDueDate:     `termin płatności|termin zapłaty|płatne do|płatność do|zapłata do|data płatności|termin płatności do`,
		lkOtherDate:   `data sprzedaży|data dostawy|data dokonania lub zakończenia dostawy|data zakończenia dostawy|data wykonania usługi|data dokonania|data zapłaty|data otrzymania zapłaty|data zamówienia|okres rozliczeniowy|okres|data otrzymania zaliczki`,
		lkCurrency:    `waluta|kod waluty`,
		lkSubtotal:    `netto|wartość netto|kwota netto|razem netto|suma netto|łącznie netto|wartość sprzedaży netto|podstawa opodatkowania|ogółem netto`,
		lkTax:         `vat|podatek|podatek vat|kwota vat|kwota podatku|wartość vat|suma vat|razem vat|vat razem|ptu|kwota ptu`,
		lkTaxIncluded: `w tym vat|w tym podatek|w tym ptu`,
		lkTotal:       `brutto|wartość brutto|kwota brutto|razem|razem brutto|suma|suma brutto|ogółem|ogółem brutto|łącznie|łącznie brutto|wartość faktury|kwota należności ogółem|należność ogółem|kwota ogółem|wartość ogółem`,
		lkAmountDue:   `do zapłaty|razem do zapłaty|pozostało do zapłaty|pozostaje do zapłaty|kwota do zapłaty|do zapłaty pozostało|należność do zapłaty|suma do zapłaty`,
		lkPaid:        `zapłacono|wpłacono|zaliczka|otrzymana zaliczka|zapłacona kwota|kwota zapłacona|zapłacono zaliczką|otrzymane zaliczki`,
		lkShipping:    `transport|dostawa|koszt dostawy|koszty dostawy|wysyłka|koszt wysyłki|koszty wysyłki|przesyłka|koszt transportu`,
		lkDiscount:    `rabat|upust|zniżka|rabat kwotowy`,
		lkFee:         `opłata|prowizja|opłata manipulacyjna|opłata serwisowa|opłata dodatkowa`,
		lkRounding:    `zaokrąglenie|zaokrąglenia`,
		lkOtherRef:    `nip|nip ue|regon|krs|pesel|bdo|numer ksef|no ksef|numer klienta|no klienta|id nabywcy|numer rachunku|numer rachunku bankowego|no rachunku|no konta|konto|iban|swift|bic|bank|nazwa banku|forma płatności|sposób płatności|metoda płatności|sposób zapłaty|lp|ilość|jedn|jm|j m|miara|cena|cena jedn|cena jednostkowa|cena netto|cena brutto|stawka|stawka vat|stawka podatku|nazwa towaru lub usługi|nazwa towaru|nazwa usługi|opis|pkwiu|gtu|telefon|strona|miejsce wystawienia|numer zamówienia|no zamówienia|zamówienie|uwagi|tytuł przelewu|tytułem`,
	},
	titles: []docKeyword{
		{"faktura korygująca", extract.DocCorrectiveInvoice}, {"faktura korygujaca", extract.DocCorrectiveInvoice}, {"korekta faktury", extract.DocCorrectiveInvoice},
		{"faktura proforma", extract.DocQuote}, {"faktura pro forma", extract.DocQuote}, {"faktura pro-forma", extract.DocQuote},
		{"paragon", extract.DocReceipt}, {"paragon fiskalny", extract.DocReceipt}, {"pokwitowanie", extract.DocReceipt}, {"dowód wpłaty", extract.DocReceipt},
		{"zamówienie", extract.DocPurchaseOrder}, {"oferta", extract.DocQuote}, {"wycena", extract.DocQuote},
		{"wyciąg bankowy", extract.DocStatement}, {"wyciąg z rachunku", extract.DocStatement}, {"wyciąg z konta", extract.DocStatement},
		{"nota korygująca", extract.DocOther}, {"wezwanie do zapłaty", extract.DocOther}, {"przypomnienie o płatności", extract.DocOther},
		{"potwierdzenie zamówienia", extract.DocOther}, {"wydanie zewnętrzne", extract.DocOther}, {"list przewozowy", extract.DocOther},
	},
	invoiceTitles: []docKeyword{{"faktura", extract.DocInvoice}, {"rachunek", extract.DocInvoice}},
	compounds:     []docKeyword{},
	markers:       []docKeyword{{"saldo początkowe", extract.DocStatement}, {"saldo końcowe", extract.DocStatement}, {"oferta ważna", extract.DocQuote}, {"oferta jest ważna", extract.DocQuote}},
	preceding:     "korekta faktury|korekta do faktury|korekty do faktury|korektę do faktury|do faktury|faktura korygowana|korygowana faktura|faktury korygowanej|dotyczy faktury|faktura pierwotna|pierwotna faktura",
	references:    "wasze|wasz|wasza|nasze|nasz|nasza|zgodnie z|wg|według",
	dueBy:         "do dnia|w terminie do|najpóźniej do",
	payWords:      "przelew|zapła|płat|wpła",
	taxTotals:     "kwota vat|razem vat|vat razem|suma vat|kwota podatku",
	// Dates write the month in the genitive ("30 listopada 2023"); names
	// without diacritics are the same words as plain text writes them.
	// "października" is longer than the 12 bytes monthWords reads.
	months: [12]string{"styczeń styczen stycznia sty", "luty lutego lut", "marzec marca mar", "kwiecień kwiecien kwietnia kwi",
		"maj maja", "czerwiec czerwca cze", "lipiec lipca lip", "sierpień sierpien sierpnia sie", "wrzesień wrzesien września wrzesnia wrz",
		"październik pazdziernik października pazdziernika paź paz", "listopad listopada lis", "grudzień grudzien grudnia gru"},
}
