package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// scrape GETs /metrics from m's handler and returns every sample of the
// text exposition by series, exactly as exposed: `name{label="value",…}`.
func scrape(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, 200, rec.Code)
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
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

// stubStage replaces a stage with one that takes d on the stub clock.
func (b *bundle) stubStage(stage string, d time.Duration, out string) {
	b.x.on(stage, func(context.Context) ([]byte, error) {
		b.clock.Advance(d)
		return []byte(out), nil
	})
}

// stubStages replaces every stage with an instant one, extract taking d.
func (b *bundle) stubStages(extract time.Duration) {
	b.stubStage(StageClassify, 0, `{"type":"invoice"}`)
	b.stubStage(StageExtract, extract, `{"total":"1.00"}`)
	b.stubStage(StageValidate, 0, `{"ok":true}`)
}

func TestMetrics_ThreeJobs_ObserveEachHistogramOncePerJob(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.stubStages(1500 * time.Millisecond)
	var keys []jobs.Key
	for _, doc := range []string{"inv-1", "inv-2", "inv-3"} {
		k := mustKey(t, "acme", doc, 1)
		b.submit(t, k, "content", 0)
		keys = append(keys, k)
	}
	b.clock.Advance(2 * time.Second)

	for _, k := range keys {
		require.NoError(t, b.deliver(k))
	}

	m := scrape(t, b.metrics)
	require.Equal(t, 3.0, m[`relayops_worker_jobs_total{outcome="succeeded"}`])
	require.Equal(t, 3.0, m[`relayops_inference_seconds_count{outcome="ok"}`])
	require.Equal(t, 4.5, m[`relayops_inference_seconds_sum{outcome="ok"}`])
	require.Equal(t, 3.0, m[`relayops_queue_wait_seconds_count{outcome="succeeded"}`])
	// Each job waits while the ones before it run: 2 s, 3.5 s, 5 s.
	require.Equal(t, 10.5, m[`relayops_queue_wait_seconds_sum{outcome="succeeded"}`])
	require.Equal(t, 3.0, m[`relayops_end_to_end_seconds_count{outcome="succeeded"}`])
	require.Equal(t, 15.0, m[`relayops_end_to_end_seconds_sum{outcome="succeeded"}`], "3.5 s + 5 s + 6.5 s")
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_bucket{outcome="succeeded",le="2.5"}`])
	require.Equal(t, 3.0, m[`relayops_queue_wait_seconds_bucket{outcome="succeeded",le="5"}`])
	require.Zero(t, m[`relayops_worker_crash_recoveries_total`])
	require.Zero(t, m[`relayops_worker_commit_conflicts_total`])
}

func TestMetrics_CheckpointResume_DoesNotObserveInferenceAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "resume", 1)
	b.submit(t, k, "content", 0)
	b.stubStages(time.Second)
	fail := true
	b.x.on(StageValidate, func(context.Context) ([]byte, error) {
		if fail {
			fail = false
			return nil, errors.New("validator unavailable")
		}
		return []byte(`{"ok":true}`), nil
	})

	b.clock.Advance(time.Second)
	requireCode(t, b.deliver(k), jobs.CodeTransient, true) // retry scheduled at t0+2s
	b.clock.Advance(10 * time.Second)
	require.NoError(t, b.deliver(k))

	m := scrape(t, b.metrics)
	require.Equal(t, 1, b.x.called(StageExtract))
	require.Equal(t, 1.0, m[`relayops_inference_seconds_count{outcome="ok"}`], "the resumed attempt took extract from its checkpoint")
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_count{outcome="retried"}`])
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_sum{outcome="retried"}`])
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_count{outcome="succeeded"}`])
	require.Equal(t, 10.0, m[`relayops_queue_wait_seconds_sum{outcome="succeeded"}`], "from the retry's enqueue, not the submission")
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="succeeded"}`])
	require.Equal(t, 12.0, m[`relayops_end_to_end_seconds_sum{outcome="succeeded"}`], "from the submission")
}

func TestMetrics_InferenceError_ObservedAsError(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "bad", 1)
	b.submit(t, k, "content", 0)
	b.stubStages(0)
	b.x.on(StageExtract, func(context.Context) ([]byte, error) {
		b.clock.Advance(3 * time.Second)
		return nil, Permanent(errors.New("unreadable"))
	})

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_inference_seconds_count{outcome="error"}`])
	require.Equal(t, 3.0, m[`relayops_inference_seconds_sum{outcome="error"}`])
	require.Zero(t, m[`relayops_inference_seconds_count{outcome="ok"}`])
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="dead_lettered"}`])
	require.Equal(t, 3.0, m[`relayops_end_to_end_seconds_sum{outcome="dead_lettered"}`])
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_count{outcome="dead_lettered"}`])
}

// A redelivery of a committed job is a dedupe: counted once, and neither the
// end-to-end time nor a queue wait is observed again.
func TestMetrics_CommitDedupe_CountsOneDedupe(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "after_commit_before_ack=transient#1"})
	k := mustKey(t, "acme", "ackless", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	requireCode(t, b.deliver(k), jobs.CodeTransient, true)
	b.clock.Advance(time.Second)
	require.NoError(t, b.deliver(k))

	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_worker_jobs_total{outcome="deduped"}`])
	require.Equal(t, 1.0, m[`relayops_worker_jobs_total{outcome="succeeded"}`])
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="succeeded"}`])
	require.Zero(t, m[`relayops_end_to_end_seconds_count{outcome="deduped"}`])
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_count{outcome="succeeded"}`])
	require.Zero(t, m[`relayops_queue_wait_seconds_count{outcome="deduped"}`])
}

func TestMetrics_StaleFence_CountsOneStale(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "zombie", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageExtract, func(ctx context.Context) ([]byte, error) {
		_, err := b.store.Claim(ctx, k, "the-other-worker")
		return []byte(`{"zombie":true}`), err
	})

	require.NoError(t, b.deliver(k))

	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_worker_jobs_total{outcome="stale"}`])
	require.Equal(t, 1.0, m[`relayops_queue_wait_seconds_count{outcome="stale"}`])
	require.Zero(t, m[`relayops_end_to_end_seconds_count{outcome="succeeded"}`])
	require.Zero(t, m[`relayops_worker_crash_recoveries_total`], "this handler's own claim was no recovery")
}

func TestMetrics_CrashRecovery_CountsOneRecovery(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "after_extract=kill#1"})
	b.handler.faults.kill = runtime.Goexit
	k := mustKey(t, "acme", "crash", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	done := make(chan struct{})
	go func() { defer close(done); _ = b.deliver(k) }()
	<-done
	b.clock.Advance(time.Minute)
	require.NoError(t, b.deliver(k))

	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_worker_crash_recoveries_total`])
	require.Equal(t, 1.0, m[`relayops_inference_seconds_count{outcome="ok"}`], "the recovery resumed after extract")
	require.Zero(t, m[`relayops_queue_wait_seconds_count{outcome="succeeded"}`], "a recovery is not an attempt")
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="succeeded"}`])
	require.Equal(t, 60.0, m[`relayops_end_to_end_seconds_sum{outcome="succeeded"}`])
}

// The job's payload changes under a running attempt (it cannot through the
// API; here the test rewrites the record): the commit is refused.
func TestMetrics_CommitConflict_CountsOneConflict(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "swapped", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageValidate, func(ctx context.Context) ([]byte, error) {
		key := fmt.Sprintf("ro:{%02d}:job:%s", jobs.Shard(k.Tenant, k.DocumentID, testShards), k)
		return []byte(`{"ok":true}`), b.rdb.HSet(ctx, key, "ph", jobs.PayloadHash("other")).Err()
	})

	requireCode(t, b.deliver(k), CodeIdempotencyConflict, false)

	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_worker_commit_conflicts_total`])
	require.Equal(t, 1.0, m[`relayops_worker_jobs_total{outcome="dead_lettered"}`])
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="dead_lettered"}`])
}

// A job picked up after its deadline is cancelled by the claim itself: its
// end-to-end time is observed once, not again on a redelivery.
func TestMetrics_CancelledAtClaim_ObservedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "late", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), time.Minute)
	b.clock.Advance(2 * time.Minute)

	require.NoError(t, b.deliver(k))
	b.clock.Advance(time.Second)
	require.NoError(t, b.deliver(k))

	m := scrape(t, b.metrics)
	require.Equal(t, 2.0, m[`relayops_worker_jobs_total{outcome="cancelled"}`])
	require.Equal(t, 1.0, m[`relayops_end_to_end_seconds_count{outcome="cancelled"}`])
	require.Equal(t, 120.0, m[`relayops_end_to_end_seconds_sum{outcome="cancelled"}`])
	require.Zero(t, m[`relayops_queue_wait_seconds_count{outcome="cancelled"}`], "the claim ended the job: no attempt ran")
}

func TestMetrics_TenantLabels_OnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	m := NewMetrics(true)
	h, err := NewHandler(HandlerConfig{Store: b.store, Extractor: b.x, Clock: b.clock, Metrics: m})
	require.NoError(t, err)
	b.handler = h
	k := mustKey(t, "globex", "inv-1", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	require.NoError(t, b.deliver(k))

	got := scrape(t, m)
	require.Equal(t, 1.0, got[`relayops_worker_jobs_total{outcome="succeeded",tenant="globex"}`])
	require.Equal(t, 1.0, got[`relayops_inference_seconds_count{outcome="ok",tenant="globex"}`])
	require.Equal(t, 1.0, got[`relayops_queue_wait_seconds_count{outcome="succeeded",tenant="globex"}`])
	require.Equal(t, 1.0, got[`relayops_end_to_end_seconds_count{outcome="succeeded",tenant="globex"}`])
	for series := range scrape(t, b.metrics) {
		require.NotContains(t, series, "tenant=", "tenant labels are off by default")
	}
}
