package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// A PDF's first bytes are all the API looks at (the read stage reads the
// rest); these tests need no real PDF.
var (
	tinyPDF = []byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	ublXML  = []byte(`<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:ID xmlns:cbc="x">1</cbc:ID></Invoice>`)
)

func fileBody(doc string, version int, mediaType string, data []byte, filename string) string {
	f := map[string]any{"mediaType": mediaType, "data": base64.StdEncoding.EncodeToString(data)}
	if filename != "" {
		f["filename"] = filename
	}
	b, _ := json.Marshal(map[string]any{"documentId": doc, "operationVersion": version, "file": f})
	return string(b)
}

// multipartBody builds a multipart/form-data body; partType "" sends the
// file part without a Content-Type.
func multipartBody(t testing.TB, fields map[string]string, partType string, data []byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		require.NoError(t, w.WriteField(k, v))
	}
	if data != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="invoice.pdf"`)
		if partType != "" {
			h.Set("Content-Type", partType)
		}
		p, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = p.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.String(), w.FormDataContentType()
}

func TestSubmit_JSONFile_StoresTheFileAsTheInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "Rechnung 42.pdf")})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	content, err := b.store.Input(context.Background(), mustKey(t, "acme:inv-1:v1"))
	require.NoError(t, err)
	in := jobs.DecodeInput(content)
	require.True(t, in.File)
	require.Equal(t, "application/pdf", in.MediaType)
	require.Equal(t, "Rechnung 42.pdf", in.Filename)
	require.Equal(t, tinyPDF, in.Data)
}

func TestSubmit_SameFileAgain_Dedupes_AnotherFile_Conflicts(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "a.pdf")}).Status)
	// The file name is not part of the payload: the same bytes dedupe.
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "renamed.pdf")})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, true, r.json(t)["deduped"])
	other := append(bytes.Clone(tinyPDF), '\n')
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", other, "")}).
		requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	// text/xml and application/xml are one media type: the same XML dedupes.
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("x-1", 1, "text/xml", ublXML, "")}).Status)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("x-1", 1, "application/xml", ublXML, "")}).Status)
}

func TestSubmit_Multipart_TakesTheFilePart(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, tc := range []struct {
		name, partType string
	}{
		{"declared", "application/pdf"},
		{"sniffed without a type", ""},
		{"sniffed from octet-stream", "application/octet-stream"},
	} {
		doc := "mp-" + strings.ReplaceAll(tc.name, " ", "-")
		body, ct := multipartBody(t, map[string]string{"documentId": doc, "operationVersion": "1", "deadlineSeconds": "600"}, tc.partType, tinyPDF)
		r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body, ctype: ct})
		require.Equal(t, http.StatusAccepted, r.Status, "%s: body: %s", tc.name, r.Body)
		require.EqualValues(t, 600, r.json(t)["deadlineSeconds"])
		content, err := b.store.Input(context.Background(), mustKey(t, "acme:"+doc+":v1"))
		require.NoError(t, err)
		require.Equal(t, "application/pdf", jobs.DecodeInput(content).MediaType, tc.name)
		require.Equal(t, "invoice.pdf", jobs.DecodeInput(content).Filename, tc.name)
	}
}

func TestSubmit_BadFiles_RefusedNamingTheField_WritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.MaxFileBytes = 4096 }})
	mp := func(fields map[string]string, partType string, data []byte) call {
		body, ct := multipartBody(t, fields, partType, data)
		return call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body, ctype: ct}
	}
	js := func(body string) call { return call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body} }
	ok := map[string]string{"documentId": "inv-1", "operationVersion": "1"}
	for _, tc := range []struct {
		name   string
		call   call
		status int
		code   string
		field  string // for 400 and 415: the field named
		inMsg  string // for 413: the limit stated
	}{
		{"pdf that is not one", js(fileBody("inv-1", 1, "application/pdf", []byte("hello, I am text"), "")), 415, CodeUnsupportedMediaType, "file.mediaType", ""},
		{"xml that is a pdf", js(fileBody("inv-1", 1, "application/xml", tinyPDF, "")), 415, CodeUnsupportedMediaType, "file.mediaType", ""},
		{"a word document", js(fileBody("inv-1", 1, "application/msword", []byte{0xD0, 0xCF, 0x11, 0xE0}, "")), 415, CodeUnsupportedMediaType, "file.mediaType", ""},
		{"binary sent as text", js(fileBody("inv-1", 1, "text/plain", []byte{0x00, 0x01, 0xFF}, "")), 415, CodeUnsupportedMediaType, "file.mediaType", ""},
		{"text in latin-1", js(fileBody("inv-1", 1, "text/plain; charset=iso-8859-1", []byte("x"), "")), 415, CodeUnsupportedMediaType, "file.mediaType", ""},
		{"unknown bytes, no type", mp(ok, "", []byte{0x00, 0x9F, 0x92, 0x96}), 415, CodeUnsupportedMediaType, "file", ""},
		{"multipart type lies", mp(ok, "application/pdf", ublXML), 415, CodeUnsupportedMediaType, "file", ""},
		{"too large json", js(fileBody("inv-1", 1, "application/pdf", append(bytes.Clone(tinyPDF), make([]byte, 5000)...), "")), 413, CodePayloadTooLarge, "", "limited to 4 KiB"},
		{"too large multipart", mp(ok, "application/pdf", append(bytes.Clone(tinyPDF), make([]byte, 5000)...)), 413, CodePayloadTooLarge, "", "limited to 4 KiB"},
		{"empty file", js(fileBody("inv-1", 1, "application/pdf", nil, "")), 400, CodeInvalidRequest, "file.data", ""},
		{"empty multipart file", mp(ok, "application/pdf", []byte{}), 400, CodeInvalidRequest, "file", ""},
		{"not base64", js(`{"documentId":"inv-1","operationVersion":1,"file":{"mediaType":"application/pdf","data":"%%%"}}`), 400, CodeInvalidRequest, "file.data", ""},
		{"file not an object", js(`{"documentId":"inv-1","operationVersion":1,"file":"JVBERi0="}`), 400, CodeInvalidRequest, "file", ""},
		{"unknown file member", js(`{"documentId":"inv-1","operationVersion":1,"file":{"mediaType":"application/pdf","data":"JVBERi0=","size":5}}`), 400, CodeInvalidRequest, "file.size", ""},
		{"content and file", js(`{"documentId":"inv-1","operationVersion":1,"content":"x","file":{"mediaType":"application/pdf","data":"JVBERi0="}}`), 400, CodeInvalidRequest, "file", ""},
		{"neither", js(`{"documentId":"inv-1","operationVersion":1}`), 400, CodeInvalidRequest, "content", ""},
		{"filename over 255 bytes", js(fileBody("inv-1", 1, "application/pdf", tinyPDF, strings.Repeat("a", 252)+".pdf")), 400, CodeInvalidRequest, "file.filename", ""},
		{"multipart without file", mp(ok, "", nil), 400, CodeInvalidRequest, "file", ""},
		{"multipart bad version", mp(map[string]string{"documentId": "inv-1", "operationVersion": "one"}, "application/pdf", tinyPDF), 400, CodeInvalidRequest, "operationVersion", ""},
		{"multipart unknown field", mp(map[string]string{"documentId": "inv-1", "operationVersion": "1", "tenant": "globex"}, "application/pdf", tinyPDF), 400, CodeInvalidRequest, "tenant", ""},
		{"multipart without boundary", call{method: "POST", path: "/v1/jobs", token: tokAcme, body: "x", ctype: "multipart/form-data"}, 400, CodeInvalidRequest, "body", ""},
	} {
		before := keys(t, b)
		r := b.do(t, tc.call)
		e := r.requireError(t, tc.status, tc.code)
		if tc.field != "" {
			require.Contains(t, fieldNames(e), tc.field, "%s: %s", tc.name, r.Body)
		}
		require.Contains(t, e["message"], tc.inMsg, tc.name)
		require.Equal(t, before, keys(t, b), "%s: Redis must hold no new keys", tc.name)
	}
}

// multipartFileBody is a multipart submission of inv-1 whose file part
// carries disposition as its Content-Disposition.
func multipartFileBody(t testing.TB, disposition string, data []byte) call {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	require.NoError(t, w.WriteField("documentId", "inv-1"))
	require.NoError(t, w.WriteField("operationVersion", "1"))
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", disposition)
	p, err := w.CreatePart(h)
	require.NoError(t, err)
	_, err = p.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return call{method: "POST", path: "/v1/jobs", token: tokAcme, body: buf.String(), ctype: w.FormDataContentType()}
}

// The finding: a JSON filename kept "../" and U+202E where multipart
// reduced it to the base name. Both paths store the same safe base name.
func TestSubmit_FileNames_ReducedToASafeBaseName_OnBothPaths(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct{ sent, stored string }{
		{"../../etc/passwd", "passwd"},
		{`..\..\windows\invoice.pdf`, "invoice.pdf"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"},           // right-to-left override: shown as "invoiceexe.pdf"
		{"a\u200Bb\u2066c\u2069.pdf", "abc.pdf"},             // zero-width space, isolates
		{"line\nbreak\r\t.pdf", "linebreak.pdf"},             // control characters
		{"para\u2029graph.pdf", "paragraph.pdf"},             // paragraph separator
		{"  Rechnung März 42.pdf  ", "Rechnung März 42.pdf"}, // spaces and letters stay
		{"dir/..", ""},
		{"/", ""},
	} {
		sent := tc.sent
		for _, path := range []string{"json", "multipart"} {
			b := setup(t, nil)
			c := call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, sent)}
			if path == "multipart" {
				c = multipartFileBody(t, mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": sent}), tinyPDF)
			}
			r := b.do(t, c)
			require.Equal(t, http.StatusAccepted, r.Status, "%d %s: %s", i, path, r.Body)
			content, err := b.store.Input(context.Background(), mustKey(t, "acme:inv-1:v1"))
			require.NoError(t, err)
			require.Equal(t, tc.stored, jobs.DecodeInput(content).Filename, "%d %s: %q", i, path, sent)
		}
	}
}

// The finding: curl -F file=/path (the @ forgotten) sent the path as a form
// field and it was taken as a document whose text is the path. A file part
// without a file name is a 400 that says how to send the file.
func TestSubmit_MultipartFileWithoutAFileName_400SaysToSendTheFile(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	e := b.do(t, multipartFileBody(t, `form-data; name="file"`, []byte("/home/me/invoice.pdf"))).
		requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Equal(t, []string{"file"}, fieldNames(e))
	require.Contains(t, e["fields"].([]any)[0].(map[string]any)["problem"], "curl -F file=@invoice.pdf")
	require.Zero(t, b.dbsize(t))

	// An empty file name is still a file (a client may have none to give).
	r := b.do(t, multipartFileBody(t, `form-data; name="file"; filename=""`, tinyPDF))
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
}

// fakePages is a PDF reader that says every PDF has n pages and renders a
// one-byte "image".
type fakePages struct{ n int }

func (f fakePages) PageCount(context.Context, []byte) (int, error) { return f.n, nil }
func (f fakePages) Render(_ context.Context, _ []byte, page, _ int) ([]byte, error) {
	if page > f.n {
		return nil, errors.New("no such page")
	}
	return []byte("\x89PNG\r\n\x1a\n"), nil
}

func TestSubmit_PDFOverThePageLimit_Is413StatingTheLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.Pages = fakePages{n: 51} }})
	e := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "")}).
		requireError(t, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, e["message"], "51 pages")
	require.Contains(t, e["message"], "limited to 50 pages")
	require.Zero(t, b.dbsize(t))
}

func TestGetDocument_ReturnsTheOriginal_ToItsTenantAndOperators_Only(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.Pages = fakePages{n: 2} }})
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "März.pdf")}).Status)
	b.submit(t, tokAcme, "txt-1", 1, "INVOICE 7")
	for _, tok := range []string{tokAcme, tokAlice} {
		r := b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1/document", token: tok})
		require.Equal(t, http.StatusOK, r.Status)
		require.Equal(t, tinyPDF, r.Body)
		require.Equal(t, "application/pdf", r.Header.Get("Content-Type"))
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		require.Contains(t, r.Header.Get("Content-Disposition"), "attachment; filename*=UTF-8''M%C3%A4rz.pdf")
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "sandbox")
	}
	r := b.do(t, call{method: "GET", path: "/v1/jobs/acme:txt-1:v1/document", token: tokAcme})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "text/plain; charset=utf-8", r.Header.Get("Content-Type"))
	require.Equal(t, "INVOICE 7", string(r.Body))

	// Another tenant cannot tell the job exists.
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1/document", token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1/document/pages/1", token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:nothing:v1/document", token: tokAcme}).requireError(t, http.StatusNotFound, CodeNotFound)

	pg := b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1/document/pages/2", token: tokAcme})
	require.Equal(t, http.StatusOK, pg.Status)
	require.Equal(t, "image/png", pg.Header.Get("Content-Type"))
	for _, bad := range []string{"3", "0", "x", "-1"} {
		b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1/document/pages/" + bad, token: tokAcme}).requireError(t, http.StatusNotFound, CodeNotFound)
	}
	// Text has no pages to render.
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:txt-1:v1/document/pages/1", token: tokAcme}).requireError(t, http.StatusNotFound, CodeNotFound)
}

func TestGetDocument_AfterTheInputExpired_Is409InputExpired(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "txt-1", 1, "INVOICE 7")
	require.NoError(t, b.rdb.Del(context.Background(), inputKeyOf(t, b, "acme:txt-1:v1")).Err())
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:txt-1:v1/document", token: tokAcme}).requireError(t, http.StatusConflict, CodeInputExpired)
}

// inputKeyOf finds the Redis key holding the input of job id.
func inputKeyOf(t testing.TB, b *bundle, id string) string {
	t.Helper()
	ks, err := b.rdb.Keys(context.Background(), "*:input:"+id).Result()
	require.NoError(t, err)
	require.Len(t, ks, 1)
	return ks[0]
}

func TestReprocess_WithACorrectedFile_CreatesTheNextVersionFromIt(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.Equal(t, http.StatusAccepted, b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: fileBody("inv-1", 1, "application/pdf", tinyPDF, "a.pdf")}).Status)
	b.deadLetter(t, "acme:inv-1:v1")
	fixed := append(bytes.Clone(tinyPDF), []byte("% corrected\n")...)
	body, _ := json.Marshal(map[string]any{"reason": "the supplier sent the right file",
		"file": map[string]string{"mediaType": "application/pdf", "data": base64.StdEncoding.EncodeToString(fixed), "filename": "b.pdf"}})
	r := b.do(t, call{method: "POST", path: "/v1/jobs/acme:inv-1:v1/reprocess", token: tokAlice, body: string(body)})
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	content, err := b.store.Input(context.Background(), mustKey(t, "acme:inv-1:v2"))
	require.NoError(t, err)
	in := jobs.DecodeInput(content)
	require.Equal(t, fixed, in.Data)
	require.Equal(t, "b.pdf", in.Filename)
	// The same again is the same new job; a file that lies about its type
	// is refused at once.
	require.Equal(t, http.StatusOK, b.do(t, call{method: "POST", path: "/v1/jobs/acme:inv-1:v1/reprocess", token: tokAlice, body: string(body)}).Status)
	lie, _ := json.Marshal(map[string]any{"reason": "x", "file": map[string]string{"mediaType": "application/pdf", "data": base64.StdEncoding.EncodeToString([]byte("<x/>"))}})
	b.do(t, call{method: "POST", path: "/v1/jobs/acme:inv-1:v1/reprocess", token: tokAlice, body: string(lie)}).
		requireError(t, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
}
