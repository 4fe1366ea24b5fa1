package worker

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/supplier"
)

// withSeller adds to a judged result the issuer's identifiers its pages
// print (package supplier), unless the result states its own (an
// e-invoice's XML): they identify the supplier for the duplicate check and
// its profile. A result that is no booked document is left as it is.
func withSeller(doc *document.Document, result []byte) ([]byte, error) {
	var inv extract.Invoice
	if err := json.Unmarshal(result, &inv); err != nil || !extract.IsBooked(inv.DocumentType) || len(inv.Seller) > 0 {
		return result, nil
	}
	ids := identify(doc, inv.Vendor, inv.Evidence["vendor"])
	if len(ids) == 0 {
		return result, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil {
		return nil, errBadOutput
	}
	m["seller"], _ = json.Marshal(ids)
	return json.Marshal(m)
}

// keepSeller adds the issuer's identifiers to what a rejection keeps, so
// the version a person corrects from it identifies its supplier too.
func keepSeller(err error, doc *document.Document) error {
	var r *extract.Rejection
	if !errors.As(err, &r) || r.Extraction == nil || len(r.Extraction.Seller) > 0 {
		return err
	}
	x := *r.Extraction
	x.Seller = identify(doc, x.Vendor, x.Evidence["vendor"])
	r.Extraction = &x
	return err
}

// identify reads the issuer's identifiers from the document's pages; the
// vendor's evidence (page, and line in the whole text) tells its column.
func identify(doc *document.Document, vendor string, ev extract.Evidence) []extract.PartyID {
	if len(doc.Pages) == 0 {
		return nil
	}
	pages := make([]supplier.Page, len(doc.Pages))
	line := 0
	v := supplier.Vendor{Name: vendor}
	for i, p := range doc.Pages {
		pages[i] = p.Text
		if ev.Page == i+1 && ev.Line > line {
			v.Page, v.Line = ev.Page, ev.Line-line
		}
		line += strings.Count(p.Text, "\n")
		if !strings.HasSuffix(p.Text, "\n") {
			line++
		}
	}
	return supplier.Identify(pages, v)
}

// commitOpts are what a commit of result carries beside it: for a booked
// document its duplicate fingerprint and its type; nothing for any other.
func commitOpts(tenant string, result []byte) *jobs.CommitOpts {
	var inv extract.Invoice
	if err := json.Unmarshal(result, &inv); err != nil || !extract.IsBooked(inv.DocumentType) || inv.InvoiceNumber == "" {
		return nil
	}
	o := &jobs.CommitOpts{DocumentType: inv.DocumentType}
	if fp := supplier.FingerprintOf(tenant, &inv); len(fp.Keys) > 0 {
		o.Fingerprint = fp.Encode()
	}
	return o
}
