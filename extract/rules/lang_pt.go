package rules

import "github.com/relayops/relayops/extract"

// portuguese is the vocabulary of Portuguese (Portugal and Brazil). It
// shares many words with Spanish (total, iva, cliente, a pagar): those are
// listed with the same kind in both tables. "Número", "nº" and "n.º" read
// "no".
//
// Kinds decided here: a "fatura-recibo" is a Portuguese invoice that also
// acknowledges its payment (SAF-T type FR): an invoice, paid. A "fatura
// pró-forma" is an offer: a quote, as "pro forma" is in English. Brazil's
// "nota fiscal" (NF-e, NFS-e, and its printed DANFE) is the invoice.
// Brazil's ICMS, PIS, COFINS and ISS are inside the price of the goods or
// services (por dentro): tax included, not added; IPI is added on top.
// "Valor líquido" is net of VAT in Portugal but net of withheld taxes (the
// amount to pay) in Brazil, so it is listed only in the longer phrases that
// say which.
var portuguese = language{
	code: "pt",
	labels: map[labelKind]string{
		lkInvoiceNo:   `fatura no|factura no|no da fatura|no da factura|no fatura|no de fatura|fatura|nota fiscal no|no da nota fiscal|no nota fiscal|no da nota|no do documento`,
		lkVendor:      `fornecedor|emitente|prestador|prestador de serviços|prestador do serviço|vendedor|emissor`,
		lkCustomer:    `cliente|destinatário|tomador|tomador de serviços|tomador do serviço|adquirente|comprador|faturar a|morada de entrega|endereço de entrega|local de entrega|destinatário remetente`,
		lkIssueDate:   `data|data da fatura|data da factura|data de emissão|data emissão|data de emissao|data do documento|dt emissão|emitida em|data e hora de emissão`,
		lkDueDate:     `data de vencimento|data vencimento|vencimento|data limite de pagamento|data limite|pagável até|vence em`,
		lkOtherDate:   `data de entrega|data da entrega|data de envio|data de expedição|período|data do serviço|data de prestação do serviço|data da prestação|data de carga|data de descarga|dt disponibilização|data de saída|data da saída|data de competência|competência|data da encomenda`,
		lkCurrency:    `moeda|divisa`,
		lkSubtotal:    `subtotal|total s iva|total s/ iva|total líquido|valor total líquido|total ilíquido|base tributável|base de incidência|incidência|total sem iva|valor sem iva|valor dos produtos|valor total dos produtos|valor dos serviços|valor total dos serviços|total dos produtos|total dos serviços|total mercadoria`,
		lkTax:         `iva|total iva|total do iva|valor do iva|valor iva|imposto|impostos|total de impostos|total impostos|valor total dos impostos|ipi|valor do ipi|valor total do ipi`,
		lkTaxIncluded: `iva incluído|com iva incluído|icms|valor do icms|pis|cofins|iss|issqn|valor do iss|valor do issqn`,
		lkTotal:       `total|total do documento|total da fatura|total da factura|valor total|total geral|total final|montante total|importância total|total com iva|valor total da nota|valor total da fatura|valor da fatura|total documento|valor total do documento|valor total da nf`,
		lkAmountDue:   `a pagar|total a pagar|valor a pagar|montante a pagar|valor em dívida|em dívida|saldo devedor|valor líquido da nota|valor líquido a pagar`,
		lkPaid:        `pago|valor pago|total pago|montante pago|já pago|adiantamento|adiantamentos`,
		lkShipping:    `portes|frete|valor do frete|transporte|envio|despesas de envio|custos de envio|portes de envio`,
		lkDiscount:    `desconto|descontos|total descontos|total de descontos|valor do desconto|desconto comercial|desconto financeiro`,
		lkFee:         `taxa de serviço|encargos|outras despesas|outras despesas acessórias|despesas acessórias|comissão`,
		lkRounding:    `arredondamento|acerto de arredondamento`,
		lkOtherRef:    `nif|nipc|contribuinte|no contribuinte|no de contribuinte|no de identificação fiscal|cnpj|cpf|cpf cnpj|inscrição estadual|inscrição municipal|iban|nib|bic|swift|referência|ref|encomenda|no encomenda|nota de encomenda|requisição|condições de pagamento|forma de pagamento|modo de pagamento|meio de pagamento|quantidade|qtd|qtd unid|unid|preço|preço unitário|p unid|descrição|designação|artigo|código|página|morada|telefone|telemóvel|val liq|taxa de iva|taxa iva|taxa|base de cálculo|base de cálculo do icms|chave de acesso|protocolo de autorização|natureza da operação|cfop|ncm|série|extenso|dados para pagamento|atcud|capital social|conservatória|matrícula`,
	},
	titles: []docKeyword{
		{"nota de crédito", extract.DocCreditNote}, {"nota de credito", extract.DocCreditNote}, {"fatura retificativa", extract.DocCorrectiveInvoice}, {"factura retificativa", extract.DocCorrectiveInvoice},
		{"fatura pró-forma", extract.DocQuote}, {"fatura proforma", extract.DocQuote}, {"fatura pro-forma", extract.DocQuote},
		{"factura pró-forma", extract.DocQuote}, {"factura proforma", extract.DocQuote}, {"pró-forma", extract.DocQuote},
		{"recibo", extract.DocReceipt}, {"talão de venda", extract.DocReceipt},
		{"nota de encomenda", extract.DocPurchaseOrder}, {"ordem de compra", extract.DocPurchaseOrder}, {"pedido de compra", extract.DocPurchaseOrder},
		{"orçamento", extract.DocQuote}, {"proposta", extract.DocQuote}, {"cotação", extract.DocQuote},
		{"extrato de conta", extract.DocStatement}, {"extrato", extract.DocStatement},
		{"guia de remessa", extract.DocOther}, {"guia de transporte", extract.DocOther}, {"confirmação de encomenda", extract.DocOther}, {"confirmação de pedido", extract.DocOther},
	},
	// "fatura-recibo" is listed so that its "recibo" never decides.
	invoiceTitles: []docKeyword{
		{"fatura-recibo", extract.DocInvoice}, {"factura-recibo", extract.DocInvoice}, {"fatura", extract.DocInvoice}, {"factura", extract.DocInvoice},
		{"nota fiscal", extract.DocInvoice}, {"danfe", extract.DocInvoice}, {"nfs-e", extract.DocInvoice}, {"nf-e", extract.DocInvoice},
	},
	compounds:  []docKeyword{},
	markers:    []docKeyword{{"troco", extract.DocReceipt}, {"saldo anterior", extract.DocStatement}, {"saldo final", extract.DocStatement}, {"proposta válida", extract.DocQuote}, {"orçamento válido", extract.DocQuote}, {"válido até", extract.DocQuote}, {"válida até", extract.DocQuote}},
	preceding:  "fatura original|factura original|fatura de referência|referente à fatura|referente a fatura|relativa à fatura|fatura retificada|retifica a fatura|documento de origem",
	references: "sua|seu|suas|seus|nossa|nosso|conforme|segundo",
	dueBy:      "até|até ao dia|até o dia",
	payWords:   "pag|transfer",
	taxTotals:  "total iva|total do iva|valor do iva|valor iva|total de impostos|total impostos|valor total dos impostos",
	// "3 de março de 2017" is not read: words stand between day, month and
	// year (see docs/extraction-languages.md).
	months: [12]string{"janeiro jan", "fevereiro fev", "março marco mar", "abril abr", "maio mai", "junho jun", "julho jul",
		"agosto ago", "setembro set", "outubro out", "novembro nov", "dezembro dez"},
}
