package api

import (
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
	require.Contains(t, e["message"], "request body too large: the limit is 1048576 bytes (1 MiB)")

	// A streamed body (no Content-Length) is cut at the limit with the same answer.
	req := newRequest(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: big})
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(big)), -1
	rec := httptest.NewRecorder()
	b.srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, rec.Body.String(), "the limit is 1048576 bytes (1 MiB)")

	small := setup(t, &setupOpts{modify: func(c *Config) { c.BodyLimit = 5000 }})
	e = small.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: big}).
		requireError(t, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, e["message"], "request body too large: the limit is 5000 bytes (5000 bytes)")
}

func TestTooLarge_WithoutALimit_IsStatedByTheServer(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rec := httptest.NewRecorder()
	c := b.srv.echo.NewContext(httptest.NewRequest("POST", "/v1/jobs", nil), rec)
	b.srv.handleError(tooLarge(0), c)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, rec.Body.String(), "the limit is 1048576 bytes (1 MiB)")
}

func TestByteSize_UsesTheLargestUnitThatDivides(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		1 << 20: "1 MiB", 3 << 30: "3 GiB", 2048: "2 KiB", 1536: "1536 bytes", 1: "1 bytes", 10 << 20: "10 MiB",
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
