package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Claim starts an attempt of k (or recovers one found running) and returns
// its fencing token. token identifies this handler invocation: a re-run of
// Claim with the same token returns the same fence while it is current.
func (s *Store) Claim(ctx context.Context, k Key, token string) (*Claim, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if token == "" {
		return nil, fmt.Errorf("jobs: claim %s: empty token", k)
	}
	r, err := s.call(ctx, claimScript, s.familyKeys(k), s.familyArgs(k, token)...)
	if err != nil {
		return nil, fmt.Errorf("jobs: claim %s: %w", k, err)
	}
	switch r.status() {
	case "not_found":
		return nil, ErrNotFound
	case "stale":
		return nil, ErrStaleFence
	case "terminal":
		return &Claim{State: State(r.str(1)), ErrorCode: r.str(2), EndedNow: r.str(3) == "1", CreatedAt: msTime(r.str(4))}, nil
	case "running":
		fence, _ := strconv.ParseInt(r.str(1), 10, 64)
		c := &Claim{
			State: StateRunning, Fence: fence, Attempt: atoi(r.str(2)), Recoveries: atoi(r.str(3)),
			Recovered: r.str(4) == "1", PayloadHash: r.str(5), DeadlineAt: msTime(r.str(6)), EnqueuedAt: msTime(r.str(7)),
			CreatedAt: msTime(r.str(8)), Checkpoints: map[string][]byte{},
		}
		if blob, ok := r[9].(string); ok {
			if c.Input, err = s.seal.open(k, []byte(blob)); err != nil {
				return nil, fmt.Errorf("jobs: claim %s: %w", k, err)
			}
		} else {
			c.InputExpired = true
		}
		if blob, ok := r[10].(string); ok {
			corr, err := s.seal.openValue(k, kindCorrections, []byte(blob))
			if err != nil {
				return nil, fmt.Errorf("jobs: claim %s: corrections: %w", k, err)
			}
			c.Corrections, c.Base, c.CorrectedBy = decodeCorrections(corr)
		}
		for i := 11; i+1 < len(r); i += 2 {
			stage := r.str(i)
			if c.Checkpoints[stage], err = s.seal.openValue(k, kindCheckpoint(stage), []byte(r.str(i+1))); err != nil {
				return nil, fmt.Errorf("jobs: claim %s: checkpoint %s: %w", k, stage, err)
			}
		}
		return c, nil
	}
	return nil, unexpected("claim", r.status())
}

// Checkpoint stores the output of one stage of the current attempt.
func (s *Store) Checkpoint(ctx context.Context, k Key, fence int64, stage string, data []byte) error {
	return s.ReplaceCheckpoints(ctx, k, fence, stage, data, nil)
}

// ReplaceCheckpoints stores the output of one stage of the current attempt
// and, in the same step, deletes the checkpoints of the stages in replaced
// (parts of it stored as they were done), so a job's checkpoints stay few.
func (s *Store) ReplaceCheckpoints(ctx context.Context, k Key, fence int64, stage string, data []byte, replaced []string) error {
	if err := checkKey(k); err != nil {
		return err
	}
	blob, err := s.seal.sealValue(k, kindCheckpoint(stage), data)
	if err != nil {
		return fmt.Errorf("jobs: checkpoint %s: %w", k, err)
	}
	args := []any{fence, stage, blob}
	for _, r := range replaced {
		args = append(args, r)
	}
	r, err := s.call(ctx, checkpointScript, []string{s.keys.job(k), s.keys.checkpoints(k)}, args...)
	if err != nil {
		return fmt.Errorf("jobs: checkpoint %s: %w", k, err)
	}
	switch r.status() {
	case "ok":
		return nil
	case "stale":
		return ErrStaleFence
	}
	return unexpected("checkpoint", r.status())
}

// Checkpoints returns the stored stage outputs of k, by stage name.
func (s *Store) Checkpoints(ctx context.Context, k Key) (map[string][]byte, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	m, err := s.rdb.HGetAll(ctx, s.keys.checkpoints(k)).Result()
	if err != nil {
		return nil, fmt.Errorf("jobs: checkpoints %s: %w", k, err)
	}
	out := make(map[string][]byte, len(m))
	for stage, v := range m {
		if out[stage], err = s.seal.openValue(k, kindCheckpoint(stage), []byte(v)); err != nil {
			return nil, fmt.Errorf("jobs: checkpoints %s: %s: %w", k, stage, err)
		}
	}
	return out, nil
}

// newEventID returns a random 128-bit event ID.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// succeededTrimEvery is how many commits into one succeeded index, per
// Store, share one trim of it (a ZREMRANGEBYSCORE). The trim only drops
// members whose record has expired, and lists skip those anyway: it bounds
// the index's memory, not what it lists, so it need not run on every
// commit. Every other end of a job (dead letter, cancel) trims its index
// each time; the open index is never trimmed (lib.lua, index_add).
const succeededTrimEvery = 16

// succeededIndex names a tenant's succeeded index in one shard.
type succeededIndex struct {
	shard  int
	tenant string
}

// trimSucceeded reports whether this commit of k trims its tenant's
// succeeded index in its shard: the first of every succeededTrimEvery
// commits into that index made through s. Whatever the number of
// processes, an index is trimmed at least once in every succeededTrimEvery
// of its writes, so it holds at most the members that expired since.
func (s *Store) trimSucceeded(k Key) bool {
	idx := succeededIndex{s.keys.shardOf(k), k.Tenant}
	n, ok := s.commits.Load(idx)
	if !ok {
		n, _ = s.commits.LoadOrStore(idx, new(atomic.Uint32))
	}
	return n.(*atomic.Uint32).Add(1)%succeededTrimEvery == 1
}

// Commit writes the attempt's result, the extraction.committed outbox row and
// the ledger entry, and marks the job succeeded, atomically. payloadHash is
// the hash of the input the attempt worked on; it must be the job's.
func (s *Store) Commit(ctx context.Context, k Key, fence int64, payloadHash string, result []byte) (*CommitResult, error) {
	return s.CommitWith(ctx, k, fence, payloadHash, result, nil)
}

// CommitOpts are what a commit carries beside its result.
type CommitOpts struct {
	// Fingerprint is the result's duplicate fingerprint (package supplier:
	// salted hashes only), carried by the extraction.committed row to the
	// review consumer, which claims it before it creates the review.
	Fingerprint string
	// DocumentType is the result's document type (invoice, creditNote,
	// correctiveInvoice), carried by the row to the webhook.
	DocumentType string
}

// CommitWith is Commit with options (o nil: none).
func (s *Store) CommitWith(ctx context.Context, k Key, fence int64, payloadHash string, result []byte, o *CommitOpts) (*CommitResult, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	ev := newEventID()
	raw, err := hex.DecodeString(payloadHash + ev)
	if err != nil || len(raw) != 48 {
		return nil, fmt.Errorf("jobs: commit %s: payload hash must be 64 hex digits", k)
	}
	trim := "0"
	if s.trimSucceeded(k) {
		trim = "1"
	}
	blob, err := s.seal.sealValue(k, kindResult, result)
	if err != nil {
		return nil, fmt.Errorf("jobs: commit %s: %w", k, err)
	}
	var fp, doctype string
	if o != nil {
		fp, doctype = o.Fingerprint, o.DocumentType
	}
	args := s.familyArgs(k, fence, payloadHash, blob, ev, raw, trim, fp, doctype)
	r, err := s.callAcked(ctx, commitScript, s.familyKeys(k), args...)
	if err != nil {
		return nil, fmt.Errorf("jobs: commit %s: %w", k, err)
	}
	switch r.status() {
	case "committed":
		return &CommitResult{EventID: r.str(1)}, nil
	case "deduped":
		return &CommitResult{EventID: r.str(1), Deduped: true}, nil
	case "conflict":
		return nil, ErrIdempotencyConflict
	case "stale":
		return nil, ErrStaleFence
	}
	return nil, unexpected("commit", r.status())
}

// Fail ends the attempt with a transient failure. The job is retried
// (StateRetrying) while business attempts remain; the last one dead-letters it
// with CodeMaxAttemptsExceeded (StateDeadLettered).
func (s *Store) Fail(ctx context.Context, k Key, fence int64, code string) (State, error) {
	return s.end(ctx, k, fence, code, "transient", "", nil)
}

// DeadLetter ends the job as dead_lettered with code.
func (s *Store) DeadLetter(ctx context.Context, k Key, fence int64, code string) error {
	_, err := s.end(ctx, k, fence, code, "dead", "", nil)
	return err
}

// Reject dead-letters a job whose document was rejected: its error code is
// CodePermanent and its ErrorReason is reason, a short content-free code
// telling the operator what to correct before reprocessing. The caller
// bounds reason to a fixed set.
//
// detail, when not nil, is what was read before the rejection (the partial
// extraction, JSON): document data, kept sealed in the job's result key so
// it expires with the result; Rejection returns it.
func (s *Store) Reject(ctx context.Context, k Key, fence int64, reason string, detail []byte) error {
	if reason == "" {
		return fmt.Errorf("jobs: reject %s: empty reason", k)
	}
	var blob []byte
	if detail != nil {
		var err error
		if blob, err = s.seal.sealValue(k, kindRejection, detail); err != nil {
			return fmt.Errorf("jobs: reject %s: %w", k, err)
		}
	}
	_, err := s.end(ctx, k, fence, CodePermanent, "dead", reason, blob)
	return err
}

// Rejection returns the detail a rejected job kept (see Reject):
// ErrResultExpired when it has none or it expired, ErrNotDeadLettered when
// the job did not end as a rejection.
//
// One round trip: the record's state and reason with the detail (a
// dead-letter list reads one per row).
func (s *Store) Rejection(ctx context.Context, k Key) ([]byte, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	rec := pipe.HMGet(ctx, s.keys.job(k), fState, fErrorReason)
	res := pipe.Get(ctx, s.keys.result(k))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("jobs: rejection %s: %w", k, err)
	}
	st, _ := rec.Val()[0].(string)
	reason, _ := rec.Val()[1].(string)
	if st != string(StateDeadLettered) || reason == "" {
		return nil, ErrNotDeadLettered
	}
	b, err := res.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrResultExpired
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: rejection %s: %w", k, err)
	}
	d, err := s.seal.openValue(k, kindRejection, b)
	if err != nil {
		return nil, fmt.Errorf("jobs: rejection %s: %w", k, err)
	}
	return d, nil
}

// Release ends the attempt without counting it: the job is retrying with
// code, and its attempt count is what it was before the claim. It is for
// failures that are not the job's fault and that no number of attempts can
// fix (the deployment's model credentials refused): the job waits for the
// fix instead of exhausting its attempts. Its deadline still applies.
func (s *Store) Release(ctx context.Context, k Key, fence int64, code string) error {
	_, err := s.end(ctx, k, fence, code, "release", "", nil)
	return err
}

// Cancel ends the job as cancelled with code (terminal, not dead-lettered).
func (s *Store) Cancel(ctx context.Context, k Key, fence int64, code string) error {
	_, err := s.end(ctx, k, fence, code, "cancel", "", nil)
	return err
}

func (s *Store) end(ctx context.Context, k Key, fence int64, code, mode, reason string, detail []byte) (State, error) {
	if err := checkKey(k); err != nil {
		return "", err
	}
	r, err := s.call(ctx, failScript, s.familyKeys(k), s.familyArgs(k, fence, code, mode, reason, detail)...)
	if err != nil {
		return "", fmt.Errorf("jobs: %s %s: %w", mode, k, err)
	}
	switch st := r.status(); st {
	case "stale":
		return "", ErrStaleFence
	case string(StateRetrying), string(StateDeadLettered), string(StateCancelled):
		return State(st), nil
	}
	return "", unexpected("fail", r.status())
}
