package api

import (
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/relayops/relayops/internal/config"
)

// reprocessLimiter is the per-tenant reprocess budget: a token bucket of
// Count tokens refilled at Count per Per, so a burst of Count is allowed and
// the long-run rate is bounded. Buckets exist only for tenants that have
// dead-lettered jobs, so the map stays small.
type reprocessLimiter struct {
	rate config.Rate
	mu   sync.Mutex
	per  map[string]*rate.Limiter
}

func newReprocessLimiter(r config.Rate) *reprocessLimiter {
	return &reprocessLimiter{rate: r, per: map[string]*rate.Limiter{}}
}

// reservation is one token taken from a tenant's bucket.
type reservation struct {
	r   *rate.Reservation
	now time.Time
}

// cancel gives the token back, for a call that created nothing.
func (r *reservation) cancel() { r.r.CancelAt(r.now) }

// reserve takes a token from tenant's bucket at now, or answers 429 with the
// time until one is available.
func (l *reprocessLimiter) reserve(tenant string, now time.Time) (*reservation, error) {
	l.mu.Lock()
	lim, ok := l.per[tenant]
	if !ok {
		lim = rate.NewLimiter(rate.Every(l.rate.Per/time.Duration(l.rate.Count)), l.rate.Count)
		l.per[tenant] = lim
	}
	l.mu.Unlock()
	r := lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return nil, &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
			Message: "reprocess rate limit reached for this tenant", RetryAfter: wait}
	}
	return &reservation{r: r, now: now}, nil
}
