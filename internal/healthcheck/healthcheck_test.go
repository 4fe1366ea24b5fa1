package healthcheck

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestURL_WildcardHostsBecomeLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/healthz",
		"0.0.0.0:9090":   "http://127.0.0.1:9090/healthz",
		"[::]:9090":      "http://127.0.0.1:9090/healthz",
		"10.1.2.3:8080":  "http://10.1.2.3:8080/healthz",
		"localhost:1234": "http://localhost:1234/healthz",
	} {
		got, err := URL(addr)
		require.NoError(t, err, addr)
		require.Equal(t, want, got)
	}
	_, err := URL("8080")
	require.Error(t, err)
}

func TestProbe_OKOnlyFor200(t *testing.T) {
	t.Parallel()
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/healthz", r.URL.Path)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	require.NoError(t, Probe(context.Background(), addr))
	status = http.StatusServiceUnavailable
	require.Error(t, Probe(context.Background(), addr))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	require.Error(t, Probe(context.Background(), closed), "nothing listening")
}
