package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// Kind is the class of a failed attempt. Every error is exactly one kind.
type Kind int

// The kinds of failure, each with its own retry and dead-letter rule.
const (
	// KindTransient: retry with backoff while business attempts remain.
	KindTransient Kind = iota + 1
	// KindPermanent: dead-letter now.
	KindPermanent
	// KindCancelled: the job's absolute deadline has passed; terminal, not
	// dead-lettered.
	KindCancelled
)

// String returns "transient", "permanent" or "cancelled".
func (k Kind) String() string {
	switch k {
	case KindTransient:
		return "transient"
	case KindPermanent:
		return "permanent"
	case KindCancelled:
		return "cancelled"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Codes the worker writes to job records or returns to Asynq in addition to
// the jobs.Code* ones. Like those, they are short and never quote content.
const (
	// CodeAttemptTimeout: the attempt ran out of its own time budget.
	CodeAttemptTimeout = "attempt_timeout"
	// CodeUnavailable: the store could not be reached; nothing was recorded
	// and the task is retried without counting as a failure.
	CodeUnavailable = "store_unavailable"
	// CodeInvalidTask: the task payload does not name a valid job.
	CodeInvalidTask = "invalid_task"
	// CodeInputExpired: the job's stored input no longer exists.
	CodeInputExpired = "input_expired"
	// CodeIdempotencyConflict: the job's payload changed under the attempt.
	CodeIdempotencyConflict = "idempotency_conflict"
	// CodeModelSetup: the extractor reported extract.ErrSetup without a
	// model error code of its own (the model extractor's are
	// extract.CodeModelUnauthorized and extract.CodeModelNotFound).
	CodeModelSetup = "model_setup_refused"
)

// ReasonOther is the errorReason and metric label of a rejection whose
// reason is not one of extract.Reasons(): the set stays bounded.
const ReasonOther = "other"

// Sentinels for the worker's own failures (fault injection, publishing).
// Extractors use extract's: a *extract.Rejection or extract.ErrPermanent is
// permanent, extract.ErrTransient or anything else transient, and
// extract.ErrSetup puts the job back uncounted (see attempt.hold).
var (
	// ErrPermanent marks a failure that no retry can fix.
	ErrPermanent = errors.New("worker: permanent failure")
	// ErrTransient marks a failure that a later attempt may not have.
	ErrTransient = errors.New("worker: transient failure")
	// ErrDeadlinePassed means the job's absolute deadline (deadlineAt) has
	// passed: the job is cancelled.
	ErrDeadlinePassed = errors.New("worker: job deadline passed")
)

// CodeError is what the handler returns to Asynq. Asynq stores Error()
// verbatim as the task's LastErr and asynqmon shows it, so Error() is exactly
// the code and nothing else. A CodeError that is not Retry unwraps to
// asynq.SkipRetry, so Asynq archives the task at once; wrapping with %w
// instead would store "permanent_error: skip retry for the task".
type CodeError struct {
	Code string
	// Retry is true for codes Asynq should retry (the job record is
	// retrying, or nothing could be recorded); false for dead-letter codes.
	Retry bool
	// Uncounted marks a retry that is not a failure of the job: the store
	// was unreachable, or the attempt was released because the model
	// endpoint refuses the deployment's settings. IsFailure is false for it.
	Uncounted bool
	// RetryAfter is the least delay before the retry (an endpoint's
	// Retry-After, the credentials cool-down); 0 leaves the backoff alone.
	RetryAfter time.Duration
}

func (e *CodeError) Error() string { return e.Code }

// Unwrap returns asynq.SkipRetry for a dead-letter code, nil otherwise.
func (e *CodeError) Unwrap() error {
	if e.Retry {
		return nil
	}
	return asynq.SkipRetry
}

// deadLetter returns the CodeError for a job that is dead-lettered with code.
func deadLetter(code string) error { return &CodeError{Code: code} }

// retryLater returns the CodeError for an attempt Asynq should retry.
func retryLater(code string) error { return &CodeError{Code: code, Retry: true} }

// Classify returns the kind of err. Cancelled: ErrDeadlinePassed. Permanent:
// a *extract.Rejection or extract.ErrPermanent (which every rejection
// wraps), ErrPermanent, asynq.SkipRetry (so a dead-letter CodeError stays
// one) or a recovered panic. Everything else, including
// extract.ErrTransient, an attempt timeout (context.DeadlineExceeded) and
// unknown errors, is transient: the record's attempt limit bounds the
// retries. (extract.ErrSetup is transient here; the handler releases such
// an attempt instead of failing it.)
func Classify(err error) Kind {
	switch {
	case errors.Is(err, ErrDeadlinePassed):
		return KindCancelled
	case errors.Is(err, extract.ErrPermanent), errors.Is(err, ErrPermanent), errors.Is(err, asynq.SkipRetry), isPanic(err):
		return KindPermanent
	}
	return KindTransient
}

// codeOf returns the redacted code recorded for err of kind k.
func codeOf(err error, k Kind) string {
	var ce *CodeError
	var pe *panicError
	switch {
	case k == KindCancelled:
		return jobs.CodeDeadlineExceeded
	case errors.As(err, &pe):
		return jobs.CodeInternal
	case errors.As(err, &ce):
		return ce.Code
	case k == KindPermanent:
		return jobs.CodePermanent
	case modelError(err) != nil:
		return modelError(err).Code // model_rate_limited, model_timeout, …
	case errors.Is(err, context.DeadlineExceeded):
		return CodeAttemptTimeout
	}
	return jobs.CodeTransient
}

// modelError is the *extract.ModelError in err's chain, or nil.
func modelError(err error) *extract.ModelError {
	var me *extract.ModelError
	if errors.As(err, &me) {
		return me
	}
	return nil
}

// Permanent marks err as permanent (errors.Is(Permanent(err), ErrPermanent)),
// keeping err in the chain. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, mark: ErrPermanent}
}

// Transient marks err as transient, keeping err in the chain.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, mark: ErrTransient}
}

type markedError struct {
	err  error
	mark error
}

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.mark, e.err} }

// panicError is a panic recovered by the handler. Value may quote content:
// it is logged at debug level only.
type panicError struct {
	Value any
	Stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

func isPanic(err error) bool {
	var pe *panicError
	return errors.As(err, &pe)
}

// Reason returns the rejection reason of err: its *extract.Rejection's code
// when it is one of extract.Reasons(), ReasonOther for a rejection with
// another code, "" when err is not a rejection. It is bounded and never
// quotes content: safe for the job record, logs at info level and metric
// labels.
func Reason(err error) string {
	var r *extract.Rejection
	switch {
	case !errors.As(err, &r):
		return ""
	case extract.ValidReason(r.Reason):
		return r.Reason
	}
	return ReasonOther
}
