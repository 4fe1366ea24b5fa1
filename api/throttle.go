package api

import (
	"net/netip"
	"sync"
	"time"

	"github.com/relayops/relayops/internal/clock"
)

// maxThrottledAddresses bounds the addresses the authentication throttle
// remembers; past it, expired windows are dropped first, then arbitrary
// ones (an attacker with that many addresses gains little: each is still
// throttled after its own few failures).
const maxThrottledAddresses = 10000

// authThrottle counts failed authentications per client address in fixed
// windows: after Count failures within Per, every further failure from the
// address answers 429 until the window ends. Successful authentications
// are neither counted nor refused, so a client sharing an address with a
// guesser keeps working. It is in memory, per API process: it slows a
// guesser, while the length of the tokens (at least 16 characters) is what
// makes guessing hopeless.
type authThrottle struct {
	rate  Rate
	clock clock.Clock

	mu      sync.Mutex
	windows map[netip.Prefix]*failWindow
}

type failWindow struct {
	start    time.Time
	failures int
}

func newAuthThrottle(r Rate, clk clock.Clock) *authThrottle {
	return &authThrottle{rate: r, clock: clk, windows: map[netip.Prefix]*failWindow{}}
}

// clientPrefix is the unit of throttling: the IPv4 address, or the /64 of
// an IPv6 address (a single host may hold a whole /64).
func clientPrefix(ip string) netip.Prefix {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p
}

// fail records a failed authentication from ip and reports how long the
// address must wait when it is over its budget (0: answer 401).
func (t *authThrottle) fail(ip string) time.Duration {
	key, now := clientPrefix(ip), t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.windows[key]
	if w == nil || now.Sub(w.start) >= t.rate.Per {
		t.makeRoom(now)
		w = &failWindow{start: now}
		t.windows[key] = w
	}
	if w.failures >= t.rate.Count {
		return w.start.Add(t.rate.Per).Sub(now)
	}
	w.failures++
	return 0
}

// makeRoom drops windows when the table is full: expired ones among a
// bounded sample first, else one arbitrary window, so each call is O(1).
func (t *authThrottle) makeRoom(now time.Time) {
	if len(t.windows) < maxThrottledAddresses {
		return
	}
	sampled := 0
	var victim netip.Prefix
	for k, w := range t.windows {
		victim = k
		if now.Sub(w.start) >= t.rate.Per {
			delete(t.windows, k)
		}
		if sampled++; sampled == 64 {
			break
		}
	}
	if len(t.windows) >= maxThrottledAddresses {
		delete(t.windows, victim)
	}
}

// size is the number of addresses remembered.
func (t *authThrottle) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.windows)
}
