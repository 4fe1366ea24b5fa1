// Package rules is the default extractor: deterministic rules for
// plain-text invoices, with no network and no per-vendor template. It
// implements extract.Extractor; its results are judged by
// extract.ValidateExtraction like every other extractor's.
//
// Rules reads plain-text invoices as suppliers write them, with no
// per-vendor template: a document's own evidence decides its conventions
// before any field is read. The decimal mark is the one its unambiguous
// numbers use ("1,234.56", "12,50"; a lone "1.234" follows that decision,
// else the currency: grouping for two or zero decimals, decimals for three);
// the currency is a "Currency:" label, else the one written most beside
// amounts (the total's counting most; "$" and "kr" resolved by a written
// code, country, tax or web domain), else the currency of the country the
// document names; the order of day and month in "03/04/2026" comes from
// its other dates (a day over 12), then its conventions (a US state and
// ZIP, sales tax, "$" against VAT/GST, comma decimals, dotted dates, a
// non-US currency), then how it writes dates in words. A date that stays
// ambiguous is the problem ambiguous_date, never a guess.
//
// Fields come from labels and their synonyms ("Invoice #", "Inv. No",
// "Tax point", "Balance Due", "VAT @ 20%"), wherever the layout puts the
// value: after a colon or a run of spaces, in the next cell of a two-column
// line, under the label in a header row, on the next line, in a pipe or
// semicolon-delimited row; then titles ("INVOICE No. 4471", "# Invoice
// …", an e-mail subject), running text ("The subtotal is …, plus VAT of …")
// and, for the vendor, the unlabelled block at the top or an e-mail's
// sender and signature. Line items come from tables under a header row in
// any column order, else inline and numbered items, "description  amount"
// lines above the totals, or a sentence enumerating them ("This covers 9 x
// berth fee at 45.63 each (410.67) and …"). A source that may misread is
// read whole or not at all: a wrong line rejects a good invoice, a missing
// line costs only the line count.
//
// A document is classified before extraction: its first title (receipt,
// purchase order, quote or estimate, statement, credit note, corrective
// invoice, memo, reminder …) decides, and strong markers ("Change due",
// "AUTH CODE", "PAID", opening and closing balances, a credit) overrule an
// invoice title; a line of a postal address, a mention of another document
// ("Ihre Bestellung vom …") or a bulleted line is no title; a document
// without a title is an invoice only with an invoice number label and a
// total. Invoices, credit notes and corrective invoices are read alike,
// their amounts as printed; the invoice a credit refers to ("zur Rechnung
// Nr. …") is its precedingInvoice, never its own number. Anything else is
// rejected not_an_invoice, not guessed.
//
// A value is committed only from where the page states it: a subtotal or
// tax from a row labelled as that amount (else left for the validator to
// derive, marked computed), a date from its label or a sentence that says
// what it is, a vendor from a label or the issuer's own block, never the
// recipient's. What the rules cannot read safely they leave empty, and the
// document is rejected for a person to finish.
package rules
