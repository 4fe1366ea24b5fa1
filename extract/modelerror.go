package extract

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrSetup marks a model call the endpoint refused because of the
// deployment's own settings: the API key (401, 403) or the model name or
// base URL (404). No document can succeed until an operator fixes them, and
// no document is at fault, so the worker neither retries it as an attempt
// nor dead-letters it: it puts the job back, uncounted, until the settings
// work or the job's deadline passes.
var ErrSetup = errors.New("extract: the model endpoint refuses the deployment's settings")

// Codes of a failed model call (ModelError.Code). The worker records them as
// the job's errorCode while the job waits for a retry. Like every code, they
// never quote the document, the answer or the key.
const (
	// CodeModelUnauthorized: 401 or 403, the API key is wrong, expired or
	// lacks access (ErrSetup).
	CodeModelUnauthorized = "model_unauthorized"
	// CodeModelNotFound: 404, the model or the base URL is wrong (ErrSetup).
	CodeModelNotFound = "model_not_found"
	// CodeModelRateLimited: 429 (transient; Retry-After honoured).
	CodeModelRateLimited = "model_rate_limited"
	// CodeModelUnavailable: 5xx, 408 or 409, or an answer that is not an
	// OpenAI-compatible completion (transient).
	CodeModelUnavailable = "model_unavailable"
	// CodeModelTimeout: no answer within ModelConfig.Timeout (transient).
	CodeModelTimeout = "model_timeout"
	// CodeModelUnreachable: the connection failed (transient).
	CodeModelUnreachable = "model_unreachable"
	// CodeModelBadRequest: 400, 413, 422 or another 4xx: the endpoint
	// refused the request as sent, e.g. a document beyond the model's
	// context window (permanent).
	CodeModelBadRequest = "model_bad_request"
)

// ModelError is a model call that failed. Error() holds only the code and
// the HTTP status: the endpoint's own message may quote the document or the
// key, so it is never kept.
type ModelError struct {
	Code   string
	Status int // HTTP status; 0 when there was no answer
	// RetryAfter is how long to wait before calling again: the endpoint's
	// Retry-After on a 429, the credentials cool-down on ErrSetup; 0 when
	// the endpoint said nothing.
	RetryAfter time.Duration
	// ProviderCode is the endpoint's machine-readable error code (e.g.
	// context_length_exceeded) when it is a short identifier, else "".
	ProviderCode string
	kind         error // ErrTransient, ErrPermanent or ErrSetup
}

func (e *ModelError) Error() string {
	if e.Status == 0 {
		return "extract: model call failed: " + e.Code
	}
	return "extract: model call failed: " + e.Code + " (HTTP " + strconv.Itoa(e.Status) + ")"
}

// Unwrap returns ErrTransient, ErrPermanent or ErrSetup.
func (e *ModelError) Unwrap() error { return e.kind }

// statusError classifies an HTTP error status of the endpoint.
func statusError(status int, h http.Header, providerCode string, now time.Time) *ModelError {
	e := &ModelError{Status: status, ProviderCode: safeProviderCode(providerCode)}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Code, e.kind = CodeModelUnauthorized, ErrSetup
	case status == http.StatusNotFound:
		e.Code, e.kind = CodeModelNotFound, ErrSetup
	case status == http.StatusTooManyRequests:
		e.Code, e.kind, e.RetryAfter = CodeModelRateLimited, ErrTransient, retryAfter(h, now)
	case status >= 500, status == http.StatusRequestTimeout, status == http.StatusConflict:
		e.Code, e.kind = CodeModelUnavailable, ErrTransient
		e.RetryAfter = retryAfter(h, now) // 503 may carry one
	default:
		e.Code, e.kind = CodeModelBadRequest, ErrPermanent
	}
	return e
}

func transportError(code string) *ModelError { return &ModelError{Code: code, kind: ErrTransient} }

var providerCodeRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// safeProviderCode keeps an endpoint's error code only when it is a short
// identifier: a free-text "code" could quote anything.
func safeProviderCode(c string) string {
	if providerCodeRE.MatchString(c) {
		return c
	}
	return ""
}

// maxRetryAfter bounds what an endpoint may ask for; the worker caps it
// again at its own largest backoff.
const maxRetryAfter = time.Hour

// retryAfter reads retry-after-ms (OpenAI's) or Retry-After (seconds or an
// HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); d == 0 && v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			d = time.Duration(s * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, 0), maxRetryAfter)
}

// Cool-down of the credentials gate: after a refusal the model is not called
// again before it has passed; it doubles with each refusal in a row.
const (
	setupCooldownMin = 5 * time.Second
	setupCooldownMax = 5 * time.Minute
)

// setupGate stops a worker from hammering an endpoint that refuses its
// settings: after a 401/403/404 every Extract fails fast with the same
// ErrSetup error until the cool-down has passed; then one call (a probe)
// goes through while the others keep failing fast. A probe that gets any
// other answer opens the gate for all.
type setupGate struct {
	now func() time.Time

	mu       sync.Mutex
	refused  *ModelError // the last refusal; nil when calls go through
	cooldown time.Duration
	until    time.Time
	probing  bool
}

// admit reports whether a call may go out, and whether it is the probe.
func (g *setupGate) admit() (probe bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		return false, nil
	}
	now := g.now()
	if g.probing || now.Before(g.until) {
		e := *g.refused
		e.RetryAfter = max(g.until.Sub(now), time.Second)
		return false, &e
	}
	g.probing = true
	return true, nil
}

// answered records the outcome of an admitted call: refused is its ErrSetup
// error, nil when the endpoint answered otherwise. A call that got no answer
// (timeout, connection) changes nothing but ends the probe.
func (g *setupGate) answered(probe bool, refused *ModelError, gotAnswer bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if probe {
		g.probing = false
	}
	switch {
	case refused != nil:
		g.cooldown = min(max(2*g.cooldown, setupCooldownMin), setupCooldownMax)
		g.until = g.now().Add(g.cooldown)
		refused.RetryAfter = g.cooldown
		g.refused = refused
	case gotAnswer:
		g.refused, g.cooldown = nil, 0
	}
}
