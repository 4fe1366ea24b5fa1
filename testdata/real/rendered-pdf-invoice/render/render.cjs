// Lays out the documents of documents.json (written by scripts/inboxcorpus)
// with the npm package @h1dd3nsn1p3r/pdf-invoice (pdfmake), its layout and
// arithmetic unchanged: its labels are its `string` configuration and its
// amounts are formatted by Intl for the invoice's locale, so the
// supplier's language is given here. See ../README.md:
//
//   NODE_PATH=/path/to/node_modules node render.cjs ..
"use strict";
const fs = require("fs");
const path = require("path");
const { PDFInvoice } = require("@h1dd3nsn1p3r/pdf-invoice");

const locales = { en: "en-AU", nl: "nl-NL", es: "es-ES", de: "de-DE" };
// The package's "Subtotal" row sums the lines with their tax (it equals
// the grand total when there is no fee or discount), so it gets a word
// that does not say "net".
const subTotal = { en: "Subtotal", nl: "Subtotaal", es: "Suma", de: "Zwischensumme" };

function payload(d, file) {
  const l = d.labels;
  const s = d.seller;
  const b = d.buyer;
  return {
    company: {
      name: s.Name,
      address: `${s.Street}\n${s.Zip} ${s.City}, ${s.Country}`,
      phone: s.Phone,
      email: s.Email,
      taxId: s.VATID ? (s.VATID.startsWith("ABN") ? s.VATID : `${l.VATID} ${s.VATID}`) : undefined,
      bank: s.IBAN ? `IBAN ${s.IBAN}` : undefined,
    },
    customer: {
      name: b.Name,
      address: `${b.Street}\n${b.Zip} ${b.City}`,
      taxId: b.VATID ? `${l.VATID} ${b.VATID}` : undefined,
    },
    invoice: {
      label: d.title,
      number: d.number,
      date: d.issueDateText,
      dueDate: d.dueDateText || d.issueDateText,
      status: l.Open,
      locale: locales[d.lang],
      currency: d.currency,
      path: file,
    },
    items: d.lines.map((ln) => ({ name: ln.desc, quantity: ln.qty, price: ln.unitCents / 100, tax: Number(d.vatRate) })),
    note: { text: [d.reference, d.paymentTerms, l.Thanks].filter(Boolean).join("\n"), italic: false },
  };
}

function config(d) {
  const l = d.labels;
  return {
    string: {
      invoice: d.title, refNumber: l.Number, date: l.Date, dueDate: l.DueDate, status: l.Status, billTo: l.Customer,
      item: l.Item, quantity: l.Quantity, price: l.UnitPrice, discount: l.Discount, tax: l.VAT, total: l.Amount,
      subTotal: subTotal[d.lang], totalTax: l.VAT, totalDiscount: l.Discount, fee: "Fee", grandTotal: l.Total,
    },
  };
}

(async () => {
  const out = process.argv[2] || "..";
  const docs = JSON.parse(fs.readFileSync(path.join(__dirname, "documents.json"), "utf8"));
  for (const d of docs) {
    if (d.copyMode === "reprint") continue;
    await new PDFInvoice(payload(d, path.join(out, d.file)), config(d)).create();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
