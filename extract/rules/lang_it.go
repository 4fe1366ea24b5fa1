package rules

import "github.com/relayops/relayops/extract"

// italian is the vocabulary of Italian.
var italian = language{
	code: "it",
	labels: map[labelKind]string{
		lkInvoiceNo:   `nota di credito no|no nota di credito|nota credito no|numero nota di credito|numero nota credito|fattura no|no fattura|numero fattura|no documento|numero documento|fattura`,
		lkVendor:      `fornitore|cedente|cedente prestatore|venditore`,
		lkCustomer:    `cliente|destinatario|cessionario|cessionario committente|spett le|spettabile`,
		lkIssueDate:   `data|data fattura|data documento|data di emissione`,
		lkDueDate:     `scadenza|data scadenza|data di scadenza|scadenze`,
		lkOtherDate:   `data consegna|periodo|data ordine`,
		lkSubtotal:    `imponibile|totale imponibile|subtotale|totale netto|netto|imponibile totale`,
		lkTax:         `iva|totale iva|imposta|importo iva`,
		lkTaxIncluded: `iva inclusa|di cui iva`,
		lkTotal:       `totale nota di credito|totale|totale fattura|totale documento|importo totale|totale da pagare|totale ivato|totale complessivo`,
		lkAmountDue:   `netto a pagare|da pagare|importo da pagare|saldo`,
		lkPaid:        `pagato|acconto|gia pagato`,
		lkShipping:    `spese di spedizione|trasporto|spedizione`,
		lkDiscount:    `sconto`,
		lkOtherRef:    `partita iva|p iva|piva|codice fiscale|cod fisc|c f|iban|rif|riferimento|ordine|no ordine|pagamento|modalita di pagamento|quantita|qta|prezzo|descrizione|pagina|codice`,
	},
	titles:        []docKeyword{{"nota di credito", extract.DocCreditNote}, {"ricevuta", extract.DocReceipt}, {"scontrino", extract.DocReceipt}, {"ordine di acquisto", extract.DocPurchaseOrder}, {"ordine d'acquisto", extract.DocPurchaseOrder}, {"preventivo", extract.DocQuote}, {"offerta", extract.DocQuote}, {"estratto conto", extract.DocStatement}, {"documento di trasporto", extract.DocOther}, {"conferma d'ordine", extract.DocOther}, {"sollecito", extract.DocOther}},
	invoiceTitles: []docKeyword{{"fattura", extract.DocInvoice}},
	compounds:     []docKeyword{},
	markers:       []docKeyword{{"saldo precedente", extract.DocStatement}, {"saldo finale", extract.DocStatement}, {"offerta valida", extract.DocQuote}, {"valido fino", extract.DocQuote}},
	preceding:     "rif fattura|riferimento fattura|fattura di riferimento|relativa alla fattura|relativo alla fattura|alla fattura|fattura originale|fattura rettificata|storno fattura|storno della fattura",
	references:    "vostro|vostra|vostri|vostre|nostro|nostra|nostri|nostre|vs|ns|secondo|come da|in riferimento a",
	dueBy:         "entro il|entro|non oltre il",
	payWords:      "pag|bonifico|versa|salda",
	taxTotals:     "totale iva|importo iva",
	months:        [12]string{"gennaio gen", "febbraio feb", "marzo mar", "aprile apr", "maggio mag", "giugno giu", "luglio lug", "agosto ago", "settembre set sett", "ottobre ott", "novembre nov", "dicembre dic"},
}
