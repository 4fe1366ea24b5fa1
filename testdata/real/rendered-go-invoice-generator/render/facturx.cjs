// Makes the "facturx" and "cii" copies of documents.json: the first copy's
// PDF (rendered by main.go) made a Factur-X EN 16931 hybrid, and its CII
// XML alone, both by the npm package @e-invoice-eu/core from the same
// invoice data in that package's internal (UBL-shaped) format. Run after
// main.go, from this folder (see ../README.md):
//
//   NODE_PATH=/path/to/node_modules node facturx.cjs ..
"use strict";
const fs = require("fs");
const path = require("path");
const { InvoiceService } = require("@e-invoice-eu/core");

const amount = (cents) => (cents / 100).toFixed(2);

function party(p, country) {
  const out = {
    "cac:PartyName": { "cbc:Name": p.Name },
    "cac:PostalAddress": {
      "cbc:StreetName": p.Street,
      "cbc:CityName": p.City,
      "cbc:PostalZone": p.Zip,
      "cac:Country": { "cbc:IdentificationCode": country },
    },
    "cac:PartyLegalEntity": { "cbc:RegistrationName": p.Name },
  };
  if (p.VATID) {
    out["cac:PartyTaxScheme"] = [{ "cbc:CompanyID": p.VATID, "cac:TaxScheme": { "cbc:ID": "VAT" } }];
  }
  return out;
}

function invoice(d) {
  const cur = d.currency;
  const money = (cents) => ({ v: amount(cents), c: cur });
  const withCur = (obj) => {
    // the internal format writes an amount's currency as "<field>@currencyID"
    const out = {};
    for (const [k, v] of Object.entries(obj)) {
      if (v && typeof v === "object" && "v" in v) {
        out[k] = v.v;
        out[`${k}@currencyID`] = v.c;
      } else {
        out[k] = v;
      }
    }
    return out;
  };
  const tax = { "cbc:ID": "S", "cbc:Percent": d.vatRate, "cac:TaxScheme": { "cbc:ID": "VAT" } };
  return {
    "ubl:Invoice": {
      "cbc:ID": d.number,
      "cbc:IssueDate": d.issueDate,
      ...(d.dueDate ? { "cbc:DueDate": d.dueDate } : {}),
      "cbc:InvoiceTypeCode": d.kind === "creditNote" ? "381" : "380",
      "cbc:DocumentCurrencyCode": cur,
      "cbc:BuyerReference": d.buyer.Name,
      "cac:AccountingSupplierParty": { "cac:Party": party(d.seller, d.country) },
      "cac:AccountingCustomerParty": { "cac:Party": party(d.buyer, d.country) },
      "cac:PaymentMeans": [
        {
          "cbc:PaymentMeansCode": "58",
          "cac:PayeeFinancialAccount": { "cbc:ID": d.seller.IBAN, "cbc:Name": d.seller.Name },
        },
      ],
      "cac:TaxTotal": [
        {
          ...withCur({ "cbc:TaxAmount": money(d.taxCents) }),
          "cac:TaxSubtotal": [
            {
              ...withCur({ "cbc:TaxableAmount": money(d.subtotalCents), "cbc:TaxAmount": money(d.taxCents) }),
              "cac:TaxCategory": tax,
            },
          ],
        },
      ],
      "cac:LegalMonetaryTotal": withCur({
        "cbc:LineExtensionAmount": money(d.subtotalCents),
        "cbc:TaxExclusiveAmount": money(d.subtotalCents),
        "cbc:TaxInclusiveAmount": money(d.totalCents),
        "cbc:PayableAmount": money(d.totalCents),
      }),
      "cac:InvoiceLine": d.lines.map((l, i) => ({
        "cbc:ID": String(i + 1),
        "cbc:InvoicedQuantity": String(l.qty),
        "cbc:InvoicedQuantity@unitCode": "C62",
        ...withCur({ "cbc:LineExtensionAmount": money(l.netCents) }),
        "cac:Item": { "cbc:Name": l.desc, "cac:ClassifiedTaxCategory": tax },
        "cac:Price": withCur({ "cbc:PriceAmount": money(l.unitCents) }),
      })),
    },
  };
}

(async () => {
  const out = process.argv[2] || "..";
  const docs = JSON.parse(fs.readFileSync(path.join(__dirname, "documents.json"), "utf8"));
  const service = new InvoiceService(console);
  for (const d of docs) {
    if (d.copyMode !== "facturx" && d.copyMode !== "cii") continue;
    const first = path.join(out, d.copyOf);
    const options = {
      format: d.copyMode === "facturx" ? "Factur-X-EN16931" : "CII",
      lang: d.lang,
      pdf: { buffer: fs.readFileSync(first), filename: d.copyOf, mimetype: "application/pdf" },
    };
    const rendered = await service.generate(invoice(d), options);
    fs.writeFileSync(path.join(out, d.file), rendered);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
