package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
)

// Error codes of the JSON error body (api/openapi.json). The code is the
// contract; the message is for people and may change.
const (
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidCursor        = "invalid_cursor"
	CodeUnauthorized         = "unauthorized"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeIdempotencyConflict  = "idempotency_conflict"
	CodeNotDeadLettered      = "not_dead_lettered"
	CodeJobCancelled         = "job_cancelled"
	CodeInputExpired         = "input_expired"
	CodePossibleDuplicate    = "possible_duplicate"
	CodeDeliveryNotDead      = "delivery_not_dead"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRateLimited          = "rate_limited"
	CodeUnavailable          = "unavailable"
	CodeInternal             = "internal_error"
)

// Error is an answer other than success: a status, a code and a message that
// is safe to show (it never quotes a token or document content). Handlers
// return it, or a store error that errorFor maps to one.
type Error struct {
	Status     int
	Code       string
	Message    string
	Fields     []jobs.FieldError // invalid_request only: the first maxListedFields
	FieldCount int               // invalid_request only: how many fields are bad
	RetryAfter time.Duration     // rate_limited only
	Limit      int64             // payload_too_large only: the body limit in bytes; 0 until the server states it
	Err        error             // the cause, for the log; never shown
}

// maxListedFields bounds the fields an invalid_request lists (the count
// says how many there are): a body with 60,000 unknown members must not get
// a 3.6 MB answer.
const maxListedFields = 20

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("api: %d %s: %v", e.Status, e.Code, e.Err)
	}
	return fmt.Sprintf("api: %d %s: %s", e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// invalid returns a 400 invalid_request naming the bad fields, the first
// maxListedFields of them, and counting them all.
func invalid(fields ...jobs.FieldError) *Error {
	total := len(fields)
	fields = fields[:min(total, maxListedFields)]
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Field
	}
	msg := "invalid request: " + strings.Join(names, ", ")
	if total > len(fields) {
		msg += fmt.Sprintf(" and %d more", total-len(fields))
	}
	return &Error{
		Status:     http.StatusBadRequest,
		Code:       CodeInvalidRequest,
		Message:    msg,
		Fields:     fields,
		FieldCount: total,
	}
}

func notFound() *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "not found"}
}

// jobNotFoundMsg is the message of every 404 of a route under a job ID:
// missing, another tenant's, or not a job ID at all (a documentId alone,
// the usual mistake) read alike, so the answer reveals nothing about what
// exists, and says what a job ID looks like.
const jobNotFoundMsg = "not found: nothing under this job ID for this token; job IDs look like tenant:documentId:vN, such as <tenant>:inv-1:v1, the jobId POST /v1/jobs answered"

// jobNotFound is the 404 of a job ID path parameter that is malformed or
// names another tenant's job.
func jobNotFound() *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: jobNotFoundMsg}
}

func forbidden(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: msg}
}

// storeErrors maps the store's sentinel errors to answers. Order matters only
// in that every entry is distinct.
var storeErrors = []struct {
	err    error
	status int
	code   string
	msg    string
}{
	{jobs.ErrNotFound, http.StatusNotFound, CodeNotFound, jobNotFoundMsg},
	{jobs.ErrReviewNotFound, http.StatusNotFound, CodeNotFound, jobNotFoundMsg},
	{jobs.ErrIdempotencyConflict, http.StatusConflict, CodeIdempotencyConflict, "this key was already used with a different payload"},
	{jobs.ErrReviewDecided, http.StatusConflict, CodeIdempotencyConflict, "this review was already decided otherwise"},
	{jobs.ErrNotDeadLettered, http.StatusConflict, CodeNotDeadLettered, "only dead-lettered jobs can be reprocessed"},
	{jobs.ErrJobCancelled, http.StatusConflict, CodeJobCancelled, "cancelled jobs cannot be reprocessed"},
	{jobs.ErrInputExpired, http.StatusConflict, CodeInputExpired, "the job's input has expired; reprocess with content"},
	{jobs.ErrInvalidCursor, http.StatusBadRequest, CodeInvalidCursor, "invalid cursor"},
	// The write ran but fewer Redis replicas than required confirmed it: not
	// acknowledged; a retry is idempotent.
	{jobs.ErrNotReplicated, http.StatusServiceUnavailable, CodeUnavailable, "the write was not confirmed by enough Redis replicas; retry later"},
}

// errorFor classifies any error returned by a handler or middleware.
func errorFor(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var de *jobs.DuplicateError
	if errors.As(err, &de) {
		return &Error{Status: http.StatusConflict, Code: CodePossibleDuplicate, Err: err,
			Message: "this document is a possible duplicate of " + de.Of.String() + " (same supplier, number and total): approve it by naming that job in notDuplicateOf, or reject it"}
	}
	var ve *jobs.ValidationError
	if errors.As(err, &ve) {
		e := invalid(ve.Fields...)
		e.Err = err
		return e
	}
	for _, m := range storeErrors {
		if errors.Is(err, m.err) {
			return &Error{Status: m.status, Code: m.code, Message: m.msg, Err: err}
		}
	}
	if errors.Is(err, jobs.ErrReprocessRace) {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "the document's versions kept changing; retry", Err: err}
	}
	if unavailable(err) {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "the job store is unavailable; retry later", Err: err}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromEcho(he)
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", Err: err}
}

// fromEcho maps Echo's own errors: routing (404, 405) and anything a
// middleware raised.
func fromEcho(he *echo.HTTPError) *Error {
	switch he.Code {
	case http.StatusNotFound:
		return notFound()
	case http.StatusMethodNotAllowed:
		return &Error{Status: he.Code, Code: CodeMethodNotAllowed, Message: "method not allowed"}
	case http.StatusRequestEntityTooLarge:
		// No middleware of ours raises it; should Echo, the server's
		// handler states its limit (handleError).
		return tooLarge(0)
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", Err: he}
}

// tooLarge is the 413 of a body over limit bytes; its message states the
// limit, so a client knows what to send instead.
func tooLarge(limit int64) *Error {
	msg := "request body too large"
	if limit > 0 {
		msg = "request body too large: the limit is " + byteSize(limit)
	}
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: msg, Limit: limit}
}

// byteSize writes n once, exactly and readably: in the largest binary unit
// that divides it (1 MiB), else in bytes with the thousands grouped
// (14,046,552 bytes).
func byteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return groupThousands(n) + " bytes"
}

// groupThousands writes n (not negative) with a comma between groups of
// three digits.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unavailable reports whether err means Redis could not be reached or did not
// answer in time, as opposed to a bug. Such requests answer 503 and are safe
// to retry: the store's scripts write all or nothing.
func unavailable(err error) bool {
	var netErr net.Error
	var rerr redis.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed),
		errors.As(err, &netErr):
		return true
	case errors.As(err, &rerr):
		// Redis answers, but cannot serve now (loading, failover, cluster
		// resharding; MOVED and ASK reach the store, which follows no
		// redirect, when a slot changed owner): unavailable too.
		for _, p := range []string{"LOADING ", "MASTERDOWN ", "CLUSTERDOWN ", "TRYAGAIN ", "READONLY ", "BUSY ", "MOVED ", "ASK ", "NOREPLICAS "} {
			if strings.HasPrefix(rerr.Error(), p) {
				return true
			}
		}
	}
	return false
}

// errorBody is the JSON error answer.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code      string            `json:"code"`
	Message   string            `json:"message"`
	RequestID string            `json:"requestId"`
	Fields    []jobs.FieldError `json:"fields,omitempty"`
	// FieldCount is how many fields are bad; Fields lists the first 20.
	FieldCount int `json:"fieldCount,omitempty"`
}

// handleError is the server's only Echo HTTPErrorHandler.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := errorFor(err)
	if e.Code == CodePayloadTooLarge && e.Limit == 0 {
		e = tooLarge(s.cfg.BodyLimit)
	}
	s.logError(c, e)
	h := c.Response().Header()
	switch e.Status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="relayops"`)
	case http.StatusTooManyRequests:
		h.Set("Retry-After", strconv.Itoa(retryAfterSeconds(e.RetryAfter)))
	case http.StatusServiceUnavailable:
		h.Set("Retry-After", "1")
	}
	body := errorBody{Error: errorDetail{
		Code: e.Code, Message: e.Message, RequestID: requestID(c), Fields: e.Fields, FieldCount: e.FieldCount,
	}}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(e.Status)
	} else {
		err = c.JSON(e.Status, body)
	}
	if err != nil {
		s.log.Debug("write error response", "request_id", requestID(c), "err", err)
	}
}

// logError logs what a person must look at: bugs at error level with the
// cause, outages at warn. Client errors are in the access log already.
func (s *Server) logError(c echo.Context, e *Error) {
	switch {
	case e.Status >= 500 && e.Status != http.StatusServiceUnavailable:
		s.log.Error("request failed", "request_id", requestID(c), "route", c.Path(), "code", e.Code, "err", e.Err)
	case e.Status == http.StatusServiceUnavailable:
		s.log.Warn("store unavailable", "request_id", requestID(c), "route", c.Path(), "err", e.Err)
	}
}

// retryAfterSeconds rounds d up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	secs := int(math.Ceil(d.Seconds()))
	if secs < 1 {
		return 1
	}
	return secs
}
