package jobs

import "time"

// SubmitRequest is one job submission.
type SubmitRequest struct {
	Key     Key
	Content string // the business payload; hashed, stored (encrypted when a data key is set)
	Limits  Limits
	// RequestID, when set, makes a replay of the same request answer exactly as
	// the original did (a client retrying after a lost response).
	RequestID string
}

// SubmitResult is the answer to Submit.
type SubmitResult struct {
	Job     *Job
	Deduped bool // an identical payload was already submitted under this key
}

// Claim is the answer to Store.Claim. When State is StateRunning the caller
// owns the attempt and must carry Fence on every later write; any other State
// is terminal (possibly reached by this very claim: past the deadline →
// cancelled, over the recovery cap → dead_lettered/crash_loop).
type Claim struct {
	State       State
	ErrorCode   string
	Fence       int64
	Attempt     int
	Recoveries  int
	Recovered   bool   // the job was found running: a crash recovery, not a new attempt
	PayloadHash string // hash of the input this attempt works on
	DeadlineAt  time.Time
	EnqueuedAt  time.Time // when the job last became runnable (queue wait starts)
	CreatedAt   time.Time // submission (end-to-end time starts); zero if only the ledger remains
	// EndedNow is set on a terminal answer when this very claim ended the
	// job (past its deadline, or over its recovery cap).
	EndedNow bool
	// Input is the decrypted stored input, read by the same script;
	// InputExpired is set when it no longer exists.
	Input        string
	InputExpired bool
	// Corrections are the operator's field overrides of a version made by
	// a reprocess with corrections (JSON), nil for any other; Base is what
	// they were judged over (JSON; nil when the version was made before
	// bases were kept, "null" when nothing was read): the worker judges the
	// same corrections over the same base.
	Corrections []byte
	Base        []byte
	// CorrectedBy is the operator who gave the corrections.
	CorrectedBy string
	// Checkpoints holds the stage outputs of earlier attempts (empty on a
	// first attempt), by stage name.
	Checkpoints map[string][]byte
}

// CommitResult is the answer to Store.Commit.
type CommitResult struct {
	EventID string
	Deduped bool // this exact commit had already been applied
}

// ReprocessRequest asks for a dead-lettered job to run again as the
// document's next version.
type ReprocessRequest struct {
	Key      Key    // the dead-lettered job
	Operator string // from the operator's credential, never from a request body
	Reason   string
	Content  *string // nil: reuse the dead job's input
	// Corrections, when not empty, are the operator's field overrides
	// (JSON, as the caller judged them): stored sealed on the new job with
	// Base, what the caller judged them over (JSON), so the worker judges
	// the same inputs. The new version's payload hash covers the input and
	// the corrections, not the base (CorrectedPayloadHash), so the same
	// corrections again repeat and others conflict.
	Corrections []byte
	Base        []byte
	// Changes is what the audit entry records of each corrected field
	// (JSON: its name, the value read, the value given), sealed.
	Changes []byte
	// Overruled is the reason code the corrections overrule
	// ("not_an_invoice"), recorded in the audit entry; "" for none.
	Overruled string
}

// ReprocessResult is the answer to Store.Reprocess.
type ReprocessResult struct {
	Job    *Job // the new job
	Repeat bool // the same reprocess had already been done; Job is the one it created
}

// Review is the human-review record of one succeeded job version. Its ID is
// the job key.
type Review struct {
	Key       Key
	EventID   string
	Status    string // pending, approved, rejected
	Operator  string
	Note      string
	CreatedAt time.Time
	DecidedAt time.Time
	// Match is what the duplicate check found when the review was created:
	// a possible duplicate, the invoice a credit note refers to; nil for
	// nothing.
	Match *Match
}

// Review statuses and decisions.
const (
	ReviewPending  = "pending"
	ReviewApproved = "approved"
	ReviewRejected = "rejected"
)

// ApplyResult is the answer of the review consumer for one event.
type ApplyResult struct {
	Applied bool
	Reason  string // "duplicate_event" when not applied
}

// AuditEntry is one line of the audit trail.
type AuditEntry struct {
	ID             string
	Action         string // submitted, reprocessed, review_decided
	Tenant         string
	JobKey         string
	NewJobKey      string // reprocessed: the new job
	Operator       string
	Reason         string // reprocessed: the operator's reason
	Decision       string // review_decided: ReviewApproved or ReviewRejected
	OldPayloadHash string
	NewPayloadHash string
	// At is when the entry was written: its caller's clock, or a little
	// later when its shard held a later entry already; the audit list is
	// newest first by it, across shards.
	At time.Time
	// Note is a review decision's note.
	Note string
	// Changes are the corrected fields of a reprocess or a decision with
	// corrections (JSON: field, old, new): document data, for operators
	// only. Overruled is the reason code a reprocess overruled.
	Changes   []byte
	Overruled string
}

// Audit actions.
const (
	AuditSubmitted     = "submitted"
	AuditReprocessed   = "reprocessed"
	AuditReviewDecided = "review_decided"
)

// ListOptions filters and pages GET /v1/jobs. Tenant is required.
type ListOptions struct {
	Tenant     string
	State      State  // optional
	DocumentID string // optional
	Cursor     string // opaque, from a previous page
	Limit      int    // default 50, max 500
}

// DLQOptions filters and pages the dead-letter list. Tenant is optional
// (operators see every tenant).
type DLQOptions struct {
	Tenant             string
	IncludeReprocessed bool
	Cursor             string
	Limit              int
}

// ReviewOptions filters and pages one tenant's reviews (Tenant), or those
// of several (Tenants, when Tenant is ""). One of them is required.
type ReviewOptions struct {
	Tenant  string
	Tenants []string
	Status  string // optional
	Oldest  bool   // oldest first; default newest first
	Cursor  string
	Limit   int
}

// AuditOptions filters and pages the audit trail; every filter is optional.
type AuditOptions struct {
	Tenant   string
	JobKey   string
	Action   string // one of the Audit* actions
	Operator string
	Cursor   string
	Limit    int
}

// JobPage is one page of jobs; NextCursor is "" on the last page.
type JobPage struct {
	Jobs       []*Job
	NextCursor string
}

// ReviewPage is one page of reviews.
type ReviewPage struct {
	Reviews    []*Review
	NextCursor string
}

// AuditPage is one page of the audit trail.
type AuditPage struct {
	Entries    []*AuditEntry
	NextCursor string
}

// Event is one outbox row as the relay reads it.
type Event struct {
	StreamID string // the row's ID in its shard's stream
	Shard    int
	Type     string // one of the Event* types
	Key      Key
	EventID  string // extraction.committed only
	At       time.Time
	// Code is the job's error code (job.dead_lettered, job.cancelled);
	// ErrorReason a rejected document's reason code (job.dead_lettered);
	// Decision the review decision (review.decided).
	Code, ErrorReason, Decision string
	// CorrectedFields names the fields a review.decided approval corrected
	// (names only).
	CorrectedFields []string
	// Fingerprint is an extraction.committed row's duplicate fingerprint
	// and DocumentType its result's type ("" when its result is no booked
	// document).
	Fingerprint, DocumentType string
	// Match is what the review consumer found of the fingerprint before
	// it applied the review (nil: nothing to record).
	Match *Match
}

// Match is what the duplicate check found of a committed document: a
// possible duplicate of an earlier one, and the invoice a credit note
// refers to.
type Match struct {
	// Strength is DuplicateStrong (the same supplier, number and total:
	// an approval must name the first job) or DuplicateWeak (the same
	// number with another total, or the same total and date with another
	// number: shown, not blocking); "" for no duplicate.
	Strength string
	Of       Key      // the first document's job
	Matched  []string // "number", "total", "date"
	// Credits is the job of the invoice a credit note refers to, when
	// relayops has it.
	Credits *Key
}

// Duplicate strengths.
const (
	DuplicateStrong = "strong"
	DuplicateWeak   = "weak"
)

// Outbox event types.
const (
	EventJobSubmitted        = "job.submitted"
	EventExtractionCommitted = "extraction.committed"
	// The terminal and review events: consumed only by the webhook
	// notifier (a job's success is its extraction.committed event).
	EventJobDeadLettered = "job.dead_lettered"
	EventJobCancelled    = "job.cancelled"
	EventReviewDecided   = "review.decided"
)
