package jobs

import (
	"errors"
	"slices"
	"time"
)

// State is a job's durable state. Terminal states are sticky: no script
// leaves them.
type State string

// The job states; their transitions are declared in schema.go.
const (
	StateQueued       State = "queued"
	StateRunning      State = "running"
	StateRetrying     State = "retrying"
	StateSucceeded    State = "succeeded"
	StateDeadLettered State = "dead_lettered"
	StateCancelled    State = "cancelled"
)

// States returns every state, in lifecycle order.
func States() []State { return slices.Clone(states) }

// Terminal reports whether s is succeeded, dead_lettered or cancelled: a
// state no script leaves.
func (s State) Terminal() bool { return slices.Contains(terminal, s) }

// Valid reports whether s is one of States().
func (s State) Valid() bool { return slices.Contains(states, s) }

// Error codes written to the job record and returned to Asynq. They are short
// and redacted: they never quote document content.
const (
	CodeDeadlineExceeded    = "deadline_exceeded"
	CodeCrashLoop           = "crash_loop"
	CodeMaxAttemptsExceeded = "max_attempts_exceeded"
	CodePermanent           = "permanent_error"
	CodeInternal            = "internal_error"
	CodeTransient           = "transient_error"
)

// Sentinel errors of the store.
var (
	ErrNotFound            = errors.New("jobs: job not found")
	ErrIdempotencyConflict = errors.New("jobs: idempotency conflict: same key, different payload")
	ErrStaleFence          = errors.New("jobs: stale fence")
	ErrNotDeadLettered     = errors.New("jobs: job is not dead-lettered")
	ErrJobCancelled        = errors.New("jobs: job is cancelled")
	ErrInputExpired        = errors.New("jobs: input expired")
	ErrResultExpired       = errors.New("jobs: result expired")
	ErrInvalidCursor       = errors.New("jobs: invalid cursor")
	ErrReviewNotFound      = errors.New("jobs: review not found")
	ErrReviewDecided       = errors.New("jobs: review already decided otherwise")
	// ErrPossibleDuplicate: the approval of a review marked as a strong
	// possible duplicate did not name the first job (DuplicateError says
	// which).
	ErrPossibleDuplicate = errors.New("jobs: possible duplicate: the approval must name the first job")
)

// DuplicateError is ErrPossibleDuplicate with the first job.
type DuplicateError struct{ Of Key }

func (e *DuplicateError) Error() string { return ErrPossibleDuplicate.Error() + " " + e.Of.String() }

// Is makes a DuplicateError match ErrPossibleDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrPossibleDuplicate }

// Limits are fixed on a job at submission. Their defaults are
// DefaultLimits, applied by WithDefaults: the zero Limits is DefaultLimits;
// in any other, zero MaxAttempts or Deadline take their default and zero
// MaxRecoveries means none.
type Limits struct {
	MaxAttempts   int           // business attempts, at least 1
	MaxRecoveries int           // crash recoveries before crash_loop, 0 or more
	Deadline      time.Duration // absolute deadline from submission, whole seconds, at least 1s
}

// Job is the durable status record of one job version. Times are zero when
// the event has not happened.
type Job struct {
	Key             Key
	State           State
	Attempt         int   // business attempts started
	Recoveries      int   // crash recoveries (claims of a job found running)
	Fence           int64 // current fencing token
	PayloadHash     string
	MaxAttempts     int
	MaxRecoveries   int
	DeadlineSeconds int64
	DeadlineAt      time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	EnqueuedAt      time.Time // last time the job became runnable (queued or retrying)
	StartedAt       time.Time // first claim
	FinishedAt      time.Time // terminal transition
	ErrorCode       string
	// ErrorReason is a dead-lettered document's rejection reason (a short
	// code such as total_mismatch, never content), "" for other failures
	// and once only the ledger entry remains.
	ErrorReason     string
	EventID         string // extraction.committed event, once succeeded
	ReprocessedFrom string // job key this one reprocesses
	ReprocessedAs   string // job key that reprocesses this one
	InputExpired    bool   // the stored input no longer exists
	ResultExpired   bool   // succeeded, but the result no longer exists
	RecordExpired   bool   // only the ledger entry remains: final state, hash, eventId, finish time
}
