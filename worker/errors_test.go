package worker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
)

func TestClassify_EveryErrorHasExactlyOneKindAndARedactedCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		kind Kind
		code string
	}{
		{"unknown error", errors.New("connection reset"), KindTransient, jobs.CodeTransient},
		{"marked transient", Transient(errors.New("llm overloaded")), KindTransient, jobs.CodeTransient},
		{"wrapped ErrTransient", fmt.Errorf("x: %w", ErrTransient), KindTransient, jobs.CodeTransient},
		{"attempt timeout", fmt.Errorf("stage: %w", context.DeadlineExceeded), KindTransient, CodeAttemptTimeout},
		{"cancelled context", context.Canceled, KindTransient, jobs.CodeTransient},
		{"marked permanent", Permanent(errors.New("bad scan")), KindPermanent, jobs.CodePermanent},
		{"wrapped ErrPermanent", fmt.Errorf("x: %w", ErrPermanent), KindPermanent, jobs.CodePermanent},
		{"rejection", extract.Reject(extract.ReasonTotalMismatch), KindPermanent, jobs.CodePermanent},
		{"wrapped rejection", fmt.Errorf("stage: %w", extract.Reject(extract.ReasonNotAnInvoice)), KindPermanent, jobs.CodePermanent},
		{"extract.ErrPermanent", fmt.Errorf("model: %w", extract.ErrPermanent), KindPermanent, jobs.CodePermanent},
		{"extract.ErrTransient", fmt.Errorf("model: %w", extract.ErrTransient), KindTransient, jobs.CodeTransient},
		{"transient fault", &FaultError{Point: PointExtract, Action: ActionTransient}, KindTransient, jobs.CodeTransient},
		{"permanent fault", &FaultError{Point: PointExtract, Action: ActionPermanent}, KindPermanent, jobs.CodePermanent},
		{"dead-letter code", deadLetter(CodeInputExpired), KindPermanent, CodeInputExpired},
		{"retry code", retryLater(CodeUnavailable), KindTransient, CodeUnavailable},
		{"asynq.SkipRetry", fmt.Errorf("x: %w", asynq.SkipRetry), KindPermanent, jobs.CodePermanent},
		{"panic", &panicError{Value: "boom"}, KindPermanent, jobs.CodeInternal},
		{"deadline passed", ErrDeadlinePassed, KindCancelled, jobs.CodeDeadlineExceeded},
		{"deadline passed wins over permanent", errors.Join(ErrDeadlinePassed, ErrPermanent), KindCancelled, jobs.CodeDeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := Classify(tt.err)
			require.Equal(t, tt.kind, k)
			require.Equal(t, tt.code, codeOf(tt.err, k))
		})
	}
}

func TestCodeError_ErrorIsExactlyTheCode(t *testing.T) {
	t.Parallel()
	dead := deadLetter(jobs.CodePermanent)
	require.Equal(t, "permanent_error", dead.Error(), "Asynq stores Error() verbatim as LastErr")
	require.ErrorIs(t, dead, asynq.SkipRetry, "a dead-letter code must make Asynq archive at once")

	retry := retryLater(jobs.CodeTransient)
	require.Equal(t, "transient_error", retry.Error())
	require.NotErrorIs(t, retry, asynq.SkipRetry)
}

func TestReason_BoundedToTheFixedSet(t *testing.T) {
	t.Parallel()
	require.Equal(t, "total_mismatch", Reason(extract.Reject(extract.ReasonTotalMismatch)))
	require.Equal(t, "missing_field:total", Reason(fmt.Errorf("x: %w", extract.Reject("missing_field:total"))))
	require.Equal(t, ReasonOther, Reason(extract.Reject("vendor Acme is on a list")), "an unknown code never reaches a label")
	require.Empty(t, Reason(Permanent(errors.New("bad scan"))), "not a rejection")
	require.Empty(t, Reason(errors.New("x")))
}

func TestIsFailure_UncountedRetriesAreNotFailures(t *testing.T) {
	t.Parallel()
	require.False(t, IsFailure(retryLater(CodeUnavailable)))
	require.False(t, IsFailure(&CodeError{Code: extract.CodeModelUnauthorized, Retry: true, Uncounted: true}))
	require.True(t, IsFailure(retryLater(jobs.CodeTransient)))
	require.True(t, IsFailure(retryLater(CodeAttemptTimeout)))
	require.True(t, IsFailure(asynq.ErrLeaseExpired), "a crash counts: MaxRetry budgets recoveries")
	require.True(t, IsFailure(context.DeadlineExceeded))
}

func TestIsFailure_DeferredWebhookDelivery_IsNoFailure(t *testing.T) {
	t.Parallel()
	require.False(t, IsFailure(&webhook.AttemptError{Code: webhook.DeferCircuitOpen, Delay: time.Minute, Deferred: true}),
		"a deferral sent nothing: its attempt number stays")
	require.True(t, IsFailure(&webhook.AttemptError{Code: "timeout", Delay: time.Minute}))
}

func TestRetryDelay_ExponentialWithJitterCappedAtMax(t *testing.T) {
	t.Parallel()
	delay := RetryDelay(time.Second, 5*time.Minute)
	for range 200 {
		require.InDelta(t, 0.9*float64(time.Second), float64(delay(0, nil, nil)), 0.1*float64(time.Second), "first retry about 1s")
		require.InDelta(t, 0.9*float64(8*time.Second), float64(delay(3, nil, nil)), 0.1*float64(8*time.Second))
		d := delay(40, nil, nil)
		require.LessOrEqual(t, d, 5*time.Minute)
		require.GreaterOrEqual(t, d, 4*time.Minute)
		require.LessOrEqual(t, delay(1000, nil, nil), 5*time.Minute, "no overflow for large n")
	}
}

func TestRetryDelay_RetryAfterIsAFloorInWholeSecondsCappedAtMax(t *testing.T) {
	t.Parallel()
	delay := RetryDelay(time.Second, 5*time.Minute)
	for range 50 {
		require.Equal(t, 8*time.Second, delay(0, &CodeError{Code: "model_rate_limited", Retry: true, RetryAfter: 7 * time.Second}, nil),
			"Asynq truncates to whole seconds: one more than asked, never less")
		require.Equal(t, 2500*time.Millisecond, delay(0, &CodeError{Code: "model_rate_limited", Retry: true, RetryAfter: 1500 * time.Millisecond}, nil))
		require.Equal(t, 5*time.Minute, delay(0, &CodeError{Code: "model_rate_limited", Retry: true, RetryAfter: time.Hour}, nil), "capped at max")
		d := delay(6, &CodeError{Code: "model_rate_limited", Retry: true, RetryAfter: 2 * time.Second}, nil)
		require.GreaterOrEqual(t, d, 51*time.Second, "a longer backoff wins over a short Retry-After")
	}
}

func TestAsynqTimeout_RoundsUpToWholeSeconds(t *testing.T) {
	t.Parallel()
	require.Equal(t, 5*time.Minute+10*time.Second, AsynqTimeout(5*time.Minute, 10*time.Second))
	require.Equal(t, 3*time.Second, AsynqTimeout(1500*time.Millisecond, time.Second))
	require.Equal(t, 10, MaxRetry(3, 5))
}
