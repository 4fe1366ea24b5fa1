package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

type testBundle struct {
	o options
}

// setup returns tiny-workload options on a real redis-server of the test's
// own (skips loudly without redis-server).
func setup(t *testing.T) testBundle {
	t.Helper()
	srv := redistest.Start(t, nil)
	return testBundle{o: options{
		n: 40, rounds: 1, concurrency: 4, bareServers: 2, shards: 4, submitters: 4,
		redisURL: srv.URL, contentPath: "../../testdata/invoices/valid-basic-eur.txt",
		taskCheck: 10 * time.Millisecond, timeout: time.Minute,
		mode: "drain", rates: []int{50}, duration: 200 * time.Millisecond,
		idle: 200 * time.Millisecond, settle: 50 * time.Millisecond,
	}}
}

func TestRun_DrainMode_DrainsBothSides(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, run(b.o))
}

func TestRun_LatencyMode_MeasuresRatesAndIdleCost(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.o.mode = "latency"
	require.NoError(t, run(b.o))
}

func TestLatencyRun_EveryJobGetsAReviewAndALatency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	content, err := os.ReadFile(b.o.contentPath)
	require.NoError(t, err)
	bench, err := newBench(b.o, b.o.redisURL, string(content))
	require.NoError(t, err)
	t.Cleanup(bench.close)

	res, err := bench.latencyRun(50)
	require.NoError(t, err)
	require.Equal(t, 10, res.n)
	for _, stage := range [][]time.Duration{res.endToEnd, res.submitRT, res.toClaim, res.toFinish, res.toReview} {
		require.Len(t, stage, res.n)
		require.GreaterOrEqual(t, stage[0], time.Duration(0), "a stage that ends before it starts means a wrong timestamp")
	}
}

func TestRun_UnknownMode_IsAnErrorNamingTheFlag(t *testing.T) {
	t.Parallel()
	err := run(options{mode: "fast"})
	require.ErrorContains(t, err, "-mode")
}

func TestParseRates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "200,1000", want: []int{200, 1000}},
		{in: " 5 ", want: []int{5}},
		{in: "0", bad: true},
		{in: "200,x", bad: true},
		{in: "", bad: true},
	} {
		got, err := parseRates(tt.in)
		if tt.bad {
			require.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, got)
	}
}

func TestTopRates_PerSecondMostCalledFirst(t *testing.T) {
	t.Parallel()
	got := topRates(map[string]int64{"get": 10, "xreadgroup": 300, "ping": 1}, 500*time.Millisecond, 2)
	require.Equal(t, "xreadgroup 600.0, get 20.0", got)
}
