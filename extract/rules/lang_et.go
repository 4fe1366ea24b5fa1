package rules

import "github.com/relayops/relayops/extract"

// estonian is the vocabulary of Estonian invoices ("Arve nr 1615", "Kokku
// (EUR)", "Käibemaks (24%)"). Words with ä, õ, ö, ü are listed as written
// and without their marks, as they may be folded or not.
var estonian = language{
	code: "et",
	labels: map[labelKind]string{
		lkInvoiceNo: `kreeditarve no|kreeditarve|arve no|arve number|arve`,
		lkVendor:    `müüja|muuja|tarnija|arve väljastaja|arve valjastaja`,
		lkCustomer:  `klient|ostja|maksja|tellija|kliendinumber|kliendi no`,
		lkIssueDate: `kuupäev|kuupaev|arve kuupäev|arve kuupaev|väljastamise kuupäev|valjastamise kuupaev`,
		lkDueDate:   `tähtaeg|tahtaeg|maksetähtaeg|maksetahtaeg|maksetähtpäev|maksetahtpaev`,
		lkOtherDate: `laekumise kuupäev|laekumise kuupaev|periood|kindlustusperiood|tarnekuupäev|tarnekuupaev`,
		lkSubtotal:  `vahesumma|ridade summa kokku kmta|ridade summa kokku km ta|summa kmta|kokku kmta|summa käibemaksuta|summa kaibemaksuta|maksustatav käive|maksustatav kaive|summa km ta|kokku km ta`,
		lkTax:       `käibemaks|kaibemaks|käibemaksu summa|kaibemaksu summa|km summa`,
		lkTotal:     `kokku|kokku kmga|summa kokku|arve summa|kokku km ga|kokku käibemaksuga|kokku kaibemaksuga`,
		lkAmountDue: `tasuda|tasumisele kuulub|maksta`,
		lkPaid:      `tasutud|makstud|ettemaks`,
		lkShipping:  `saatekulu|tarnekulu`,
		lkDiscount:  `soodustus|allahindlus`,
		lkRounding:  `ümardus|umardus`,
		lkOtherRef:  `lehekülg|lehekulg|viitenumber|rg kood|registrikood|kmkr|kmkr no|pangakonto|pangakonto no|arvelduskontod|makseviis|arve viivis|telefon|poliis|kogus|ühik|uhik|hind|tootegrupp|toote nimetus`,
	},
	// An "ettemaksuarve" asks for a prepayment, as a pro forma does.
	titles:        []docKeyword{{"kreeditarve", extract.DocCreditNote}, {"ettemaksuarve", extract.DocQuote}, {"hinnapakkumine", extract.DocQuote}, {"tellimus", extract.DocPurchaseOrder}, {"kviitung", extract.DocReceipt}, {"saateleht", extract.DocOther}},
	invoiceTitles: []docKeyword{{"arve", extract.DocInvoice}},
	compounds:     []docKeyword{{"kreeditarve", extract.DocCreditNote}, {"ettemaksuarve", extract.DocQuote}},
	markers:       []docKeyword{{"algsaldo", extract.DocStatement}, {"lõppsaldo", extract.DocStatement}},
	preceding:     "alusarve|algne arve|parandatav arve",
	references:    "teie|meie|vastavalt",
	dueBy:         "hiljemalt|tähtajaga",
	payWords:      "tasu|maks",
	taxTotals:     "käibemaks kokku|kaibemaks kokku",
	months:        [12]string{"jaanuar jaan", "veebruar veebr", "märts marts", "aprill apr", "mai", "juuni", "juuli", "august aug", "september sept sep", "oktoober okt", "november nov", "detsember dets"},
}
