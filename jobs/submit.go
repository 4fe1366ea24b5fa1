package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// newJob is the record lib.lua's create_job writes for a new job, built
// without reading it back (a submission's one round trip);
// TestSubmit_CreatedAnswer_IsTheStoredRecord holds the two together.
func newJob(k Key, nowMs int64, ph string, lim Limits) *Job {
	now := time.UnixMilli(nowMs).UTC()
	return &Job{
		Key: k, State: StateQueued, PayloadHash: ph, MaxAttempts: lim.MaxAttempts, MaxRecoveries: lim.MaxRecoveries,
		DeadlineSeconds: int64(lim.Deadline / time.Second), DeadlineAt: now.Add(lim.Deadline),
		CreatedAt: now, UpdatedAt: now, EnqueuedAt: now,
	}
}

// DefaultLimits are the job limits of a deployment that sets none: the one
// place they are written.
var DefaultLimits = Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: 24 * time.Hour}

// requestTTL is how long a submit request ID is remembered.
const requestTTL = 24 * time.Hour

// WithDefaults returns l with its defaults, by one rule: the zero Limits is
// DefaultLimits; in any other, a zero MaxAttempts or Deadline takes its
// default and MaxRecoveries is taken as given (0: no crash recovery is
// tolerated).
func (l Limits) WithDefaults() Limits {
	if l == (Limits{}) {
		return DefaultLimits
	}
	if l.MaxAttempts == 0 {
		l.MaxAttempts = DefaultLimits.MaxAttempts
	}
	if l.Deadline == 0 {
		l.Deadline = DefaultLimits.Deadline
	}
	return l
}

func (l Limits) validate() error {
	var errs []error
	if l.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("jobs: Limits.MaxAttempts must be at least 1, got %d", l.MaxAttempts))
	}
	if l.MaxRecoveries < 0 {
		errs = append(errs, fmt.Errorf("jobs: Limits.MaxRecoveries must not be negative, got %d", l.MaxRecoveries))
	}
	if l.Deadline < time.Second || l.Deadline%time.Second != 0 {
		errs = append(errs, fmt.Errorf("jobs: Limits.Deadline must be whole seconds, at least 1s, got %s", l.Deadline))
	}
	return errors.Join(errs...)
}

// Submit creates the job of req.Key, or answers for the job already there:
// the same payload is deduped (the existing job is returned), a different one
// is ErrIdempotencyConflict. Everything is written by one script or nothing
// is. req.Limits are defaulted by Limits.WithDefaults.
func (s *Store) Submit(ctx context.Context, req SubmitRequest) (*SubmitResult, error) {
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	lim := req.Limits.WithDefaults()
	if err := lim.validate(); err != nil {
		return nil, err
	}
	k := req.Key
	blob, err := s.seal.seal(k, req.Content)
	if err != nil {
		return nil, err
	}
	keys := s.familyKeys(k)
	if req.RequestID != "" {
		keys = append(keys, s.keys.request(k, req.RequestID))
	}
	ph := PayloadHash(req.Content)
	now := s.nowMs()
	args := s.familyArgsAt(k, now, k.Tenant, k.DocumentID, k.Version, ph, blob,
		lim.MaxAttempts, lim.MaxRecoveries, int64(lim.Deadline/time.Second), ms(requestTTL))
	r, err := s.callAcked(ctx, submitScript, keys, args...)
	if err != nil {
		return nil, fmt.Errorf("jobs: submit %s: %w", k, err)
	}
	switch r.status() {
	case "conflict":
		return nil, ErrIdempotencyConflict
	case "deduped_ledger":
		e := ledgerEntry{state: State(r.str(1)), hash: r.str(2), eventID: r.str(3), finished: msTime(r.str(4)), code: r.str(5)}
		return &SubmitResult{Job: e.job(k), Deduped: true}, nil
	case "created", "deduped":
		if len(r) == 1 {
			return &SubmitResult{Job: newJob(k, now, ph, lim)}, nil
		}
		h := make(map[string]string, (len(r)-3)/2)
		for i := 3; i+1 < len(r); i += 2 {
			h[r.str(i)] = r.str(i + 1)
		}
		j := jobFromHash(k, h)
		j.InputExpired = r.str(1) == "0"
		j.ResultExpired = j.State == StateSucceeded && r.str(2) == "0"
		return &SubmitResult{Job: j, Deduped: r.status() == "deduped"}, nil
	}
	return nil, unexpected("submit", r.status())
}
