package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/google/uuid"
)

// Go's HTTP server answers some requests by itself, before any handler
// runs and in plain text: a request line or target it cannot parse (such
// as the bad escape in /v1/jobs/%zz), a header with a control character, a
// missing Host, headers over the size limit, an unsupported transfer
// encoding. It writes each such answer with one Write on the raw
// connection, in this exact shape, and closes the connection:
//
//	HTTP/1.1 <status line>\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n<text>
//
// jsonErrorListener rewrites exactly those writes into the API's JSON error
// shape. No answer of a handler can match: net/http writes a handler's
// headers sorted, so Connection would come before Content-Type.
type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

type jsonErrorConn struct{ net.Conn }

// plainErrorHeaders follows the status line of net/http's own answers.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	answer, ok := rewritePlainError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(answer); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rewritePlainError turns one of net/http's plain-text answers into a JSON
// one with the same status; ok is false for anything else.
func rewritePlainError(p []byte) ([]byte, bool) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return nil, false
	}
	i := bytes.Index(p, []byte(plainErrorHeaders))
	if i < 0 || bytes.IndexByte(p[:i], '\n') >= 0 {
		return nil, false // not right after the status line
	}
	status, err := strconv.Atoi(string(p[len("HTTP/1.1 "):min(i, len("HTTP/1.1 ")+3)]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	text := string(bytes.TrimPrefix(p[i+len(plainErrorHeaders):], p[len("HTTP/1.1 "):len("HTTP/1.1 ")+4]))
	id := uuid.NewString()
	body, _ := json.Marshal(errorBody{Error: errorDetail{
		Code:      CodeInvalidRequest,
		Message:   "malformed HTTP request: " + text,
		RequestID: id,
	}})
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Length: %d\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: %s\r\n\r\n",
		status, http.StatusText(status), len(body), id)
	return append([]byte(head), body...), true
}
