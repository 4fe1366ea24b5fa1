package dashboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// rewriter sits between asynqmon and the client. It streams static assets
// untouched and holds back what the dashboard rewrites: the page (asynqmon
// writes it without a Content-Type), every answer of asynqmon's JSON API,
// and every error.
type rewriter struct {
	w      http.ResponseWriter
	hold   bool // hold every answer (asynqmon's API)
	status int
	held   *bytes.Buffer // nil while streaming
	passed bool          // streaming to w
}

func (r *rewriter) Header() http.Header { return r.w.Header() }

func (r *rewriter) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	r.status = status
	if r.hold || status >= 400 || r.w.Header().Get("Content-Type") == "" {
		r.held = &bytes.Buffer{}
		return
	}
	r.passed = true
	r.w.WriteHeader(status)
}

func (r *rewriter) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.passed {
		return r.w.Write(p)
	}
	return r.held.Write(p)
}

// page is what the dashboard changes in asynqmon's page: the stylesheet
// links to other origins (Google Fonts) go, so it loads nothing from
// elsewhere and renders with fallback fonts; and its inline scripts are
// hashed for the Content-Security-Policy.
var (
	externalLinkRe = regexp.MustCompile(`<link[^>]*\shref="https?://[^"]*"[^>]*>`)
	inlineScriptRe = regexp.MustCompile(`<script>(.*?)</script>`)
)

// policy is the Content-Security-Policy of every answer; scriptHashes
// allows inline scripts by hash (the page's two).
func (d *Dashboard) policy(scriptHashes ...string) string {
	script := "'self'"
	for _, h := range scriptHashes {
		script += " 'sha256-" + h + "'"
	}
	return "default-src 'self'; script-src " + script + "; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'" + d.promOrigin + "; " +
		"manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// origin is the scheme://host of a URL, with a leading space, "" if none.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" {
		return ""
	}
	return " " + u.Scheme + "://" + u.Host
}

// finish sends what the rewriter held back, rewritten.
func (d *Dashboard) finish(w http.ResponseWriter, r *http.Request, rw *rewriter, apiPath string) {
	if rw.held == nil {
		return // streamed
	}
	status, body := rw.status, rw.held.Bytes()
	switch {
	case status >= 400:
		d.mapError(w, r, status, body)
		return
	case strings.HasPrefix(r.URL.Path, d.apiPrefix):
		if apiPath == "redis_info" {
			body = fillRedisInfo(body)
		}
		w.Header().Set("Content-Type", "application/json")
	default: // the page
		body = externalLinkRe.ReplaceAll(body, nil)
		var hashes []string
		for _, m := range inlineScriptRe.FindAllSubmatch(body, -1) {
			sum := sha256.Sum256(m[1])
			hashes = append(hashes, base64.StdEncoding.EncodeToString(sum[:]))
		}
		w.Header().Set("Content-Security-Policy", d.policy(hashes...))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// notFoundRe matches asynqmon's (asynq's) texts for a missing queue or task.
var notFoundRe = regexp.MustCompile(`^NOT_FOUND|asynq: (queue|task) not found`)

// unavailableRe matches asynqmon's (asynq's, go-redis's) texts for a Redis
// that cannot be reached or cannot serve now.
var unavailableRe = regexp.MustCompile(`dial tcp|connection refused|connection reset|broken pipe|i/o timeout|\bEOF\b|` +
	`context deadline exceeded|pool timeout|closed network connection|no route to host|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN`)

// mapError answers an error of asynqmon (a 500 with raw text, often) in the
// API's JSON error shape, with the status it means and without its text,
// which names internal addresses; the text goes to the debug log.
func (d *Dashboard) mapError(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	text := strings.TrimSpace(string(body))
	d.log.Debug("dashboard: asynqmon answered an error", "path", r.URL.EscapedPath(), "status", status, "text", text)
	w.Header().Del("Content-Length")
	switch {
	case status == http.StatusNotFound || notFoundRe.MatchString(text):
		writeError(w, r, http.StatusNotFound, "not_found", "not found")
	case unavailableRe.MatchString(text):
		d.log.Warn("dashboard: Redis unavailable", "path", r.URL.EscapedPath())
		w.Header().Set("Retry-After", "1")
		writeError(w, r, http.StatusServiceUnavailable, "unavailable", "Redis is unavailable; retry later")
	case status < 500:
		writeError(w, r, http.StatusBadRequest, "invalid_request", "the dashboard could not serve this request")
	default:
		d.log.Warn("dashboard: asynqmon failed", "path", r.URL.EscapedPath(), "status", status)
		writeError(w, r, http.StatusInternalServerError, "internal_error", "internal error")
	}
}

// redisInfoDefaults are the INFO figures asynqmon's Redis page shows, with
// what it shows when the server does not report one: the embedded Redis of
// make run (miniredis) reports almost none, and the page printed NaN. A
// last save time of 0 is shown as no time.
var redisInfoDefaults = map[string]string{
	"redis_version": "n/a", "uptime_in_days": "n/a", "used_memory_human": "n/a", "used_memory_peak_human": "n/a",
	"mem_fragmentation_ratio": "n/a", "connected_clients": "n/a", "connected_slaves": "n/a",
	"rdb_last_save_time": "0", "rdb_changes_since_last_save": "n/a",
}

// fillRedisInfo reparses asynqmon's /api/redis_info answer from its raw
// INFO text (asynqmon splits lines on CRLF only, and misreads a server that
// ends some with LF) and fills the figures the server did not report.
func fillRedisInfo(body []byte) []byte {
	var v map[string]any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	raw, _ := v["raw_info"].(string)
	info := map[string]string{}
	if old, ok := v["info"].(map[string]any); ok && raw == "" {
		for k, val := range old {
			info[k] = fmtString(val)
		}
	}
	for _, line := range strings.Split(raw, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if k, val, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			info[k] = val
		}
	}
	for k, def := range redisInfoDefaults {
		if _, ok := info[k]; !ok {
			info[k] = def
		}
	}
	v["info"] = info
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

func fmtString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
