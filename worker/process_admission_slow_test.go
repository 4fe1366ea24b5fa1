//go:build linux && slow

package worker

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// Crash in the middle of admission: worker A is SIGKILLed by its own
// admitter right after its 8th Asynq enqueue (relay_after_enqueue_before_ack,
// which fires after each task of a publish, the relay's and the
// admitter's). The jobs are submitted before A starts, so its relay takes
// them in at once: the relay enqueues each tenant's first jobs itself, up
// to the cap (3 + 3, one more should a globex slot free up in between), and
// the rest wait, so the 8th enqueue is normally in an admitter step's
// batch: the step's admissions are in flight, enqueued or not counted as
// published, and A's relay may hold unacked outbox rows (in flight, so
// enqueued again by the next relay). Worker B is SIGKILLed by the test while its handlers are stalled
// in the middle of jobs (those stay running until Asynq's lease recovery).
// Worker C, started once both are dead and the running jobs' leases are
// recoverable, finishes the work: every job succeeds exactly once, and
// every tenant's waiting and in-flight counts return to zero (the prune
// republishes what A admitted but never published, and frees nothing that
// still runs).
func TestProcess_WorkerAndRelayKilledMidAdmission_EveryJobOnceAndCountsBackToZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var all []jobs.Key
	for i := range 12 {
		all = append(all, mustKey(t, "acme", fmt.Sprintf("crash-%02d", i), 1))
	}
	for i := range 4 {
		all = append(all, mustKey(t, "globex", fmt.Sprintf("crash-%d", i), 1))
	}
	capThree := []string{"RELAYOPS_TENANT_MAX_INFLIGHT=3"}
	for _, k := range all {
		e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	}
	// A may kill itself before its /healthz would answer: not waited for.
	a := e.startWorker("A", procOpts{faults: "relay_after_enqueue_before_ack=kill#8", env: capThree, logLevel: "info", unready: true})
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a.Wait(30*time.Second)), "A killed itself in its admitter")

	b := e.startWorker("B", procOpts{faults: "after_classify=pause:1m", env: capThree, logLevel: "info"})
	var running []jobs.Key
	redistest.Eventually(t, 30*time.Second, func() bool {
		running = running[:0]
		for _, k := range all {
			if e.job(k).State == jobs.StateRunning {
				running = append(running, k)
			}
		}
		return len(running) >= 2
	}, "B to be in the middle of jobs")
	b.Signal(syscall.SIGKILL)
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(b.Wait(10*time.Second)))

	for _, k := range all {
		if e.job(k).State == jobs.StateRunning {
			e.waitLeaseRecoverable(k.String())
		}
	}
	e.startWorker("C", procOpts{env: capThree, logLevel: "info"})
	for _, k := range all {
		e.waitState(k, jobs.StateSucceeded, 90*time.Second)
	}
	for _, k := range all {
		e.waitReview(k, 30*time.Second)
		e.requireExactlyOnce(k)
	}
	e.admissionIdle(30 * time.Second)
}
