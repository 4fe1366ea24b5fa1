package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/lograte"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/webhook"
)

// defaultGrace is how much longer than an attempt Asynq waits for a handler
// (Config.AttemptGrace).
const defaultGrace = 10 * time.Second

// serverConfig is what an Asynq server needs from Config.
type serverConfig struct {
	concurrency              int
	taskCheckInterval        time.Duration
	delayedTaskCheckInterval time.Duration
	retryBase, retryMax      time.Duration
	shutdownTimeout          time.Duration
	logger                   *slog.Logger
	// asynqLog is Asynq's logger; the servers of a worker share one, so an
	// outage's repeated lines are rate-limited once, not once per server.
	asynqLog asynq.Logger
	queues   map[string]int // queue → weight
}

// newAsynqServer builds an Asynq server: the worker's extraction server
// (the layout's queues) or its webhook server (the webhooks queue).
func newAsynqServer(rdb redis.UniversalClient, c serverConfig) *asynq.Server {
	logger := c.logger.With("component", "asynq")
	if c.asynqLog == nil {
		c.asynqLog = NewAsynqLogger(logger)
	}
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:       c.concurrency,
		Queues:            c.queues,
		TaskCheckInterval: c.taskCheckInterval,
		// Asynq moves due retries to pending only this often (default 5 s):
		// a 1 s backoff should mean about 1 s.
		DelayedTaskCheckInterval: c.delayedTaskCheckInterval,
		RetryDelayFunc:           withWebhookDelay(RetryDelay(c.retryBase, c.retryMax)),
		IsFailure:                IsFailure,
		Logger:                   c.asynqLog,
		LogLevel:                 asynqLevel(logger),
		ShutdownTimeout:          c.shutdownTimeout,
		HealthCheckFunc: func(err error) {
			if err != nil {
				logger.Warn("asynq health check failed")
				logger.Debug("asynq health check failed", "error", err.Error())
			}
		},
	})
}

// extractionQueues serves every extraction queue of the layout with the
// same weight: Asynq then tries the queues in a fresh random order on each
// fetch, so no shard's tasks wait behind another's.
func extractionQueues(l task.Layout) map[string]int {
	w := make(map[string]int, l.Queues)
	for _, q := range l.Names() {
		w[q] = 1
	}
	return w
}

// A worker runs its extraction tasks on Config.Servers Asynq servers and,
// with webhooks, its deliveries on one more, on the one queue
// task.QueueWebhooks. Asynq's dequeue tries a server's queues one round
// trip at a time, so an empty webhooks queue served with the extraction
// queues cost half a round trip per job (measured: 5.9 → 5.4 round trips
// and 47 → 46 commands per job in the drain benchmark); on its own server
// it also has its own concurrency, so slow receivers never hold extraction
// slots, and its own poll interval.
const (
	// DefaultServers is how many Asynq servers a worker runs for
	// extraction (Config.Servers). Measured with benchpipeline, one worker
	// at concurrency 20 on 2 cores: 1 server 3,300 jobs/s, 2 servers 4,000,
	// 3 4,250, 4 4,400, CPU per job falling with them; at 4 servers, each
	// polling every 20 ms, the p99 submit → review latency at 1,000/s rose
	// from 10 to 17 ms, at 2 (10 ms each) to 14 ms.
	DefaultServers = 2
	// DefaultWebhookConcurrency is how many webhook deliveries a worker
	// runs at once.
	DefaultWebhookConcurrency = 10
	// webhookTaskCheckInterval is how often an idle webhook server polls
	// its queue: a delivery waits up to this long more to be picked up
	// (receivers take milliseconds to seconds; retries wait seconds), and
	// the idle poll costs Redis about 60 commands/s instead of 600 at the
	// extraction server's 5 ms.
	webhookTaskCheckInterval = 50 * time.Millisecond
)

// withWebhookDelay lets a failed webhook delivery choose its own delay (its
// backoff, or the receiver's Retry-After), and leaves every other task to f.
func withWebhookDelay(f asynq.RetryDelayFunc) asynq.RetryDelayFunc {
	return func(n int, err error, t *asynq.Task) time.Duration {
		if d, ok := webhook.RetryDelay(err); ok {
			return d
		}
		return f(n, err, t)
	}
}

// RetryDelay returns Asynq's retry backoff: base·2^n capped at max, less up
// to 20% jitter so that jobs failing together do not retry together. The
// first retry (n = 0) waits 0.8–1 × base. A CodeError's RetryAfter (an
// endpoint's Retry-After, the credentials cool-down) plus one second is a
// floor, itself capped at maxDelay: Asynq stores the retry time in whole
// seconds, truncated, which can make a task due up to a second early (it
// then moves due ones every DelayedTaskCheckInterval).
func RetryDelay(base, maxDelay time.Duration) asynq.RetryDelayFunc {
	return func(n int, err error, _ *asynq.Task) time.Duration {
		d := maxDelay
		if n >= 0 && n < 62 && base<<n > 0 && base<<n < maxDelay {
			d = base << n
		}
		d -= rand.N(d/5 + 1)
		var ce *CodeError
		if errors.As(err, &ce) && ce.RetryAfter > 0 {
			d = max(d, min(ce.RetryAfter+time.Second, maxDelay))
		}
		return d
	}
}

// IsFailure tells Asynq whether an error counts as a failed delivery
// (incrementing the task's retry count and the queue's failure stats). An
// uncounted retry does not: a store that could not be reached recorded
// nothing, and an attempt released because the model endpoint refuses the
// deployment's settings was taken back in the record. Asynq's retry count
// then stays within what the record allows (MaxRetry). Everything else
// counts, including a lease lost to a crash. A webhook delivery the
// deliverer deferred (its endpoint's circuit open, its tenant at its share)
// sent nothing: no failure either, so its attempt number stays.
func IsFailure(err error) bool {
	var ce *CodeError
	if webhook.IsDeferral(err) {
		return false
	}
	return !(errors.As(err, &ce) && (ce.Code == CodeUnavailable || ce.Uncounted))
}

// asynqLogger adapts slog to asynq.Logger. Asynq repeats its warnings and
// errors on every poll while Redis is unreachable (the forwarder every
// DelayedTaskCheckInterval, the heartbeat every 5 s): those go through a
// Limiter, each kind (the text before its first colon) once per interval.
type asynqLogger struct {
	l   *slog.Logger
	lim *lograte.Limiter
}

// NewAsynqLogger returns an asynq.Logger writing to l.
func NewAsynqLogger(l *slog.Logger) asynq.Logger {
	return newAsynqLogger(l, lograte.NewLimiter(0, nil))
}

func newAsynqLogger(l *slog.Logger, lim *lograte.Limiter) asynqLogger { return asynqLogger{l, lim} }

func (a asynqLogger) Debug(args ...any) { a.log(slog.LevelDebug, args) }
func (a asynqLogger) Info(args ...any)  { a.log(slog.LevelInfo, args) }
func (a asynqLogger) Warn(args ...any)  { a.log(slog.LevelWarn, args) }
func (a asynqLogger) Error(args ...any) { a.log(slog.LevelError, args) }

// Fatal logs at error level and exits, as asynq.Logger requires.
func (a asynqLogger) Fatal(args ...any) {
	a.l.Error(strings.TrimSpace(fmt.Sprint(args...)))
	os.Exit(1)
}

// retryExhausted is Asynq's warning when it archives a task: its retries are
// used up or the handler said not to retry (asynq.SkipRetry). In relayops
// the handler says so exactly when the job record dead-lettered the job
// (MaxRetry is set so that Asynq never runs out first), even on attempt 1:
// "exhausted" would mislead.
const retryExhausted = "Retry exhausted for task id="

func (a asynqLogger) log(level slog.Level, args []any) {
	ctx := context.Background()
	msg := strings.TrimSpace(fmt.Sprint(args...))
	if id, ok := strings.CutPrefix(msg, retryExhausted); ok {
		a.l.Log(ctx, slog.LevelInfo, "asynq archived the task: its job is dead-lettered (see the job's errorCode)", "task_id", id)
		return
	}
	if level < slog.LevelWarn {
		if a.l.Enabled(ctx, level) {
			a.l.Log(ctx, level, msg)
		}
		return
	}
	key, _, _ := strings.Cut(msg, ":")
	a.lim.Log(ctx, a.l, level, key, msg)
}

// asynqLevel is the Asynq log level matching l's lowest enabled level, but
// never debug: Asynq's debug lines ("All queues are empty" on every poll)
// would drown the worker's own.
func asynqLevel(l *slog.Logger) asynq.LogLevel {
	ctx := context.Background()
	switch {
	case l.Enabled(ctx, slog.LevelInfo):
		return asynq.InfoLevel
	case l.Enabled(ctx, slog.LevelWarn):
		return asynq.WarnLevel
	}
	return asynq.ErrorLevel
}
