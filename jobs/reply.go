package jobs

import (
	"context"
	"fmt"
)

// The answers of the scripts, declared once: for each script, each status
// word it may answer with and the length of that answer. call checks every
// reply against them before a wrapper reads a field, so a wrapper indexes
// only fields that exist, and a script and its decoder that disagree fail
// loudly (errUnexpected) instead of reading a missing field as "".

// shape is the length of one kind of answer: exactly n entries, or, with
// pairs, n entries followed by field/value pairs, or, with rest, n entries
// followed by any number more.
type shape struct {
	n     int
	pairs bool
	rest  bool
}

func (sh shape) fits(n int) bool {
	switch {
	case sh.rest:
		return n >= sh.n
	case sh.pairs:
		return n >= sh.n && (n-sh.n)%2 == 0
	}
	return n == sh.n
}

func one(n int) []shape       { return []shape{{n: n}} }
func withPairs(n int) []shape { return []shape{{n: n, pairs: true}} }
func atLeast(n int) []shape   { return []shape{{n: n, rest: true}} }

var replyShapes = map[*script]map[string][]shape{
	submitScript: {
		"created":        {{n: 1}, {n: 3, pairs: true}}, // new: nothing more; a replay: the job's fields
		"deduped":        withPairs(3),                  // status, inputExists, resultExists, field/value...
		"deduped_ledger": one(6),                        // status, state, hash, eventId, finishedMs, code
		"conflict":       one(1),
	},
	claimScript: {
		"running":   withPairs(11), // status, fence .. input, corrections, then stage/output pairs
		"terminal":  one(5),        // status, state, code, endedNow, createdAt
		"stale":     one(1),
		"not_found": one(1),
	},
	checkpointScript: {"ok": one(1), "stale": one(1)},
	commitScript: {
		"committed": one(2), "deduped": one(2), "conflict": one(1), "stale": one(1),
	},
	failScript: {
		string(StateRetrying): one(1), string(StateDeadLettered): one(1), string(StateCancelled): one(1), "stale": one(1),
	},
	reprocessScript: {
		"created": one(2), "repeat": one(2), "moved": one(2), "race": one(1), "conflict": one(1),
		"not_found": one(1), "cancelled": one(1), "not_dead": one(2), "input_expired": one(1),
	},
	applyScript: {"statuses": atLeast(1)}, // then one status per event
	decideScript: {
		"decided": one(1 + len(reviewFields)), "same": one(1 + len(reviewFields)),
		"other": one(1 + len(reviewFields)), "not_found": one(1), "duplicate": one(2),
	},
}

// call runs a script and returns its reply, checked against replyShapes: a
// status the script does not declare, or an answer of the wrong length, is
// errUnexpected. A bare string answer is a reply of one entry.
func (s *Store) call(ctx context.Context, sc *script, keys []string, args ...any) (reply, error) {
	v, err := s.run(ctx, sc, keys, args...)
	if err != nil {
		return nil, err
	}
	return sc.check(v)
}

func (sc *script) check(v any) (reply, error) {
	var r reply
	switch v := v.(type) {
	case string:
		r = reply{v}
	case []any:
		r = reply(v)
	}
	if len(r) == 0 {
		return nil, fmt.Errorf("%w: %s answered %v", errUnexpected, sc.name, v)
	}
	shapes, ok := replyShapes[sc][r.status()]
	if !ok {
		return nil, unexpected(sc.name, r.status())
	}
	for _, sh := range shapes {
		if sh.fits(len(r)) {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w: %s answered %q with %d entries", errUnexpected, sc.name, r.status(), len(r))
}
