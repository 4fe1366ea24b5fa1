package api

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// scrape GETs /metrics and returns every sample of the text exposition by
// series, exactly as exposed: `name{label="value",…}`.
func (b *bundle) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	r := b.do(t, call{method: "GET", path: "/metrics"})
	require.Equal(t, http.StatusOK, r.Status)
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		out[line[:i]] = v
	}
	require.NoError(t, sc.Err())
	return out
}

func TestMetrics_DuplicateAndConflictingSubmissions_CountOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-1", 1, "x")
	b.submit(t, tokAcme, "inv-1", 1, "x")
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: `{"documentId":"inv-1","operationVersion":1,"content":"y"}`}).
		requireError(t, http.StatusConflict, CodeIdempotencyConflict)

	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_submissions_total{outcome="created"}`])
	require.Equal(t, 1.0, m[`relayops_submissions_total{outcome="deduped"}`])
	require.Equal(t, 1.0, m[`relayops_submissions_total{outcome="conflict"}`])
	require.Equal(t, 0.0, m[`relayops_submissions_total{outcome="invalid"}`])
}

// Concurrent identical decisions: exactly one call decides (the store says
// which), so the wait is observed once whatever the interleaving.
func TestMetrics_ConcurrentSameDecisions_ObserveWaitOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.succeed(t, id, `{}`)
	b.clock.Advance(time.Hour)
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.do(t, call{method: "POST", path: "/v1/reviews/" + id + "/decision", token: tokAlice,
				body: `{"decision":"approve"}`}).Status
		}()
	}
	wg.Wait()
	for _, st := range statuses {
		require.Equal(t, http.StatusOK, st)
	}
	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_review_wait_seconds_count{outcome="approved"}`])
	require.Equal(t, 3600.0, m[`relayops_review_wait_seconds_sum{outcome="approved"}`])
}

func TestMetrics_ReviewDecision_ObservesWaitOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.succeed(t, id, `{}`) // the review is created now (t0)
	b.clock.Advance(90 * time.Minute)
	decide := func(decision string) *resp {
		return b.do(t, call{method: "POST", path: "/v1/reviews/" + id + "/decision", token: tokAlice,
			body: `{"decision":"` + decision + `"}`})
	}

	require.Equal(t, http.StatusOK, decide("approve").Status)
	b.clock.Advance(time.Minute)
	require.Equal(t, http.StatusOK, decide("approve").Status, "a repeat")
	decide("reject").requireError(t, http.StatusConflict, CodeIdempotencyConflict)

	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_review_wait_seconds_count{outcome="approved"}`])
	require.Equal(t, 5400.0, m[`relayops_review_wait_seconds_sum{outcome="approved"}`])
	require.Equal(t, 1.0, m[`relayops_review_wait_seconds_bucket{outcome="approved",le="7200"}`])
	require.Zero(t, m[`relayops_review_wait_seconds_bucket{outcome="approved",le="3600"}`])
	require.Zero(t, m[`relayops_review_wait_seconds_count{outcome="rejected"}`])
}

func TestMetrics_Reprocess_CountsCreatedRepeatConflict(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dead := b.submit(t, tokAcme, "inv-1", 1, "broken")
	b.deadLetter(t, dead)

	require.Equal(t, http.StatusCreated, b.do(t, reprocessCall(dead, `{"reason":"fixed"}`)).Status)
	require.Equal(t, http.StatusOK, b.do(t, reprocessCall(dead, `{"reason":"again"}`)).Status)
	b.do(t, reprocessCall(dead, `{"reason":"x","content":"other"}`)).requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	b.do(t, reprocessCall(b.submit(t, tokAcme, "inv-2", 1, "x"), `{"reason":"r"}`)).
		requireError(t, http.StatusConflict, CodeNotDeadLettered)

	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_reprocesses_total{outcome="created"}`])
	require.Equal(t, 1.0, m[`relayops_reprocesses_total{outcome="repeat"}`])
	require.Equal(t, 1.0, m[`relayops_reprocesses_total{outcome="conflict"}`])
}

func TestMetrics_TenantLabels_OnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) { c.MetricsTenantLabels = true }})
	id := b.submit(t, tokGlobex, "inv-1", 1, "x")
	b.succeed(t, id, `{}`)
	require.Equal(t, http.StatusOK, b.do(t, call{method: "POST", path: "/v1/reviews/" + id + "/decision",
		token: tokAlice, body: `{"decision":"reject"}`}).Status)

	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_submissions_total{outcome="created",tenant="globex"}`])
	require.Equal(t, 1.0, m[`relayops_review_wait_seconds_count{outcome="rejected",tenant="globex"}`])

	off := setup(t, nil)
	off.submit(t, tokGlobex, "inv-1", 1, "x")
	for series := range off.scrape(t) {
		require.NotContains(t, series, "tenant=", "tenant labels are off by default")
	}
}

// Review times come from the store's clock; a decision stamped before the
// review's creation (clocks of different processes) waits zero, not less.
func TestMetrics_ReviewWait_NeverNegative(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.metrics.decided("acme", &jobs.Review{Status: jobs.ReviewApproved, CreatedAt: t0, DecidedAt: t0.Add(-time.Second)})
	m := b.scrape(t)
	require.Equal(t, 1.0, m[`relayops_review_wait_seconds_count{outcome="approved"}`])
	require.Equal(t, 0.0, m[`relayops_review_wait_seconds_sum{outcome="approved"}`])
}

// With a metrics token, /metrics answers only that bearer token: neither
// nothing nor a tenant or operator token. The probes stay open.
func TestMetrics_Token_RequiredWhenConfigured(t *testing.T) {
	t.Parallel()
	const token = "metrics-token-0123456789"
	b := setup(t, &setupOpts{modify: func(c *Config) { c.MetricsToken = token }})
	for _, tok := range []string{"", tokAlice, tokAcme, "metrics-token-012345678"} {
		r := b.do(t, call{method: "GET", path: "/metrics", token: tok})
		r.requireError(t, http.StatusUnauthorized, CodeUnauthorized)
		require.Equal(t, `Bearer realm="relayops"`, r.Header.Get("WWW-Authenticate"))
		require.NotContains(t, string(r.Body), "relayops_")
	}
	r := b.do(t, call{method: "GET", path: "/metrics", token: token})
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, string(r.Body), "relayops_submissions_total")
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json"} {
		require.Equal(t, http.StatusOK, b.do(t, call{method: "GET", path: path}).Status, path)
	}
}
