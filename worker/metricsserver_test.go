package worker

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func okProbes() probes {
	return probes{
		health: func(context.Context) error { return nil },
		ready:  func(context.Context) string { return "" },
	}
}

// The metrics port closes a keep-alive connection left idle, as the API
// does: idle scrapers cannot pile up open connections and descriptors.
func TestMetricsServer_IdleKeepAliveConnection_IsClosed(t *testing.T) {
	t.Parallel()
	to := defaultMetricsTimeouts
	to.idle = 100 * time.Millisecond
	s, err := listenMetrics("127.0.0.1:0", NewMetrics(false), okProbes(), "", to, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	go func() { _ = s.serve() }()
	t.Cleanup(s.shutdown)

	conn, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: metrics\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.False(t, resp.Close, "a keep-alive connection")

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = br.ReadByte()
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept the idle connection open")
	require.ErrorIs(t, err, io.EOF, "the server closed the idle connection")
}

// Every timeout of the API server is set on the metrics server too.
func TestMetricsServer_HasTheAPIsTimeouts(t *testing.T) {
	t.Parallel()
	s, err := listenMetrics("127.0.0.1:0", NewMetrics(false), okProbes(), "", defaultMetricsTimeouts, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(s.shutdown)
	require.Equal(t, 5*time.Second, s.srv.ReadHeaderTimeout)
	require.Equal(t, 30*time.Second, s.srv.ReadTimeout)
	require.Equal(t, 60*time.Second, s.srv.WriteTimeout)
	require.Equal(t, 2*time.Minute, s.srv.IdleTimeout)
}

// With a metrics token, /metrics needs it as a bearer token; the probes do
// not (orchestrators call them).
func TestMetricsServer_Token_ProtectsMetricsOnly(t *testing.T) {
	t.Parallel()
	const token = "metrics-token-0123456789"
	s, err := listenMetrics("127.0.0.1:0", NewMetrics(false), okProbes(), token, defaultMetricsTimeouts, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(s.shutdown)
	get := func(path, auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		s.srv.Handler.ServeHTTP(rec, req)
		return rec
	}
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token} {
		rec := get("/metrics", auth)
		require.Equal(t, http.StatusUnauthorized, rec.Code, auth)
		require.Equal(t, `Bearer realm="relayops-metrics"`, rec.Header().Get("WWW-Authenticate"))
		require.JSONEq(t, `{"error":{"code":"unauthorized","message":"/metrics needs the metrics bearer token"}}`, rec.Body.String())
	}
	rec := get("/metrics", "Bearer "+token)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "relayops_worker_jobs_total")
	for _, path := range []string{"/healthz", "/readyz"} {
		require.Equal(t, http.StatusOK, get(path, "").Code, path)
	}
}
