//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/redistest"
)

// nordwind is an invoice of one supplier's layout whose number stands
// right of "Vorgang:", a label the rules do not take for an invoice
// number: alone they reject it missing_field:invoiceNumber.
func nordwind(number, date, net, tax, total string) string {
	return fmt.Sprintf(`Nordwind Atelier GmbH
Hafenweg 4, 20457 Hamburg

RECHNUNG

Vorgang: %s                              Datum: %s

An: Möbelhaus Reinhardt GmbH, Kassel

Leistung                                         Betrag
Gestaltung Katalog                               %s

                           Netto                 %s
                           USt 19 %%              %s
                           Endsumme              %s EUR
`, number, date, net, net, tax, total)
}

type supplierList struct {
	Items []struct {
		SupplierID string   `json:"supplierId"`
		Version    int      `json:"version"`
		Fields     []string `json:"fields"`
		Reads      int      `json:"reads"`
		Misses     int      `json:"misses"`
	} `json:"items"`
}

// Through the real api and worker processes: the first invoice of a
// supplier is rejected, a clerk corrects its number, and the correction
// teaches the supplier's profile; the supplier's next invoice, in the same
// layout, then succeeds untouched, its number read by the profile (with
// evidence naming the profile and the correction's job). The profile is
// the tenant's own: another tenant's same document is still rejected.
// Deleted by an operator, it is forgotten: the next document is rejected
// again.
func TestE2E_SecondInvoiceOfASupplier_SucceedsBecauseOfTheFirstsCorrection(t *testing.T) {
	t.Parallel()
	s := setup(t, options{})
	first := s.submitNew(t, tokA, "nw-1", nordwind("NW-25-0042", "03.02.2025", "1.200,00", "228,00", "1.428,00")).JobID
	if dead := s.waitState(t, tokA, first, stateDeadLettered); dead.ErrorReason != "missing_field:invoiceNumber" {
		t.Fatalf("want the rules alone to reject the layout missing_field:invoiceNumber, got: %v", dead)
	}
	fix := map[string]any{"reason": "number from the PDF", "corrections": map[string]string{"invoiceNumber": "NW-25-0042"}}
	v2 := decode[job](t, s.do(t, http.MethodPost, "/v1/jobs/"+first+"/reprocess", tokC, fix).expect(t, http.StatusCreated))
	s.waitState(t, tokA, v2.JobID, stateSucceeded)

	second := s.submitNew(t, tokA, "nw-2", nordwind("NW-25-0057", "04.03.2025", "2.000,00", "380,00", "2.380,00")).JobID
	done := s.waitState(t, tokA, second, stateSucceeded)
	var res struct {
		InvoiceNumber string                    `json:"invoiceNumber"`
		Total         string                    `json:"total"`
		Evidence      map[string]map[string]any `json:"evidence"`
	}
	if err := json.Unmarshal(done.Result, &res); err != nil || res.InvoiceNumber != "NW-25-0057" || res.Total != "2380.00" {
		t.Fatalf("want the second invoice committed with its own number and total, got: %v", done)
	}
	ev := res.Evidence["invoiceNumber"]
	if ev["source"] != "profile" || ev["learned"] != v2.JobID || ev["profile"] == "" {
		t.Fatalf("want the number's evidence to name the profile and the correction's job %s, got: %v", v2.JobID, ev)
	}

	var list supplierList
	redistest.Eventually(t, 30*time.Second, func() bool { // the read is counted after the commit
		list = decode[supplierList](t, s.do(t, http.MethodGet, "/v1/suppliers", tokA, nil).expect(t, http.StatusOK))
		return len(list.Items) == 1 && list.Items[0].Reads == 1
	}, "one profile of acme, read once")
	if p := list.Items[0]; p.Version < 1 || p.Misses != 0 || len(p.Fields) == 0 {
		t.Fatalf("want a learned profile read once without a miss, got: %+v", p)
	}
	if other := decode[supplierList](t, s.do(t, http.MethodGet, "/v1/suppliers", tokB, nil).expect(t, http.StatusOK)); len(other.Items) != 0 {
		t.Fatalf("want no profile of another tenant's, got: %+v", other)
	}
	g := s.submitNew(t, tokB, "nw-2", nordwind("NW-25-0057", "04.03.2025", "2.000,00", "380,00", "2.380,00")).JobID
	s.waitState(t, tokB, g, stateDeadLettered)

	path := "/v1/suppliers/" + url.PathEscape(list.Items[0].SupplierID)
	s.do(t, http.MethodDelete, path, tokA, nil).expectError(t, http.StatusForbidden, "forbidden")
	s.do(t, http.MethodDelete, path, tokC, nil).expect(t, http.StatusNoContent)
	s.do(t, http.MethodGet, path, tokA, nil).expectError(t, http.StatusNotFound, "not_found")
	third := s.submitNew(t, tokA, "nw-3", nordwind("NW-25-0060", "01.04.2025", "100,00", "19,00", "119,00")).JobID
	s.waitState(t, tokA, third, stateDeadLettered)
}
