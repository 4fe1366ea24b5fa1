// Lays out the documents of documents.json (written by scripts/inboxcorpus)
// with the npm package microinvoice (PDFKit), its layout unchanged: the
// package takes every label and value as data, so the supplier's language
// is given here. See ../README.md:
//
//   NODE_PATH=/path/to/node_modules node render.cjs ..
"use strict";
const fs = require("fs");
const path = require("path");
const MicroInvoice = require("microinvoice");

function addressLines(p) {
  return [p.Name, p.Street, `${p.Zip} ${p.City}`, p.Country].concat(p.Email ? [p.Email] : [], p.Phone ? [p.Phone] : []);
}

function options(d) {
  const l = d.labels;
  const header = [{ label: l.Number, value: d.number }, { label: l.Date, value: d.issueDateText }];
  if (d.dueDateText) header.push({ label: l.DueDate, value: d.dueDateText });
  const customer = [{ label: l.Customer, value: addressLines(d.buyer) }];
  if (d.buyer.VATID) customer.push({ label: l.VATID, value: d.buyer.VATID });
  const seller = [{ label: l.Seller, value: addressLines(d.seller) }];
  if (d.seller.VATID) seller.push({ label: d.seller.VATID.startsWith("EIN") ? "Tax ID" : l.VATID, value: d.seller.VATID.replace(/^EIN /, "") });
  if (d.seller.IBAN) seller.push({ label: l.Bank, value: `IBAN ${d.seller.IBAN}` });
  const legal = [];
  if (d.reference) legal.push({ value: d.reference, weight: "bold", color: "primary" });
  if (d.paymentTerms) legal.push({ value: d.paymentTerms, weight: "bold", color: "primary" });
  legal.push({ value: l.Thanks, color: "secondary" });
  const parts = d.lines.map((ln) => [{ value: ln.desc }, { value: ln.qtyText }, { value: ln.unitText, price: true }, { value: ln.netText, price: true }]);
  const total = [{ label: l.Subtotal, value: d.subtotalText, price: true }];
  if (d.vatRate !== "0") {
    total.push({ label: `${l.VAT} ${d.vatRate}%`, value: d.taxText, price: true });
  }
  total.push({ label: l.Total, value: d.totalText, price: true });
  return {
    data: {
      invoice: {
        name: d.title,
        header,
        currency: d.currency,
        customer,
        seller,
        legal,
        details: {
          header: [{ value: l.Description }, { value: l.Quantity }, { value: l.UnitPrice }, { value: l.Amount }],
          parts,
          total,
        },
      },
    },
  };
}

(async () => {
  const out = process.argv[2] || "..";
  const docs = JSON.parse(fs.readFileSync(path.join(__dirname, "documents.json"), "utf8"));
  for (const d of docs) {
    if (d.copyMode === "reprint") continue;
    await new MicroInvoice(options(d)).generate(path.join(out, d.file));
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
