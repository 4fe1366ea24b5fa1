//go:build linux

package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// Process-level tests: the real cmd/worker binary against a real
// redis-server, killed, stopped and terminated with real signals. They
// assert on the job records in Redis, Asynq's task state and the worker's
// own metrics, never on the wording of its logs.
//
// The tests that need Asynq to hand a dead worker's task to another one
// wait for its 30 s lease to expire (about a minute each); they are in
// process_slow_test.go and process_llm_test.go, behind the build tag slow,
// which make test (and so CI) passes: go test -tags slow ./worker/.

// TestMain removes the worker binary proctest built.
func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }

const procShards = 4

// env is one test's deployment: a redis-server and a store client.
type env struct {
	t     *testing.T
	ctx   context.Context
	srv   *redistest.Server
	rdb   *redis.Client
	store *jobs.Store
	insp  *asynq.Inspector
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("process-level test: skipped with -short")
	}
	srv := redistest.Start(t, nil)
	e := &env{t: t, ctx: context.Background(), srv: srv, rdb: srv.Client(t)}
	e.store = e.newStore(clock.Real{})
	e.insp = asynq.NewInspectorFromRedisClient(e.rdb)
	return e
}

func (e *env) newStore(c clock.Clock) *jobs.Store {
	s, err := jobs.NewStore(jobs.Config{Redis: e.rdb, Shards: procShards, Clock: c})
	require.NoError(e.t, err)
	return s
}

func (e *env) submit(k jobs.Key, content string, lim jobs.Limits) {
	e.t.Helper()
	_, err := e.store.Submit(e.ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: lim})
	require.NoError(e.t, err)
}

func (e *env) job(k jobs.Key) *jobs.Job {
	e.t.Helper()
	j, err := e.store.Get(e.ctx, k)
	require.NoError(e.t, err)
	return j
}

func (e *env) waitState(k jobs.Key, want jobs.State, timeout time.Duration) {
	e.t.Helper()
	redistest.Eventually(e.t, timeout, func() bool {
		j, err := e.store.Get(e.ctx, k)
		return err == nil && j.State == want
	}, "job %s to be %s", k, want)
}

func (e *env) waitReview(k jobs.Key, timeout time.Duration) *jobs.Review {
	e.t.Helper()
	var r *jobs.Review
	redistest.Eventually(e.t, timeout, func() bool {
		var err error
		r, err = e.store.GetReview(e.ctx, k)
		return err == nil
	}, "review of %s", k)
	return r
}

// waitTask waits until Asynq holds k's task in state want.
func (e *env) waitTask(k jobs.Key, want asynq.TaskState, timeout time.Duration) *asynq.TaskInfo {
	e.t.Helper()
	var info *asynq.TaskInfo
	redistest.Eventually(e.t, timeout, func() bool {
		var err error
		info, err = e.insp.GetTaskInfo(e.queue(k), k.String())
		return err == nil && info.State == want
	}, "task of %s to be %s in Asynq", k, want)
	return info
}

// queue is the Asynq queue of k's task: the worker's default layout on one
// Redis.
func (e *env) queue(k jobs.Key) string {
	return task.NewLayout(0, procShards, false).Queue(jobs.Shard(k.Tenant, k.DocumentID, procShards))
}

// archived lists the archived tasks of every queue of the layout.
func (e *env) archived() []*asynq.TaskInfo {
	e.t.Helper()
	var all []*asynq.TaskInfo
	for _, q := range task.NewLayout(0, procShards, false).Names() {
		tasks, err := e.insp.ListArchivedTasks(q)
		if !errors.Is(err, asynq.ErrQueueNotFound) {
			require.NoError(e.t, err)
		}
		all = append(all, tasks...)
	}
	return all
}

// outboxStream is the outbox stream of k's shard, and the shard.
func (e *env) outboxStream(k jobs.Key) (string, int) {
	shard := jobs.Shard(k.Tenant, k.DocumentID, procShards)
	return e.store.OutboxStream(shard), shard
}

// outboxEvents are the entries of k's shard's outbox stream that concern
// k, decoded as the relay decodes them.
func (e *env) outboxEvents(k jobs.Key) map[string]jobs.Event {
	e.t.Helper()
	stream, shard := e.outboxStream(k)
	msgs, err := e.rdb.XRange(e.ctx, stream, "-", "+").Result()
	require.NoError(e.t, err)
	out := map[string]jobs.Event{}
	for _, m := range msgs {
		ev, err := jobs.ParseEvent(shard, m)
		require.NoError(e.t, err, "outbox entry %s", m.ID)
		if ev.Key == k {
			out[m.ID] = ev
		}
	}
	return out
}

// committedEvents counts k's extraction.committed outbox rows.
func (e *env) committedEvents(k jobs.Key) int {
	e.t.Helper()
	n := 0
	for _, ev := range e.outboxEvents(k) {
		if ev.Type == jobs.EventExtractionCommitted {
			n++
		}
	}
	return n
}

// requireExactlyOnce checks k succeeded with one event and one review.
func (e *env) requireExactlyOnce(k jobs.Key) *jobs.Job {
	e.t.Helper()
	j := e.job(k)
	require.Equal(e.t, jobs.StateSucceeded, j.State, k.String())
	require.Equal(e.t, 1, e.committedEvents(k), "one extraction.committed event for %s", k)
	r, err := e.store.GetReview(e.ctx, k)
	require.NoError(e.t, err, "review of %s", k)
	require.Equal(e.t, j.EventID, r.EventID, "one review, of the committed event")
	return j
}

type procOpts struct {
	faults   string
	logLevel string // default debug
	env      []string
	// unready: do not wait for /healthz (the worker's fault may kill it
	// before it would answer).
	unready bool
}

// startWorker starts a worker process and waits for its /healthz (the
// store answers) on its own metrics address, where the test reads its
// metrics.
func (e *env) startWorker(name string, o procOpts) *proctest.Process {
	e.t.Helper()
	if o.logLevel == "" {
		o.logLevel = "debug"
	}
	return proctest.Start(e.t, proctest.Options{
		Name: name, Bin: proctest.Binary(e.t, "cmd/worker"), AddrVars: []string{"RELAYOPS_METRICS_ADDR"},
		Env: proctest.Env(append([]string{
			"RELAYOPS_REDIS_URL=" + e.srv.URL, fmt.Sprintf("RELAYOPS_SHARDS=%d", procShards),
			"RELAYOPS_LOG_LEVEL=" + o.logLevel, "RELAYOPS_FAULTS=" + o.faults, "RELAYOPS_CONCURRENCY=4",
		}, o.env...)...),
		Unready: o.unready,
	})
}

// Metric names and labels the process tests read.
const (
	metricJobs     = "relayops_worker_jobs_total"
	metricStages   = "relayops_worker_stage_runs_total"
	metricFaults   = "relayops_worker_faults_fired_total"
	metricRejected = "relayops_jobs_rejected_total"
)

func outcome(o string) map[string]string { return map[string]string{"outcome": o} }
func stage(s string) map[string]string   { return map[string]string{"stage": s} }
func point(p string) map[string]string   { return map[string]string{"point": p} }

// Scenario 3: a permanent failure is dead-lettered on attempt 1 and Asynq
// archives the task with exactly "permanent_error"; the secret in the
// document appears neither there nor in the info logs.
func TestProcess_PermanentFailure_ArchivedWithTheCodeOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const secret = "IBAN-DE44-5001-0517-5407-3249-31"
	k := mustKey(t, "acme", "mismatch", 1)
	a := e.startWorker("A", procOpts{logLevel: "info"})
	content := strings.Replace(readSample(t, "invalid-total-mismatch.txt"), "Total: 420.00", "Total: 420.00 "+secret, 1)
	e.submit(k, content, jobs.DefaultLimits)

	e.waitState(k, jobs.StateDeadLettered, 20*time.Second)
	job := e.job(k)
	require.Equal(t, 1, job.Attempt)
	require.Equal(t, jobs.CodePermanent, job.ErrorCode)
	info := e.waitTask(k, asynq.TaskStateArchived, 10*time.Second)
	require.Equal(t, "permanent_error", info.LastErr)
	require.Equal(t, 0, info.Retried)
	require.NotContains(t, info.LastErr+string(info.Payload), secret)
	require.NotContains(t, a.Logs(), secret)
	require.True(t, extract.ValidReason(job.ErrorReason), "the record says why: %q", job.ErrorReason)
	require.Equal(t, 1.0, a.Metric(metricRejected, map[string]string{"reason": job.ErrorReason}),
		"the rejection is counted under the record's reason")
	require.Equal(t, 1.0, a.Metric(metricJobs, outcome(OutcomeDeadLettered)))
	dlq, err := e.store.ListDLQ(e.ctx, jobs.DLQOptions{})
	require.NoError(t, err)
	require.Len(t, dlq.Jobs, 1)
}

// Scenario 4: a job that always fails transiently gets exactly three
// attempts, then max_attempts_exceeded.
func TestProcess_AlwaysTransient_ThreeAttemptsThenMaxAttemptsExceeded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := mustKey(t, "acme", "flaky", 1)
	a := e.startWorker("A", procOpts{faults: "extract=transient@1"})
	e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)

	e.waitState(k, jobs.StateDeadLettered, 30*time.Second)
	job := e.job(k)
	require.Equal(t, 3, job.Attempt)
	require.Equal(t, jobs.CodeMaxAttemptsExceeded, job.ErrorCode)
	info := e.waitTask(k, asynq.TaskStateArchived, 10*time.Second)
	require.Equal(t, "max_attempts_exceeded", info.LastErr)
	require.Equal(t, 2, info.Retried, "two retries, never a fourth attempt")
	require.Equal(t, 3.0, a.Metric(metricFaults, point(PointExtract)))
	require.Equal(t, 3.0, a.Metric(metricStages, stage(StageClassify)), "the rules' classify is cheap: recomputed, not checkpointed")
	require.Equal(t, 2.0, a.Metric(metricJobs, outcome(OutcomeRetried)))
	require.Equal(t, 1.0, a.Metric(metricJobs, outcome(OutcomeDeadLettered)))
}

// Scenario 5: a job picked up after its deadline, and a job whose handler
// passes it, are cancelled: acked (completed in Asynq, not archived) and not
// in the DLQ. The records tell the two paths apart: the late job is
// cancelled by its claim and never gets an attempt; the slow one is
// claimed (attempt 1), runs classify, stalls past its deadline, and is
// cancelled by its own handler. Tenant admission is off here, so the late
// job reaches Asynq (with admission on, the admitter cancels it first:
// TestProcess_DeadlinePassesWhileWaiting_CancelledByAdmission).
func TestProcess_DeadlinePassed_CancelledNeitherArchivedNorInDLQ(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	late := mustKey(t, "acme", "late", 1)
	slow := mustKey(t, "acme", "slow", 1)
	// Submitted an hour ago with a one-minute deadline.
	past := e.newStore(clock.NewStub(time.Now().Add(-time.Hour)))
	_, err := past.Submit(e.ctx, jobs.SubmitRequest{Key: late, Content: readSample(t, "valid-basic-eur.txt"),
		Limits: jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Minute}})
	require.NoError(t, err)
	a := e.startWorker("A", procOpts{faults: "after_classify=pause:4s", env: []string{"RELAYOPS_TENANT_MAX_INFLIGHT=0"}})
	e.submit(slow, readSample(t, "valid-basic-eur.txt"), jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: 3 * time.Second})

	for _, k := range []jobs.Key{late, slow} {
		e.waitState(k, jobs.StateCancelled, 20*time.Second)
		require.Equal(t, jobs.CodeDeadlineExceeded, e.job(k).ErrorCode)
		e.waitTask(k, asynq.TaskStateCompleted, 10*time.Second)
		_, err := e.store.GetReview(e.ctx, k)
		require.ErrorIs(t, err, jobs.ErrReviewNotFound)
	}
	require.Zero(t, e.job(late).Attempt, "the late job was cancelled by its claim, before any attempt")
	require.Equal(t, 1, e.job(slow).Attempt, "the slow job was claimed and cancelled by its own handler")
	require.Equal(t, 1.0, a.Metric(metricFaults, point(PointAfterClassify)), "only the slow job reached classify")
	require.Equal(t, 1.0, a.Metric(metricStages, stage(StageClassify)))
	require.Zero(t, a.Metric(metricStages, map[string]string{"stage": StageExtract, "result": "ok"}),
		"the stall passed the deadline: extract got an expired context")
	require.Equal(t, 2.0, a.Metric(metricJobs, outcome(OutcomeCancelled)))
	dlq, err := e.store.ListDLQ(e.ctx, jobs.DLQOptions{IncludeReprocessed: true})
	require.NoError(t, err)
	require.Empty(t, dlq.Jobs)
	require.Empty(t, e.archived())
}

// Scenario 6: SIGTERM in the middle of processing. The worker stops
// fetching, lets running handlers finish, drains the relay and exits 0;
// another worker finishes the rest. Every job ends exactly once.
func TestProcess_SIGTERM_EveryJobEndsExactlyOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 120
	keys := make([]jobs.Key, n)
	a := e.startWorker("A", procOpts{faults: "classify=pause:40ms", logLevel: "info"})
	for i := range keys {
		keys[i] = mustKey(t, "acme", fmt.Sprintf("batch-%03d", i), 1)
		e.submit(keys[i], readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	}
	redistest.Eventually(t, 30*time.Second, func() bool {
		return a.MetricOrZero(metricJobs, outcome(OutcomeSucceeded)) >= 15
	}, "A is mid-batch")
	a.Signal(syscall.SIGTERM)
	st := a.Wait(40 * time.Second)
	require.True(t, st.Success(), "graceful stop exits 0, got %v", st)

	doneByA := 0
	for _, k := range keys {
		j := e.job(k)
		require.NotEqual(t, jobs.StateRunning, j.State, "A finished every handler it started (%s)", k)
		if j.State == jobs.StateSucceeded {
			doneByA++
			_, err := e.store.GetReview(e.ctx, k)
			require.NoError(t, err, "A drained the relay before exiting: %s has its review", k)
		}
	}
	require.Less(t, doneByA, n, "SIGTERM landed mid-batch")

	e.startWorker("B", procOpts{logLevel: "info"})
	for _, k := range keys {
		e.waitReview(k, 60*time.Second)
	}
	for _, k := range keys {
		j := e.requireExactlyOnce(k)
		require.Equal(t, 1, j.Attempt, k.String())
		require.Zero(t, j.Recoveries, k.String())
	}
	require.Empty(t, e.archived())
}
