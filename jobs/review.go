package jobs

import (
	"context"
	"fmt"
)

// ApplyCommitted is the review consumer: it creates the review of the job
// version of an extraction.committed event, once per eventId. A repeat is
// answered {Applied: false, Reason: "duplicate_event"}.
func (s *Store) ApplyCommitted(ctx context.Context, k Key, eventID string) (*ApplyResult, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if eventID == "" {
		return nil, fmt.Errorf("jobs: apply %s: empty eventId", k)
	}
	r, err := s.call(ctx, applyScript, []string{s.keys.job(k)}, s.nowMs(), eventID)
	if err != nil {
		return nil, fmt.Errorf("jobs: apply %s: %w", k, err)
	}
	switch r.status() {
	case "applied":
		return &ApplyResult{Applied: true}, nil
	case "duplicate_event":
		return &ApplyResult{Reason: "duplicate_event"}, nil
	case "not_committed":
		return &ApplyResult{Reason: "not_committed"}, nil
	}
	return nil, unexpected("apply", r.status())
}

// GetReview returns the review of job version k.
func (s *Store) GetReview(ctx context.Context, k Key) (*Review, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	v, err := s.rdb.HMGet(ctx, s.keys.job(k), reviewFields...).Result()
	if err != nil {
		return nil, fmt.Errorf("jobs: review %s: %w", k, err)
	}
	r := reviewFromFields(k, v)
	if r == nil {
		return nil, ErrReviewNotFound
	}
	return r, nil
}

// reviewFields are the job record's review fields, in reviewFromFields' order.
var reviewFields = []string{fReviewStatus, fEventID, fReviewOperator, fReviewNote, fReviewCreatedAt, fReviewDecidedAt}

// reviewFromFields builds a review from HMGET reviewFields; nil if the job
// has none.
func reviewFromFields(k Key, v []any) *Review {
	f := make([]string, len(v))
	for i := range v {
		f[i], _ = v[i].(string)
	}
	if f[0] == "" {
		return nil
	}
	return &Review{
		Key: k, Status: f[0], EventID: f[1], Operator: f[2], Note: f[3],
		CreatedAt: msTime(f[4]), DecidedAt: msTime(f[5]),
	}
}

// DecideResult is the answer of Decide.
type DecideResult struct {
	Review *Review // the review as it now is
	// Decided is true when this call made the decision; false when the
	// review already carried the same one (a repeat, answered alike).
	Decided bool
}

// Decide records an operator's decision (ReviewApproved or ReviewRejected)
// on the review of k, with an audit entry, in one round trip. The same
// decision again returns the review unchanged with Decided false; a
// different one is ErrReviewDecided.
func (s *Store) Decide(ctx context.Context, k Key, operator, status, note string) (*DecideResult, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if status != ReviewApproved && status != ReviewRejected {
		return nil, fmt.Errorf("jobs: decide %s: status must be %s or %s", k, ReviewApproved, ReviewRejected)
	}
	shard := s.keys.shardOf(k)
	keys := []string{s.keys.job(k), s.keys.audit(shard), s.keys.outbox(shard)}
	r, err := s.callAcked(ctx, decideScript, keys, k.String(), s.nowMs(), status, operator, note, k.Tenant, ms(s.ret.Audit))
	if err != nil {
		return nil, fmt.Errorf("jobs: decide %s: %w", k, err)
	}
	switch r.status() {
	case "decided", "same":
		rev := reviewFromFields(k, r[1:])
		if rev == nil {
			return nil, unexpected("decide", "review without status")
		}
		return &DecideResult{Review: rev, Decided: r.status() == "decided"}, nil
	case "other":
		return nil, ErrReviewDecided
	case "not_found":
		return nil, ErrReviewNotFound
	}
	return nil, unexpected("decide", r.status())
}
