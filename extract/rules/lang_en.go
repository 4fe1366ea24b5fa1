package rules

import "github.com/relayops/relayops/extract"

// english is the vocabulary of English (US, UK, India, Australia, …), the
// default of the rules.
var english = language{
	code: "en",
	labels: map[labelKind]string{
		lkInvoiceNo:   `credit note no|credit memo no|credit no|cancellation no|corrective invoice no|correction invoice no|credit invoice no|invoice no|invoice|inv no|inv|invoice ref|invoice reference|invoice id|invoice code|bill no|tax invoice no|invoice no and date|invoice identifier|invoice serial no|document no|document number|doc no|folio|folio no|folio number|bill number|bill ref|bill reference`,
		lkVendor:      `biller|issuer|vendor|supplier|seller|from|sold by|issued by|bill from|billed by|billed from|invoice from|vendor name|supplier name|seller name|company name|payee|remit to|service provider|provider|contractor|please remit to|exporter|shipper`,
		lkCustomer:    `bill to|billed to|purchased by|invoice to|invoiced to|sold to|ship to|shipped to|deliver to|delivery address|billing address|shipping address|customer|client|to|buyer|recipient|attention|attn|customer name|client name|purchaser|customer details|client details|billing to|guest|guest name|consignee|importer`,
		lkIssueDate:   `issuing date|date of issuing|date|invoice date|issue date|date of issue|issued|issued on|tax point|tax point date|date issued|billing date|dated|invoice date tax point|date tax point|tax date|invoice issue date|document date|date of invoice|bill date|date of bill`,
		lkDueDate:     `due date|due|payment due|due by|pay by|date due|payment due date|due on|payment date|please pay by`,
		lkOtherDate:   `delivery date|order date|ship date|shipping date|service date|service period|period|date of supply|supply date|po date|performance date|billing period|invoice period|dispatch date|date of service|statement date|start date|end date|date paid|paid on|sent|received`,
		lkCurrency:    `currency|currency code|valuta`,
		lkSubtotal:    `subtotal|sub total|subtotal without tax|total without tax|amount without tax|invoice subtotal|net total|net amount|net|total net|total excl vat|total excluding vat|total before tax|total before vat|amount before tax|total ex vat|total ex gst|total excl gst|total excl tax|total excluding tax|net value|goods total|items total|taxable amount|subtotal excl vat|subtotal before tax|total net amount|net invoice amount|subtotal net|lines total|total excl|taxable value|assessable value|net invoice value|total charges before vat|total charges before tax|total charges excl vat|total charges excluding vat|total before gst|total gst exclusive|total vat exclusive|total exclusive of gst|total exclusive of vat|total exclusive of tax|charges before vat|charges before tax`,
		lkTax:         `tax|taxes|total taxes|total sales tax|total sales taxes|vat|sales tax|gst|hst|pst|qst|total tax|total vat|tax amount|vat amount|consumption tax|vat total|gst amount|gst total|tax total|total gst|plus vat|plus gst|plus tax|add vat|vat due|state tax|city tax|local tax|county tax|tax sales|vat at|gst at|ppn|kdv|dph|afa|pvm|ddv|fpa|igv|itbis|sales and use tax|use tax|excise|excise tax|service tax|cgst|sgst|igst|utgst`,
		lkTaxIncluded: `incl vat|including vat|vat included|includes vat|of which vat|inc vat|incl gst|including gst|gst included|includes gst|inc gst|incl tax|including tax|tax included|includes tax|thereof vat|vat incl|gst incl|total includes gst|total includes vat|included vat|included gst|gst content|vat content|tax content|total includes vat of|total includes gst of|total includes tax of`,
		lkTotal:       `credit total|total credit|total credit amount|credit note total|total of this credit note|total|grand total|invoice total|total amount|total incl vat|total including vat|total inc vat|total incl gst|total inc gst|total including gst|total including tax|total incl tax|total inc tax|total gross|gross total|gross amount|gross|total payable|amount payable|total to pay|total value|invoice amount|invoice value|total invoice amount|total amount payable|total sum|total cost|total price|total charges|total fees|total invoice value|invoice total value|total gst inclusive|total vat inclusive|total tax inclusive|total inclusive of gst|total inclusive of vat|total inclusive of tax|total gst incl|total vat incl|total this invoice|total for this invoice|this invoice total|total of this invoice|amount of this invoice|total amount of this invoice`,
		lkAmountDue:   `total due|amount due|balance due|balance|amount owing|please pay|pay this amount|total amount due|amount to pay|outstanding|balance outstanding|now due|due now|amount due now|total now due|net payable|amount to be paid|total to be paid|remaining balance|outstanding balance|balance payable|amount outstanding|total balance due|total due now|payable|please remit|kindly remit|to pay`,
		lkPaid:        `paid|amount paid|payments|payment received|less paid|deposit|less deposit|deposit paid|payments credits|prepaid|advance|payment|less payment|paid to date|payments received|already paid|credit applied|credits|less amount paid`,
		lkShipping:    `shipping|shipping and handling|postage|delivery|freight|carriage|shipping fee|delivery charge|delivery fee|p and p|shipping cost|shipping costs|freight charges|postage and packing|postage and handling|courier|transport|shipping charges|s and h`,
		lkDiscount:    `discount|discounts|total discount|total discounts|less discount|early payment discount|rebate|promo|coupon|discount applied|volume discount|trade discount|loyalty discount|special discount|promotion`,
		lkFee:         `fee|service fee|surcharge|handling fee|processing fee|late fee|card fee|credit card fee|environmental fee|admin fee|administration fee|booking fee|fuel surcharge|handling|packaging|packing|insurance|service charge|tip|gratuity`,
		lkCarried:     `previous balance|previous unpaid balance|unpaid balance|past due balance|past due amount|balance forward|balance brought forward|previous amount due|prior balance|previous invoice balance|balance from previous invoice`,
		lkRounding:    `rounding|rounding adjustment|round off|rounding difference`,
		lkOtherRef:    `total charges and allowances|invoice registration no|qualified invoice no|vat no|vat reg no|vat registration no|vat registration|vat reg|vat id|vat id no|tax id|tax no|tax reg no|tax registration no|gst no|gst reg no|gst registration no|gst registration|gstin|abn|acn|ein|tin|uid|company no|company registration no|registration no|reg no|crn|iban|bic|swift|sort code|account no|account|account name|bank|bank name|routing no|aba|customer no|customer id|client no|client id|account id|po|po no|purchase order|purchase order no|order no|order|your order|customer po|p o no|your ref|our ref|reference|ref|payment reference|project|project no|contract|contract no|quote no|quote ref|quotation no|estimate no|delivery note|delivery note no|terms|payment terms|page|phone|tel|telephone|fax|email|e mail|mail|web|website|www|mobile|cell|status|sales rep|salesperson|rep|prepared by|contact|ship via|shipping method|fob|incoterms|job|job no|site|location|vat rate|tax rate|rate|hours|total hours|total items|total qty|total quantity|total units|total weight|items|no of items|qty|quantity|method|payment method|paid by|card|subject|cc|bcc|re|fwd|fw|memo|notes|note|description`,
	},
	// The one written first in a title decides: "Receipt for invoice
	// 4471", "Credit note to invoice 4471" and "Pro forma invoice" are not
	// invoices. "about invoices" titles: a list, a report, a request, an
	// e-mail about an invoice ("Approval needed: invoice PN-1126").
	titles: []docKeyword{
		{"pro forma", extract.DocQuote}, {"proforma", extract.DocQuote}, {"pro-forma", extract.DocQuote}, {"credit note", extract.DocCreditNote}, {"corrective invoice", extract.DocCorrectiveInvoice}, {"correction invoice", extract.DocCorrectiveInvoice}, {"invoice correction", extract.DocCorrectiveInvoice},
		{"credit memo", extract.DocCreditNote}, {"credit invoice", extract.DocCreditNote}, {"cancellation invoice", extract.DocCreditNote}, {"cancellation", extract.DocCreditNote}, {"refund", extract.DocCreditNote},
		{"receipt", extract.DocReceipt}, {"purchase order", extract.DocPurchaseOrder}, {"order form", extract.DocPurchaseOrder}, {"quotation", extract.DocQuote},
		{"quote", extract.DocQuote}, {"estimate", extract.DocQuote}, {"proposal", extract.DocQuote}, {"statement", extract.DocStatement},
		{"memo", extract.DocOther}, {"memorandum", extract.DocOther}, {"meeting notes", extract.DocOther}, {"minutes", extract.DocOther},
		{"delivery note", extract.DocOther}, {"packing slip", extract.DocOther}, {"packing list", extract.DocOther}, {"dispatch note", extract.DocOther},
		{"goods received note", extract.DocOther}, {"remittance", extract.DocOther}, {"reminder", extract.DocOther}, {"overdue", extract.DocOther},
		{"order confirmation", extract.DocOther}, {"notice", extract.DocOther}, {"dunning", extract.DocOther}, {"payment advice", extract.DocOther},
		{"advice note", extract.DocOther}, {"price list", extract.DocOther}, {"acknowledgement", extract.DocOther}, {"timesheet", extract.DocOther},
		{"agenda", extract.DocOther}, {"newsletter", extract.DocOther}, {"approval", extract.DocOther}, {"approve", extract.DocOther},
		{"dispute", extract.DocOther}, {"query", extract.DocOther}, {"question", extract.DocOther}, {"payment confirmation", extract.DocOther},
		{"booking confirmation", extract.DocOther}, {"shipping confirmation", extract.DocOther}, {"dispatch confirmation", extract.DocOther}, {"order summary", extract.DocOther},
		{"order details", extract.DocOther}, {"delivery docket", extract.DocOther}, {"open invoices", extract.DocOther}, {"outstanding invoices", extract.DocOther},
		{"unpaid invoices", extract.DocOther}, {"list of invoices", extract.DocOther}, {"invoices issued", extract.DocOther}, {"invoice summary", extract.DocOther},
		{"invoice list", extract.DocOther}, {"invoice register", extract.DocOther}, {"invoice report", extract.DocOther}, {"invoice request", extract.DocOther},
		{"aged payables", extract.DocOther}, {"aged receivables", extract.DocOther},
	},
	invoiceTitles: []docKeyword{
		{"invoice", extract.DocInvoice}, {"taxinvoice", extract.DocInvoice}, {"vatinvoice", extract.DocInvoice}, {"salesinvoice", extract.DocInvoice},
	},
	markers: []docKeyword{
		{"change due", extract.DocReceipt}, {"cash tendered", extract.DocReceipt}, {"amount tendered", extract.DocReceipt}, {"tendered", extract.DocReceipt},
		{"card ending", extract.DocReceipt}, {"auth code", extract.DocReceipt}, {"approval code", extract.DocReceipt}, {"authorization code", extract.DocReceipt},
		{"paid in full", extract.DocReceipt}, {"customer copy", extract.DocReceipt}, {"merchant copy", extract.DocReceipt}, {"payment received with thanks", extract.DocReceipt},
		{"thank you for your payment", extract.DocReceipt}, {"opening balance", extract.DocStatement}, {"closing balance", extract.DocStatement}, {"balance brought forward", extract.DocStatement},
		{"balance b/f", extract.DocStatement}, {"statement period", extract.DocStatement}, {"statement date", extract.DocStatement}, {"previous balance", extract.DocStatement},
		{"account summary", extract.DocStatement}, {"quote valid", extract.DocQuote}, {"quotation valid", extract.DocQuote}, {"estimate valid", extract.DocQuote},
		{"this quote", extract.DocQuote}, {"this quotation", extract.DocQuote}, {"this estimate", extract.DocQuote}, {"offer valid", extract.DocQuote},
		{"valid until", extract.DocQuote}, {"accept this quote", extract.DocQuote}, {"amount credited", extract.DocCreditNote}, {"credited to your account", extract.DocCreditNote},
		{"credit note no", extract.DocCreditNote}, {"credit note number", extract.DocCreditNote}, {"please supply", extract.DocPurchaseOrder}, {"please deliver", extract.DocPurchaseOrder},
		{"we have paid the following", extract.DocOther}, {"have been paid", extract.DocOther},
	},
	preceding:  "original invoice|original invoice no|for invoice no|credit note for invoice|credit memo for invoice|credit for invoice|refund for invoice|credit against invoice|relating to invoice|relates to invoice|related invoice|in respect of invoice|refers to invoice|referenced invoice|reference invoice|preceding invoice|invoice corrected|corrects invoice|cancels invoice|cancellation of invoice|replaces invoice|credit for invoice|refund for invoice",
	references: "your|our|per|as per|according to|with reference to|further to|regarding|against",
	dueBy:      "due to|due by|due on|payable by|pay by|no later than|on or before|by",
	payWords:   "pay|transfer|remit|settle",
	taxTotals:  "total tax|total vat|vat total|tax total|total gst|gst total|tax amount|vat amount|gst amount",
	months: [12]string{"january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
		"august aug", "september sep sept", "october oct", "november nov", "december dec"},
}
