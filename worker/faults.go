package worker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault injection points. The stage points (classify, extract, validate)
// fire in place of the extractor call, so a fault there is the stage failing;
// the after_* points fire once the step before them is durable.
const (
	PointBeforeClaim          = "before_claim"
	PointAfterClaim           = "after_claim"
	PointRead                 = "read"
	PointAfterRead            = "after_read"
	PointClassify             = "classify"
	PointExtract              = "extract"
	PointValidate             = "validate"
	PointAfterClassify        = "after_classify"
	PointAfterExtract         = "after_extract"
	PointAfterValidate        = "after_validate"
	PointAfterCommitBeforeAck = "after_commit_before_ack"
	// PointRelayAfterEnqueue fires in Publisher.Publish after a successful
	// enqueue, before the relay acks the outbox row.
	PointRelayAfterEnqueue = "relay_after_enqueue_before_ack"
	// PointWebhookAfterSend fires in a webhook delivery after the receiver
	// answered, before the attempt is recorded.
	PointWebhookAfterSend = "webhook_after_send_before_record"
	// PointAfterFingerprint fires in the review consumer after a batch's
	// duplicate fingerprints were claimed, before their webhooks and
	// reviews.
	PointAfterFingerprint = "consumer_after_fingerprint_before_review"
)

// Points lists every fault injection point.
var Points = []string{
	PointBeforeClaim, PointAfterClaim, PointRead, PointAfterRead,
	PointClassify, PointAfterClassify, PointExtract, PointAfterExtract, PointValidate, PointAfterValidate,
	PointAfterCommitBeforeAck, PointRelayAfterEnqueue, PointWebhookAfterSend, PointAfterFingerprint,
}

// Fault actions.
const (
	ActionKill      = "kill"      // SIGKILL the process itself
	ActionPause     = "pause"     // stall for a duration, ignoring any context
	ActionTransient = "transient" // fail with a transient error
	ActionPermanent = "permanent" // fail with a permanent error
)

// Faults injects failures at named points, for tests and chaos runs only.
// It is configured by RELAYOPS_FAULTS, a comma-separated list of
// point=action[trigger] entries:
//
//	action  = kill | pause:<duration> | transient | permanent
//	trigger = @<probability in (0,1]>  (each hit fires with that probability)
//	        | #<n>                     (only the n-th hit of the point fires)
//	        | (none)                   (every hit fires)
//
// e.g. "after_commit_before_ack=kill#1,extract=transient@0.2". Entries of
// one point are tried in order; the first that fires wins. A nil *Faults
// injects nothing. Methods are safe for concurrent use.
type Faults struct {
	spec  string
	rules map[string][]*faultRule

	mu   sync.Mutex
	hits map[string]int
	rng  *rand.Rand

	kill  func()                     // default: SIGKILL this process
	pause func(d time.Duration)      // default: time.Sleep
	fired func(point, action string) // optional observer (logs, metrics)
}

type faultRule struct {
	action string
	pause  time.Duration
	prob   float64 // 0 when nth is set
	nth    int
}

// ParseFaults parses a RELAYOPS_FAULTS value. An empty spec returns nil (no
// faults). Errors name the offending entry.
func ParseFaults(spec string) (*Faults, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	f := &Faults{
		spec:  spec,
		rules: map[string][]*faultRule{},
		hits:  map[string]int{},
		rng:   rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		kill:  killSelf,
		pause: time.Sleep,
	}
	for i, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		point, rule, err := parseFaultEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("RELAYOPS_FAULTS: entry %d %q: %w", i+1, entry, err)
		}
		f.rules[point] = append(f.rules[point], rule)
	}
	return f, nil
}

func parseFaultEntry(entry string) (string, *faultRule, error) {
	point, action, ok := strings.Cut(entry, "=")
	point, action = strings.TrimSpace(point), strings.TrimSpace(action)
	if !ok || point == "" || action == "" {
		return "", nil, fmt.Errorf("must be point=action")
	}
	if !knownPoint(point) {
		return "", nil, fmt.Errorf("unknown point %q (points: %s)", point, strings.Join(Points, ", "))
	}
	r := &faultRule{prob: 1}
	if i := strings.IndexAny(action, "@#"); i >= 0 {
		if err := r.parseTrigger(strings.TrimSpace(action[i:])); err != nil {
			return "", nil, err
		}
		action = strings.TrimSpace(action[:i])
	}
	name, arg, hasArg := strings.Cut(action, ":")
	switch {
	case name == ActionPause && hasArg:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return "", nil, fmt.Errorf("pause needs a positive duration, got %q", arg)
		}
		r.pause = d
	case name == ActionPause:
		return "", nil, fmt.Errorf("pause needs a duration: pause:<duration>")
	case hasArg:
		return "", nil, fmt.Errorf("action %q takes no argument", name)
	case name != ActionKill && name != ActionTransient && name != ActionPermanent:
		return "", nil, fmt.Errorf("unknown action %q (actions: kill, pause:<duration>, transient, permanent)", name)
	}
	r.action = name
	return point, r, nil
}

func (r *faultRule) parseTrigger(t string) error {
	v := strings.TrimSpace(t[1:])
	if t[0] == '@' {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p > 0 && p <= 1) {
			return fmt.Errorf("probability must be a number in (0,1], got %q", v)
		}
		r.prob = p
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("#n needs a positive integer, got %q", v)
	}
	r.prob, r.nth = 0, n
	return nil
}

func knownPoint(p string) bool {
	for _, q := range Points {
		if p == q {
			return true
		}
	}
	return false
}

// String returns the spec the faults were parsed from.
func (f *Faults) String() string {
	if f == nil {
		return ""
	}
	return f.spec
}

// Enabled reports whether any fault is configured.
func (f *Faults) Enabled() bool { return f != nil && len(f.rules) > 0 }

// OnFire registers fn to be called, before the action, every time a fault
// fires. Call it before the first Hit.
func (f *Faults) OnFire(fn func(point, action string)) {
	if f != nil {
		f.fired = fn
	}
}

// Hit passes the named point. When a fault fires there it kills the process
// (never returns), pauses and returns nil, or returns a *FaultError that is
// transient or permanent. With no fault firing it returns nil.
func (f *Faults) Hit(point string) error {
	r := f.pick(point)
	if r == nil {
		return nil
	}
	if f.fired != nil {
		f.fired(point, r.action)
	}
	switch r.action {
	case ActionKill:
		f.kill()
	case ActionPause:
		f.pause(r.pause)
	case ActionTransient:
		return &FaultError{Point: point, Action: r.action}
	case ActionPermanent:
		return &FaultError{Point: point, Action: r.action}
	}
	return nil
}

// pick counts a hit of point and returns the rule that fires, if any.
func (f *Faults) pick(point string) *faultRule {
	if f == nil {
		return nil
	}
	rules := f.rules[point]
	if len(rules) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits[point]++
	n := f.hits[point]
	for _, r := range rules {
		if (r.nth > 0 && r.nth == n) || (r.nth == 0 && (r.prob >= 1 || f.rng.Float64() < r.prob)) {
			return r
		}
	}
	return nil
}

// FaultError is the error of a transient or permanent fault. It classifies
// like the failure it simulates.
type FaultError struct {
	Point  string
	Action string
}

func (e *FaultError) Error() string { return "injected " + e.Action + " fault at " + e.Point }

// Unwrap returns ErrPermanent or ErrTransient.
func (e *FaultError) Unwrap() error {
	if e.Action == ActionPermanent {
		return ErrPermanent
	}
	return ErrTransient
}

// killSelf ends the process with SIGKILL, as a crash would: no deferred
// function, no shutdown, no flush.
func killSelf() {
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	select {} // SIGKILL is asynchronous; never return into the caller
}
