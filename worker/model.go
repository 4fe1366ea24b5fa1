package worker

import (
	"errors"
	"sync"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
)

// setupLogEvery is how often, at most, a worker logs at ERROR that the model
// endpoint refuses its settings: once is enough to page someone, a line per
// job would drown the log of a busy backlog.
const setupLogEvery = time.Minute

// ErrModelSettingsRefused is the readiness failure of a worker whose model
// endpoint refuses its settings.
var ErrModelSettingsRefused = errors.New("worker: the model endpoint refuses this deployment's settings (RELAYOPS_LLM_API_KEY, RELAYOPS_LLM_MODEL, RELAYOPS_LLM_BASE_URL)")

// modelState is what the endpoint last said about this deployment's
// settings: refused after a 401/403/404, accepted again after any other
// answer. Calls that got no answer (timeouts, connection errors) say
// nothing about the settings and leave it alone.
type modelState struct {
	mu      sync.Mutex
	refused bool
}

func (s *modelState) set(refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = refused
}

func (s *modelState) get() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// ObserveModelCall counts one model call (extract.ModelConfig.Observe):
// its outcome, its tokens, and what it says about the settings.
func (m *Metrics) ObserveModelCall(c extract.ModelCall) {
	m.modelCalls.WithLabelValues(c.Model, c.Outcome).Inc()
	if c.PromptTokens > 0 {
		m.modelTokens.WithLabelValues(c.Model, "prompt").Add(float64(c.PromptTokens))
	}
	if c.CompletionTokens > 0 {
		m.modelTokens.WithLabelValues(c.Model, "completion").Add(float64(c.CompletionTokens))
	}
	switch c.Outcome {
	case extract.CallUnauthorized, extract.CallNotFound:
		m.model.set(true)
		m.modelRefused.Set(1)
	case extract.CallTimeout, extract.CallUnreachable, extract.CallCancelled:
	default:
		m.model.set(false)
		m.modelRefused.Set(0)
	}
}

// ModelReady returns ErrModelSettingsRefused while the model endpoint's
// last answer refused this deployment's settings, else nil.
func (m *Metrics) ModelReady() error {
	if m.model.get() {
		return ErrModelSettingsRefused
	}
	return nil
}

// rejected counts a dead-lettered rejection; reason is bounded by Reason.
func (m *Metrics) rejected(reason string) {
	m.rejections.WithLabelValues(reason).Inc()
}

// logLimiter lets one line through per interval.
type logLimiter struct {
	clock clock.Clock
	every time.Duration

	mu   sync.Mutex
	last time.Time
}

func newLogLimiter(c clock.Clock, every time.Duration) *logLimiter {
	return &logLimiter{clock: c, every: every}
}

func (l *logLimiter) allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		return false
	}
	l.last = now
	return true
}
