package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

const (
	requestIDKey       = "relayops.request_id"
	clientRequestIDKey = "relayops.client_request_id"
)

// A client's X-Request-ID is kept when it is a plain token; anything else
// (too long, spaces, control characters) is replaced, since it is echoed in
// headers, bodies and logs.
var requestIDRe = regexp.MustCompile(`^[A-Za-z0-9._:/+=-]{1,128}$`)

// withRequestID assigns the request ID: the client's X-Request-ID when it is
// acceptable, a new UUID otherwise. It is echoed on every answer.
func (s *Server) withRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if requestIDRe.MatchString(id) {
			c.Set(clientRequestIDKey, id)
		} else {
			id = uuid.NewString()
		}
		c.Set(requestIDKey, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		c.Response().Header().Set(echo.HeaderXContentTypeOptions, "nosniff")
		return next(c)
	}
}

func requestID(c echo.Context) string {
	id, _ := c.Get(requestIDKey).(string)
	return id
}

// clientRequestID is the X-Request-ID the client sent, "" when it sent none
// (or an unacceptable one).
func clientRequestID(c echo.Context) string {
	id, _ := c.Get(clientRequestIDKey).(string)
	return id
}

// observe writes the access log line and the request metrics. It renders a
// handler's error itself so that the status it records is the one sent.
// The line never holds a header, a token or a body.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		elapsed := time.Since(start)
		route := routeLabel(c)
		status := c.Response().Status
		s.metrics.observe(route, c.Request().Method, status, elapsed)
		ctx := c.Request().Context()
		if !s.log.Enabled(ctx, slog.LevelInfo) {
			return nil
		}
		// LogAttrs with typed attributes: no boxing of each value, no
		// key-value pairing at run time, on every request's path.
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs,
			slog.String("request_id", requestID(c)),
			slog.String("method", c.Request().Method),
			slog.String("route", route),
			slog.String("path", c.Request().URL.EscapedPath()),
			slog.Int("status", status),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.Int64("bytes_out", c.Response().Size),
			slog.String("remote_ip", c.RealIP()),
		)
		if p := principal(c); p.role != 0 {
			attrs = append(attrs, slog.String("role", p.role.String()), slog.String("principal", p.name))
		}
		s.log.LogAttrs(ctx, slog.LevelInfo, "http_request", attrs...)
		return nil
	}
}

// routeLabel is the matched route template. Its cardinality is bounded:
// Echo reports a route or router node path, or nothing, for which the label
// is "unmatched".
func routeLabel(c echo.Context) string {
	if p := c.Path(); p != "" {
		return p
	}
	return "unmatched"
}

// recoverPanics turns a handler panic into a 500 internal_error and logs the
// stack; the process keeps serving.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			switch {
			case r == nil:
				return
			case r == http.ErrAbortHandler: // net/http's way to abort a response
				panic(r)
			}
			buf := make([]byte, 16<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.log.Error("handler panic", "request_id", requestID(c), "panic", fmt.Sprint(r), "stack", string(buf))
			err = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error",
				Err: fmt.Errorf("panic: %v", r)}
		}()
		return next(c)
	}
}
