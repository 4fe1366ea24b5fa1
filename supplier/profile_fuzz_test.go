package supplier

import (
	"strings"
	"testing"

	"github.com/relayops/relayops/extract"
)

// FuzzProfile learns any page with any confirmed values and reads any
// other page with the profile: it never panics, everything it reads is
// in the validator's canonical form with the profile's evidence, and
// read back on the page it was learned from an anchor gives what the
// person confirmed.
func FuzzProfile(f *testing.F) {
	f.Add(holzwerk1, holzwerk2, "RE-2024-0311", "2024-01-15", "918.56", "146.66")
	f.Add(polishInvoice("FV 2024/0812", "2024-02-02", "3.112,00", "715,76", "3.827,76"), "", "FV 2024/0812", "2024-02-02", "3827.76", "715.76")
	f.Add(grossInvoice("5", "180.00", "990.00", "90.00"), "Total $1,000.00\f", "#KH1", "2024-03-01", "990.00", "0")
	f.Add("Date: 01/02/2024\tTotal: (1.234,5)-\n\f\fNr.: #A_1 x\n", "Nr.: #A_2 x\n", "A_1", "2024-02-01", "-1234.5", "")
	f.Fuzz(func(t *testing.T, learnedPage, readPage, number, date, total, tax string) {
		v := Values{InvoiceNumber: number, IssueDate: date, DueDate: date, Total: total, Tax: tax, Subtotal: total, Vendor: number, Currency: "EUR"}
		p := Learn(nil, PagesOf(learnedPage), v, LearnedFrom{Job: "j1", Kind: LearnedCorrection})
		p = Learn(p, PagesOf(readPage), v, LearnedFrom{Job: "j2", Kind: LearnedApproval})
		for _, page := range []string{learnedPage, readPage} {
			x := p.Read(PagesOf(page), "s@v2")
			checkRead(t, x)
			_, _ = extract.ValidateExtraction(Overlay(extract.Extraction{DocumentType: extract.DocInvoice}, x))
		}
		q := Learn(nil, PagesOf(learnedPage), v, LearnedFrom{Job: "j1"})
		q.Numbers = nil
		x := q.Read(PagesOf(learnedPage), "s@v1")
		for field, got := range map[string]string{fieldNumber: x.InvoiceNumber, fieldIssueDate: x.IssueDate, fieldTotal: x.Total, fieldTax: x.Tax} {
			if got != "" && !sameValue(field, got, v.value(field)) {
				t.Fatalf("%s read back %q, confirmed %q", field, got, v.value(field))
			}
		}
	})
}

func isCalendarDate(parts []string, d string) bool {
	v, ok := isoDate(parts[0], parts[1], parts[2])
	return ok && v == d
}

func checkRead(t *testing.T, x extract.Extraction) {
	t.Helper()
	for field, v := range map[string]string{fieldTotal: x.Total, fieldSubtotal: x.Subtotal, fieldTax: x.Tax} {
		if v != "" && !extract.SameDecimal(v, v) {
			t.Fatalf("%s %q is no canonical decimal", field, v)
		}
	}
	for _, d := range []string{x.IssueDate, x.DueDate} {
		if parts := strings.Split(d, "-"); d != "" && (len(parts) != 3 || !isCalendarDate(parts, d)) {
			t.Fatalf("date %q is no calendar date", d)
		}
	}
	if x.InvoiceNumber != "" && !extract.IsInvoiceNumber(x.InvoiceNumber) {
		t.Fatalf("number %q is not valid as printed", x.InvoiceNumber)
	}
	for field, e := range x.Evidence {
		if e.Source != extract.EvidenceProfile || e.Profile != "s@v2" && e.Profile != "s@v1" {
			t.Fatalf("%s: evidence %+v", field, e)
		}
	}
}
