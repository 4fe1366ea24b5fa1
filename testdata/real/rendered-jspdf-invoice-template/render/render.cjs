// Lays out the documents of documents.json (written by scripts/inboxcorpus)
// with the npm package jspdf-invoice-template-nodejs, its layout unchanged:
// the package takes every label and value as data ("it can be used in
// different languages because all labels can be set"), so the supplier's
// language is given here. See ../README.md:
//
//   NODE_PATH=/path/to/node_modules node render.cjs ..
"use strict";
const fs = require("fs");
const path = require("path");
const template = require("jspdf-invoice-template-nodejs");

function props(d) {
  const l = d.labels;
  const s = d.seller;
  const b = d.buyer;
  const rows = [{ col1: `${l.Subtotal}:`, col2: d.subtotalText, col3: d.symbol, style: { fontSize: 10 } }];
  if (d.vatRate !== "0") rows.push({ col1: `${l.VAT} ${d.vatRate}%:`, col2: d.taxText, col3: d.symbol, style: { fontSize: 10 } });
  rows.push({ col1: `${l.Total}:`, col2: d.totalText, col3: d.symbol, style: { fontSize: 14 } });
  const desc = [d.reference, d.paymentTerms, s.IBAN ? `IBAN ${s.IBAN}` : "", s.VATID ? `${l.VATID} ${s.VATID}` : "", l.Thanks].filter(Boolean);
  return {
    outputType: "arraybuffer",
    returnJsPDFDocObject: false,
    fileName: d.file,
    compress: true,
    onJsPDFDocCreation: (doc) => {
      const created = new Date(Date.UTC(2024, 0, 1, 9, d.copyMode === "rerender" ? 72 * 60 : 0));
      doc.setCreationDate(created);
      doc.setDocumentProperties({ title: `${d.title} ${d.number}`, creator: "jspdf-invoice-template" });
    },
    business: { name: s.Name, address: `${s.Street}, ${s.Zip} ${s.City}, ${s.Country}`, phone: s.Phone, email: s.Email },
    contact: {
      label: `${l.Customer}:`,
      name: b.Name,
      address: `${b.Street}, ${b.Zip} ${b.City}`,
      phone: b.Country,
      email: b.VATID ? `${l.VATID} ${b.VATID}` : "",
    },
    invoice: {
      label: `${d.title} ${l.No} `,
      num: d.number,
      invDate: d.dueDateText ? `${l.DueDate}: ${d.dueDateText}` : "",
      invGenDate: `${l.Date}: ${d.issueDateText}`,
      headerBorder: false,
      tableBodyBorder: false,
      header: [
        { title: "#", style: { width: 10 } },
        { title: l.Description, style: { width: 80 } },
        { title: l.Quantity },
        { title: l.UnitPrice },
        { title: l.Amount },
      ],
      table: d.lines.map((ln, i) => [i + 1, ln.desc, `${ln.qtyText} ${ln.unit || ""}`.trim(), ln.unitText, ln.netText]),
      additionalRows: rows,
      invDescLabel: l.PaymentTerms.replace(/%d.*$/, "").trim() ? l.Bank : "",
      invDesc: desc.join("\n"),
    },
  };
}

const out = process.argv[2] || "..";
const docs = JSON.parse(fs.readFileSync(path.join(__dirname, "documents.json"), "utf8"));
for (const d of docs) {
  if (d.copyMode === "reprint") continue;
  const r = template.default(props(d));
  fs.writeFileSync(path.join(out, d.file), Buffer.from(r.arrayBuffer));
}
