//go:build linux && slow

package worker

import (
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// Asynq hands the task of a dead (or stopped) worker to another one only
// after the lease has been expired for 30 s and its recoverer's next pass
// (at start-up, then every minute): 60–170 s after the death. Asynq's lease
// is not configurable, so these tests wait: each waits for the lease to be
// 30 s past expiry and only then starts the rescuing worker, whose start-up
// pass recovers the task at once. They run in parallel, so the slow suite
// pays about one recovery (~65 s).

// waitLeaseRecoverable waits until Asynq's recoverer would hand task id to
// another worker: its lease expired more than 30 s ago.
func (e *env) waitLeaseRecoverable(id string) {
	e.t.Helper()
	redistest.Eventually(e.t, 2*time.Minute, func() bool { return e.leaseRecoverable(id) },
		"lease of %s to be recoverable", id)
}

// leaseRecoverable reports whether task id holds a lease that expired more
// than 30 s ago.
func (e *env) leaseRecoverable(id string) bool {
	k, err := jobs.ParseKey(id)
	require.NoError(e.t, err)
	score, err := e.rdb.ZScore(e.ctx, "asynq:{"+e.queue(k)+"}:lease", id).Result()
	return err == nil && time.Now().Unix() > int64(score)+31
}

// pendingRows counts k's delivered-but-unacked rows in the relay group of
// its shard.
func (e *env) pendingRows(k jobs.Key) int {
	e.t.Helper()
	stream, _ := e.outboxStream(k)
	pending, err := e.rdb.XPendingExt(e.ctx, &redis.XPendingExtArgs{Stream: stream, Group: jobs.RelayGroup, Start: "-", End: "+", Count: 1000}).Result()
	require.NoError(e.t, err)
	mine := e.outboxEvents(k)
	n := 0
	for _, p := range pending {
		if _, ok := mine[p.ID]; ok {
			n++
		}
	}
	return n
}

// Scenarios 1 and 7 share one recovery wait. Worker A1 is SIGKILLed at
// after_extract on job J7, worker A2 at after_commit_before_ack on job J1;
// worker B later receives both redeliveries. Worker A3 is SIGKILLed in its
// relay after enqueuing job J3 but before acking the outbox row; B's relay
// takes the row over and republishes it, which the TaskID absorbs.
func TestProcess_SIGKILL_RedeliveryDedupesAndResumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	j7 := mustKey(t, "acme", "kill-after-extract", 1)
	j1 := mustKey(t, "acme", "kill-after-commit", 1)
	j3 := mustKey(t, "acme", "kill-in-relay", 1)

	a1 := e.startWorker("A1", procOpts{faults: "after_extract=kill#1"})
	e.submit(j7, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a1.Wait(30*time.Second)))
	require.Equal(t, jobs.StateRunning, e.job(j7).State)

	a2 := e.startWorker("A2", procOpts{faults: "after_commit_before_ack=kill#1"})
	e.submit(j1, readSample(t, "valid-tax-usd.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a2.Wait(30*time.Second)))
	require.Equal(t, jobs.StateSucceeded, e.job(j1).State, "committed before the kill")
	for _, k := range []jobs.Key{j7, j1} {
		info, err := e.insp.GetTaskInfo(e.queue(k), k.String())
		require.NoError(t, err)
		require.Equal(t, asynq.TaskStateActive, info.State, "Asynq still thinks %s is running", k)
	}

	// A3 runs without tenant admission, so its relay always enqueues itself
	// (with admission, a job past its tenant's cap waits and the admitter
	// enqueues it: TestProcess_WorkerAndRelayKilledMidAdmission_... kills
	// it there).
	a3 := e.startWorker("A3", procOpts{faults: "relay_after_enqueue_before_ack=kill#1", env: []string{"RELAYOPS_TENANT_MAX_INFLIGHT=0"}})
	e.submit(j3, readSample(t, "valid-jpy-no-decimals.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a3.Wait(30*time.Second)))
	require.Equal(t, 1, e.pendingRows(j3), "the row was enqueued but never acked")
	toRecover := []jobs.Key{j7, j1}
	if info, err := e.insp.GetTaskInfo(e.queue(j3), j3.String()); err == nil && info.State == asynq.TaskStateActive {
		toRecover = append(toRecover, j3) // A3's processor picked it up before dying
	}

	for _, k := range toRecover {
		e.waitLeaseRecoverable(k.String())
	}
	b := e.startWorker("B", procOpts{})
	for _, k := range []jobs.Key{j7, j1, j3} {
		e.waitReview(k, time.Minute)
	}
	redistest.Eventually(t, time.Minute, func() bool { return e.pendingRows(j3) == 0 }, "B's relay took the row over and acked it")
	e.requireExactlyOnce(j3)
	for _, k := range []jobs.Key{j7, j1} {
		e.waitTask(k, asynq.TaskStateCompleted, 30*time.Second)
	}

	// Scenario 1: the redelivery of a committed job is a dedupe: B acked it
	// without claiming it (no new fence, no recovery) and so ran no stage.
	job1 := e.requireExactlyOnce(j1)
	require.Equal(t, 1, job1.Attempt)
	require.EqualValues(t, 1, job1.Fence, "only A2 ever claimed J1")
	require.Zero(t, job1.Recoveries)
	require.GreaterOrEqual(t, b.Metric(metricJobs, outcome(OutcomeDeduped)), 1.0, "B counted J1's redelivery as a dedupe")
	// Scenario 7: the rules extractor's stages are cheap and deterministic,
	// so none is checkpointed: the redelivery recomputes them and commits
	// the one result. (A checkpointed stage is never run again:
	// TestProcess_LLM_KilledAfterTheModelAnswered_NeverCallsItAgain.)
	job7 := e.requireExactlyOnce(j7)
	require.Equal(t, 1, job7.Attempt, "a crash recovery is not a business attempt")
	require.Equal(t, 1, job7.Recoveries)
	require.EqualValues(t, 2, job7.Fence, "A1's claim, then B's recovery")
	// Every job B committed ran each stage exactly once in B; the deduped
	// J1 ran none.
	committedByB := b.Metric(metricJobs, outcome(OutcomeSucceeded))
	require.GreaterOrEqual(t, committedByB, 1.0, "B committed J7")
	for _, s := range Stages {
		require.Equal(t, committedByB, b.Metric(metricStages, stage(s)), "B's %s runs: one per job it committed", s)
	}
}

// Scenario 2: worker A is stopped (SIGSTOP) inside an attempt past its
// lease; worker B recovers and completes the job; after SIGCONT, A's write
// (its commit) reaches Redis and is rejected as stale.
func TestProcess_Zombie_StaleWritesRejectedAfterSIGCONT(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := mustKey(t, "acme", "zombie", 1)
	a := e.startWorker("A", procOpts{faults: "after_claim=pause:5s#1"})
	e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	redistest.Eventually(t, 20*time.Second, func() bool {
		return a.MetricOrZero(metricFaults, point(PointAfterClaim)) == 1
	}, "A pauses inside the attempt")
	a.Signal(syscall.SIGSTOP)
	require.EqualValues(t, 1, e.job(k).Fence, "A holds fence 1")

	e.waitLeaseRecoverable(k.String())
	b := e.startWorker("B", procOpts{})
	e.waitReview(k, time.Minute)
	job := e.requireExactlyOnce(k)
	require.Equal(t, 2, int(job.Fence), "B claimed with a newer fence")
	require.Equal(t, 1, job.Recoveries)

	a.Signal(syscall.SIGCONT)
	redistest.Eventually(t, 30*time.Second, func() bool {
		return a.MetricOrZero(metricJobs, outcome(OutcomeStale)) >= 1
	}, "A's write is rejected as stale")
	require.Equal(t, 1.0, a.Metric(metricJobs, outcome(OutcomeStale)))

	after := e.requireExactlyOnce(k)
	require.Equal(t, job.EventID, after.EventID)
	require.Equal(t, job.FinishedAt, after.FinishedAt, "A changed nothing")
	// The rules extractor checkpoints nothing, so A's first write after
	// waking ends its attempt: its commit when its stages ran on, or the
	// failure of the attempt when Asynq's heartbeat, finding the lease
	// lost, cancelled its context first (a race on SIGCONT). Either is
	// refused for its stale fence, and A committed nothing.
	require.Zero(t, a.Metric(metricJobs, outcome(OutcomeSucceeded)))
	require.Zero(t, a.Metric(metricJobs, outcome(OutcomeRetried)))
	require.Equal(t, 1.0, b.Metric(metricStages, stage(StageValidate)))
	require.Equal(t, 1.0, b.Metric(metricJobs, outcome(OutcomeSucceeded)))
	a.Stop()
}
