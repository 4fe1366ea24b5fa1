package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// With RELAYOPS_REDIS_WAIT_REPLICAS set and no replica confirming in time
// (miniredis's WAIT answers 0), each route whose answer acknowledges a
// write answers 503 unavailable with Retry-After, never success; routes
// that only read are unaffected.
func TestWaitReplicas_NotConfirmed_AcknowledgingRoutesAnswer503(t *testing.T) {
	t.Parallel()
	plain := setup(t, nil)
	dead := plain.submit(t, tokAcme, "inv-dead", 1, "x")
	plain.deadLetter(t, dead)
	done := plain.submit(t, tokAcme, "inv-done", 1, "x")
	plain.succeed(t, done, `{}`)

	waiting, err := jobs.NewStore(jobs.Config{Redis: plain.rdb, Clock: plain.clock, Shards: 4, WaitReplicas: 1})
	require.NoError(t, err)
	b := setup(t, &setupOpts{rdb: plain.rdb, modify: func(c *Config) { c.Store = waiting }})
	for _, c := range []call{
		{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"inv-new","operationVersion":1,"content":"x"}`},
		{method: "POST", path: "/v1/reviews/" + done + "/decision", token: tokAlice, body: `{"decision":"approve"}`},
		{method: "POST", path: "/v1/jobs/" + dead + "/reprocess", token: tokAlice, body: `{"reason":"r"}`},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := b.do(t, c)
			r.requireError(t, http.StatusServiceUnavailable, CodeUnavailable)
			require.Equal(t, "1", r.Header.Get("Retry-After"))
		})
	}
	require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: "/v1/jobs/" + done, token: tokAcme}).Status)
	require.NotContains(t, b.logs.String(), `"level":"ERROR"`, "a replica that lags is not a bug")
}

// fakeRedisError is a reply error as go-redis returns it (redis.Error).
type fakeRedisError string

func (e fakeRedisError) Error() string { return string(e) }
func (fakeRedisError) RedisError()     {}

// The store follows no redirect (a retried script could run twice), so a
// slot that moved in a failover or a resharding reaches the API as MOVED or
// ASK: Redis is not serving that key here now, which is 503 like
// CLUSTERDOWN, never a 500.
func TestErrorFor_ClusterRedirectsAndOutages_Unavailable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		reply string
		want  int
	}{
		{"MOVED 3999 127.0.0.1:7002", http.StatusServiceUnavailable},
		{"ASK 3999 127.0.0.1:7002", http.StatusServiceUnavailable},
		{"CLUSTERDOWN The cluster is down", http.StatusServiceUnavailable},
		{"NOREPLICAS Not enough good replicas to write.", http.StatusServiceUnavailable},
		{"ERR unknown command", http.StatusInternalServerError},
	} {
		e := errorFor(fmt.Errorf("jobs: submit acme:x:v1: %w", fakeRedisError(tt.reply)))
		require.Equal(t, tt.want, e.Status, tt.reply)
	}
}
