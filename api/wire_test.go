package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// serve runs the server on a loopback listener until the test ends and
// returns its address.
func (b *bundle) serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// rawExchange writes request bytes on a new connection and reads one answer.
func rawExchange(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// Requests Go's HTTP server refuses before any handler runs (a bad escape
// in the path, a control character in a header, no Host, headers too
// large) are answered in the API's JSON error shape, not in plain text.
func TestWire_MalformedRequests_AnswerJSONErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	addr := b.serve(t)
	for _, tt := range []struct {
		name, request string
		status        int
	}{
		{"bad escape in the path", "GET /v1/jobs/%zz HTTP/1.1\r\nHost: api\r\n\r\n", 400},
		{"control character in Content-Type", "POST /v1/jobs HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\x01\r\nContent-Length: 2\r\n\r\n{}", 400},
		{"no Host header", "GET /v1/jobs HTTP/1.1\r\n\r\n", 400},
		{"malformed request line", "GET\r\n\r\n", 400},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: api\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431},
		{"unsupported transfer encoding", "POST /v1/jobs HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, addr, tt.request)
			require.Equal(t, tt.status, resp.StatusCode, "body: %s", body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "body: %s", body)
			var v any
			require.NoError(t, json.Unmarshal(body, &v), "body: %s", body)
			require.NoError(t, b.spec.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()), "body: %s", body)
			e := v.(map[string]any)["error"].(map[string]any)
			require.Equal(t, resp.Header.Get("X-Request-ID"), e["requestId"])
			require.True(t, resp.Close, "the connection is closed after it")
		})
	}
	resp, body := rawExchange(t, addr, "GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n")
	require.Equal(t, http.StatusOK, resp.StatusCode, "well-formed requests are untouched: %s", body)
}
