// Package lograte tames the logs of libraries that repeat a line on every
// failed retry: go-redis writes a plain-text line per failed dial (hundreds
// a second when Redis is down, beside the JSON logs), Asynq one per failed
// poll. A Limiter lets the first line of a kind through and holds back its
// repeats for an interval, then reports how many it held back; RouteRedis
// sends go-redis's lines through slog and such a Limiter.
package lograte

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
)

// DefaultInterval is how long a Limiter holds back the repeats of a line.
const DefaultInterval = 30 * time.Second

// maxKinds bounds the kinds of line a Limiter remembers.
const maxKinds = 1024

// Limiter decides which lines to log: per kind of line (a key the caller
// chooses), the first one, then at most one per interval, which carries
// the number of lines held back since (attribute "suppressed").
type Limiter struct {
	interval time.Duration
	clock    clock.Clock

	mu    sync.Mutex
	kinds map[string]*kind
}

type kind struct {
	last       time.Time // when a line of this kind was last let through
	suppressed int
}

// NewLimiter returns a Limiter; zero interval means DefaultInterval and a
// nil clock the wall clock.
func NewLimiter(interval time.Duration, clk clock.Clock) *Limiter {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if clk == nil {
		clk = clock.Real{}
	}
	return &Limiter{interval: interval, clock: clk, kinds: map[string]*kind{}}
}

// Allow reports whether a line of kind key may be logged now and, if so,
// how many of its kind were held back since the last one.
func (l *Limiter) Allow(key string) (ok bool, suppressed int) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kinds[key]
	if k == nil {
		if len(l.kinds) >= maxKinds {
			l.kinds = map[string]*kind{} // forget everything rather than grow
		}
		l.kinds[key] = &kind{last: now}
		return true, 0
	}
	if now.Sub(k.last) < l.interval {
		k.suppressed++
		return false, 0
	}
	suppressed, k.suppressed, k.last = k.suppressed, 0, now
	return true, suppressed
}

// Log logs msg at level through l, when the Limiter allows a line of kind
// key; a line that follows held-back ones says how many.
func (l *Limiter) Log(ctx context.Context, log *slog.Logger, level slog.Level, key, msg string, attrs ...any) {
	if !log.Enabled(ctx, level) {
		return
	}
	ok, suppressed := l.Allow(key)
	if !ok {
		return
	}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	log.Log(ctx, level, msg, attrs...)
}

// redisLogger adapts slog to go-redis's logger.
type redisLogger struct {
	log *slog.Logger
	lim *Limiter
}

// Printf logs one go-redis line at warn level (go-redis logs only what went
// wrong: failed dials, bad connections), keyed by its format so that each
// kind is held back on its own.
func (r redisLogger) Printf(ctx context.Context, format string, v ...any) {
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	r.lim.Log(ctx, r.log, slog.LevelWarn, format, msg)
}

// RouteRedis sends every line go-redis logs (a process-wide setting) to log,
// tagged component=go-redis, through a Limiter with DefaultInterval.
func RouteRedis(log *slog.Logger) {
	redis.SetLogger(redisLogger{log: log.With("component", "go-redis"), lim: NewLimiter(0, nil)})
}
