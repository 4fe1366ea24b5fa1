package api

import (
	"encoding/json"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// timeFormat is RFC 3339 with milliseconds; times are always written in UTC.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// optTime returns nil for the zero time, so the member is omitted.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := formatTime(t)
	return &s
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func jobPath(id string) string    { return "/v1/jobs/" + id }
func reviewPath(id string) string { return "/v1/reviews/" + id }

// jobView is the JSON form of a job record. Job IDs need no escaping in a
// path: every character a key may hold is unreserved or ':'. A job whose
// record expired is answered from the idempotency ledger, which keeps the
// final state, error code and time only: the members it cannot know are
// omitted or zero.
type jobView struct {
	JobID            string          `json:"jobId"`
	Tenant           string          `json:"tenant"`
	DocumentID       string          `json:"documentId"`
	OperationVersion int64           `json:"operationVersion"`
	State            jobs.State      `json:"state"`
	Attempt          int             `json:"attempt"`
	Recoveries       int             `json:"recoveries"`
	MaxAttempts      int             `json:"maxAttempts"`
	MaxRecoveries    int             `json:"maxRecoveries"`
	DeadlineSeconds  int64           `json:"deadlineSeconds"`
	CreatedAt        *string         `json:"createdAt,omitempty"` // unknown once only the ledger remains
	UpdatedAt        string          `json:"updatedAt"`
	StartedAt        *string         `json:"startedAt,omitempty"`
	FinishedAt       *string         `json:"finishedAt,omitempty"`
	DeadlineAt       *string         `json:"deadlineAt,omitempty"` // unknown once only the ledger remains
	ErrorCode        *string         `json:"errorCode,omitempty"`
	ErrorReason      *string         `json:"errorReason,omitempty"`
	Result           json.RawMessage `json:"result,omitempty"`
	Extraction       *extract.Kept   `json:"extraction,omitempty"` // a content rejection: what was read
	ResultExpired    bool            `json:"resultExpired"`
	InputExpired     bool            `json:"inputExpired"`
	ReprocessedFrom  *string         `json:"reprocessedFrom,omitempty"`
	ReprocessedAs    *string         `json:"reprocessedAs,omitempty"`
	Deduped          *bool           `json:"deduped,omitempty"`
	Links            jobLinks        `json:"links"`
}

type jobLinks struct {
	Self            string  `json:"self"`
	ReprocessedFrom *string `json:"reprocessedFrom,omitempty"`
	ReprocessedAs   *string `json:"reprocessedAs,omitempty"`
	Review          *string `json:"review,omitempty"`
}

func newJobView(j *jobs.Job) jobView {
	id := j.Key.String()
	v := jobView{
		JobID:            id,
		Tenant:           j.Key.Tenant,
		DocumentID:       j.Key.DocumentID,
		OperationVersion: j.Key.Version,
		State:            j.State,
		Attempt:          j.Attempt,
		Recoveries:       j.Recoveries,
		MaxAttempts:      j.MaxAttempts,
		MaxRecoveries:    j.MaxRecoveries,
		DeadlineSeconds:  j.DeadlineSeconds,
		CreatedAt:        optTime(j.CreatedAt),
		UpdatedAt:        formatTime(j.UpdatedAt),
		StartedAt:        optTime(j.StartedAt),
		FinishedAt:       optTime(j.FinishedAt),
		DeadlineAt:       optTime(j.DeadlineAt),
		ErrorCode:        optString(j.ErrorCode),
		ErrorReason:      optString(j.ErrorReason),
		ResultExpired:    j.ResultExpired,
		InputExpired:     j.InputExpired,
		ReprocessedFrom:  optString(j.ReprocessedFrom),
		ReprocessedAs:    optString(j.ReprocessedAs),
		Links:            jobLinks{Self: jobPath(id)},
	}
	if j.ReprocessedFrom != "" {
		v.Links.ReprocessedFrom = optString(jobPath(j.ReprocessedFrom))
	}
	if j.ReprocessedAs != "" {
		v.Links.ReprocessedAs = optString(jobPath(j.ReprocessedAs))
	}
	if j.State == jobs.StateSucceeded && !j.ResultExpired { // reviews expire with results
		v.Links.Review = optString(reviewPath(id))
	}
	return v
}

// listView is the shape of every list answer.
type listView[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// newList is a page of views of items; nextCursor "" is the last page.
func newList[S, T any](items []S, nextCursor string, view func(S) T) listView[T] {
	out := make([]T, 0, len(items))
	for _, it := range items {
		out = append(out, view(it))
	}
	return listView[T]{Items: out, NextCursor: optString(nextCursor)}
}

func newJobList(p *jobs.JobPage) listView[jobView] {
	return newList(p.Jobs, p.NextCursor, newJobView)
}

// reviewView is the JSON form of a review; its id is the job's. A decided
// review says that an operator decided it (decidedBy, a role); only
// operators see which one (operator) and the note, an internal remark.
type reviewView struct {
	JobID            string  `json:"jobId"`
	Tenant           string  `json:"tenant"`
	DocumentID       string  `json:"documentId"`
	OperationVersion int64   `json:"operationVersion"`
	Status           string  `json:"status"`
	EventID          string  `json:"eventId"`
	DecidedBy        *string `json:"decidedBy,omitempty"`
	Operator         *string `json:"operator,omitempty"`
	Note             *string `json:"note,omitempty"`
	CreatedAt        string  `json:"createdAt"`
	DecidedAt        *string `json:"decidedAt,omitempty"`
	// CorrectedFields and CorrectedResult: an approval that corrected
	// fields; the job's result stays the extractor's.
	CorrectedFields []string        `json:"correctedFields,omitempty"`
	CorrectedResult json.RawMessage `json:"correctedResult,omitempty"`
	// Duplicate: the document may be one the tenant already has under
	// another document ID; Credits: the invoice a credit note refers to.
	Duplicate *duplicateView `json:"duplicate,omitempty"`
	Credits   *string        `json:"credits,omitempty"`
	Links     reviewLinks    `json:"links"`
}

// duplicateView is a review's possible duplicate.
type duplicateView struct {
	Of       string   `json:"of"`       // the first document's jobId
	Strength string   `json:"strength"` // strong (an approval must name Of) or weak
	Matched  []string `json:"matched"`  // number, total, date
}

type reviewLinks struct {
	Self     string `json:"self"`
	Job      string `json:"job"`
	Decision string `json:"decision"`
}

// newReviewView is the view of r for a caller of role viewer.
func newReviewView(r *jobs.Review, viewer role) reviewView {
	id := r.Key.String()
	v := reviewView{
		JobID:            id,
		Tenant:           r.Key.Tenant,
		DocumentID:       r.Key.DocumentID,
		OperationVersion: r.Key.Version,
		Status:           r.Status,
		EventID:          r.EventID,
		CreatedAt:        formatTime(r.CreatedAt),
		DecidedAt:        optTime(r.DecidedAt),
		Links: reviewLinks{
			Self:     reviewPath(id),
			Job:      jobPath(id),
			Decision: reviewPath(id) + "/decision",
		},
	}
	if !r.DecidedAt.IsZero() {
		v.DecidedBy = optString(roleOperator.String())
	}
	if m := r.Match; m != nil && m.Strength != "" && m.Of.Tenant == r.Key.Tenant {
		v.Duplicate = &duplicateView{Of: m.Of.String(), Strength: m.Strength, Matched: m.Matched}
	}
	if m := r.Match; m != nil && m.Credits != nil && m.Credits.Tenant == r.Key.Tenant {
		v.Credits = optString(m.Credits.String())
	}
	if viewer == roleOperator {
		v.Operator, v.Note = optString(r.Operator), optString(r.Note)
	}
	return v
}

// reviewList returns the list view of reviews for a caller of role viewer.
func reviewList(viewer role) func(*jobs.ReviewPage) listView[reviewView] {
	return func(p *jobs.ReviewPage) listView[reviewView] {
		return newList(p.Reviews, p.NextCursor, func(r *jobs.Review) reviewView { return newReviewView(r, viewer) })
	}
}

// auditView is the JSON form of one audit entry.
type auditView struct {
	ID             string  `json:"id"`
	Action         string  `json:"action"`
	Tenant         string  `json:"tenant"`
	JobID          string  `json:"jobId"`
	NewJobID       *string `json:"newJobId,omitempty"`
	Operator       *string `json:"operator,omitempty"`
	Reason         *string `json:"reason,omitempty"`
	Decision       *string `json:"decision,omitempty"`
	OldPayloadHash *string `json:"oldPayloadHash,omitempty"`
	NewPayloadHash *string `json:"newPayloadHash,omitempty"`
	At             string  `json:"at"`
	// Note is a review decision's note; Corrections the fields a reprocess
	// or a decision corrected (document data: the audit is for operators
	// only); Overruled the reason code a reprocess overruled.
	Note        *string               `json:"note,omitempty"`
	Corrections []extract.FieldChange `json:"corrections,omitempty"`
	Overruled   *string               `json:"overruled,omitempty"`
}

func newAuditList(p *jobs.AuditPage) listView[auditView] {
	return newList(p.Entries, p.NextCursor, newAuditView)
}

func newAuditView(e *jobs.AuditEntry) auditView {
	return auditView{
		ID:             e.ID,
		Action:         e.Action,
		Tenant:         e.Tenant,
		JobID:          e.JobKey,
		NewJobID:       optString(e.NewJobKey),
		Operator:       optString(e.Operator),
		Reason:         optString(e.Reason),
		Decision:       optString(e.Decision),
		OldPayloadHash: optString(e.OldPayloadHash),
		NewPayloadHash: optString(e.NewPayloadHash),
		At:             formatTime(e.At),
		Note:           optString(e.Note),
		Corrections:    auditChanges(e),
		Overruled:      optString(e.Overruled),
	}
}

// auditChanges are an entry's corrected fields, or nil.
func auditChanges(e *jobs.AuditEntry) []extract.FieldChange {
	var out []extract.FieldChange
	if len(e.Changes) > 0 && json.Unmarshal(e.Changes, &out) != nil {
		return nil
	}
	return out
}
