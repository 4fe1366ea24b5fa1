//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/relayops/relayops/internal/redistest"
)

// The JSON the api answers, as far as the tests read it.
type (
	job struct {
		JobID            string          `json:"jobId"`
		Tenant           string          `json:"tenant"`
		DocumentID       string          `json:"documentId"`
		OperationVersion int             `json:"operationVersion"`
		State            string          `json:"state"`
		Attempt          int             `json:"attempt"`
		DeadlineAt       string          `json:"deadlineAt"`
		ErrorCode        string          `json:"errorCode"`
		ErrorReason      string          `json:"errorReason"`
		Result           json.RawMessage `json:"result"`
		ReprocessedFrom  string          `json:"reprocessedFrom"`
		ReprocessedAs    string          `json:"reprocessedAs"`
		Deduped          *bool           `json:"deduped"`
		Links            struct {
			Self   string `json:"self"`
			Review string `json:"review"`
		} `json:"links"`

		answer string // the whole answer it was decoded from, for failure messages
	}
	review struct {
		JobID     string `json:"jobId"`
		Tenant    string `json:"tenant"`
		Status    string `json:"status"`
		EventID   string `json:"eventId"`
		Operator  string `json:"operator"`
		Note      string `json:"note"`
		DecidedAt string `json:"decidedAt"`
		Duplicate *struct {
			Of       string   `json:"of"`
			Strength string   `json:"strength"`
			Matched  []string `json:"matched"`
		} `json:"duplicate"`
		Credits string `json:"credits"`

		answer string
	}
	auditEntry struct {
		Action         string `json:"action"`
		Tenant         string `json:"tenant"`
		JobID          string `json:"jobId"`
		NewJobID       string `json:"newJobId"`
		Operator       string `json:"operator"`
		Reason         string `json:"reason"`
		OldPayloadHash string `json:"oldPayloadHash"`
		NewPayloadHash string `json:"newPayloadHash"`
	}
	list[T any] struct {
		Items      []T     `json:"items"`
		NextCursor *string `json:"nextCursor"`
	}
	apiError struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
)

// answered is a value decoded from a response, which it prints as in
// failure messages.
type answered interface{ setAnswer(string) }

func (j *job) setAnswer(a string)    { j.answer = a }
func (r *review) setAnswer(a string) { r.answer = a }

// String prints the answer j came from, or its fields when it came from a
// list.
func (j job) String() string {
	if j.answer != "" {
		return j.answer
	}
	type fields job
	return fmt.Sprintf("%+v", fields(j))
}

func (r review) String() string {
	if r.answer != "" {
		return r.answer
	}
	type fields review
	return fmt.Sprintf("%+v", fields(r))
}

// Terminal job states.
const (
	stateSucceeded    = "succeeded"
	stateDeadLettered = "dead_lettered"
	stateCancelled    = "cancelled"
)

func terminal(state string) bool {
	return state == stateSucceeded || state == stateDeadLettered || state == stateCancelled
}

// response is one answer of the api, printable in failure messages.
type response struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
}

func (r *response) String() string {
	return fmt.Sprintf("%s %s answered %d: %s", r.method, r.path, r.status, truncate(string(r.body), 2000))
}

// expect fails t unless r has status want.
func (r *response) expect(t *testing.T, want int) *response {
	t.Helper()
	if r.status != want {
		t.Fatalf("want status %d, got: %s", want, r)
	}
	return r
}

// expectError fails t unless r is an error answer with status and code.
func (r *response) expectError(t *testing.T, status int, code string) {
	t.Helper()
	var e apiError
	if r.status != status || json.Unmarshal(r.body, &e) != nil || e.Error.Code != code {
		t.Fatalf("want status %d with error code %q, got: %s", status, code, r)
	}
}

// decode unmarshals r's body, failing t when it is not a T.
func decode[T any](t *testing.T, r *response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %T: %v; got: %s", v, err, r)
	}
	if a, ok := any(&v).(answered); ok {
		a.setAnswer(r.String())
	}
	return v
}

// do sends one request to the api and checks the answer against the served
// OpenAPI document. body is sent as JSON unless it is a string (sent as
// is); nil sends none.
func (s *system) do(t *testing.T, method, path, token string, body any) *response {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatalf("e2e: encode %s %s body: %v", method, path, err)
		}
	}
	req, err := http.NewRequest(method, s.api.URL(path), bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("e2e: %s %s: %v", method, path, err)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("e2e: %s %s: no answer: %v", method, path, err)
	}
	defer resp.Body.Close()
	r := &response{method: method, path: path, status: resp.StatusCode, header: resp.Header}
	if r.body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatalf("e2e: %s %s: read body: %v", method, path, err)
	}
	s.spec.check(t, req, raw, r)
	return r
}

// submitRequest is the body of POST /v1/jobs.
type submitRequest struct {
	DocumentID       string `json:"documentId"`
	OperationVersion int    `json:"operationVersion"`
	Content          string `json:"content"`
	DeadlineSeconds  int    `json:"deadlineSeconds,omitempty"`
}

func (s *system) submit(t *testing.T, token string, req submitRequest) *response {
	t.Helper()
	return s.do(t, http.MethodPost, "/v1/jobs", token, req)
}

// submitNew submits version 1 of documentID and expects 202.
func (s *system) submitNew(t *testing.T, token, documentID, content string) job {
	t.Helper()
	r := s.submit(t, token, submitRequest{DocumentID: documentID, OperationVersion: 1, Content: content}).expect(t, http.StatusAccepted)
	return decode[job](t, r)
}

// reprocessRequest is the body of POST /v1/jobs/{jobId}/reprocess.
type reprocessRequest struct {
	Reason  string  `json:"reason"`
	Content *string `json:"content,omitempty"`
}

func (s *system) reprocess(t *testing.T, jobID string, req reprocessRequest) *response {
	t.Helper()
	return s.do(t, http.MethodPost, "/v1/jobs/"+jobID+"/reprocess", tokC, req)
}

func (s *system) job(t *testing.T, token, jobID string) job {
	t.Helper()
	return decode[job](t, s.do(t, http.MethodGet, "/v1/jobs/"+jobID, token, nil).expect(t, http.StatusOK))
}

// waitFinished polls GET /v1/jobs/{jobId} until the job is in a terminal
// state and returns it.
func (s *system) waitFinished(t *testing.T, token, jobID string) job {
	t.Helper()
	var last *response
	defer func() { // runs when Eventually gives up, too
		if t.Failed() && last != nil {
			t.Logf("last answer: %s", last)
		}
	}()
	var j job
	redistest.Eventually(t, jobTimeout, func() bool {
		last = s.do(t, http.MethodGet, "/v1/jobs/"+jobID, token, nil).expect(t, http.StatusOK)
		j = decode[job](t, last)
		return terminal(j.State)
	}, "job %s to reach a terminal state", jobID)
	return j
}

// waitState waits for jobID to finish and fails t unless it ended in want.
func (s *system) waitState(t *testing.T, token, jobID, want string) job {
	t.Helper()
	j := s.waitFinished(t, token, jobID)
	if j.State != want {
		t.Fatalf("job %s: want state %s, got: %v", jobID, want, j)
	}
	return j
}

// waitReview polls GET /v1/reviews/{jobId} until the review exists: the
// review consumer creates it after the commit.
func (s *system) waitReview(t *testing.T, token, jobID string) review {
	t.Helper()
	return s.waitReviewWithin(t, token, jobID, jobTimeout)
}

// waitReviewWithin is waitReview with its own timeout.
func (s *system) waitReviewWithin(t *testing.T, token, jobID string, timeout time.Duration) review {
	t.Helper()
	var last *response
	defer func() {
		if t.Failed() && last != nil {
			t.Logf("last answer: %s", last)
		}
	}()
	redistest.Eventually(t, timeout, func() bool {
		last = s.do(t, http.MethodGet, "/v1/reviews/"+jobID, token, nil)
		return last.status == http.StatusOK
	}, "review of %s to be created", jobID)
	return decode[review](t, last)
}

// items GETs one page (limit 500) of a list and expects 200 and no further
// page: every test's lists are small.
func items[T any](t *testing.T, s *system, token, path string) []T {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	r := s.do(t, http.MethodGet, path+sep+"limit=500", token, nil).expect(t, http.StatusOK)
	l := decode[list[T]](t, r)
	if l.NextCursor != nil {
		t.Fatalf("want a single page, got a nextCursor: %s", r)
	}
	return l.Items
}

func jobIDs(jobs []job) []string {
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		ids = append(ids, j.JobID)
	}
	return ids
}

// sample reads one of testdata/invoices.
func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "invoices", name))
	if err != nil {
		t.Fatalf("e2e: sample: %v", err)
	}
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// spec is the OpenAPI document the api serves; every answer a test
// receives is checked against it.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

// loadSpec fetches and validates the api's /openapi.json.
func loadSpec(t *testing.T, client *http.Client, url string) *spec {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("e2e: GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("e2e: GET %s: want 200, got %d (%v): %s", url, resp.StatusCode, err, truncate(string(raw), 500))
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		t.Fatalf("e2e: the served /openapi.json is not a valid OpenAPI document: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("e2e: route /openapi.json: %v", err)
	}
	return &spec{doc: doc, router: router}
}

// check fails t (without stopping it) when the answer r to req is not one
// the document allows.
func (s *spec) check(t *testing.T, req *http.Request, reqBody []byte, r *response) {
	t.Helper()
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		t.Errorf("openapi: %s %s is not in the served document: %v", req.Method, req.URL.Path, err)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Body:                   io.NopCloser(bytes.NewReader(r.body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("openapi: the document does not allow this answer: %v\n%s", err, r)
	}
}

// parseTime parses an API timestamp.
func parseTime(t *testing.T, what, v string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t.Fatalf("%s: want an RFC 3339 time, got %q", what, v)
	}
	return ts
}
