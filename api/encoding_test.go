package api

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.String()
}

func TestSubmit_GzipBody_DecodedAndAccepted(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	body := gzipped(t, `{"documentId":"inv-gz","operationVersion":1,"content":"Invoice 1"}`)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body, header: map[string]string{"Content-Encoding": "gzip"}})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	require.Equal(t, "acme:inv-gz:v1", r.json(t)["jobId"])
}

func TestSubmit_GzipBomb_413NamingTheLimitAndNothingStored(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	before := b.dbsize(t)
	// 64 MiB of spaces inside a valid JSON object, about 64 KiB compressed.
	bomb := gzipped(t, `{"documentId":"inv-bomb","operationVersion":1,"content":"x"`+strings.Repeat(" ", 64<<20)+`}`)
	require.Less(t, len(bomb), int(b.srv.cfg.BodyLimit), "the compressed body is within the limit")
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: bomb, header: map[string]string{"Content-Encoding": "gzip"}})
	e := r.requireError(t, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, e["message"], strconv.FormatInt(b.srv.submitBodyLimit(), 10))
	require.Equal(t, before, b.dbsize(t))
}

func TestSubmit_OtherContentEncodings_415NamingTheHeader(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	plain := `{"documentId":"inv-br","operationVersion":1,"content":"x"}`
	for _, coding := range []string{"br", "deflate", "zstd", "gzip, br", "nonsense"} {
		r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: plain, header: map[string]string{"Content-Encoding": coding}})
		e := r.requireError(t, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
		require.Contains(t, e["message"], "Content-Encoding", coding)
	}
}

func TestSubmit_GzipDeclaredButNotGzip_400NamingBody(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"x"}`, header: map[string]string{"Content-Encoding": "gzip"}})
	e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Equal(t, []string{"body"}, fieldNames(e))
}
