package outbox

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// kindError is an error the relay met, tagged with its kind (RelayError*).
type kindError struct {
	kind string
	// held: the error left an entry pending (a failed delivery or ack),
	// to be retried once it has been idle for ReclaimIdle.
	held bool
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Unwrap() error { return e.err }

// fail counts an error of kind (unless the relay is stopping: a cancelled
// call is no error) and tags it.
func (r *Relay) fail(ctx context.Context, kind string, err error) error {
	if ctx.Err() == nil {
		r.cfg.OnError(kind)
	}
	return &kindError{kind: kind, err: err}
}

// failHeld is fail for an error that leaves an entry pending.
func (r *Relay) failHeld(ctx context.Context, kind string, err error) error {
	e := r.fail(ctx, kind, err)
	e.(*kindError).held = true
	return e
}

// errorKind is the kind of the first tagged error in err, RelayErrorRedis
// when none is tagged.
func errorKind(err error) string {
	var ke *kindError
	if errors.As(err, &ke) {
		return ke.kind
	}
	return RelayErrorRedis
}

// incident is a run of failing passes. Its start is logged at warn level
// and its end at info, and nothing in between (at debug level only): a relay
// retries every PollInterval, and a line per pass would bury everything
// else in the log. One outage is one incident whatever its errors: a Redis
// restart fails some passes reading (redis) and others in the consumer
// (consume), alternately, and each change of kind used to warn again.
type incident struct {
	open   bool
	kinds  []string // every kind met, the first one first
	since  time.Time
	passes int
}

// step runs one pass and records its outcome: progress (see Progress) and
// the incident log.
func (r *Relay) step(ctx context.Context) (int, error) {
	r.mu.Lock()
	acked := r.acked
	r.mu.Unlock()
	n, err := r.pass(ctx)
	if ctx.Err() != nil {
		return n, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Clock.Now()
	if failedDelivery(err) {
		r.owing = now.Add(r.cfg.ReclaimIdle * 3 / 2)
	}
	progressed := r.acked > acked || (onlyTrimFailed(err) && !now.Before(r.owing))
	if progressed {
		r.markProgress()
	}
	r.record(err, progressed)
	return n, err
}

// failedDelivery reports whether err holds a failed delivery or ack: the
// entry stays pending until a relay retries it after ReclaimIdle.
func failedDelivery(err error) bool {
	for _, ke := range tagged(err) {
		if ke != nil && ke.held {
			return true
		}
	}
	return false
}

// onlyTrimFailed reports whether err is nil or holds trim failures alone
// (which hold no entry back).
func onlyTrimFailed(err error) bool {
	for _, ke := range tagged(err) {
		if ke == nil || ke.kind != RelayErrorTrim {
			return false
		}
	}
	return true
}

// tagged lists the relay errors in err's tree (errors.Join and %w wraps),
// nil for a branch that holds none.
func tagged(err error) []*kindError {
	switch e := err.(type) {
	case nil:
		return nil
	case *kindError:
		return []*kindError{e}
	case interface{ Unwrap() []error }:
		var out []*kindError
		for _, x := range e.Unwrap() {
			out = append(out, tagged(x)...)
		}
		return out
	case interface{ Unwrap() error }:
		return tagged(e.Unwrap())
	}
	return []*kindError{nil}
}

// flatten lists the errors joined in err (errors.Join), nil for nil.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// record logs the start of an incident (a failed pass) and its end (the
// first pass that made progress without failing); the kinds of error met in
// between are listed at the end. The caller holds r.mu.
func (r *Relay) record(err error, progressed bool) {
	inc := &r.incident
	now := r.cfg.Clock.Now()
	if err == nil {
		if inc.open && progressed {
			r.log.Info("relay recovered", "kind", inc.kinds[0], "kinds", strings.Join(inc.kinds, ","), "failed_passes", inc.passes,
				"duration", now.Sub(inc.since).Round(time.Millisecond).String())
			*inc = incident{}
		}
		return
	}
	errs := flatten(err)
	kind := errorKind(errs[0])
	if inc.open {
		inc.passes++
		if !slices.Contains(inc.kinds, kind) {
			inc.kinds = append(inc.kinds, kind)
		}
		r.log.Debug("relay pass failed again", "kind", kind, "errors", len(errs), "error", errs[0].Error())
		return
	}
	*inc = incident{open: true, since: now, kinds: []string{kind}, passes: 1}
	r.log.Warn("relay pass failed; retrying every poll interval, logged again when it recovers",
		"kind", kind, "errors", len(errs), "error", errs[0].Error())
}

// markProgress records that the relay made progress now.
func (r *Relay) markProgress() { r.progress.Store(r.cfg.Clock.Now().UnixNano()) }

// Progress is when the relay last made progress: it started, or a pass read
// every shard and delivered what it found, or acked at least one entry. A
// relay whose passes keep failing (Redis unreachable, the publisher down)
// stops making progress, which a readiness probe can report; an idle relay
// over an empty outbox makes progress on every pass.
func (r *Relay) Progress() time.Time { return time.Unix(0, r.progress.Load()).UTC() }
