package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/quota"
)

// Error codes of a submission refused by a tenant quota (429, with
// Retry-After): each names the limit that was reached.
const (
	CodeSubmitRateExceeded   = "submit_rate_exceeded"   // RELAYOPS_TENANT_SUBMIT_RATE
	CodeBacklogJobsExceeded  = "backlog_jobs_exceeded"  // RELAYOPS_TENANT_MAX_BACKLOG
	CodeBacklogBytesExceeded = "backlog_bytes_exceeded" // RELAYOPS_TENANT_MAX_BACKLOG_BYTES
	CodeStoredBytesExceeded  = "stored_bytes_exceeded"  // RELAYOPS_TENANT_MAX_STORED_BYTES
)

var quotaErrors = map[string]*Error{
	quota.LimitRate: {Status: http.StatusTooManyRequests, Code: CodeSubmitRateExceeded,
		Message: "this tenant's submit rate limit is reached; retry after the Retry-After seconds"},
	quota.LimitJobs: {Status: http.StatusTooManyRequests, Code: CodeBacklogJobsExceeded,
		Message: "this tenant has as many open jobs as its quota allows; retry when some have ended"},
	quota.LimitBytes: {Status: http.StatusTooManyRequests, Code: CodeBacklogBytesExceeded,
		Message: "the inputs of this tenant's open jobs fill its byte quota; retry when some have ended"},
	quota.LimitStored: {Status: http.StatusTooManyRequests, Code: CodeStoredBytesExceeded,
		Message: "the inputs this tenant has stored (kept for the input retention after their jobs end) fill its stored-bytes quota; retry after the Retry-After seconds, when enough of them have expired"},
}

// reserveQuota reserves req's job in its tenant's quotas (nil, nil when
// no quota is set: then a submission costs no extra round trip). Over a
// limit it answers 429 with the limit's code, unless the job exists
// already: a resubmission is answered by the store (a dedupe or a
// conflict) and never counts.
func (s *Server) reserveQuota(ctx context.Context, req jobs.SubmitRequest) (*quota.Reservation, error) {
	if s.quota == nil {
		return nil, nil
	}
	r, err := s.quota.Reserve(ctx, req.Key, len(req.Content), req.Limits.WithDefaults().Deadline)
	var ex *quota.ExceededError
	if !errors.As(err, &ex) {
		return r, err
	}
	if _, gerr := s.store.Get(ctx, req.Key); gerr == nil {
		return nil, nil
	} else if !errors.Is(gerr, jobs.ErrNotFound) {
		return nil, gerr
	}
	e := *quotaErrors[ex.Limit]
	e.RetryAfter = ex.RetryAfter
	return nil, &e
}

// settleQuota ends a reservation once the store answered.
func (s *Server) settleQuota(ctx context.Context, r *quota.Reservation, res *jobs.SubmitResult, err error) {
	if s.quota == nil || r == nil {
		return
	}
	created := err == nil && !res.Deduped
	if serr := s.quota.Settle(ctx, r, created, err); serr != nil {
		s.log.Warn("quota reservation not given back; the prune releases it", "tenant", r.Tenant())
	}
}
