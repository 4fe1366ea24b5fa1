package rules

import "github.com/relayops/relayops/extract"

// czech is the vocabulary of Czech, and of Slovak where its words differ
// only in spelling. "č." (číslo) is no number spelling of the matcher, so
// its phrases are written out; diacritics the matcher does not fold (ě, ř,
// š, ž, ů, ň, ľ …) are listed both with and without them, as text from
// an older PDF drops them.
//
// Kinds decided here: a "zálohová faktura" (advance invoice) asks for an
// advance but is no tax document (the "daňový doklad" follows the
// payment): a quote, as "pro forma" is in English. A "dobropis" credits an
// invoice: a credit note; an "opravný daňový doklad" (or the Slovak
// "opravná faktúra") corrects one: a corrective invoice. A
// "daňový doklad k přijaté platbě" confirms an advance received: a receipt.
//
// Bilingual invoices gloss a label in English ("Daňový doklad č. (Invoice
// No): 2406000590", "Dodavatel (Supplier):"); labelValue would take the
// gloss for the value, so the glossed forms of the number, vendor and
// customer labels are listed whole (the matcher reads the words across the
// brackets).
var czech = language{
	code: "cs,sk",
	labels: map[labelKind]string{
		lkInvoiceNo:   `dobropis č|dobropis no|číslo dobropisu|cislo dobropisu|faktura č|faktura číslo|číslo faktury|cislo faktury|č faktury|faktura|daňový doklad č|danovy doklad c|daňový doklad číslo|daňový doklad č invoice no|faktura daňový doklad č|číslo dokladu|cislo dokladu|č dokladu|faktúra č|faktúra číslo|číslo faktúry|faktúra`,
		lkVendor:      `dodavatel|dodavatel supplier|prodávající seller|prodávající|prodavajici|poskytovatel|dodávateľ|predávajúci`,
		lkCustomer:    `odběratel|odběratel client|odběratel customer|kupující buyer|odberatel|kupující|kupujici|příjemce|prijemce|objednatel|odberateľ|kupujúci|objednávateľ|sídlo odběratele|adresa dodání|dodací adresa|místo dodání|konečný příjemce`,
		lkIssueDate:   `datum vystavení|datum vystaveni|datum vystavení faktury|datum vystavení dokladu|vystaveno dne|dátum vystavenia|dátum vyhotovenia|datum`,
		lkDueDate:     `datum splatnosti|datum splatnosti faktury|splatnost|splatno|splatné do|splatnost do|dátum splatnosti|splatnosť`,
		lkOtherDate:   `datum uskutečnění zdanitelného plnění|datum uskutečnění zdaň plnění|datum uskutecneni zdan plneni|datum uskutečnění plnění|datum zdan plnění|datum zdan plneni|datum zdanitelného plnění|datum plnění|duzp|datum dodání|datum objednávky|datum úhrady|dátum dodania|dátum dodania tovaru|dátum uskutočnenia zdaniteľného plnenia|zdaniteľné plnenie`,
		lkCurrency:    `měna|mena`,
		lkSubtotal:    `základ daně|zaklad dane|základ dph|celkem bez dph|celkem bez daně|mezisoučet|mezisoucet|základ dane|spolu bez dph|suma bez dph|celkom bez dph`,
		lkTax:         `dph|daň|výše dph|vyse dph|dph celkem|celkem dph|daň z přidané hodnoty|výška dph|dph spolu|spolu dph`,
		lkTaxIncluded: `včetně dph|vcetne dph|vč dph|v tom dph|z toho dph|vrátane dph`,
		lkTotal:       `celkem|celkem s dph|celkem včetně dph|celkem vcetne dph|celková částka|celkova castka|částka celkem|celkem za doklad|fakturovaná částka|celkem kč|spolu|spolu s dph|celkom|celkom s dph|celková suma|suma celkom|fakturovaná suma`,
		lkAmountDue:   `k úhradě|k uhrade|celkem k úhradě|celkem k uhrade|zbývá uhradit|zbyva uhradit|k zaplacení|částka k úhradě|zbývá zaplatit|k úhrade|celkom k úhrade|suma na úhradu|na úhradu|zostáva uhradiť`,
		lkPaid:        `uhrazeno|zaplaceno|záloha|zálohy|uhrazeno zálohou|odpočet zálohy|zaplacená záloha|přijatá záloha|zaplatené|uhradené|uhradené zálohou`,
		lkShipping:    `doprava|dopravné|poštovné|postovne|přeprava|doručení|poštovné a balné`,
		lkDiscount:    `sleva|zľava|zlava|rabat|sleva celkem`,
		lkFee:         `poplatek|poplatky|balné|balne|příplatek|manipulační poplatek|poplatok`,
		lkRounding:    `zaokrouhlení|zaokrouhleni|haléřové vyrovnání|korekce zaokrouhlení|zaokrúhlenie`,
		lkOtherRef:    `ič|ičo|ic|ico|dič|dic|ič dph|ic dph|variabilní symbol|variabilni symbol|variabilný symbol|vs|konstantní symbol|konštantný symbol|ks|specifický symbol|ss|bankovní účet|bankovni ucet|číslo účtu|cislo uctu|účet|ucet|banka|název banky|nazev banky|způsob platby|způsob úhrady|forma úhrady|forma platby|spôsob úhrady|číslo objednávky|č objednávky|objednávka|množství|mnozstvi|mj|jednotka|cena za mj|jedn cena|cena|popis|označení|označení dodávky|telefon|strana|počet listů|spz|sídlo|spisová značka|zapsaná v obchodním rejstříku|obchodní rejstřík|reklamace`,
	},
	titles: []docKeyword{
		{"opravný daňový doklad", extract.DocCorrectiveInvoice}, {"opravny danovy doklad", extract.DocCorrectiveInvoice}, {"dobropis", extract.DocCreditNote}, {"opravná faktúra", extract.DocCorrectiveInvoice},
		{"daňový doklad k přijaté platbě", extract.DocReceipt}, {"zálohová faktura", extract.DocQuote}, {"zalohova faktura", extract.DocQuote}, {"zálohová faktúra", extract.DocQuote},
		{"proforma faktura", extract.DocQuote}, {"proforma faktúra", extract.DocQuote},
		{"účtenka", extract.DocReceipt}, {"stvrzenka", extract.DocReceipt}, {"pokladní doklad", extract.DocReceipt}, {"příjmový pokladní doklad", extract.DocReceipt},
		{"pokladničný doklad", extract.DocReceipt}, {"paragón", extract.DocReceipt},
		{"objednávka", extract.DocPurchaseOrder}, {"nabídka", extract.DocQuote}, {"cenová nabídka", extract.DocQuote}, {"cenová ponuka", extract.DocQuote}, {"ponuka", extract.DocQuote},
		{"výpis z účtu", extract.DocStatement}, {"dodací list", extract.DocOther}, {"upomínka", extract.DocOther}, {"upomienka", extract.DocOther},
		{"potvrzení objednávky", extract.DocOther}, {"potvrdenie objednávky", extract.DocOther},
	},
	invoiceTitles: []docKeyword{{"faktura", extract.DocInvoice}, {"faktúra", extract.DocInvoice}, {"daňový doklad", extract.DocInvoice}, {"danovy doklad", extract.DocInvoice}},
	compounds:     []docKeyword{},
	markers:       []docKeyword{{"počáteční zůstatek", extract.DocStatement}, {"konečný zůstatek", extract.DocStatement}, {"nabídka platí do", extract.DocQuote}, {"platnost nabídky", extract.DocQuote}},
	preceding:     "k faktuře|k fakture|opravovaný doklad|opravovany doklad|původní doklad|puvodni doklad|původní faktura|puvodni faktura|opravovaná faktura|opravovana faktura|k daňovému dokladu",
	references:    "vaše|vase|váš|vas|naše|nase|náš|nas|dle|podle",
	dueBy:         "do|nejpozději do",
	payWords:      "uhra|zaplat|plat",
	taxTotals:     "dph celkem|celkem dph|výše dph|dph spolu|spolu dph",
	// Dates write the month in the genitive ("3. října 2006"); Slovak names
	// follow the Czech ones.
	months: [12]string{"leden ledna január januára januar januara", "únor února unor unora február februára februar februara",
		"březen března brezen brezna marec marca", "duben dubna apríl apríla aprila", "květen května kveten kvetna máj mája maja",
		"červen června cerven cervna jún júna juna", "červenec července cervenec cervence júl júla jula", "srpen srpna august augusta",
		"září zari september septembra", "říjen října rijen rijna október októbra oktober oktobra",
		"listopad listopadu november novembra", "prosinec prosince december decembra"},
}
