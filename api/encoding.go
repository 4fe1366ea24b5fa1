package api

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// decodeContent is the middleware of the routes that read a body: it
// honours the request's Content-Encoding before the decoders see the body.
// gzip is decoded, bounded by Config.BodyLimit on the decoded size (a gzip
// bomb stops at the limit, answered 413 naming it); identity or no header
// leaves the body as it is; any other coding (br, deflate, a list of
// codings) is 415 naming the header, rather than taken for plain JSON.
func (s *Server) decodeContent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		coding := strings.ToLower(strings.TrimSpace(strings.Join(r.Header.Values(echo.HeaderContentEncoding), ",")))
		switch coding {
		case "", "identity":
			return next(c)
		case "gzip", "x-gzip":
		default:
			return &Error{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
				Message: "Content-Encoding must be gzip or identity (or absent)"}
		}
		body, err := s.gunzip(c)
		if err != nil {
			return err
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Del(echo.HeaderContentEncoding)
		return next(c)
	}
}

// gunzip reads and decodes a gzip body: at most BodyLimit bytes (a
// submission's own limit for POST /v1/jobs) are read, and at most that many
// decoded (the compressed size is bounded too, so a
// stream that decodes to little from a lot cannot run on).
func (s *Server) gunzip(c echo.Context) ([]byte, error) {
	limit := s.cfg.BodyLimit
	if c.Path() == "/v1/jobs" { // a submission may carry a file
		limit = s.submitBodyLimit()
	}
	tooLarge := &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Limit: limit,
		Message: fmt.Sprintf("request body too large: at most %d bytes, once gzip is decoded", limit)}
	r := c.Request()
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	notGzip := invalid(jobs.FieldError{Field: "body", Problem: "is not valid gzip (Content-Encoding: gzip)"})
	zr, err := gzip.NewReader(http.MaxBytesReader(c.Response(), r.Body, limit))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return nil, tooLarge
	case err != nil:
		return nil, notGzip
	}
	data, err := io.ReadAll(io.LimitReader(zr, limit+1))
	switch {
	case errors.As(err, &maxErr), err == nil && int64(len(data)) > limit:
		return nil, tooLarge
	case err != nil:
		return nil, notGzip
	}
	return data, nil
}
