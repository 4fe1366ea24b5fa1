package rules

import (
	"testing"

	"github.com/relayops/relayops/extract"
)

func TestPortuguese_LabelsNameTheirField(t *testing.T) {
	t.Parallel()
	requireLabelKinds(t, map[string]labelKind{
		"Fatura nº": lkInvoiceNo, "Nº da fatura": lkInvoiceNo, "Número da fatura": lkInvoiceNo, "Nota Fiscal Nº": lkInvoiceNo,
		"Fornecedor": lkVendor, "Emitente": lkVendor, "Prestador de serviços": lkVendor,
		"Cliente": lkCustomer, "Destinatário": lkCustomer, "Tomador de serviços": lkCustomer, "Adquirente": lkCustomer,
		"Data de emissão": lkIssueDate, "Data": lkIssueDate, "Data de vencimento": lkDueDate, "Vencimento": lkDueDate,
		"Data de entrega": lkOtherDate, "Período": lkOtherDate, "Moeda": lkCurrency,
		"Total líquido": lkSubtotal, "Valor total líquido": lkSubtotal, "Base tributável": lkSubtotal, "Valor dos produtos": lkSubtotal,
		"IVA 23%": lkTax, "Total IVA": lkTax, "Valor do IPI": lkTax, "IVA incluído": lkTaxIncluded, "Valor do ICMS": lkTaxIncluded,
		"Total do documento": lkTotal, "Valor total": lkTotal, "Valor total da nota": lkTotal,
		"Total a pagar": lkAmountDue, "Valor a pagar": lkAmountDue, "Valor pago": lkPaid, "Adiantamento": lkPaid,
		"Portes": lkShipping, "Frete": lkShipping, "Desconto": lkDiscount, "Total descontos": lkDiscount,
		"Encargos": lkFee, "Arredondamento": lkRounding,
		"NIF": lkOtherRef, "Nº Contribuinte": lkOtherRef, "CNPJ": lkOtherRef, "Inscrição estadual": lkOtherRef, "Taxa de IVA": lkOtherRef,
	})
}

func TestPortuguese_TitlesNameTheKind(t *testing.T) {
	t.Parallel()
	requireTitleKinds(t, map[string]string{
		"Fatura": extract.DocInvoice, "FATURA": extract.DocInvoice, "Factura": extract.DocInvoice, "Fatura-Recibo": extract.DocInvoice,
		"Nota Fiscal de Serviços Eletrônica": extract.DocInvoice, "DANFE": extract.DocInvoice,
		"Fatura pró-forma": extract.DocQuote, "FATURA PRÓ-FORMA": extract.DocQuote, "Orçamento": extract.DocQuote,
		"Nota de crédito": extract.DocCreditNote, "Recibo": extract.DocReceipt, "Nota de encomenda": extract.DocPurchaseOrder,
		"Extrato de conta": extract.DocStatement, "Guia de remessa": extract.DocOther,
	})
}

func TestPortuguese_MonthNames(t *testing.T) {
	t.Parallel()
	requireDates(t, map[string]string{
		"28-fev-2020": "2020-02-28", "15-out-2023": "2023-10-15", "3 set. 2024": "2024-09-03", "1 março 2024": "2024-03-01",
		"1 marco 2024": "2024-03-01", "25 dezembro 2024": "2024-12-25", "28.01.2020": "2020-01-28",
		"28 de fevereiro de 2020": "", // words between day, month and year: not read
	})
}
