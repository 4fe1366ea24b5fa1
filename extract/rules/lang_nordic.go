package rules

import "github.com/relayops/relayops/extract"

// nordic is the vocabulary of Swedish, Danish and Norwegian, which share most invoice words.
var nordic = language{
	code: "sv,da,no",
	labels: map[labelKind]string{
		lkInvoiceNo:   `kreditnota no|kreditnotanr|kreditnotanummer|kreditfaktura no|kreditfakturanr|fakturanr|fakturanummer|faktura no|fakturano|faktura`,
		lkVendor:      `leverandor|leverantor|saljare|saelger|selger`,
		lkCustomer:    `solgt til|sold till|fakturer til|faktureres til|tjenestemottaker|kund|kunde|kundnr|kundenr|kundenummer|kundnummer|kopare|kober|kjoper|faktureringsadress|leveransadress`,
		lkIssueDate:   `fakturadatum|fakturadato|datum|dato`,
		lkDueDate:     `forfallodatum|forfallodag|forfaldsdato|forfallsdato|forfall|betalningsvillkor datum|sista betalningsdag|betales senest`,
		lkOtherDate:   `leveransdatum|leveringsdato|period|periode`,
		lkCurrency:    `valuta`,
		lkSubtotal:    `netto|nettobelopp|nettobelob|nettobelop|summa exkl moms|belopp exkl moms|total ekskl mva|sum ekskl mva|subtotal|i alt ekskl moms|momsgrundlag|momspliktigt belopp|grunnlag`,
		lkTax:         `moms|mva|alv|total moms|total mva|plus moms|plus mva|merverdiavgift|momsbelopp|moms 25|sum mva|momsbelob|arvonlisavero`,
		lkTaxIncluded: `inkl moms|inklusive moms|inkl mva|heraf moms`,
		lkTotal:       `summa|totalt|total|totalbelopp|totalbelob|i alt|sum|totalt a betale|belopp att betala|yhteensa|summa att betala|total inkl moms|total inkl mva|i alt inkl moms`,
		lkAmountDue:   `att betala|at betale|betalas|til betaling|belob til betaling|maksettava`,
		lkPaid:        `betalt|redan betalt|forskud|forskudd|allerede betalt`,
		lkShipping:    `frakt|fragt|porto|leverans`,
		lkDiscount:    `rabatt|rabat`,
		lkOtherRef:    `org no|orgnr|organisationsnummer|organisasjonsnummer|cvr|cvr no|se no|momsreg no|bankgiro|plusgiro|bg|pg|kontonr|konto|iban|bic|ocr|kid|referens|var referens|er referens|deres ref|var ref|antal|antall|pris|beskrivning|beskrivelse|sida|side|betalningsvillkor|betalingsbetingelser`,
	},
	titles:        []docKeyword{{"kreditnota", extract.DocCreditNote}, {"kreditfaktura", extract.DocCreditNote}, {"kvitto", extract.DocReceipt}, {"kvittering", extract.DocReceipt}, {"inköpsorder", extract.DocPurchaseOrder}, {"bestilling", extract.DocPurchaseOrder}, {"offert", extract.DocQuote}, {"tilbud", extract.DocQuote}, {"kontoutdrag", extract.DocStatement}, {"kontoudtog", extract.DocStatement}, {"följesedel", extract.DocOther}, {"følgeseddel", extract.DocOther}, {"påminnelse", extract.DocOther}, {"rykker", extract.DocOther}, {"purring", extract.DocOther}},
	invoiceTitles: []docKeyword{{"faktura", extract.DocInvoice}},
	compounds:     []docKeyword{{"faktura", extract.DocInvoice}},
	markers:       []docKeyword{{"växel", extract.DocReceipt}, {"ingående saldo", extract.DocStatement}, {"utgående saldo", extract.DocStatement}, {"gäller till", extract.DocQuote}, {"gyldig til", extract.DocQuote}},
	preceding:     "kreditering av faktura|krediterer faktura|avser faktura|gäller faktura|opprinnelig faktura|ursprunglig faktura|kreditnota til faktura|vedrørende faktura|vedr faktura",
	references:    "er|deres|din|dit|jeres|var|vår|vores|vaar|enligt|ifølge|iflg",
	dueBy:         "senest|innan|inden|före|før",
	payWords:      "betal",
	taxTotals:     "total moms|total mva|sum mva|momsbelopp|momsbelob",
	months:        [12]string{"januari januar jan", "februari februar feb", "mars marts mar", "april apr", "maj mai", "juni jun", "juli jul", "augusti august aug", "september sep sept", "oktober okt", "november nov", "december desember dec"},
}
