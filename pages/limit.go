package pages

import (
	"context"
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// lane is one kind of work (renders, or intake's page counts) as the
// callers share it: per caller, at most slots at once, at most queue
// waiting for one of them (each at most wait), and, when per > 0, at most
// count started per period (a token bucket holding count).
type lane struct {
	slots, queue int
	wait         time.Duration
	count        int
	per          time.Duration
	now          func() time.Time

	mu      sync.Mutex
	callers map[string]*callerLoad
}

// callerLoad is one caller's use of a lane. Callers are the configured
// tenants and operators, so the map is bounded by the configuration.
type callerLoad struct {
	running, waiting int
	freed            chan struct{} // closed (and replaced) by every release
	bucket           *rate.Limiter // nil without a rate
}

func newLane(slots, queue int, wait time.Duration, count int, per time.Duration, now func() time.Time) *lane {
	return &lane{slots: slots, queue: queue, wait: wait, count: count, per: per, now: now, callers: map[string]*callerLoad{}}
}

func (l *lane) load(caller string) *callerLoad {
	c := l.callers[caller]
	if c == nil {
		c = &callerLoad{freed: make(chan struct{})}
		if l.per > 0 {
			c.bucket = rate.NewLimiter(rate.Limit(float64(l.count)/l.per.Seconds()), l.count)
		}
		l.callers[caller] = c
	}
	return c
}

// acquire takes one of caller's slots, waiting up to the lane's wait for
// one to free, and (with a rate) a token. It returns the release to call
// when the work ends, or a *LimitError saying when to retry. The token is
// taken once a slot is held, so a request refused for its concurrency
// spends none.
func (l *lane) acquire(ctx context.Context, caller string) (func(), error) {
	l.mu.Lock()
	c := l.load(caller)
	if c.running >= l.slots {
		if c.waiting >= l.queue {
			l.mu.Unlock()
			return nil, &LimitError{Limit: LimitConcurrency, RetryAfter: time.Second}
		}
		c.waiting++
		timer := time.NewTimer(l.wait)
		defer timer.Stop()
		for c.running >= l.slots {
			freed := c.freed
			l.mu.Unlock()
			select {
			case <-freed:
			case <-timer.C:
				l.mu.Lock()
				c.waiting--
				l.mu.Unlock()
				return nil, &LimitError{Limit: LimitConcurrency, RetryAfter: time.Second}
			case <-ctx.Done():
				l.mu.Lock()
				c.waiting--
				l.mu.Unlock()
				return nil, context.Cause(ctx)
			}
			l.mu.Lock()
		}
		c.waiting--
	}
	if c.bucket != nil {
		r := c.bucket.ReserveN(l.now(), 1)
		if d := r.DelayFrom(l.now()); d > 0 {
			r.CancelAt(l.now())
			l.mu.Unlock()
			return nil, &LimitError{Limit: LimitRate, RetryAfter: d}
		}
	}
	c.running++
	l.mu.Unlock()
	return func() { l.release(c) }, nil
}

func (l *lane) release(c *callerLoad) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.running--
	close(c.freed)
	c.freed = make(chan struct{})
}

// LimitError refuses a request whose caller is at one of its limits: the
// API answers 429 rate_limited with a Retry-After of RetryAfter.
type LimitError struct {
	Limit      string // LimitRate, LimitConcurrency or LimitBusy
	RetryAfter time.Duration
}

// The limits a LimitError names.
const (
	LimitRate        = "rate"        // the caller started its RenderRate renders within RenderPer
	LimitConcurrency = "concurrency" // the caller's slots were busy for the whole wait, or its queue was full
	LimitBusy        = "busy"        // no PDFium instance of the process freed within the Timeout
)

func (e *LimitError) Error() string {
	secs := max(1, int(math.Ceil(e.RetryAfter.Seconds())))
	return "pages: the caller is at its " + e.Limit + " limit; retry in " + strconv.Itoa(secs) + "s"
}
