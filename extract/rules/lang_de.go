package rules

import "github.com/relayops/relayops/extract"

// german is the vocabulary of German (Germany, Austria, Switzerland).
var german = language{
	code: "de",
	labels: map[labelKind]string{
		lkInvoiceNo:   `gutschrift no|gutschriftsnummer|gutschriftnummer|gutschriftsnr|rechnungskorrektur no|korrekturrechnung no|stornorechnung no|storno no|rechnung no|rechnungsnummer|rechnungs no|rechnungsnr|re no|rg no|rechnung nr|rechnungs nr|beleg no|belegnummer|belegnr`,
		lkVendor:      `lieferant|verkaufer|rechnungssteller|leistungserbringer|aussteller|rechnungsaussteller`,
		lkCustomer:    `rechnungsempfanger|empfanger|kunde|kaufer|leistungsempfanger|kunden no|kundennummer|warenempfanger|lieferanschrift|rechnungsanschrift`,
		lkIssueDate:   `liefer und rechnungsdatum|rechnungsdatum|datum|belegdatum|ausstellungsdatum|datum der rechnung`,
		lkDueDate:     `faellig|falligkeitsdatum|fallig am|zahlbar bis|zahlungsziel|fallig bis`,
		lkOtherDate:   `leistungsdatum|lieferdatum|liefer und leistungsdatum|leistungszeitraum|abrechnungszeitraum|bestelldatum`,
		lkCurrency:    `waehrung|wahrung`,
		lkSubtotal:    `positionssumme|summe der positionen netto|nettobetrag|zwischensumme|summe netto|netto|summe positionen|summe der positionen|nettosumme|rechnungssumme netto|rechnungssumme ohne ust|gesamtsumme netto|netto summe|summe nettobetrage|warenwert|gesamt netto|nettowert|steuerbasisbetrag|basisbetrag|summe ohne mwst|betrag netto`,
		lkTax:         `ust gesamt|mwst gesamt|steuerbasisbetrag ust|steuerbasisbetrag mwst|mwst|ust|umsatzsteuer|mehrwertsteuer|mwst betrag|zzgl mwst|zzgl ust|steuerbetrag|summe ust|summe mwst|mwst summe|umsatzsteuerbetrag|gesamtsumme ust|steuer|summe umsatzsteuer|mehrwertsteuerbetrag`,
		lkTaxIncluded: `inkl mwst|enthaltene mwst|darin enthaltene mwst|inkl ust|enthaltene ust|darin enthaltene ust`,
		lkTotal:       `gutschriftsbetrag|gesamtbetrag der gutschrift|endsumme|gesamtbetrag|gesamt|summe|rechnungsbetrag|total brutto|bruttobetrag|rechnungssumme|rechnungssumme brutto|gesamtsumme|gesamtsumme brutto|gesamtbetrag brutto|summe brutto|summe inkl ust|summe inkl mwst|endbetrag|rechnungsendbetrag|bruttosumme|gesamt brutto|brutto|betrag brutto|gesamtbetrag inkl mwst|rechnungsbetrag brutto`,
		lkAmountDue:   `zu zahlen|zahlbetrag|zu zahlender betrag|zahlbarer betrag|fälliger betrag|falliger betrag|offener betrag|noch zu zahlen|restbetrag`,
		lkPaid:        `erhaltene anzahlungen|anzahlungen|geleistete anzahlungen|vorauszahlungen|abschlagszahlungen|bereits gezahlt|bereits bezahlt|anzahlung|erhaltene anzahlung|geleistete anzahlung|abschlagszahlung|vorauszahlung`,
		lkShipping:    `versand|versandkosten|fracht|frachtkosten|porto|lieferkosten`,
		lkDiscount:    `gesamtbetrag der abschlage|summe abschlage|abschlage|rabatt|nachlass|rabattbetrag`,
		lkFee:         `gesamtbetrag der zuschlage|summe zuschlage|zuschlage|gebuhr|zuschlag`,
		lkRounding:    `rundung`,
		lkOtherRef:    `skonto|ust id|ust idnr|ustid|steuernummer|ust idno|ust id no|umsatzsteuer id|steuer no|steuernr|handelsregister|hrb|bestellnummer|bestell no|auftrag no|auftragsnummer|kundenreferenz|lieferschein no|lieferscheinnummer|seite|konto|bankverbindung|verwendungszweck|zahlungsreferenz|ihre referenz|unsere referenz|betreff|zahlungsbedingungen|menge|einheit|pos|position|artikel no|artikelnummer`,
	},
	titles:        []docKeyword{{"gutschrift", extract.DocCreditNote}, {"stornorechnung", extract.DocCreditNote}, {"rechnungskorrektur", extract.DocCorrectiveInvoice}, {"korrekturrechnung", extract.DocCorrectiveInvoice}, {"rechnungsberichtigung", extract.DocCorrectiveInvoice}, {"quittung", extract.DocReceipt}, {"kassenbon", extract.DocReceipt}, {"kassenbeleg", extract.DocReceipt}, {"zahlungsbeleg", extract.DocReceipt}, {"auftragsbestatigung", extract.DocOther}, {"auftragsbestätigung", extract.DocOther}, {"bestellung", extract.DocPurchaseOrder}, {"angebot", extract.DocQuote}, {"kostenvoranschlag", extract.DocQuote}, {"kontoauszug", extract.DocStatement}, {"mahnung", extract.DocOther}, {"zahlungserinnerung", extract.DocOther}, {"lieferschein", extract.DocOther}, {"zahlungsavis", extract.DocOther}},
	invoiceTitles: []docKeyword{{"rechnung", extract.DocInvoice}, {"warenrechnung", extract.DocInvoice}, {"handelsrechnung", extract.DocInvoice}},
	compounds:     []docKeyword{{"stornorechnung", extract.DocCreditNote}, {"korrekturrechnung", extract.DocCorrectiveInvoice}, {"rechnung", extract.DocInvoice}},
	markers:       []docKeyword{{"rückgeld", extract.DocReceipt}, {"anfangssaldo", extract.DocStatement}, {"endsaldo", extract.DocStatement}, {"alter saldo", extract.DocStatement}, {"neuer saldo", extract.DocStatement}, {"angebot gültig", extract.DocQuote}, {"gültig bis", extract.DocQuote}},
	preceding:     "bezug rechnung|bezug auf rechnung|bezug auf die rechnung|bezug zur rechnung|zur rechnung|zu rechnung|zu unserer rechnung|zu der rechnung|korrektur der rechnung|korrektur zu rechnung|korrektur zur rechnung|storno der rechnung|storno zu rechnung|storno zur rechnung|ursprungsrechnung|ursprungliche rechnung|originalrechnung|bezugsrechnung|rechnungsbezug|korrigierte rechnung|stornierte rechnung",
	references:    "ihre|ihr|ihrem|ihrer|ihres|unsere|unser|unserem|unserer|unseres|gemass|laut|lt|siehe|aus|zu|zur|zum|nach",
	dueBy:         "bis|bis zum|bis spätestens|spätestens am|spätestens bis|zahlbar bis",
	payWords:      "zahl|überweis|uberweis|bezahl|begleich",
	taxTotals:     "steuerbetrag|summe ust|summe mwst|mwst summe|gesamtsumme ust|umsatzsteuerbetrag|mehrwertsteuerbetrag|summe umsatzsteuer",
	months:        [12]string{"januar jän jan", "februar feb", "märz maerz marz mär mrz", "april apr", "mai", "juni jun", "juli jul", "august aug", "september sep sept", "oktober okt", "november nov", "dezember dez"},
}
