//go:build linux

package worker

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/admission"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

const metricAdmission = "relayops_admission_jobs_total"

// admissionIdle waits until no tenant has a job waiting or in flight.
func (e *env) admissionIdle(timeout time.Duration) {
	e.t.Helper()
	redistest.Eventually(e.t, timeout, func() bool {
		ts, err := admission.Tenants(e.ctx, e.rdb)
		if err != nil {
			return false
		}
		for _, t := range ts {
			if t.Waiting != 0 || t.InFlight != 0 {
				return false
			}
		}
		return true
	}, "every tenant's waiting and in-flight counts to be zero")
}

// A job whose deadline passes while it waits for admission is cancelled by
// the admitter through the claim (deadline_exceeded), without a worker: no
// attempt, and Asynq never hears of it. The tenant's one slot (cap 1) is
// held by a job its handler keeps running (paused), so the late job waits
// rather than take Publish's fast path.
func TestProcess_DeadlinePassesWhileWaiting_CancelledByAdmission(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startWorker("A", procOpts{faults: "after_classify=pause:4s", env: []string{"RELAYOPS_TENANT_MAX_INFLIGHT=1"}})
	holder := mustKey(t, "acme", "holder", 1)
	e.submit(holder, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	e.waitState(holder, jobs.StateRunning, 20*time.Second)

	late := mustKey(t, "acme", "late", 1)
	past := e.newStore(clock.NewStub(time.Now().Add(-time.Hour)))
	_, err := past.Submit(e.ctx, jobs.SubmitRequest{Key: late, Content: readSample(t, "valid-basic-eur.txt"),
		Limits: jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Minute}})
	require.NoError(t, err)

	e.waitState(late, jobs.StateCancelled, 20*time.Second)
	j := e.job(late)
	require.Equal(t, jobs.CodeDeadlineExceeded, j.ErrorCode)
	require.Zero(t, j.Attempt)
	_, err = e.insp.GetTaskInfo(task.QueueExtract, late.String())
	require.True(t, errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound), "Asynq has no task: %v", err)
	// Counted when the admitter's step ends, just after the claim.
	redistest.Eventually(t, 5*time.Second, func() bool {
		return a.Metric(metricAdmission, map[string]string{"action": "cancelled"}) == 1
	}, "the admitter to count the cancellation")
	e.waitState(holder, jobs.StateSucceeded, 30*time.Second)
	require.Zero(t, a.Metric(metricJobs, outcome(OutcomeCancelled)), "no handler ran the late job")
	e.admissionIdle(10 * time.Second)
}

// Two workers admit concurrently with a cap of 2: a flood of one tenant and
// a few jobs of another all succeed exactly once, the flood never has more
// than 2 in flight, and the counts return to zero.
func TestProcess_TwoWorkersCapTwo_EveryJobOnceAndCountsBackToZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	capTwo := procOpts{env: []string{"RELAYOPS_TENANT_MAX_INFLIGHT=2"}, logLevel: "info"}
	e.startWorker("A", capTwo)
	e.startWorker("B", capTwo)
	var all []jobs.Key
	for i := range 30 {
		all = append(all, mustKey(t, "acme", fmt.Sprintf("flood-%02d", i), 1))
	}
	for i := range 3 {
		all = append(all, mustKey(t, "globex", fmt.Sprintf("quiet-%d", i), 1))
	}
	for _, k := range all {
		e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	}
	maxSeen := int64(0)
	redistest.Eventually(t, 60*time.Second, func() bool {
		ts, err := admission.Tenants(e.ctx, e.rdb)
		require.NoError(t, err)
		for _, tn := range ts {
			maxSeen = max(maxSeen, tn.InFlight)
		}
		for _, k := range all {
			if j, err := e.store.Get(e.ctx, k); err != nil || j.State != jobs.StateSucceeded {
				return false
			}
		}
		return true
	}, "every job to succeed")
	require.LessOrEqual(t, maxSeen, int64(2), "a tenant had more than its cap in flight")
	for _, k := range all {
		e.waitReview(k, 30*time.Second)
		e.requireExactlyOnce(k)
	}
	e.admissionIdle(10 * time.Second)
}

// A tenant's configured cap (100) is far above the worker's slots (4), but
// its in-flight jobs are held to the live slots and a queued quarter (5):
// a job of another tenant that arrives while the flood's long jobs hold
// every slot waits behind at most that quarter, not behind every job the
// configured cap would have queued in Asynq (all 12 here). The jobs last
// 4 s, so that the other tenant's job reaches Asynq (the relay's lag, on a
// loaded machine) well before the first ones end.
func TestProcess_FloodOfLongJobs_AnotherTenantStartsBehindAtMostTheQueuedQuarter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startWorker("A", procOpts{faults: "after_classify=pause:4s", logLevel: "info",
		env: []string{"RELAYOPS_CONCURRENCY=4"}})
	var flood []jobs.Key
	for i := range 12 {
		k := mustKey(t, "acme", fmt.Sprintf("long-%02d", i), 1)
		e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
		flood = append(flood, k)
	}
	maxSeen := int64(0)
	watch := func() {
		ts, err := admission.Tenants(e.ctx, e.rdb)
		require.NoError(t, err)
		for _, tn := range ts {
			if tn.Tenant == "acme" {
				maxSeen = max(maxSeen, tn.InFlight)
			}
		}
	}
	redistest.Eventually(t, 20*time.Second, func() bool {
		watch()
		running := 0
		for _, k := range flood {
			if e.job(k).State == jobs.StateRunning {
				running++
			}
		}
		return running == 4
	}, "the flood to hold every slot")

	quiet := mustKey(t, "globex", "quiet", 1)
	e.submit(quiet, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	redistest.Eventually(t, 40*time.Second, func() bool {
		watch()
		return e.job(quiet).State == jobs.StateSucceeded
	}, "the other tenant's job to succeed")
	started := e.job(quiet).StartedAt
	before := 0
	for _, k := range flood {
		if j := e.job(k); !j.StartedAt.IsZero() && j.StartedAt.Before(started) {
			before++
		}
	}
	require.LessOrEqual(t, before, 5, "flood jobs started before the other tenant's: the 4 slots and the queued quarter at most")
	for _, k := range flood {
		e.waitState(k, jobs.StateSucceeded, 40*time.Second)
		watch()
	}
	require.LessOrEqual(t, maxSeen, int64(5), "the flood had more in flight than the live slots and a quarter")
	e.admissionIdle(10 * time.Second)
}
