package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

// reprocessLimiter is the per-tenant reprocess budget: a token bucket of
// Count tokens refilled at Count per Per, kept in Redis so that every API
// process draws on the same budget. A token is taken for one job
// and held by it: concurrent calls reprocessing the same job share it, so
// the repeats among them are never refused.
type reprocessLimiter struct {
	bucket *tokenBucket
}

// newReprocessLimiter is a budget of kind ("reprocess": bulk retries;
// "correction": a person's corrections), each a bucket of its own.
func newReprocessLimiter(rdb redis.UniversalClient, clk clock.Clock, r Rate, kind string) *reprocessLimiter {
	return &reprocessLimiter{bucket: &tokenBucket{rdb: rdb, clock: clk, rate: r, kind: kind}}
}

// reservation is the admission of one reprocess call of a job.
type reservation struct {
	l     *reprocessLimiter
	key   jobs.Key
	taken bool // this call took the job's token (else it shares another call's)
}

// release settles the token after the store answered: a call that took the
// token and whose store call created nothing gives it back, unless the
// answer proves that the job was reprocessed (a repeat, a conflict), which
// the token paid for whichever call created it. It runs even when the
// request's context is done: the token was taken.
func (r *reservation) release(ctx context.Context, err error) {
	if !r.taken || err == nil || errors.Is(err, jobs.ErrIdempotencyConflict) {
		return
	}
	_ = r.l.bucket.give(context.WithoutCancel(ctx), r.key)
}

// reserve admits a reprocess of job k, or answers 429 with the time until a
// token is available.
func (l *reprocessLimiter) reserve(ctx context.Context, k jobs.Key) (*reservation, error) {
	g, err := l.bucket.take(ctx, k)
	if err != nil {
		return nil, err
	}
	if g.wait > 0 {
		return nil, &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
			Message: l.bucket.kind + " rate limit reached for this tenant", RetryAfter: g.wait}
	}
	return &reservation{l: l, key: k, taken: g.taken}, nil
}
