//go:build linux

package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Documents as suppliers send them, through the real api and worker on a
// real redis-server: a hybrid PDF (Factur-X) in JSON, a UBL e-invoice as a
// multipart upload, and a corrupt PDF.

// realFile reads a test document written by others (see each folder's
// README for its source and licence).
func realFile(t *testing.T, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{".."}, path...)...))
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	return b
}

// submitFile submits data as a JSON file member and expects 202.
func (s *system) submitFile(t *testing.T, token, documentID, mediaType string, data []byte) job {
	t.Helper()
	body := map[string]any{"documentId": documentID, "operationVersion": 1,
		"file": map[string]string{"mediaType": mediaType, "data": base64.StdEncoding.EncodeToString(data)}}
	return decode[job](t, s.do(t, http.MethodPost, "/v1/jobs", token, body).expect(t, http.StatusAccepted))
}

// submitMultipart uploads data as the part "file" of a multipart form, as
// curl -F file=@invoice.xml does, and returns the status and body.
func (s *system) submitMultipart(t *testing.T, token, documentID, filename string, data []byte) (int, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("documentId", documentID)
	_ = w.WriteField("operationVersion", "1")
	p, _ := w.CreateFormFile("file", filename)
	_, _ = p.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, s.api.URL("/v1/jobs"), &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("e2e: multipart submit: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func TestE2E_HybridPDFAndXMLEInvoice_SucceedFromTheirXML_OneReviewEach(t *testing.T) {
	t.Parallel()
	s := setup(t, options{})
	pdf := realFile(t, "document", "pdf", "testdata", "mustangproject", "EN16931_Einfach.pdf")
	xml := realFile(t, "testdata", "einvoice", "en16931", "testfiles", "Invoice-Min_content_with_VAT.xml")

	pj := s.submitFile(t, tokA, "fx-1", "application/pdf", pdf)
	status, body := s.submitMultipart(t, tokA, "ubl-1", "invoice.xml", xml)
	if status != http.StatusAccepted {
		t.Fatalf("want 202 for a multipart UBL upload, got %d: %s", status, body)
	}
	for _, id := range []string{pj.JobID, "acme:ubl-1:v1"} {
		j := s.waitState(t, tokA, id, stateSucceeded)
		var res struct {
			Source   struct{ Extractor string } `json:"source"`
			Total    string                     `json:"total"`
			Evidence map[string]struct {
				Source        string   `json:"source"`
				BusinessTerms []string `json:"businessTerms"`
			} `json:"evidence"`
		}
		if err := json.Unmarshal(j.Result, &res); err != nil || res.Source.Extractor != "einvoice" || res.Total == "" {
			t.Fatalf("want %s read from its XML (source einvoice) with a total, got: %v", id, j)
		}
		if ev := res.Evidence["total"]; ev.Source != "einvoice" || len(ev.BusinessTerms) == 0 {
			t.Errorf("want the total's evidence to name its business term, got %+v", ev)
		}
		s.waitReview(t, tokA, id)
	}
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != 2 {
		t.Fatalf("want one review per document, got: %v", rs)
	}
	// The original comes back, byte for byte, to its tenant only.
	got := s.do(t, http.MethodGet, "/v1/jobs/"+pj.JobID+"/document", tokA, nil).expect(t, http.StatusOK)
	if !bytes.Equal(got.body, pdf) {
		t.Fatalf("want the submitted PDF back (%d bytes), got %d bytes", len(pdf), len(got.body))
	}
	s.do(t, http.MethodGet, "/v1/jobs/"+pj.JobID+"/document", tokB, nil).expectError(t, http.StatusNotFound, "not_found")
	page := s.do(t, http.MethodGet, "/v1/jobs/"+pj.JobID+"/document/pages/1", tokA, nil).expect(t, http.StatusOK)
	if !bytes.HasPrefix(page.body, []byte("\x89PNG")) {
		t.Fatalf("want page 1 as a PNG, got %d bytes", len(page.body))
	}
}

func TestE2E_BadFiles_RefusedOrDeadLetteredWithTheirReason(t *testing.T) {
	t.Parallel()
	s := setup(t, options{})
	pdf := realFile(t, "document", "pdf", "testdata", "mustangproject", "EN16931_Einfach.pdf")
	truncated := s.submitFile(t, tokA, "cut-1", "application/pdf", pdf[:len(pdf)/4])
	notInvoice := s.submitFile(t, tokA, "xml-1", "application/xml", []byte(`<?xml version="1.0"?><catalog><book id="1"/></catalog>`))
	for id, reason := range map[string]string{truncated.JobID: "unreadable_document", notInvoice.JobID: "not_an_invoice"} {
		j := s.waitState(t, tokA, id, stateDeadLettered)
		if j.ErrorCode != "permanent_error" || j.ErrorReason != reason {
			t.Fatalf("want %s dead-lettered permanent_error/%s, got: %v", id, reason, j)
		}
	}
	// A file lying about its type is refused at the door, naming the field.
	r := s.do(t, http.MethodPost, "/v1/jobs", tokA, map[string]any{"documentId": "lie-1", "operationVersion": 1,
		"file": map[string]string{"mediaType": "application/pdf", "data": base64.StdEncoding.EncodeToString([]byte("<Invoice/>"))}})
	r.expectError(t, http.StatusUnsupportedMediaType, "unsupported_media_type")
	if !strings.Contains(string(r.body), "file.mediaType") {
		t.Fatalf("want the 415 to name file.mediaType, got %s", r.body)
	}
}
