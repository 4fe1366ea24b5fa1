package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A 413 states the limit, so the client knows what fits: whether the body
// declared its length, streamed it, or the server runs a smaller limit.
func TestSubmit_BodyOverTheLimit_413StatesTheLimit(t *testing.T) {
	t.Parallel()
	big := `{"documentId":"inv-1","operationVersion":1,"content":"` + strings.Repeat("a", 1<<20) + `"}`

	b := setup(t, nil)
	declared := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: big})
	e := declared.requireError(t, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Equal(t, "request body too large: the limit is 1 MiB for text content; send a larger document as a file (up to 10 MiB)", e["message"])

	// A streamed body (no Content-Length) is cut at the limit with the same answer.
	req := newRequest(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: big})
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(big)), -1
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, rec.Body.String(), `"request body too large: the limit is 1 MiB for text content`)

	small := setup(t, &setupOpts{modify: func(c *Config) { c.BodyLimit = 5000 }})
	e = small.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: big}).
		requireError(t, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, e["message"], "request body too large: the limit is 5,000 bytes for text content")
}

// The finding: a limit no binary unit divides was written twice, "the
// limit is 14046552 bytes (14046552 bytes)". It is said once, exactly.
func TestSubmit_JSONFileOverTheLimit_413SaysTheLimitOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.MaxFileBytes = 10 << 20 }})
	limit := b.srv.submitBodyLimit()
	require.EqualValues(t, 14046552, limit, "10 MiB in base64 with room for the other members")
	req := newRequest(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: "{}"})
	req.ContentLength = limit + 1
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e), rec.Body.String())
	require.Equal(t, "request body too large: the limit is 14,046,552 bytes", e.Error.Message)
}

func TestTooLarge_WithoutALimit_IsStatedByTheServer(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rec := httptest.NewRecorder()
	c := b.srv.echo.NewContext(httptest.NewRequest("POST", "/v1/jobs", nil), rec)
	b.srv.handleError(tooLarge(0), c)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, rec.Body.String(), `"request body too large: the limit is 1 MiB"`)
}

func TestByteSize_UsesTheLargestUnitThatDivides(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		1 << 20: "1 MiB", 3 << 30: "3 GiB", 2048: "2 KiB", 1536: "1,536 bytes", 1: "1 byte", 10 << 20: "10 MiB",
		999: "999 bytes", 14046552: "14,046,552 bytes", 1234567890: "1,234,567,890 bytes",
	} {
		require.Equal(t, want, byteSize(n), "%d", n)
	}
}

// A documentId where a job ID belongs answers 404 saying what a job ID
// looks like, and reads exactly like a missing or another tenant's job.
func TestGetJob_DocumentIDInsteadOfJobID_404SaysWhatJobIDsLookLike(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-1", 1, "x")
	b.submit(t, tokGlobex, "inv-9", 1, "x")
	var messages []any
	for _, path := range []string{"/v1/jobs/inv-1", "/v1/jobs/acme:inv-2:v1", "/v1/jobs/globex:inv-9:v1", "/v1/reviews/inv-1"} {
		e := b.do(t, call{method: "GET", path: path, token: tokAcme}).requireError(t, http.StatusNotFound, CodeNotFound)
		require.Contains(t, e["message"], "job IDs look like tenant:documentId:vN", path)
		messages = append(messages, e["message"])
	}
	for _, m := range messages {
		require.Equal(t, messages[0], m)
	}
}

// An Authorization header without the Bearer scheme says so (the usual
// mistake: the bare token), without repeating the credential.
func TestAuth_AuthorizationWithoutTheBearerScheme_SaysTheSchemeIsMissing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, tt := range []struct {
		header string // "" sends none
		want   string
	}{
		{"", "missing bearer token: send Authorization: Bearer <token>"},
		{tokAcme, "the Authorization header's scheme is missing (a bare token?): send Authorization: Bearer <token>"},
		{"Basic " + tokAcme, "the Authorization header's scheme is not Bearer: send Authorization: Bearer <token>"},
		{"Bearer", "the Authorization header names the Bearer scheme but no token: send Authorization: Bearer <token>"},
		{"Bearer   ", "the Authorization header names the Bearer scheme but no token: send Authorization: Bearer <token>"},
	} {
		c := call{method: "GET", path: "/v1/jobs"}
		if tt.header != "" {
			c.header = map[string]string{"Authorization": tt.header}
		}
		r := b.do(t, c)
		e := r.requireError(t, http.StatusUnauthorized, CodeUnauthorized)
		require.Equal(t, tt.want, e["message"], "Authorization: %q", tt.header)
		require.NotContains(t, string(r.Body), tokAcme)
	}
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: "/v1/jobs", header: map[string]string{"Authorization": "bearer " + tokAcme}}).Status,
		"the scheme stays case-insensitive")
}
