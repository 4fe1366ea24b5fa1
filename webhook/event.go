package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/relayops/relayops/jobs"
)

// The event types an endpoint can subscribe to. The names are part of the
// API: they never change meaning.
const (
	// EventJobSucceeded: the job's result is committed (derived from its
	// extraction.committed outbox row).
	EventJobSucceeded = "job.succeeded"
	// EventJobDeadLettered: the job ended in the dead-letter queue.
	EventJobDeadLettered = "job.dead_lettered"
	// EventJobCancelled: the job was cancelled (its deadline passed).
	EventJobCancelled = "job.cancelled"
	// EventReviewDecided: an operator approved or rejected the job's review.
	EventReviewDecided = "review.decided"
)

// EventTypes lists every event type, in a stable order.
var EventTypes = []string{EventJobSucceeded, EventJobDeadLettered, EventJobCancelled, EventReviewDecided}

// KnownEvent reports whether t is one of EventTypes.
func KnownEvent(t string) bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// Event is one event as endpoints receive it (the JSON body of a delivery,
// the Standard Webhooks shape: type, timestamp, data).
type Event struct {
	Type string `json:"type"`
	// Timestamp is when the event was committed: RFC 3339, UTC,
	// milliseconds.
	Timestamp string    `json:"timestamp"`
	Data      EventData `json:"data"`

	at time.Time
}

// TimeFormat is the format of every time in an event.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// EventData is an event's data: references and codes only.
type EventData struct {
	EventID          string `json:"eventId"`
	JobID            string `json:"jobId"`
	Tenant           string `json:"tenant"`
	DocumentID       string `json:"documentId"`
	OperationVersion int64  `json:"operationVersion"`
	// State is the job's state: succeeded, dead_lettered or cancelled.
	State       string `json:"state"`
	ErrorCode   string `json:"errorCode,omitempty"`
	ErrorReason string `json:"errorReason,omitempty"`
	Decision    string `json:"decision,omitempty"` // review.decided: approved or rejected
	// CorrectedFields: review.decided, an approval that corrected fields:
	// their names (never their values; the review holds them).
	CorrectedFields []string `json:"correctedFields,omitempty"`
	// DocumentType: job.succeeded of a booked document: invoice, creditNote
	// or correctiveInvoice.
	DocumentType string `json:"documentType,omitempty"`
	// PossibleDuplicateOf: job.succeeded of a document the tenant may
	// already have under another document ID; Credits: of a credit note,
	// the job of the invoice it refers to. Job IDs only.
	PossibleDuplicateOf *Duplicate `json:"possibleDuplicateOf,omitempty"`
	Credits             string     `json:"credits,omitempty"`
	Links               Links      `json:"links"`
}

// Duplicate is a possible duplicate's first document and how strongly it
// matched (strong: supplier, number and total; weak: fewer).
type Duplicate struct {
	JobID    string   `json:"jobId"`
	Strength string   `json:"strength"`
	Matched  []string `json:"matched"`
}

// Links are the API paths of the job (and its review).
type Links struct {
	Job    string `json:"job"`
	Review string `json:"review,omitempty"`
}

// FromOutbox turns an outbox row into the webhook event it stands for;
// false for rows that are not webhook events (job.submitted).
func FromOutbox(ev jobs.Event) (Event, bool) {
	d := EventData{
		JobID: ev.Key.String(), Tenant: ev.Key.Tenant, DocumentID: ev.Key.DocumentID, OperationVersion: ev.Key.Version,
		Links: Links{Job: "/v1/jobs/" + url.PathEscape(ev.Key.String())},
	}
	var typ string
	switch ev.Type {
	case jobs.EventExtractionCommitted:
		typ, d.State, d.EventID = EventJobSucceeded, string(jobs.StateSucceeded), ev.EventID
		d.Links.Review = "/v1/reviews/" + url.PathEscape(ev.Key.String())
		d.DocumentType = ev.DocumentType
		if m := ev.Match; m != nil && m.Strength != "" {
			d.PossibleDuplicateOf = &Duplicate{JobID: m.Of.String(), Strength: m.Strength, Matched: m.Matched}
		}
		if m := ev.Match; m != nil && m.Credits != nil {
			d.Credits = m.Credits.String()
		}
	case jobs.EventJobDeadLettered:
		typ, d.State, d.ErrorCode, d.ErrorReason = EventJobDeadLettered, string(jobs.StateDeadLettered), ev.Code, ev.ErrorReason
	case jobs.EventJobCancelled:
		typ, d.State, d.ErrorCode = EventJobCancelled, string(jobs.StateCancelled), ev.Code
	case jobs.EventReviewDecided:
		// Only a succeeded job has a review.
		typ, d.State, d.Decision = EventReviewDecided, string(jobs.StateSucceeded), ev.Decision
		d.CorrectedFields = ev.CorrectedFields
		d.Links.Review = "/v1/reviews/" + url.PathEscape(ev.Key.String())
	default:
		return Event{}, false
	}
	if d.EventID == "" {
		// Each job version ends once and its review is decided once, so
		// (type, job) names the event, and a republished row keeps its ID.
		d.EventID = digest(typ, ev.Key.String())
	}
	return Event{Type: typ, Timestamp: ev.At.UTC().Format(TimeFormat), Data: d, at: ev.At}, true
}

// Body is the event's JSON, the bytes every attempt signs and sends.
func (e Event) Body() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("webhook: encode event: %v", err)) // plain strings and a time: cannot fail
	}
	return b
}

// MessageID is the webhook-id of an event sent to an endpoint: the same for
// every attempt and every republication of that event to that endpoint.
// It is also the Asynq TaskID of the delivery.
func MessageID(eventID, endpointID string) string {
	return "msg_" + digest(eventID, endpointID)
}

func digest(a, b string) string {
	h := sha256.Sum256([]byte(a + "\x00" + b))
	return hex.EncodeToString(h[:16])
}
