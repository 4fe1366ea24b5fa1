package worker

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// crash delivers k once with the kill fault ending the handler's goroutine,
// as a SIGKILL would end the process: the job stays running.
func (b *bundle) crash(t *testing.T, k jobs.Key) {
	t.Helper()
	b.handler.faults.kill = runtime.Goexit
	done := make(chan struct{})
	go func() { defer close(done); _ = b.deliver(k) }()
	<-done
	require.Equal(t, jobs.StateRunning, b.job(t, k).State, "a crash leaves the job running")
}

// Only the stages the extractor calls expensive are written to the store.
func TestHandler_OnlyCheckpointedStagesAreStored(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.x.checkpoint(StageExtract)
	k := mustKey(t, "acme", "ckpt", 1)
	b.submit(t, k, readSample(t, "valid-tax-usd.txt"), 0)
	b.x.on(StageValidate, func(context.Context) ([]byte, error) { return nil, errors.New("validator unavailable") })

	requireCode(t, b.deliver(k), jobs.CodeTransient, true)

	ckpts, err := b.store.Checkpoints(b.ctx, k)
	require.NoError(t, err)
	require.Contains(t, ckpts, StageExtract)
	require.NotContains(t, ckpts, StageClassify, "a cheap stage is recomputed, not stored")
}

// A crash right after a cheap stage reruns it on recovery, and the job's
// result is the one a run without a crash gives.
func TestHandler_CrashAfterCheapStage_RerunsItWithTheSameResult(t *testing.T) {
	t.Parallel()
	content := readSample(t, "valid-basic-eur.txt")
	clean := setup(t, nil)
	clean.x.checkpoint()
	ck := mustKey(t, "acme", "clean", 1)
	clean.submit(t, ck, content, 0)
	require.NoError(t, clean.deliver(ck))
	want, err := clean.store.Result(clean.ctx, ck)
	require.NoError(t, err)

	b := setup(t, &setupOpts{faults: "after_extract=kill#1"})
	b.x.checkpoint() // the rules extractor checkpoints nothing
	k := mustKey(t, "acme", "crash-cheap", 1)
	b.submit(t, k, content, 0)
	b.crash(t, k)
	ckpts, err := b.store.Checkpoints(b.ctx, k)
	require.NoError(t, err)
	require.Empty(t, ckpts, "nothing was stored before the crash")

	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	require.Equal(t, 1, j.Attempt, "a recovery is not a business attempt")
	require.Equal(t, 1, j.Recoveries)
	require.Equal(t, 2, b.x.called(StageClassify), "recomputed")
	require.Equal(t, 2, b.x.called(StageExtract), "recomputed")
	require.Equal(t, 1, b.x.called(StageValidate))
	got, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got), "the same result as without the crash")
}

// A crash right after a checkpointed stage never runs it again.
func TestHandler_CrashAfterCheckpointedStage_DoesNotRunItAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "after_extract=kill#1"})
	b.x.checkpoint(StageExtract) // as the model extractor: classify is cheap
	k := mustKey(t, "acme", "crash-expensive", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.crash(t, k)

	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	require.Equal(t, 1, j.Recoveries)
	require.Equal(t, 2, b.x.called(StageClassify), "the cheap stage is recomputed")
	require.Equal(t, 1, b.x.called(StageExtract), "the checkpointed stage never runs twice")
	require.Equal(t, 1, b.x.called(StageValidate))
}

// A rejection whose reason is not in the fixed set is recorded and counted
// as "other": the errorReason values and the metric label stay bounded.
func TestHandler_RejectionWithAnUnknownReason_RecordedAsOther(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "odd", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageValidate, func(context.Context) ([]byte, error) {
		return nil, extract.Reject("vendor Northwind is blocked")
	})

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	j := b.job(t, k)
	require.Equal(t, jobs.CodePermanent, j.ErrorCode)
	require.Equal(t, ReasonOther, j.ErrorReason)
	require.Equal(t, 1.0, counterValue(b.metrics, "relayops_jobs_rejected_total", "reason", ReasonOther))
	require.NotContains(t, b.logs.String(), "Northwind")
}

// A permanent failure that is not a rejection has no reason.
func TestHandler_PermanentFailureThatIsNotARejection_HasNoReason(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "bad-request", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageExtract, func(context.Context) ([]byte, error) {
		return nil, Permanent(errors.New("endpoint refused the request"))
	})

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Empty(t, j.ErrorReason)
	for _, r := range append(extract.Reasons(), ReasonOther) {
		require.Zero(t, counterValue(b.metrics, "relayops_jobs_rejected_total", "reason", r), r)
	}
}
