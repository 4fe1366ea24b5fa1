// Lays out the documents of documents.json (written by scripts/inboxcorpus)
// with ad-si/invoice-maker's Typst template, unchanged, compiled by the
// typst.ts node compiler. The template's own languages (en, de, fr) are
// used as they are; Dutch and Polish are given as the template's custom
// language dictionaries (our translation, below). See ../README.md:
//
//   INVOICE_MAKER=/path/to/invoice-maker.typ NODE_PATH=/path/to/node_modules node render.cjs ..
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { NodeCompiler } = require("@myriaddreamin/typst-ts-node-compiler");

const custom = {
  nl: `(id: "nl", country: "NL", recipient: "Ontvanger", biller: "Afzender", invoice: "Factuur",
    cancellation-invoice: "Creditnota",
    cancellation-notice: (id, issuing-date) => [Zoals afgesproken ontvangt u een creditnota voor factuur *#id* van *#issuing-date*.],
    invoice-id: "Factuurnummer", issuing-date: "Factuurdatum", delivery-date: "Leverdatum", items: "Werkzaamheden",
    closing: "Bedankt voor de prettige samenwerking!", number: "Nr", date: "Datum", description: "Omschrijving",
    duration: "Duur", quantity: "Aantal", price: "Prijs", total-time: "Totale werktijd", subtotal: "Subtotaal",
    discount-of: "Korting van", vat: "Btw", no-vat: "Niet btw-plichtig", reverse-charge: "Btw verlegd", total: "Totaal",
    due-text: val => [Gelieve het bedrag uiterlijk *#val* over te maken op de volgende rekening:],
    owner: "Rekeninghouder", iban: "IBAN")`,
  pl: `(id: "pl", country: "PL", recipient: "Nabywca", biller: "Sprzedawca", invoice: "Faktura VAT",
    cancellation-invoice: "Faktura korygująca",
    cancellation-notice: (id, issuing-date) => [Zgodnie z ustaleniami przesyłamy korektę do faktury *#id* z dnia *#issuing-date*.],
    invoice-id: "Numer faktury", issuing-date: "Data wystawienia", delivery-date: "Data sprzedaży", items: "Pozycje",
    closing: "Dziękujemy za współpracę!", number: "Lp.", date: "Data", description: "Nazwa usługi",
    duration: "Czas", quantity: "Ilość", price: "Cena netto", total-time: "Łączny czas pracy", subtotal: "Razem netto",
    discount-of: "Rabat", vat: "VAT", no-vat: "Zwolnione z VAT", reverse-charge: "Odwrotne obciążenie", total: "Razem brutto",
    due-text: val => [Prosimy o przelew do dnia *#val* na rachunek:],
    owner: "Właściciel", iban: "IBAN")`,
};

const q = (s) => JSON.stringify(String(s ?? ""));

function party(p) {
  return `(name: ${q(p.Name)}, vat-id: ${q(p.VATID)}, iban: ${q(p.IBAN)},
    address: (country: ${q(p.Country)}, city: ${q(p.City)}, street: ${q(p.Street)}, postal-code: ${q(p.Zip)}))`;
}

function main(d) {
  const lang = custom[d.lang] || q(d.lang);
  const items = d.lines.map((l, i) =>
    `(number: ${i + 1}, date: ${q(d.deliveryDate)}, description: ${q(l.desc)}, quantity: ${l.qty}, price: ${(l.unitCents / 100).toString()})`);
  const ids = d.cancellation
    ? `invoice-id: ${q(d.preceding)}, cancellation-id: ${q(d.number)},`
    : `invoice-id: ${q(d.number)},`;
  return `#import "invoice-maker.typ": *
#show: invoice.with(
  language: ${lang},
  currency: ${q(d.symbol)},
  ${ids}
  issuing-date: ${q(d.issueDate)},
  delivery-date: ${q(d.deliveryDate)},
  ${d.dueDate ? `due-date: ${q(d.dueDate)},` : ""}
  biller: ${party(d.seller)},
  recipient: ${party(d.buyer)},
  items: (${items.join(", ")},),
  vat: ${Number(d.vatRate) / 100},
  hourly-rate: 0,
)
`;
}

const out = process.argv[2] || "..";
const template = process.env.INVOICE_MAKER;
if (!template) throw new Error("INVOICE_MAKER must name invoice-maker.typ");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "invoice-maker-"));
fs.copyFileSync(template, path.join(work, "invoice-maker.typ"));
const compiler = NodeCompiler.create({ workspace: work, fontArgs: [{ fontPaths: ["/usr/share/fonts/truetype"] }] });
const docs = JSON.parse(fs.readFileSync(path.join(__dirname, "documents.json"), "utf8"));
for (const d of docs) {
  if (d.copyMode === "reprint") continue;
  const main = path.join(work, d.file.replace(/\.pdf$/, ".typ"));
  fs.writeFileSync(main, mainSource(d));
  const pdf = compiler.pdf({ mainFilePath: main, creationTimestamp: d.copyMode === "rerender" ? 1704099600 + 259200 : 1704099600 });
  fs.writeFileSync(path.join(out, d.file), pdf);
}
function mainSource(d) { return main(d); }
