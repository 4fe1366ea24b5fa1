// Package clock is the injected source of "now". Every service takes a Clock in
// its Config so tests can drive time without sleeping; Redis scripts receive
// "now" from it in ARGV and never call TIME themselves.
package clock

import (
	"sync"
	"time"
)

// Clock tells the current time.
type Clock interface {
	Now() time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Stub is a manually driven clock for tests. The zero value is not usable;
// create one with NewStub.
type Stub struct {
	mu  sync.Mutex
	now time.Time
}

// NewStub returns a Stub set to t.
func NewStub(t time.Time) *Stub { return &Stub{now: t} }

// Now returns the stub's current time.
func (s *Stub) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Advance moves the stub forward by d and returns the new time.
func (s *Stub) Advance(d time.Duration) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(d)
	return s.now
}

// Set moves the stub to t.
func (s *Stub) Set(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = t
}
