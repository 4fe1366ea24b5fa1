package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

func requireCode(t *testing.T, err error, code string, retry bool) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, err.Error(), "Asynq's LastErr is exactly the code")
	require.Equal(t, !retry, errors.Is(err, asynq.SkipRetry), "SkipRetry")
}

func (b *bundle) outcomes(outcome string) float64 {
	return counterValue(b.metrics, "relayops_worker_jobs_total", "outcome", outcome)
}

func TestHandler_ValidInvoice_CommitsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "inv-1", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	require.Equal(t, 1, j.Attempt)
	require.NotEmpty(t, j.EventID)
	res, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, "124.80", inv.Total)
	for _, s := range Stages {
		require.Equal(t, 1, b.x.called(s), s)
	}
	require.Equal(t, 1.0, b.outcomes(OutcomeSucceeded))
}

func TestHandler_TransientThreeTimes_DeadLettersMaxAttemptsExceeded(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "flaky", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageExtract, func(context.Context) ([]byte, error) { return nil, errors.New("model overloaded") })

	for attempt := 1; attempt <= 2; attempt++ {
		requireCode(t, b.deliver(k), jobs.CodeTransient, true)
		j := b.job(t, k)
		require.Equal(t, jobs.StateRetrying, j.State, "attempt %d", attempt)
		require.Equal(t, attempt, j.Attempt)
		require.Equal(t, jobs.CodeTransient, j.ErrorCode)
	}
	requireCode(t, b.deliver(k), jobs.CodeMaxAttemptsExceeded, false)
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, jobs.CodeMaxAttemptsExceeded, j.ErrorCode)
	require.Equal(t, 3, j.Attempt)

	// Asynq would not deliver again, but a stray redelivery must not start a
	// fourth attempt: it gets the same code and the task is archived again.
	requireCode(t, b.deliver(k), jobs.CodeMaxAttemptsExceeded, false)
	require.Equal(t, 3, b.job(t, k).Attempt)
	require.Equal(t, 3, b.x.called(StageExtract), "never a fourth attempt")
	require.Equal(t, 1, b.x.called(StageClassify), "classify was checkpointed on attempt 1")
	require.Equal(t, 2.0, b.outcomes(OutcomeRetried))
	require.Equal(t, 2.0, b.outcomes(OutcomeDeadLettered))
}

func TestHandler_Permanent_DeadLettersOnAttemptOne(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "memo", 1)
	b.submit(t, k, readSample(t, "invalid-not-an-invoice.txt"), 0)

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, jobs.CodePermanent, j.ErrorCode)
	require.Equal(t, 1, j.Attempt)
	require.Equal(t, extract.ReasonNotAnInvoice, j.ErrorReason, "the record says what to correct")
	dlq, err := b.store.ListDLQ(b.ctx, jobs.DLQOptions{})
	require.NoError(t, err)
	require.Len(t, dlq.Jobs, 1)
	require.Equal(t, extract.ReasonNotAnInvoice, dlq.Jobs[0].ErrorReason)
	require.Len(t, b.logLines(t, map[string]string{"msg": "attempt failed", "reason": "not_an_invoice", "code": "permanent_error"}), 1,
		"the attempt's info line carries the reason")
	require.Equal(t, 1.0, counterValue(b.metrics, "relayops_jobs_rejected_total", "reason", "not_an_invoice"))
}

func TestHandler_PickedUpPastDeadline_CancelsAndAcks(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "late", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), time.Minute)
	b.clock.Advance(2 * time.Minute)

	require.NoError(t, b.deliver(k), "cancelled is terminal and acked, never archived")

	j := b.job(t, k)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Equal(t, jobs.CodeDeadlineExceeded, j.ErrorCode)
	for _, s := range Stages {
		require.Zero(t, b.x.called(s), s)
	}
	dlq, err := b.store.ListDLQ(b.ctx, jobs.DLQOptions{IncludeReprocessed: true})
	require.NoError(t, err)
	require.Empty(t, dlq.Jobs, "a cancelled job is not in the DLQ")
	require.NoError(t, b.deliver(k), "a redelivery acks too")
}

func TestHandler_DeadlinePassesDuringAttempt_Cancels(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "slow", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), time.Minute)
	b.x.on(StageExtract, func(ctx context.Context) ([]byte, error) {
		b.clock.Advance(2 * time.Minute)
		return nil, Transient(errors.New("gave up"))
	})

	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Equal(t, jobs.CodeDeadlineExceeded, j.ErrorCode)
	require.Equal(t, 1.0, b.outcomes(OutcomeCancelled))
}

func TestHandler_AttemptTimeout_IsTransient(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{attemptTimeout: 20 * time.Millisecond})
	k := mustKey(t, "acme", "stuck", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageExtract, func(ctx context.Context) ([]byte, error) {
		<-ctx.Done() // the attempt's own deadline, well before Asynq's
		return nil, ctx.Err()
	})

	requireCode(t, b.deliver(k), CodeAttemptTimeout, true)

	j := b.job(t, k)
	require.Equal(t, jobs.StateRetrying, j.State)
	require.Equal(t, CodeAttemptTimeout, j.ErrorCode)
}

func TestHandler_StageIgnoringItsDeadline_ResultIsNotCommitted(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{attemptTimeout: 20 * time.Millisecond})
	k := mustKey(t, "acme", "deaf", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageValidate, func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		return []byte(`{"late":true}`), nil // finishes, but after the deadline
	})

	requireCode(t, b.deliver(k), CodeAttemptTimeout, true)
	require.Equal(t, jobs.StateRetrying, b.job(t, k).State)
}

func TestHandler_CheckpointResume_DoesNotCallCompletedStagesAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "resume", 1)
	b.submit(t, k, readSample(t, "valid-tax-usd.txt"), 0)
	fail := true
	b.x.on(StageValidate, func(ctx context.Context) ([]byte, error) {
		if fail {
			fail = false
			return nil, errors.New("validator unavailable")
		}
		return []byte(`{"ok":true}`), nil
	})

	requireCode(t, b.deliver(k), jobs.CodeTransient, true)
	ckpts, err := b.store.Checkpoints(b.ctx, k)
	require.NoError(t, err)
	require.Contains(t, ckpts, StageClassify)
	require.Contains(t, ckpts, StageExtract)
	require.NotContains(t, ckpts, StageValidate)

	require.NoError(t, b.deliver(k))

	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
	require.Equal(t, 1, b.x.called(StageClassify))
	require.Equal(t, 1, b.x.called(StageExtract))
	require.Equal(t, 2, b.x.called(StageValidate))
	res, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(res))
}

// A crash (here: the kill fault ends the handler's goroutine) after a
// checkpoint leaves the job running; the redelivery is a recovery that does
// not count an attempt and resumes after the checkpoint.
func TestHandler_CrashAfterExtract_RecoveryResumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "after_extract=kill#1"})
	b.handler.faults.kill = runtime.Goexit
	k := mustKey(t, "acme", "crash", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	done := make(chan struct{})
	go func() { defer close(done); _ = b.deliver(k) }()
	<-done
	j := b.job(t, k)
	require.Equal(t, jobs.StateRunning, j.State, "a crash leaves the job running")

	require.NoError(t, b.deliver(k))

	j = b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	require.Equal(t, 1, j.Attempt, "a recovery is not a business attempt")
	require.Equal(t, 1, j.Recoveries)
	require.Equal(t, 1, b.x.called(StageClassify))
	require.Equal(t, 1, b.x.called(StageExtract))
	require.Equal(t, 1, b.x.called(StageValidate))
}

func TestHandler_TerminalRedelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ok := mustKey(t, "acme", "done", 1)
	b.submit(t, ok, readSample(t, "valid-basic-eur.txt"), 0)
	require.NoError(t, b.deliver(ok))
	dead := mustKey(t, "acme", "dead", 1)
	b.submit(t, dead, readSample(t, "invalid-bad-date.txt"), 0)
	requireCode(t, b.deliver(dead), jobs.CodePermanent, false)
	late := mustKey(t, "acme", "late", 1)
	b.submit(t, late, readSample(t, "valid-basic-eur.txt"), time.Second)
	b.clock.Advance(time.Minute)
	require.NoError(t, b.deliver(late))
	calls := b.x.called(StageClassify)

	require.NoError(t, b.deliver(ok), "succeeded: ack")
	requireCode(t, b.deliver(dead), jobs.CodePermanent, false)
	require.NoError(t, b.deliver(late), "cancelled: ack")

	require.Equal(t, calls, b.x.called(StageClassify), "no stage runs for a terminal job")
	require.Equal(t, jobs.StateSucceeded, b.job(t, ok).State)
	require.Equal(t, jobs.StateDeadLettered, b.job(t, dead).State)
	require.Equal(t, jobs.StateCancelled, b.job(t, late).State)
	require.Equal(t, 1.0, b.outcomes(OutcomeDeduped))
}

func TestHandler_Panic_DeadLettersInternalError(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "bug", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageExtract, func(context.Context) ([]byte, error) {
		panic("extractor bug")
	})

	requireCode(t, b.deliver(k), jobs.CodeInternal, false)

	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, jobs.CodeInternal, j.ErrorCode)
	require.Contains(t, b.logs.String(), "handler panicked")
}

func TestHandler_StageOutputNotJSON_IsInternalError(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "garbled", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.x.on(StageClassify, func(context.Context) ([]byte, error) { return []byte("not json"), nil })

	requireCode(t, b.deliver(k), jobs.CodeInternal, false)
	require.Equal(t, jobs.StateDeadLettered, b.job(t, k).State)
}

// Another invocation claims the job while this one runs (a zombie's lease
// was handed over): this one's writes are rejected as stale, it changes
// nothing and acks.
func TestHandler_StaleFence_ChangesNothingAndAcks(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "zombie", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	var other *jobs.Claim
	b.x.on(StageExtract, func(ctx context.Context) ([]byte, error) {
		var err error
		other, err = b.store.Claim(ctx, k, "the-other-worker")
		return []byte(`{"zombie":true}`), err
	})

	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateRunning, j.State, "the new owner still runs it")
	require.Equal(t, other.Fence, j.Fence)
	ckpts, err := b.store.Checkpoints(b.ctx, k)
	require.NoError(t, err)
	require.NotContains(t, ckpts, StageExtract, "the stale checkpoint did not land")
	require.Equal(t, 1.0, b.outcomes(OutcomeStale))
}

func TestHandler_UnknownJob_Acks(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.NoError(t, b.deliver(mustKey(t, "acme", "ghost", 1)))
	require.Equal(t, 1.0, b.outcomes(OutcomeNotFound))
}

func TestHandler_InvalidPayload_ArchivesInvalidTask(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, p := range []string{`not json`, `{}`, `{"jobKey":"no-tenant"}`} {
		err := b.handler.ProcessTask(b.ctx, asynq.NewTask(task.TypeExtract, []byte(p)))
		requireCode(t, err, CodeInvalidTask, false)
	}
}

func TestHandler_FaultBeforeClaim_FailsTheClaimedAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "before_claim=transient#1"})
	k := mustKey(t, "acme", "fault", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	requireCode(t, b.deliver(k), jobs.CodeTransient, true)
	j := b.job(t, k)
	require.Equal(t, jobs.StateRetrying, j.State, "record and Asynq agree: both retry")
	require.Equal(t, 1, j.Attempt)
	require.NoError(t, b.deliver(k))
	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
}

func TestHandler_FaultAfterCommit_RedeliveryDedupes(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{faults: "after_commit_before_ack=transient#1"})
	k := mustKey(t, "acme", "ackless", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)

	requireCode(t, b.deliver(k), jobs.CodeTransient, true)
	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
	require.NoError(t, b.deliver(k))
	require.Equal(t, 1, b.x.called(StageValidate))
	require.Equal(t, 1.0, b.outcomes(OutcomeDeduped))
}

func TestHandler_StoreUnreachable_RetriesWithoutRecording(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "outage", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	b.mini.SetError("LOADING Redis is loading the dataset in memory")

	err := b.deliver(k)
	requireCode(t, err, CodeUnavailable, true)
	require.False(t, IsFailure(err), "Asynq does not count it against MaxRetry")

	b.mini.SetError("")
	require.Equal(t, jobs.StateQueued, b.job(t, k).State)
	require.NoError(t, b.deliver(k))
	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
}

// The document and the underlying error both carry a secret. It must not
// reach what Asynq stores (the returned error), the logs at info level, or
// the job record.
func TestHandler_Redaction_SecretNeverLeavesTheDocument(t *testing.T) {
	t.Parallel()
	const secret = "SSN-078-05-1120"
	content := strings.Replace(readSample(t, "valid-basic-eur.txt"), "Northwind Traders GmbH", "Northwind "+secret, 1)
	for _, tt := range []struct {
		name  string
		err   error
		code  string
		retry bool
	}{
		{"permanent", Permanent(fmt.Errorf("vendor %q is on a sanctions list", secret)), jobs.CodePermanent, false},
		{"transient", fmt.Errorf("upstream said: cannot read %s", secret), jobs.CodeTransient, true},
		{"rejection", fmt.Errorf("vendor %q: %w", secret, extract.Reject("invalid_field:vendor")), jobs.CodePermanent, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
				b := setup(t, &setupOpts{logLevel: level})
				k := mustKey(t, "acme", "secret-"+tt.name, 1)
				b.submit(t, k, content, 0)
				b.x.on(StageValidate, func(context.Context) ([]byte, error) { return nil, tt.err })

				err := b.deliver(k)

				requireCode(t, err, tt.code, tt.retry)
				require.NotContains(t, err.Error(), secret)
				require.NotContains(t, fmt.Sprintf("%+v", b.job(t, k)), secret)
				for field, v := range b.jobHash(t, k) {
					require.NotContains(t, v, secret, "job record field %s", field)
				}
				if level == slog.LevelInfo {
					require.NotContains(t, b.logs.String(), secret, "info logs")
					require.Contains(t, b.logs.String(), `"job_key":"acme:secret-`+tt.name+`:v1"`)
				} else {
					// The test can fail: at debug the raw error is logged.
					require.Contains(t, b.logs.String(), secret, "debug logs carry the raw error")
				}
			}
		})
	}
}

func TestHandler_LogsCarryTenantJobKeyAttemptAndFence(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "globex", "doc-7", 2)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	require.NoError(t, b.deliver(k))

	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.logs.String()), "\n") {
		require.NoError(t, json.Unmarshal([]byte(l), &line))
		if line["msg"] == "job succeeded" {
			break
		}
	}
	require.Equal(t, "job succeeded", line["msg"])
	require.Equal(t, "globex", line["tenant"])
	require.Equal(t, "globex:doc-7:v2", line["job_key"])
	require.EqualValues(t, 1, line["attempt"])
	require.EqualValues(t, 1, line["fence"])
	require.NotEmpty(t, line["event_id"])
}
