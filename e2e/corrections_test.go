//go:build linux

package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/relayops/relayops/internal/proctest"
)

// Through the real api and worker processes: a rejected invoice keeps what
// was read; an operator corrects the total (a wrong correction is refused
// with nothing created), the corrected version runs the worker's pipeline
// on the same document and is reviewed; an approval corrects a date; the
// audit has each field; no process logs the document.
func TestE2E_RejectedInvoice_CorrectedFieldsReprocessedReviewedAndAudited(t *testing.T) {
	t.Parallel()
	s := setup(t, options{})
	old := s.submitNew(t, tokA, "inv-77", sample(t, "invalid-total-mismatch.txt")).JobID
	dead := s.waitState(t, tokA, old, stateDeadLettered)
	if dead.ErrorReason != "total_mismatch" {
		t.Fatalf("want errorReason total_mismatch, got: %v", dead)
	}

	var kept struct {
		Extraction struct {
			Fields struct {
				InvoiceNumber string `json:"invoiceNumber"`
				Total         string `json:"total"`
			} `json:"fields"`
			Failed []struct{ Field, Check string } `json:"failed"`
		} `json:"extraction"`
	}
	got := s.do(t, http.MethodGet, "/v1/jobs/"+old, tokA, nil).expect(t, http.StatusOK)
	if err := json.Unmarshal(got.body, &kept); err != nil || kept.Extraction.Fields.Total != "420.00" ||
		kept.Extraction.Fields.InvoiceNumber != "INV-2024-0077" || len(kept.Extraction.Failed) == 0 {
		t.Fatalf("want the tenant to read what was read (total 420.00, INV-2024-0077, the failing checks), got: %s", got)
	}
	s.do(t, http.MethodGet, "/v1/jobs/"+old, tokB, nil).expectError(t, http.StatusNotFound, "not_found")
	requireNoContent(t, s.do(t, http.MethodGet, "/v1/dlq", tokC, nil).expect(t, http.StatusOK), "Fabrikam")

	path := "/v1/jobs/" + old + "/reprocess"
	wrong := map[string]any{"reason": "total from the PDF", "corrections": map[string]string{"total": "400.00"}}
	bad := s.do(t, http.MethodPost, path, tokC, wrong)
	bad.expectError(t, http.StatusBadRequest, "invalid_request")
	if !strings.Contains(bad.String(), "corrections.total") || !strings.Contains(bad.String(), "total_mismatch") {
		t.Fatalf("want the refusal to name corrections.total and total_mismatch, got: %s", bad)
	}
	if o := s.job(t, tokC, old); o.ReprocessedAs != "" {
		t.Fatalf("want nothing created by a refused correction, got: %v", o)
	}

	right := map[string]any{"reason": "total from the PDF", "corrections": map[string]string{"total": "407.50"}}
	v2 := decode[job](t, s.do(t, http.MethodPost, path, tokC, right).expect(t, http.StatusCreated))
	done := s.waitState(t, tokA, v2.JobID, stateSucceeded)
	var res struct {
		Total    string                    `json:"total"`
		Evidence map[string]map[string]any `json:"evidence"`
	}
	if err := json.Unmarshal(done.Result, &res); err != nil || res.Total != "407.50" || res.Evidence["total"]["source"] != "correction" {
		t.Fatalf("want the worker's result to hold the corrected total with its evidence, got: %v", done)
	}
	if r := decode[job](t, s.do(t, http.MethodPost, path, tokC, right).expect(t, http.StatusOK)); r.JobID != v2.JobID {
		t.Fatalf("want the same corrections again to answer %s, got: %v", v2.JobID, r)
	}
	other := map[string]any{"reason": "x", "corrections": map[string]string{"total": "407.50", "dueDate": "2024-07-12"}}
	s.do(t, http.MethodPost, path, tokC, other).expectError(t, http.StatusConflict, "idempotency_conflict")

	s.waitReview(t, tokA, v2.JobID)
	approve := map[string]any{"decision": "approve", "note": "date from the PDF", "corrections": map[string]string{"issueDate": "2024-06-13"}}
	decided := s.do(t, http.MethodPost, "/v1/reviews/"+v2.JobID+"/decision", tokC, approve).expect(t, http.StatusOK)
	if !strings.Contains(decided.String(), `"correctedFields":["issueDate"]`) || !strings.Contains(decided.String(), "2024-06-13") {
		t.Fatalf("want the decided review to hold the corrected date, got: %s", decided)
	}
	if j := s.job(t, tokA, v2.JobID); !strings.Contains(string(j.Result), `"issueDate":"2024-06-12"`) {
		t.Fatalf("want the job's own result to stay as extracted, got: %v", j)
	}

	var trail struct {
		Items []struct {
			Action      string                             `json:"action"`
			Corrections []struct{ Field, Old, New string } `json:"corrections"`
		} `json:"items"`
	}
	a := s.do(t, http.MethodGet, "/v1/audit?operator="+operator, tokC, nil).expect(t, http.StatusOK)
	if err := json.Unmarshal(a.body, &trail); err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, e := range trail.Items {
		for _, c := range e.Corrections {
			changed = append(changed, e.Action+":"+c.Field+":"+c.Old+">"+c.New)
		}
	}
	for _, want := range []string{"reprocessed:total:420.00>407.50", "review_decided:issueDate:2024-06-12>2024-06-13"} {
		if !slices.Contains(changed, want) {
			t.Errorf("want the audit to record %s, got %v", want, changed)
		}
	}
	for _, p := range append([]*proctest.Process{s.api}, s.workers...) {
		if strings.Contains(p.Logs(), "Fabrikam") {
			t.Errorf("want no process to log the document's text; one did:\n%s", p.Tail(40))
		}
	}
}
