package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ApplyCommitted is the review consumer: it creates the review of the job
// version of an extraction.committed event, once per eventId. A repeat is
// answered {Applied: false, Reason: "duplicate_event"}.
func (s *Store) ApplyCommitted(ctx context.Context, k Key, eventID string) (*ApplyResult, error) {
	res, err := s.ApplyCommittedBatch(ctx, s.keys.shardOf(k), []Event{{Key: k, EventID: eventID, Type: EventExtractionCommitted}}, nil)
	if err != nil {
		return nil, err
	}
	return &res[0], nil
}

// ApplyCommittedBatch applies the extraction.committed events evs, all of
// shard (ApplyCommitted for each, in one script call), and acks the outbox
// entries ack of that shard for the relay's group in the same atomic step:
// the relay passes the IDs of evs and of every other entry it delivered.
// It answers one result per event, in order.
func (s *Store) ApplyCommittedBatch(ctx context.Context, shard int, evs []Event, ack []string) ([]ApplyResult, error) {
	keys, args, err := s.applyArgs(shard, evs, ack)
	if err != nil {
		return nil, err
	}
	r, err := s.call(ctx, applyScript, keys, args...)
	if err != nil {
		return nil, fmt.Errorf("jobs: apply %d events of shard %d: %w", len(evs), shard, err)
	}
	return decodeApply(r, len(evs))
}

// QueueApplyCommitted is ApplyCommittedBatch queued on pipe, so that it
// shares a round trip with other commands (the relay's next read). Call
// result after pipe.Exec. Should Redis not have the script loaded, result
// runs it (the queued call did nothing).
func (s *Store) QueueApplyCommitted(ctx context.Context, pipe redis.Pipeliner, shard int, evs []Event, ack []string) (result func() ([]ApplyResult, error), err error) {
	keys, args, err := s.applyArgs(shard, evs, ack)
	if err != nil {
		return nil, err
	}
	cmd := applyScript.EvalSha(ctx, pipe, keys, args...)
	return func() ([]ApplyResult, error) {
		v, err := cmd.Result()
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			return s.ApplyCommittedBatch(ctx, shard, evs, ack)
		}
		if err != nil {
			return nil, fmt.Errorf("jobs: apply %d events of shard %d: %w", len(evs), shard, applyScript.locate(err))
		}
		r, err := applyScript.check(v)
		if err != nil {
			return nil, fmt.Errorf("jobs: apply %d events of shard %d: %w", len(evs), shard, err)
		}
		return decodeApply(r, len(evs))
	}, nil
}

// applyArgs checks a batch for apply.lua and lays out its KEYS and ARGV.
func (s *Store) applyArgs(shard int, evs []Event, ack []string) ([]string, []any, error) {
	if shard < 0 || shard >= s.shards {
		return nil, nil, fmt.Errorf("jobs: apply: shard %d out of range [0, %d)", shard, s.shards)
	}
	keys := make([]string, 1, 1+len(evs))
	keys[0] = s.keys.outbox(shard)
	args := make([]any, 0, 3+len(ack)+2*len(evs))
	args = append(args, s.nowMs(), RelayGroup, len(ack))
	for _, id := range ack {
		args = append(args, id)
	}
	for _, ev := range evs {
		if err := checkKey(ev.Key); err != nil {
			return nil, nil, err
		}
		if ev.EventID == "" {
			return nil, nil, fmt.Errorf("jobs: apply %s: empty eventId", ev.Key)
		}
		if got := s.keys.shardOf(ev.Key); got != shard {
			return nil, nil, fmt.Errorf("jobs: apply %s: the job is on shard %d, not %d", ev.Key, got, shard)
		}
		keys = append(keys, s.keys.job(ev.Key))
		args = append(args, ev.EventID, ev.Match.encode())
	}
	return keys, args, nil
}

// encode writes what apply.lua records of m: "strength|of|matched|credits",
// "" for nothing.
func (m *Match) encode() string {
	if m == nil || m.Strength == "" && m.Credits == nil {
		return ""
	}
	dup := ""
	if m.Strength != "" {
		dup = m.Strength + "|" + m.Of.String() + "|" + strings.Join(m.Matched, ",")
	}
	credits := ""
	if m.Credits != nil {
		credits = m.Credits.String()
	}
	return dup + "|" + credits
}

// decodeApply reads apply.lua's answer for n events.
func decodeApply(r reply, n int) ([]ApplyResult, error) {
	if len(r) != 1+n {
		return nil, fmt.Errorf("%w: apply answered %d statuses for %d events", errUnexpected, len(r)-1, n)
	}
	out := make([]ApplyResult, n)
	for i := range n {
		switch st := r.str(1 + i); st {
		case "applied":
			out[i] = ApplyResult{Applied: true}
		case "duplicate_event", "not_committed":
			out[i] = ApplyResult{Reason: st}
		default:
			return nil, unexpected("apply", st)
		}
	}
	return out, nil
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
	r, err := s.reviewFromFields(k, v)
	if err != nil {
		return nil, fmt.Errorf("jobs: review %s: %w", k, err)
	}
	if r == nil {
		return nil, ErrReviewNotFound
	}
	return r, nil
}

// reviewFields are the job record's review fields, in reviewFromFields' order.
var reviewFields = []string{fReviewStatus, fEventID, fReviewOperator, fReviewNote, fReviewCreatedAt, fReviewDecidedAt, fDuplicate, fCredits}

// reviewFromFields builds a review from HMGET reviewFields, opening its
// note (sealed when a data key is set: an operator may quote the
// document); nil if the job has none.
func (s *Store) reviewFromFields(k Key, v []any) (*Review, error) {
	f := make([]string, len(v))
	for i := range v {
		f[i], _ = v[i].(string)
	}
	if f[0] == "" {
		return nil, nil
	}
	note, err := s.seal.openValue(k, kindReviewNote, []byte(f[3]))
	if err != nil {
		return nil, err
	}
	return &Review{
		Key: k, Status: f[0], EventID: f[1], Operator: f[2], Note: string(note),
		CreatedAt: msTime(f[4]), DecidedAt: msTime(f[5]), Match: decodeMatch(f[6], f[7]),
	}, nil
}

// decodeMatch reads the record's duplicate mark and credits; nil for
// neither, or for a mark that does not parse (it is only ever written by
// apply.lua from Match.encode).
func decodeMatch(dup, credits string) *Match {
	var m Match
	if parts := strings.SplitN(dup, "|", 3); len(parts) == 3 {
		if of, err := ParseKey(parts[1]); err == nil {
			m.Strength, m.Of = parts[0], of
			if parts[2] != "" {
				m.Matched = strings.Split(parts[2], ",")
			}
		}
	}
	if c, err := ParseKey(credits); err == nil {
		m.Credits = &c
	}
	if m.Strength == "" && m.Credits == nil {
		return nil
	}
	return &m
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
	return s.DecideWith(ctx, k, operator, status, note, nil)
}

// DecideOpts are a decision's corrections: an approval that corrects
// fields read wrongly.
type DecideOpts struct {
	// Corrections are the field overrides (JSON), kept sealed with the
	// review (ReviewCorrections); the committed result stays as it was.
	Corrections []byte
	// Changes is what the audit entry records of each corrected field
	// (JSON: name, value read, value given), sealed.
	Changes []byte
	// Fields names the corrected fields: the review.decided event carries
	// the names, never the values.
	Fields []string
	// NotDuplicateOf is the first job a strong possible duplicate is
	// approved as not being a duplicate of: an approval of such a review
	// without it, or naming another job, is *DuplicateError.
	NotDuplicateOf string
}

// DecideWith is Decide with corrections (o nil: none). Only an approval
// may correct.
func (s *Store) DecideWith(ctx context.Context, k Key, operator, status, note string, o *DecideOpts) (*DecideResult, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if status != ReviewApproved && status != ReviewRejected {
		return nil, fmt.Errorf("jobs: decide %s: status must be %s or %s", k, ReviewApproved, ReviewRejected)
	}
	sealed, err := s.seal.sealValue(k, kindReviewNote, []byte(note))
	if err != nil {
		return nil, fmt.Errorf("jobs: decide %s: %w", k, err)
	}
	var corr, changes []byte
	var names, notDup string
	if o != nil {
		notDup = o.NotDuplicateOf
	}
	if o != nil && len(o.Corrections) > 0 {
		if status != ReviewApproved {
			return nil, fmt.Errorf("jobs: decide %s: only an approval may correct fields", k)
		}
		if corr, err = s.seal.sealValue(k, kindCorrections, o.Corrections); err != nil {
			return nil, err
		}
		if changes, err = s.seal.sealValue(k, kindChanges, o.Changes); err != nil {
			return nil, err
		}
		names = strings.Join(o.Fields, ",")
	}
	shard := s.keys.shardOf(k)
	keys := []string{s.keys.job(k), s.keys.audit(shard), s.keys.outbox(shard)}
	r, err := s.callAcked(ctx, decideScript, keys, k.String(), s.nowMs(), status, operator, sealed, k.Tenant, ms(s.ret.Audit),
		corr, changes, names, notDup)
	if err != nil {
		return nil, fmt.Errorf("jobs: decide %s: %w", k, err)
	}
	switch r.status() {
	case "decided", "same":
		rev, err := s.reviewFromFields(k, r[1:])
		if err != nil {
			return nil, fmt.Errorf("jobs: decide %s: %w", k, err)
		}
		if rev == nil {
			return nil, unexpected("decide", "review without status")
		}
		return &DecideResult{Review: rev, Decided: r.status() == "decided"}, nil
	case "other":
		return nil, ErrReviewDecided
	case "not_found":
		return nil, ErrReviewNotFound
	case "duplicate":
		of, err := ParseKey(r.str(1))
		if err != nil {
			return nil, unexpected("decide", "duplicate of a malformed key")
		}
		return nil, &DuplicateError{Of: of}
	}
	return nil, unexpected("decide", r.status())
}

// ReviewCorrections returns the corrections an approval of k made (JSON),
// nil when it made none.
func (s *Store) ReviewCorrections(ctx context.Context, k Key) ([]byte, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	b, err := s.rdb.HGet(ctx, s.keys.job(k), fReviewCorrected).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: review corrections %s: %w", k, err)
	}
	c, err := s.seal.openValue(k, kindCorrections, b)
	if err != nil {
		return nil, fmt.Errorf("jobs: review corrections %s: %w", k, err)
	}
	return c, nil
}
