package jobs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// What the relay (package outbox) needs of the store: the per-shard outbox
// streams, their retention and the decoding of their entries. The relay
// reads and acks the streams itself; the store only writes them, inside its
// scripts.

// RelayGroup is the consumer group every relay joins on every shard's outbox
// stream; the store's stats read its lag.
const RelayGroup = "relay"

// OutboxStream returns the key of a shard's outbox stream.
func (s *Store) OutboxStream(shard int) string { return s.keys.outbox(shard) }

// OutboxRetention is how long acked outbox entries are kept.
func (s *Store) OutboxRetention() time.Duration { return s.ret.Outbox }

// ParseEvent decodes one entry of a shard's outbox stream.
func ParseEvent(shard int, m redis.XMessage) (Event, error) {
	k, err := ParseKey(str(m.Values, evKey))
	if err != nil {
		return Event{}, err
	}
	ev := Event{StreamID: m.ID, Shard: shard, Type: str(m.Values, evType), Key: k,
		EventID: str(m.Values, evEventID), At: msTime(str(m.Values, evAt)),
		Code: str(m.Values, evCode), ErrorReason: str(m.Values, evErrorReason), Decision: str(m.Values, evDecision)}
	ev.Fingerprint, ev.DocumentType = str(m.Values, evFingerprint), str(m.Values, evDocType)
	if names := str(m.Values, evCorrected); names != "" {
		ev.CorrectedFields = strings.Split(names, ",")
	}
	switch ev.Type {
	case EventJobSubmitted, EventExtractionCommitted, EventJobDeadLettered, EventJobCancelled, EventReviewDecided:
	default:
		return Event{}, fmt.Errorf("unknown event type %q", ev.Type)
	}
	if ev.Type == EventExtractionCommitted && ev.EventID == "" {
		return Event{}, errors.New("extraction.committed without eventId")
	}
	return ev, nil
}

// StreamIDLess reports whether stream ID a sorts before b.
func StreamIDLess(a, b string) bool {
	am, as := splitID(a)
	bm, bs := splitID(b)
	return am < bm || (am == bm && as < bs)
}

func splitID(id string) (uint64, uint64) {
	m, s, _ := strings.Cut(id, "-")
	mv, _ := strconv.ParseUint(m, 10, 64)
	sv, _ := strconv.ParseUint(s, 10, 64)
	return mv, sv
}
