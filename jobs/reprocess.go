package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// ErrReprocessRace is returned when the document's versions kept moving under
// a reprocess for every try; it should not happen outside of a storm of
// concurrent submissions to one document.
var ErrReprocessRace = errors.New("jobs: reprocess: document version kept changing")

// Reprocess runs a dead-lettered job again as the document's next version;
// the dead job stays as it was, linked to the new one. Repeating it returns the same new job
// (Repeat true); a repeat with different content or different corrections
// is ErrIdempotencyConflict.
func (s *Store) Reprocess(ctx context.Context, req ReprocessRequest) (*ReprocessResult, error) {
	k := req.Key
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if req.Operator == "" || req.Reason == "" {
		return nil, errors.New("jobs: reprocess needs an operator and a reason")
	}
	given, ph, blob := "0", "", []byte(nil)
	if req.Content != nil {
		var err error
		if blob, err = s.seal.seal(k, *req.Content); err != nil {
			return nil, err
		}
		given, ph = "1", PayloadHash(*req.Content)
	}
	corr, err := s.sealCorrections(ctx, k, req, &ph)
	if err != nil {
		return nil, err
	}
	var target string // set when the job was already reprocessed as another key
	for range 8 {
		maxv, err := s.rdb.Get(ctx, s.keys.document(k)).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("jobs: reprocess %s: %w", k, err)
		}
		if maxv == "" {
			maxv = "0"
		}
		newKey, err := s.nextKey(k, maxv, target)
		if err != nil {
			return nil, err
		}
		keys := append(s.familyKeys(k), s.jobKeys(newKey)...)
		args := s.familyArgs(k, newKey.String(), maxv, req.Operator, req.Reason, given, ph, blob, k.Tenant,
			corr.corrections, corr.changes, req.Overruled)
		r, err := s.callAcked(ctx, reprocessScript, keys, args...)
		if err != nil {
			return nil, fmt.Errorf("jobs: reprocess %s: %w", k, err)
		}
		switch r.status() {
		case "created", "repeat":
			j, err := s.Get(ctx, newKey)
			if err != nil {
				return nil, fmt.Errorf("jobs: reprocess %s: read back: %w", k, err)
			}
			return &ReprocessResult{Job: j, Repeat: r.status() == "repeat"}, nil
		case "moved":
			target = r.str(1)
			continue
		case "race":
			continue
		}
		return nil, reprocessError(r)
	}
	return nil, ErrReprocessRace
}

// sealedCorrections are a reprocess's corrections and audit changes, sealed.
type sealedCorrections struct{ corrections, changes []byte }

// sealCorrections seals req's corrections and changes and turns *ph into
// the new version's payload hash, which covers the input (the given
// content's hash, else the dead job's) and the corrections.
func (s *Store) sealCorrections(ctx context.Context, k Key, req ReprocessRequest, ph *string) (sealedCorrections, error) {
	var out sealedCorrections
	if len(req.Corrections) == 0 {
		return out, nil
	}
	if *ph == "" {
		old, err := s.rdb.HGet(ctx, s.keys.job(k), fPayloadHash).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return out, fmt.Errorf("jobs: reprocess %s: %w", k, err)
		}
		*ph = old // "" when the record is gone: the script answers for it
	}
	*ph = CorrectedPayloadHash(*ph, req.Corrections)
	blob, err := encodeCorrections(req.Corrections, req.Base, req.Operator)
	if err != nil {
		return out, fmt.Errorf("jobs: reprocess %s: %w", k, err)
	}
	if out.corrections, err = s.seal.sealValue(k, kindCorrections, blob); err != nil {
		return out, err
	}
	if len(req.Changes) > 0 {
		if out.changes, err = s.seal.sealValue(k, kindChanges, req.Changes); err != nil {
			return out, err
		}
	}
	return out, nil
}

// nextKey is the key the new job gets: the document's max version + 1, or
// the key it was already reprocessed as.
func (s *Store) nextKey(k Key, maxv, target string) (Key, error) {
	if target != "" {
		return ParseKey(target)
	}
	n, err := strconv.ParseInt(maxv, 10, 64)
	if err != nil {
		return Key{}, fmt.Errorf("jobs: reprocess %s: bad max version %q", k, maxv)
	}
	return k.WithVersion(max(n, k.Version) + 1)
}

func reprocessError(r reply) error {
	switch r.status() {
	case "conflict":
		return ErrIdempotencyConflict
	case "not_found":
		return ErrNotFound
	case "cancelled":
		return ErrJobCancelled
	case "not_dead":
		return fmt.Errorf("%w (state %s)", ErrNotDeadLettered, r.str(1))
	case "input_expired":
		return ErrInputExpired
	}
	return unexpected("reprocess", r.status())
}

// correctionRecord is what a corrected version's record holds (sealed):
// the corrections and the base they were judged over. A record written
// before bases were kept holds the corrections' JSON alone.
type correctionRecord struct {
	V           int             `json:"v"`
	Corrections json.RawMessage `json:"corrections"`
	Base        json.RawMessage `json:"base,omitempty"`
	Operator    string          `json:"operator,omitempty"` // who corrected: a supplier profile learns from them
}

// correctionRecordVersion marks a correctionRecord.
const correctionRecordVersion = 2

// encodeCorrections writes the record; without a base (a caller that
// judged over nothing it can name) the worker reads and extracts the
// document again to have one.
func encodeCorrections(corrections, base []byte, operator string) ([]byte, error) {
	if !json.Valid(corrections) || len(base) > 0 && !json.Valid(base) {
		return nil, errors.New("corrections and their base must be JSON")
	}
	return json.Marshal(correctionRecord{V: correctionRecordVersion, Corrections: corrections, Base: base, Operator: operator})
}

// decodeCorrections splits a record's corrections from their base and
// who gave them; a record from before bases were kept has neither.
func decodeCorrections(b []byte) (corrections, base []byte, operator string) {
	var r correctionRecord
	if json.Unmarshal(b, &r) == nil && r.V == correctionRecordVersion && len(r.Corrections) > 0 {
		return r.Corrections, r.Base, r.Operator
	}
	return b, nil, ""
}
