package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

func TestRun_TinyWorkload_MeasuresEverySide(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	err := run(options{n: 100, connections: 4, rounds: 2, warmup: 10, redisURL: srv.URL,
		contentPath: "../../testdata/invoices/valid-basic-eur.txt"})
	require.NoError(t, err)

	// The submit side went through the real API: its jobs are in the store.
	st, err := jobs.NewStore(jobs.Config{Redis: srv.Client(t)})
	require.NoError(t, err)
	k, err := jobs.BuildKey("bench", "submit-r1-m-99", 1)
	require.NoError(t, err)
	j, err := st.Get(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, jobs.StateQueued, j.State)
}

func TestLoad_EveryRequestAnswered_OneLatencyEach(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	res, err := load{url: srv.URL, token: "tok", n: 50, connections: 3, body: func(int) []byte { return []byte("{}") }}.run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.latencies, 50)
}

func TestLoad_ErrorStatus_StopsWithTheStatus(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	_, err := load{url: srv.URL, n: 20, connections: 2, body: func(int) []byte { return nil }}.run(context.Background())
	require.ErrorContains(t, err, "500 Internal Server Error")
}

func TestBaseline_BadBody_IsRejectedWithoutRedis(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/jobs", http.NoBody)
	baseline(nil).ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
}

func TestOptions_Invalid_NamesTheFlag(t *testing.T) {
	t.Parallel()
	err := run(options{n: 0, connections: 0, rounds: 0, warmup: -1})
	for _, flag := range []string{"-n", "-connections", "-rounds", "-warmup"} {
		require.ErrorContains(t, err, flag)
	}
}
