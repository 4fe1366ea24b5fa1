package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// badInput is one malformed request and the exact answer it must get.
type badInput struct {
	name   string
	c      call
	status int
	code   string
	fields []string // invalid_request: the fields named, in order (nil: not checked)
}

func submitBody(body string) call {
	return call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body}
}

// badInputs is the catalogue: every entry must be refused without writing a
// single Redis key, and never with a 5xx.
func badInputs() []badInput {
	valid := func(override string) string {
		return `{"documentId":"inv-1","operationVersion":1,"content":"x"` + override + `}`
	}
	version := func(v string) string { return `{"documentId":"inv-1","operationVersion":` + v + `,"content":"x"}` }
	doc := func(d string) string { return `{"documentId":` + d + `,"operationVersion":1,"content":"x"}` }
	ov := []string{"operationVersion"}
	di := []string{"documentId"}
	body := []string{"body"}
	return []badInput{
		// Wrong types and values of operationVersion.
		{"version as string", submitBody(version(`"1"`)), 400, CodeInvalidRequest, ov},
		{"version zero", submitBody(version(`0`)), 400, CodeInvalidRequest, ov},
		{"version negative", submitBody(version(`-1`)), 400, CodeInvalidRequest, ov},
		{"version fractional", submitBody(version(`1.5`)), 400, CodeInvalidRequest, ov},
		{"version 1.0", submitBody(version(`1.0`)), 400, CodeInvalidRequest, ov},
		{"version exponent", submitBody(version(`1e3`)), 400, CodeInvalidRequest, ov},
		{"version 2^31", submitBody(version(`2147483648`)), 400, CodeInvalidRequest, ov},
		{"version huge", submitBody(version(`123456789012345678901234567890`)), 400, CodeInvalidRequest, ov},
		{"version -0", submitBody(version(`-0`)), 400, CodeInvalidRequest, ov},
		{"version bool", submitBody(version(`true`)), 400, CodeInvalidRequest, ov},
		{"version null", submitBody(version(`null`)), 400, CodeInvalidRequest, ov},
		{"version object", submitBody(version(`{"v":1}`)), 400, CodeInvalidRequest, ov},
		// documentId: unicode, control and invisible characters, separators.
		{"documentId unicode", submitBody(doc(`"rechnung-ä"`)), 400, CodeInvalidRequest, di},
		{"documentId NUL", submitBody(doc(`"inv\u0000"`)), 400, CodeInvalidRequest, di},
		{"documentId newline", submitBody(doc(`"inv\n1"`)), 400, CodeInvalidRequest, di},
		{"documentId zero-width space", submitBody(doc(`"inv\u200b1"`)), 400, CodeInvalidRequest, di},
		{"documentId RTL override", submitBody(doc(`"inv\u202e1"`)), 400, CodeInvalidRequest, di},
		{"documentId colon", submitBody(doc(`"acme:inv"`)), 400, CodeInvalidRequest, di},
		{"documentId slash", submitBody(doc(`"../../etc/passwd"`)), 400, CodeInvalidRequest, di},
		{"documentId space", submitBody(doc(`"inv 1"`)), 400, CodeInvalidRequest, di},
		{"documentId leading dot", submitBody(doc(`".inv"`)), 400, CodeInvalidRequest, di},
		{"documentId empty", submitBody(doc(`""`)), 400, CodeInvalidRequest, di},
		{"documentId 129 chars", submitBody(doc(`"` + strings.Repeat("a", 129) + `"`)), 400, CodeInvalidRequest, di},
		{"documentId number", submitBody(doc(`42`)), 400, CodeInvalidRequest, di},
		{"documentId array", submitBody(doc(`["a"]`)), 400, CodeInvalidRequest, di},
		// content.
		{"content empty", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":""}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content number", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":7}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content null", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":null}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content missing", submitBody(`{"documentId":"inv-1","operationVersion":1}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content object", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":{"a":"b"}}`), 400, CodeInvalidRequest, []string{"content"}},
		{"everything missing", submitBody(`{}`), 400, CodeInvalidRequest, []string{"documentId", "operationVersion", "content"}},
		// Escapes that decode to nothing faithful: NUL and lone surrogates (encoding/json
		// would turn those into U+FFFD, so two different payloads would hash alike).
		{"content NUL escape", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"a\u0000b"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content lone high surrogate", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"a\ud800b"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content lone low surrogate", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"a\udc00b"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content high surrogate at the end", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"a\uD800"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content high surrogate then a letter escape", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"\ud800\u0041"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"content reversed surrogate pair", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"\ude00\ud83d"}`), 400, CodeInvalidRequest, []string{"content"}},
		{"documentId lone surrogate", submitBody(doc(`"inv\ud800"`)), 400, CodeInvalidRequest, di},
		{"unknown member holding a NUL", submitBody(valid(`,"x":{"a":["\u0000"]}`)), 400, CodeInvalidRequest, []string{"x"}},
		{"key with a lone surrogate", submitBody(valid(`,"x\ud800":1`)), 400, CodeInvalidRequest, body},
		{"reason lone surrogate", call{method: "POST", path: "/v1/jobs/acme:inv-0:v1/reprocess", token: tokAlice, body: `{"reason":"r\udfff"}`}, 400, CodeInvalidRequest, []string{"reason"}},
		{"note NUL", call{method: "POST", path: "/v1/reviews/acme:inv-0:v1/decision", token: tokAlice, body: `{"decision":"approve","note":"\u0000"}`}, 400, CodeInvalidRequest, []string{"note"}},
		// deadlineSeconds.
		{"deadline zero", submitBody(valid(`,"deadlineSeconds":0`)), 400, CodeInvalidRequest, []string{"deadlineSeconds"}},
		{"deadline over a year", submitBody(valid(`,"deadlineSeconds":31536001`)), 400, CodeInvalidRequest, []string{"deadlineSeconds"}},
		{"deadline string", submitBody(valid(`,"deadlineSeconds":"60"`)), 400, CodeInvalidRequest, []string{"deadlineSeconds"}},
		{"deadline null", submitBody(valid(`,"deadlineSeconds":null`)), 400, CodeInvalidRequest, []string{"deadlineSeconds"}},
		// Forged and unknown members.
		{"tenant forged in body", submitBody(valid(`,"tenant":"globex"`)), 400, CodeInvalidRequest, []string{"tenant"}},
		{"jobId in body", submitBody(valid(`,"jobId":"globex:inv-1:v1"`)), 400, CodeInvalidRequest, []string{"jobId"}},
		{"unknown member", submitBody(valid(`,"priority":1`)), 400, CodeInvalidRequest, []string{"priority"}},
		{"member in other case", submitBody(`{"DocumentId":"inv-1","operationVersion":1,"content":"x"}`), 400, CodeInvalidRequest, []string{"documentId", "DocumentId"}},
		// Malformed JSON.
		{"duplicate key", submitBody(`{"documentId":"inv-1","documentId":"inv-2","operationVersion":1,"content":"x"}`), 400, CodeInvalidRequest, body},
		{"duplicate key escaped", submitBody(`{"content":"x","documentId":"inv-1","operationVersion":1,"conten\u0074":"y"}`), 400, CodeInvalidRequest, body},
		{"duplicate nested key", submitBody(valid(`,"x":{"a":1,"a":2}`)), 400, CodeInvalidRequest, body},
		{"trailing garbage", submitBody(valid(``) + ` x`), 400, CodeInvalidRequest, body},
		{"two objects", submitBody(valid(``) + valid(``)), 400, CodeInvalidRequest, body},
		{"truncated", submitBody(`{"documentId":"inv-1","operationVersion":1,`), 400, CodeInvalidRequest, body},
		{"array body", submitBody(`[{"documentId":"inv-1","operationVersion":1,"content":"x"}]`), 400, CodeInvalidRequest, body},
		{"string body", submitBody(`"x"`), 400, CodeInvalidRequest, body},
		{"null body", submitBody(`null`), 400, CodeInvalidRequest, body},
		{"empty body", call{method: "POST", path: "/v1/jobs", token: tokAcme, ctype: "application/json"}, 400, CodeInvalidRequest, body},
		{"whitespace body", submitBody(" \n\t "), 400, CodeInvalidRequest, body},
		{"byte order mark", submitBody("\ufeff" + valid(``)), 400, CodeInvalidRequest, body},
		{"invalid UTF-8", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"` + "\xff\xfe" + `"}`), 400, CodeInvalidRequest, body},
		{"single quotes", submitBody(`{'documentId':'inv-1'}`), 400, CodeInvalidRequest, body},
		{"deep nesting", submitBody(valid(`,"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000))), 400, CodeInvalidRequest, body},
		// Sizes and content types.
		{"oversized body", submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"` + strings.Repeat("a", 1<<20) + `"}`), 413, CodePayloadTooLarge, nil},
		{"text/plain", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: valid(``), ctype: "text/plain"}, 415, CodeUnsupportedMediaType, nil},
		{"no content type", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: valid(``), ctype: "-"}, 415, CodeUnsupportedMediaType, nil},
		{"form content type", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: "documentId=inv-1", ctype: "application/x-www-form-urlencoded"}, 415, CodeUnsupportedMediaType, nil},
		{"latin1 charset", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: valid(``), ctype: "application/json; charset=latin1"}, 415, CodeUnsupportedMediaType, nil},
		{"json lookalike", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: valid(``), ctype: "application/jsonx"}, 415, CodeUnsupportedMediaType, nil},
		// Authentication and authorization.
		{"no token", call{method: "POST", path: "/v1/jobs", body: valid(``)}, 401, CodeUnauthorized, nil},
		{"unknown token", call{method: "POST", path: "/v1/jobs", token: "nope", body: valid(``)}, 401, CodeUnauthorized, nil},
		{"basic scheme", call{method: "POST", path: "/v1/jobs", body: valid(``), header: map[string]string{"Authorization": "Basic YWNtZTp0b2s="}}, 401, CodeUnauthorized, nil},
		{"token prefix", call{method: "POST", path: "/v1/jobs", token: tokAcme[:len(tokAcme)-1], body: valid(``)}, 401, CodeUnauthorized, nil},
		{"operator submits", call{method: "POST", path: "/v1/jobs", token: tokAlice, body: valid(``)}, 403, CodeForbidden, nil},
		{"tenant reprocesses", call{method: "POST", path: "/v1/jobs/acme:inv-0:v1/reprocess", token: tokAcme, body: `{"reason":"r"}`}, 403, CodeForbidden, nil},
		// Paths.
		{"traversal in jobId", call{method: "GET", path: "/v1/jobs/..%2F..%2Fetc%2Fpasswd", token: tokAcme}, 404, CodeNotFound, nil},
		{"dot segments", call{method: "GET", path: "/v1/jobs/../../etc/passwd", token: tokAcme}, 404, CodeNotFound, nil},
		{"escaped slash in jobId", call{method: "GET", path: "/v1/jobs/acme%2Finv-0:v1", token: tokAcme}, 404, CodeNotFound, nil},
		{"NUL in jobId", call{method: "GET", path: "/v1/jobs/acme:in%00v:v1", token: tokAcme}, 404, CodeNotFound, nil},
		{"version 0 in jobId", call{method: "GET", path: "/v1/jobs/acme:inv-0:v0", token: tokAcme}, 404, CodeNotFound, nil},
		{"another tenant's jobId", call{method: "GET", path: "/v1/jobs/acme:inv-0:v1", token: tokGlobex}, 404, CodeNotFound, nil},
		{"unknown route", call{method: "GET", path: "/v1/nope", token: tokAcme}, 404, CodeNotFound, nil},
		{"wrong method", call{method: "DELETE", path: "/v1/jobs/acme:inv-0:v1", token: tokAcme}, 405, CodeMethodNotAllowed, nil},
		// Query strings.
		{"limit 501", call{method: "GET", path: "/v1/jobs?limit=501", token: tokAcme}, 400, CodeInvalidRequest, []string{"limit"}},
		{"limit zero", call{method: "GET", path: "/v1/jobs?limit=0", token: tokAcme}, 400, CodeInvalidRequest, []string{"limit"}},
		{"limit text", call{method: "GET", path: "/v1/jobs?limit=ten", token: tokAcme}, 400, CodeInvalidRequest, []string{"limit"}},
		{"limit plus", call{method: "GET", path: "/v1/jobs?limit=%2B5", token: tokAcme}, 400, CodeInvalidRequest, []string{"limit"}},
		{"state unknown", call{method: "GET", path: "/v1/jobs?state=done", token: tokAcme}, 400, CodeInvalidRequest, []string{"state"}},
		{"documentId filter bad", call{method: "GET", path: "/v1/jobs?documentId=a%2Fb", token: tokAcme}, 400, CodeInvalidRequest, []string{"documentId"}},
		{"unknown parameter", call{method: "GET", path: "/v1/jobs?sort=asc", token: tokAcme}, 400, CodeInvalidRequest, []string{"sort"}},
		{"repeated parameter", call{method: "GET", path: "/v1/jobs?state=queued&state=running", token: tokAcme}, 400, CodeInvalidRequest, []string{"state"}},
		{"garbage cursor", call{method: "GET", path: "/v1/jobs?cursor=%E2%98%83", token: tokAcme}, 400, CodeInvalidCursor, nil},
		{"operator list without tenant", call{method: "GET", path: "/v1/jobs", token: tokAlice}, 400, CodeInvalidRequest, []string{"tenant"}},
		// Operator bodies.
		{"reprocess reason too long", call{method: "POST", path: "/v1/jobs/acme:inv-0:v1/reprocess", token: tokAlice, body: `{"reason":"` + strings.Repeat("r", 501) + `"}`}, 400, CodeInvalidRequest, []string{"reason"}},
		{"reprocess reason number", call{method: "POST", path: "/v1/jobs/acme:inv-0:v1/reprocess", token: tokAlice, body: `{"reason":5}`}, 400, CodeInvalidRequest, []string{"reason"}},
		{"decision unknown", call{method: "POST", path: "/v1/reviews/acme:inv-0:v1/decision", token: tokAlice, body: `{"decision":"maybe"}`}, 400, CodeInvalidRequest, []string{"decision"}},
		// Conflicts.
		{"same key, other content", submitBody(`{"documentId":"inv-0","operationVersion":1,"content":"other"}`), 409, CodeIdempotencyConflict, nil},
		{"reprocess a queued job", call{method: "POST", path: "/v1/jobs/acme:inv-0:v1/reprocess", token: tokAlice, body: `{"reason":"r"}`}, 409, CodeNotDeadLettered, nil},
	}
}

func TestBadInput_Catalogue_RefusedExactly_WritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-0", 1, "x")
	cases := badInputs()
	require.GreaterOrEqual(t, len(cases), 40)
	before := keys(t, b)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := b.do(t, tt.c)
			e := r.requireError(t, tt.status, tt.code)
			if tt.fields != nil {
				require.Equal(t, tt.fields, fieldNames(e))
			}
			require.Equal(t, before, keys(t, b), "Redis must hold no new keys")
		})
	}
	require.NotContains(t, b.logs.String(), `"level":"ERROR"`)
}

func keys(t testing.TB, b *bundle) []string {
	t.Helper()
	ks, err := b.rdb.Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	sort.Strings(ks)
	return ks
}

func TestBadInput_DeclaredLengthOverLimit_NotRead(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	req := newRequest(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{}`})
	// A submission may carry a base64 file of the file limit (10 MiB):
	// declaring more than that is refused before a byte is read.
	req.ContentLength = 14 << 20
	rec := &recorder{header: http.Header{}}
	b.srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.status)
}

// recorder is a minimal ResponseWriter (httptest.ResponseRecorder would do,
// but this one proves the body was never needed).
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *recorder) WriteHeader(s int)           { r.status = s }

// A request with thousands of problems gets a small answer: the first 20
// fields (in a stable order) and how many there are.
func TestBadInput_ManyProblems_ListsTwentyAndTheCount(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var body strings.Builder
	body.WriteString(`{"documentId":"inv-1","operationVersion":1,"content":"x"`)
	for i := range 60000 {
		fmt.Fprintf(&body, `,"k%05d":1`, i)
	}
	body.WriteString("}")
	require.Less(t, body.Len(), 1<<20, "the body fits the limit")
	var query strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&query, "&p%04d=1", i)
	}
	for _, tt := range []struct {
		name  string
		c     call
		total int
		first string
	}{
		{"60,000 unknown members", submitBody(body.String()), 60000, "k00000"},
		{"5,000 unknown parameters", call{method: "GET", path: "/v1/jobs?limit=1" + query.String(), token: tokAcme}, 5000, "p0000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := b.do(t, tt.c)
			e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
			names := fieldNames(e)
			require.Equal(t, 20, len(names), "fields listed")
			require.Equal(t, tt.first, names[0])
			require.EqualValues(t, tt.total, e["fieldCount"])
			require.Less(t, len(r.Body), 4096, "body: %d bytes", len(r.Body))
		})
	}
	r := b.do(t, submitBody(`{"documentId":"inv 1","operationVersion":0}`))
	e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Equal(t, []string{"documentId", "operationVersion", "content"}, fieldNames(e))
	require.EqualValues(t, 3, e["fieldCount"])
}

// Two Authorization headers are refused, whichever comes first: the first
// must not silently win over the second.
func TestAuth_TwoAuthorizationHeaders_Answers400(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	before := keys(t, b)
	for _, pair := range [][2]string{
		{"Bearer " + tokAcme, "Bearer " + tokGlobex},
		{"Bearer " + tokAcme, "Bearer " + tokAcme},
		{"Bearer nope-nope-nope-nope", "Bearer " + tokAcme},
	} {
		req := newRequest(t, submitBody(`{"documentId":"inv-1","operationVersion":1,"content":"x"}`))
		req.Header.Add("Authorization", pair[0])
		req.Header.Add("Authorization", pair[1])
		rec := httptest.NewRecorder()
		b.srv.Handler().ServeHTTP(rec, req)
		r := &resp{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
		e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
		require.Equal(t, []string{"Authorization"}, fieldNames(e))
	}
	require.Equal(t, before, keys(t, b))
}
