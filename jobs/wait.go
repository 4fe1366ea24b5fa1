package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNotReplicated means a write that acknowledges something to a caller
// (submit, commit, reprocess, review decision) ran on the master but fewer
// than Config.WaitReplicas replicas confirmed it within Config.WaitTimeout.
// The write may survive a failover or be lost with the master: it must not
// be reported as done. Every such script is idempotent, so the caller
// retries (the API answers 503, the worker lets Asynq redeliver).
var ErrNotReplicated = errors.New("jobs: write not confirmed by enough replicas")

// ackMarker is the key an acknowledged call writes after its script, in the
// script's slot: see callAcked.
const ackMarker = "ack"

// ackMarkerTTL bounds the marker's life; it holds nothing anyone reads.
const ackMarkerTTL = time.Minute

// callAcked runs a script whose answer is acknowledged to a caller. With
// WaitReplicas > 0 the script is followed, in one pipeline on the same
// connection to the master of its slot, by a SET of a marker key in that
// slot and WAIT WaitReplicas WaitTimeout. WAIT counts the replicas that
// have the connection's last write; the marker makes that write exist and
// come after everything the master had applied, so an answer that wrote
// nothing (a dedupe, a repeat) is confirmed too — the job it reports may
// have been written by another connection whose WAIT failed.
func (s *Store) callAcked(ctx context.Context, sc *script, keys []string, args ...any) (reply, error) {
	if s.waitReplicas == 0 {
		return s.call(ctx, sc, keys, args...)
	}
	node, err := s.masterFor(ctx, keys[0])
	if err != nil {
		return nil, err
	}
	v, err := s.runAndWait(ctx, node, sc, keys, args)
	if err != nil {
		return nil, err
	}
	return sc.check(v)
}

// masterFor is the client of the node that serves key: the store's own
// client on one Redis, the slot's master on a Redis Cluster (WAIT has no
// key, so the cluster client could not route it).
func (s *Store) masterFor(ctx context.Context, key string) (*redis.Client, error) {
	switch c := s.rdb.(type) {
	case *redis.Client:
		return c, nil
	case *redis.ClusterClient:
		node, err := c.MasterForKey(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("jobs: master of a slot: %w", err)
		}
		return node, nil
	}
	return nil, fmt.Errorf("jobs: WaitReplicas needs a *redis.Client or *redis.ClusterClient, got %T", s.rdb)
}

// runAndWait pipelines the script (EVALSHA, or EVAL when the node does not
// have it cached), the marker and WAIT on node.
func (s *Store) runAndWait(ctx context.Context, node *redis.Client, sc *script, keys []string, args []any) (any, error) {
	marker := slotPrefix(keys[0]) + ackMarker
	for _, load := range []bool{false, true} {
		pipe := node.Pipeline()
		var run *redis.Cmd
		if load {
			run = sc.Eval(ctx, pipe, keys, args...)
		} else {
			run = sc.EvalSha(ctx, pipe, keys, args...)
		}
		pipe.Set(ctx, marker, "1", ackMarkerTTL)
		wait := pipe.Do(ctx, "wait", s.waitReplicas, s.waitTimeout.Milliseconds())
		_, _ = pipe.Exec(ctx) // each command's error is read below
		v, err := run.Result()
		if !load && redis.HasErrorPrefix(err, "NOSCRIPT") {
			continue
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, sc.locate(err)
		}
		n, werr := wait.Int64()
		if werr != nil {
			return nil, fmt.Errorf("jobs: wait for replicas: %w", werr)
		}
		if n < int64(s.waitReplicas) {
			return nil, fmt.Errorf("%w: %d of %d within %s", ErrNotReplicated, n, s.waitReplicas, s.waitTimeout)
		}
		return v, err
	}
	panic("unreachable: the EVAL pass returns")
}

// slotPrefix is the part of a store key up to and including its hash tag
// and the colon after it ("ro:{07}:"), so a key built on it shares the
// slot. Every store key has a tag; a key without one becomes the tag.
func slotPrefix(key string) string {
	if i := strings.Index(key, "}:"); i >= 0 && strings.Contains(key[:i], "{") {
		return key[:i+2]
	}
	return "{" + key + "}:"
}
