package rules

import "github.com/relayops/relayops/extract"

// spanish is the vocabulary of Spanish (Spain, Latin America).
var spanish = language{
	code: "es",
	labels: map[labelKind]string{
		lkInvoiceNo:   `factura rectificativa no|no factura rectificativa|no de factura rectificativa|nota de credito no|no nota de credito|no de nota de credito|factura no|no factura|no de factura|numero de factura|num factura|factura`,
		lkVendor:      `proveedor|emisor|vendedor`,
		lkCustomer:    `cliente|destinatario|comprador|facturar a|senor|senores`,
		lkIssueDate:   `fecha|fecha de factura|fecha factura|fecha de emision|fecha emision|fecha de expedicion`,
		lkDueDate:     `fecha de vencimiento|vencimiento|fecha de vencimiento de pago|vence`,
		lkOtherDate:   `periodo facturado|fecha de entrega|periodo|inicio de actividad|fecha vto cae`,
		lkCurrency:    `moneda`,
		lkSubtotal:    `subtotal|base imponible|importe neto|total neto|neto`,
		lkTax:         `iva|total iva|cuota iva|impuesto|impuestos|importe iva`,
		lkTaxIncluded: `iva incluido|incluye iva`,
		lkTotal:       `importe total|total|total factura|total con iva`,
		lkAmountDue:   `a pagar|total a pagar|saldo pendiente|importe a pagar`,
		lkPaid:        `pagado|anticipo|entregado a cuenta|ya pagado`,
		lkShipping:    `envio|transporte|portes|gastos de envio`,
		lkDiscount:    `descuento|bonif|bonificacion`,
		lkOtherRef:    `nif|cif|cuit|nie|iibb|cae|c a e no|remito no|pedido|no pedido|forma de pago|condiciones de pago|cantidad|unidades|unid|precio|descripcion|articulo|pagina|direccion|localidad|provincia|telefono|observaciones`,
	},
	titles:        []docKeyword{{"nota de crédito", extract.DocCreditNote}, {"factura rectificativa", extract.DocCorrectiveInvoice}, {"factura de abono", extract.DocCreditNote}, {"recibo", extract.DocReceipt}, {"ticket", extract.DocReceipt}, {"orden de compra", extract.DocPurchaseOrder}, {"presupuesto", extract.DocQuote}, {"cotización", extract.DocQuote}, {"estado de cuenta", extract.DocStatement}, {"albarán", extract.DocOther}, {"confirmación de pedido", extract.DocOther}},
	invoiceTitles: []docKeyword{{"factura", extract.DocInvoice}},
	compounds:     []docKeyword{},
	markers:       []docKeyword{{"saldo anterior", extract.DocStatement}, {"saldo final", extract.DocStatement}, {"presupuesto válido", extract.DocQuote}, {"válido hasta", extract.DocQuote}},
	preceding:     "factura rectificada|rectifica la factura|rectifica a la factura|factura original|factura de referencia|referente a la factura|sobre la factura|factura anulada|anula la factura",
	references:    "su|sus|nuestro|nuestra|nuestros|nuestras|segun|conforme a|referente a",
	dueBy:         "antes del|hasta el|a más tardar el|no más tarde del",
	payWords:      "pag|transfer|abon",
	taxTotals:     "total iva|importe iva|cuota iva",
	months:        [12]string{"enero ene", "febrero feb", "marzo mar", "abril abr", "mayo may", "junio jun", "julio jul", "agosto ago", "septiembre setiembre sep sept set", "octubre oct", "noviembre nov", "diciembre dic"},
}
