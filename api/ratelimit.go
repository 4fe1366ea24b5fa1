package api

import (
	"context"
	"net/http"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/outbox"
)

// reprocessLimiter is the per-tenant reprocess budget: a token bucket of
// Count tokens refilled at Count per Per, kept in Redis by the store so that
// every API process draws on the same budget.
type reprocessLimiter struct {
	store *outbox.Store
	rate  outbox.Rate
}

func newReprocessLimiter(store *outbox.Store, r config.Rate) *reprocessLimiter {
	return &reprocessLimiter{store: store, rate: outbox.Rate{Count: r.Count, Per: r.Per}}
}

// reservation is one token taken from a tenant's bucket.
type reservation struct {
	l      *reprocessLimiter
	tenant string
}

// cancel gives the token back, for a call that created nothing. It runs even
// when the request's context is done: the token was taken.
func (r *reservation) cancel(ctx context.Context) {
	_ = r.l.store.ReturnReprocessToken(context.WithoutCancel(ctx), r.tenant, r.l.rate)
}

// reserve takes a token from tenant's bucket, or answers 429 with the time
// until one is available.
func (l *reprocessLimiter) reserve(ctx context.Context, tenant string) (*reservation, error) {
	wait, err := l.store.TakeReprocessToken(ctx, tenant, l.rate)
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		return nil, &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
			Message: "reprocess rate limit reached for this tenant", RetryAfter: wait}
	}
	return &reservation{l: l, tenant: tenant}, nil
}
