package rules

import "github.com/relayops/relayops/extract"

// dutch is the vocabulary of Dutch (Netherlands, Belgium).
var dutch = language{
	code: "nl",
	labels: map[labelKind]string{
		lkInvoiceNo:   `creditnota no|creditnotanummer|creditnotanr|creditnummer|creditfactuur no|creditfactuurnummer|factuurnr|factuurno|factuurnummer|factuur no|factuur|documentnr|documentnummer`,
		lkVendor:      `leverancier|verkoper|afzender`,
		lkCustomer:    `ontvanger|klant|klantnummer|leveringsadres|facturatieadres|klant no|afnemer|factuuradres|afleveradres|debiteur|debiteurnummer|t a v`,
		lkIssueDate:   `factuurdatum|datum|datum factuur`,
		lkDueDate:     `vervaldatum|uiterste betaaldatum|betalen voor|vervaldag`,
		lkOtherDate:   `leverdatum|orderdatum|periode|leveringsdatum`,
		lkCurrency:    `valuta`,
		lkSubtotal:    `subtotaal|btw plichtig bedrag|netto goederenwaarde|goederenwaarde|totaal excl btw|totaal exclusief btw|subtotaal excl btw|subtotaal exclusief btw|netto bedrag|totaal exl btw|bedrag excl btw|totaal netto`,
		lkTax:         `btw|btw bedrag|totaal btw|omzetbelasting|af te dragen btw|btw totaal`,
		lkTaxIncluded: `incl btw|inclusief btw`,
		lkTotal:       `totaal creditnota|creditbedrag|totaal|factuurtotaal|rekeningsbedrag|totaal te betalen|totaal incl btw|totaal inclusief btw|totaalbedrag|factuurbedrag|totaal factuurbedrag|eindtotaal|te betalen totaal`,
		lkAmountDue:   `te betalen|openstaand bedrag|nog te betalen|saldo`,
		lkPaid:        `betaald|reeds betaald|aanbetaling|vooruitbetaling`,
		lkShipping:    `verzendkosten|verzending|bezorgkosten|vrachtkosten|vracht`,
		lkDiscount:    `korting`,
		lkOtherRef:    `btw no|btw nummer|btw nr|btw id|kvk|kvk no|kvk nummer|iban|bic|referentie|uw referentie|onze referentie|ordernummer|ordernr|leverbon|besteld door|uw bestelling|verkoop ref|deb no|klantnr|order no|betalingskenmerk|omschrijving|aantal|prijs|tarief|bedrag|pagina|betalingstermijn`,
	},
	titles:        []docKeyword{{"creditnota", extract.DocCreditNote}, {"creditfactuur", extract.DocCreditNote}, {"correctiefactuur", extract.DocCorrectiveInvoice}, {"kassabon", extract.DocReceipt}, {"kwitantie", extract.DocReceipt}, {"betaalbewijs", extract.DocReceipt}, {"bestelling", extract.DocPurchaseOrder}, {"inkooporder", extract.DocPurchaseOrder}, {"offerte", extract.DocQuote}, {"rekeningoverzicht", extract.DocStatement}, {"pakbon", extract.DocOther}, {"orderbevestiging", extract.DocOther}, {"betalingsherinnering", extract.DocOther}, {"aanmaning", extract.DocOther}},
	invoiceTitles: []docKeyword{{"factuur", extract.DocInvoice}, {"btw-factuur", extract.DocInvoice}},
	compounds:     []docKeyword{{"factuur", extract.DocInvoice}},
	markers:       []docKeyword{{"wisselgeld", extract.DocReceipt}, {"beginsaldo", extract.DocStatement}, {"eindsaldo", extract.DocStatement}, {"offerte geldig", extract.DocQuote}, {"geldig tot", extract.DocQuote}},
	preceding:     "creditering van factuur|creditnota voor factuur|voor factuur|originele factuur|oorspronkelijke factuur|gecrediteerde factuur|betreft factuur|correctie op factuur|correctie van factuur",
	references:    "uw|onze|volgens|naar aanleiding van|conform",
	dueBy:         "uiterlijk|vóór|voor",
	payWords:      "betal|overmaken|over te maken|voldoen|voldaan",
	taxTotals:     "totaal btw|btw bedrag",
	months:        [12]string{"januari jan", "februari feb", "maart mrt", "april apr", "mei", "juni jun", "juli jul", "augustus aug", "september sep sept", "oktober okt", "november nov", "december dec"},
}
