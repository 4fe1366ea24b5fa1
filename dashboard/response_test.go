package dashboard

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// apiError decodes a JSON error answer and checks that it leaks nothing.
func apiError(t *testing.T, body string, leaks ...string) map[string]string {
	t.Helper()
	var e map[string]map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &e), body)
	for _, leak := range leaks {
		require.NotContains(t, body, leak)
	}
	return e["error"]
}

// asynqmon's own errors (500 with raw text such as `NOT_FOUND: queue "x"
// does not exist` or `dial tcp …: connection refused`) answer the API's
// JSON error shape with the status they mean, and no internal detail.
func TestAPI_AsynqmonErrors_AnswerJSONWithoutDetail(t *testing.T) {
	t.Parallel()
	ts := setup(t, redistest.Start(t, nil).URL)
	for _, path := range []string{"/monitoring/api/queues/extract:pause", "/monitoring/api/queues/nope/pending_tasks"} {
		res, body := get(t, "GET", ts.URL+path, basic(opName, opToken))
		require.Equal(t, http.StatusNotFound, res.StatusCode, body)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		require.Equal(t, "not_found", apiError(t, body, "NOT_FOUND", "does not exist")["code"])
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0") // a port where nothing answers once closed
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close())
	down := setup(t, "redis://"+dead+"/0")
	for _, path := range []string{"/monitoring/api/queues", "/monitoring/api/redis_info"} {
		res, body := get(t, "GET", down.URL+path, basic(opName, opToken))
		require.Equal(t, http.StatusServiceUnavailable, res.StatusCode, body)
		require.Equal(t, "1", res.Header.Get("Retry-After"))
		require.Equal(t, "unavailable", apiError(t, body, "dial", "refused", dead)["code"])
	}
}

// The Redis page's figures: on the embedded Redis (miniredis) INFO lacks
// most of them, and asynqmon's page showed NaN; the missing ones now read
// n/a, and what miniredis does report is read despite its line endings.
func TestAPI_RedisInfo_FillsWhatTheServerDoesNotReport(t *testing.T) {
	t.Parallel()
	info := func(t *testing.T, redisURL string) map[string]string {
		res, body := get(t, "GET", setup(t, redisURL).URL+"/monitoring/api/redis_info", basic(opName, opToken))
		require.Equal(t, http.StatusOK, res.StatusCode, body)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var v struct {
			Info map[string]string `json:"info"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &v), body)
		return v.Info
	}
	m, _ := redistest.Mini(t)
	mini := info(t, "redis://"+m.Addr()+"/0")
	require.Equal(t, "0", mini["rdb_last_save_time"], "0 renders as no time, not NaN")
	for _, k := range []string{"redis_version", "uptime_in_days", "used_memory_human", "used_memory_peak_human", "mem_fragmentation_ratio", "connected_slaves", "rdb_changes_since_last_save"} {
		require.Equal(t, "n/a", mini[k], k)
	}
	require.Regexp(t, `^[0-9]+$`, mini["connected_clients"])

	real := info(t, redistest.Start(t, nil).URL)
	require.Regexp(t, `^[0-9]+\.`, real["redis_version"], "a real server's figures are kept")
	require.Regexp(t, `^[0-9]+$`, real["rdb_last_save_time"])
	require.NotEqual(t, "n/a", real["used_memory_human"])
}

// The dashboard's page is self-contained: no Google Fonts link, and a
// Content-Security-Policy that allows only the page's own origin and the
// hashes of its two inline scripts.
func TestPage_SelfContained_WithContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	m, _ := redistest.Mini(t)
	ts := setup(t, "redis://"+m.Addr()+"/0")
	for _, path := range []string{"/monitoring/", "/monitoring/queues/extract/tasks/acme:inv.1:v1"} {
		res, body := get(t, "GET", ts.URL+path, basic(opName, opToken))
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Contains(t, body, `window.FLAG_ROOT_PATH`, "the page itself")
		require.NotContains(t, body, "fonts.googleapis.com")
		require.NotContains(t, body, "https://")
		csp := res.Header.Get("Content-Security-Policy")
		require.Contains(t, csp, "default-src 'self'")
		require.Contains(t, csp, "frame-ancestors 'none'")
		require.Contains(t, csp, "object-src 'none'")
		script := regexp.MustCompile(`script-src ([^;]*)`).FindStringSubmatch(csp)
		require.NotNil(t, script, csp)
		require.NotContains(t, script[1], "unsafe-inline")
		inline := regexp.MustCompile(`<script>(.*?)</script>`).FindAllStringSubmatch(body, -1)
		require.Len(t, inline, 2)
		for _, s := range inline {
			sum := sha256.Sum256([]byte(s[1]))
			require.Contains(t, script[1], "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		}
	}
	res, _ := get(t, "GET", ts.URL+"/monitoring/api/queues", basic(opName, opToken))
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "default-src"), "every answer carries a policy")
}
