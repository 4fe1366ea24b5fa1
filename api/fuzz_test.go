package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relayops/relayops/jobs"
)

// FuzzSubmit feeds arbitrary bodies and content types to POST /v1/jobs: the
// server must never panic nor answer 5xx, every refusal must be a 4xx with
// the error body, and whatever the decoder accepts must satisfy the key rules.
func FuzzSubmit(f *testing.F) {
	for _, tt := range badInputs() {
		if tt.c.method == "POST" && tt.c.path == "/v1/jobs" && len(tt.c.body) < 4096 {
			f.Add([]byte(tt.c.body), tt.c.ctype)
		}
	}
	f.Add([]byte(`{"documentId":"inv-1","operationVersion":1,"content":"x"}`), "application/json")
	f.Add([]byte(`{"documentId":"inv-1","operationVersion":2147483647,"content":"x","deadlineSeconds":1}`), "application/json; charset=UTF-8")
	f.Add([]byte(`{"documentId":"a","operationVersion":1,"content":"\ud800"}`), "")
	b := setup(f, nil)
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		checkDecoder(t, body)
		req := httptest.NewRequest("POST", "/v1/jobs", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+tokAcme)
		if ctype == "" {
			ctype = "application/json"
		}
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		b.srv.Handler().ServeHTTP(rec, req)
		switch {
		case rec.Code >= 500:
			t.Fatalf("answered %d to %q (%s): %s", rec.Code, body, ctype, rec.Body)
		case rec.Code >= 400:
			var e errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.RequestID == "" {
				t.Fatalf("answered %d without an error body: %s", rec.Code, rec.Body)
			}
		case rec.Code != http.StatusAccepted && rec.Code != http.StatusOK:
			t.Fatalf("answered %d", rec.Code)
		}
	})
}

// checkDecoder runs the decoder and validator alone: an accepted body must
// yield a valid key and non-empty content; a refused one an invalid_request
// naming at least one field.
func checkDecoder(t *testing.T, body []byte) {
	s := &Server{cfg: Config{Limits: jobs.DefaultLimits, BodyLimit: defaultBodyLimit, MaxFileBytes: defaultMaxFileBytes, MaxPages: defaultMaxPages}}
	o, err := parseObject(body)
	var req jobs.SubmitRequest
	if err == nil {
		req, err = s.submitRequest(t.Context(), o, nil, "acme", "")
	}
	if err != nil {
		var e *Error
		var ve *jobs.ValidationError
		switch {
		case errors.As(err, &e) && e.Code == CodeInvalidRequest && len(e.Fields) > 0:
		case errors.As(err, &ve) && len(ve.Fields) > 0:
		default:
			t.Fatalf("decoder refused %q with %v", body, err)
		}
		return
	}
	if !req.Key.Valid() || req.Content == "" || req.Limits.Deadline <= 0 {
		t.Fatalf("decoder accepted %q as %+v", body, req)
	}
}
