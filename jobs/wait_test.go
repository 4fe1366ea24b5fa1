package jobs

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// waitCounter counts the WAIT commands a client sends, alone or pipelined.
type waitCounter struct {
	mu sync.Mutex
	n  int
}

func (w *waitCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (w *waitCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		w.count([]redis.Cmder{cmd})
		return next(ctx, cmd)
	}
}

func (w *waitCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		w.count(cmds)
		return next(ctx, cmds)
	}
}

func (w *waitCounter) count(cmds []redis.Cmder) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range cmds {
		if strings.EqualFold(c.Name(), "wait") {
			w.n++
		}
	}
}

func (w *waitCounter) value() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// acknowledged runs each of the four calls whose answer is acknowledged to
// a caller on its own job, prepared through plain (a store without WAIT on
// the same Redis), and returns their errors by name.
func acknowledged(t *testing.T, plain *bundle, s *Store) map[string]error {
	t.Helper()
	ctx := plain.ctx
	errs := map[string]error{}

	_, errs["submit"] = s.Submit(ctx, SubmitRequest{Key: mustKey(t, "acme", "new", 1), Content: "c", Limits: DefaultLimits})

	k := mustKey(t, "acme", "to-commit", 1)
	plain.submit(t, k, "c")
	c := plain.claim(t, k)
	_, errs["commit"] = s.Commit(ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))

	dead := mustKey(t, "acme", "dead", 1)
	plain.deadLetter(t, dead, "broken")
	_, errs["reprocess"] = s.Reprocess(ctx, ReprocessRequest{Key: dead, Operator: "alice", Reason: "fixed"})

	rk := mustKey(t, "acme", "reviewed", 1)
	ev := plain.succeed(t, rk)
	_, err := plain.store.ApplyCommitted(ctx, rk, ev)
	require.NoError(t, err)
	_, errs["decide"] = s.Decide(ctx, rk, "alice", ReviewApproved, "")
	return errs
}

// Without replicas (miniredis's WAIT answers 0 at once; a real redis-server
// has none here and answers 0 after the timeout), every acknowledged call
// fails with ErrNotReplicated rather than reporting success; each sent one
// WAIT, on the connection of its script.
func TestStore_WaitReplicas_NoReplicaInTime_EveryAcknowledgedCallIsNotReplicated(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		t.Parallel()
		plain := setup(t, b, nil)
		waits := &waitCounter{}
		b.Client.AddHook(waits)
		waiting := setup(t, b, func(c *Config) { c.WaitReplicas = 1; c.WaitTimeout = 20 * time.Millisecond })
		for _, sc := range []*script{submitScript, commitScript, reprocessScript, decideScript} {
			require.NoError(t, sc.Load(plain.ctx, b.Client).Err()) // else the first call is EVALSHA, NOSCRIPT, then EVAL
		}
		before := waits.value()

		errs := acknowledged(t, plain, waiting.store)
		for _, op := range []string{"submit", "commit", "reprocess", "decide"} {
			require.ErrorIs(t, errs[op], ErrNotReplicated, op)
			require.Contains(t, errs[op].Error(), "0 of 1 within 20ms", op)
		}
		require.Equal(t, 4, waits.value()-before, "one WAIT per acknowledged call, none for the preparation")
	})
}

// The write itself ran on the master: repeating the call once replicas are
// back is idempotent (here, without WAIT: a dedupe of the same job).
func TestStore_WaitReplicas_NotReplicatedSubmit_RepeatDedupes(t *testing.T) {
	t.Parallel()
	_, rdb := redistest.Mini(t)
	b := &redistest.Backend{Name: "miniredis", Client: rdb}
	waiting := setup(t, b, func(c *Config) { c.WaitReplicas = 1 })
	plain := setup(t, b, nil)
	req := SubmitRequest{Key: mustKey(t, "acme", "inv-1", 1), Content: "c", Limits: DefaultLimits}
	_, err := waiting.store.Submit(waiting.ctx, req)
	require.ErrorIs(t, err, ErrNotReplicated)
	r, err := plain.store.Submit(plain.ctx, req)
	require.NoError(t, err)
	require.True(t, r.Deduped)
}

func TestStore_WaitReplicasZero_SendsNoWait(t *testing.T) {
	t.Parallel()
	_, rdb := redistest.Mini(t)
	waits := &waitCounter{}
	rdb.AddHook(waits)
	plain := setup(t, &redistest.Backend{Name: "miniredis", Client: rdb}, nil)
	errs := acknowledged(t, plain, plain.store)
	for op, err := range errs {
		require.NoError(t, err, op)
	}
	require.Zero(t, waits.value())
}

func TestConfig_WaitSettings_Validated(t *testing.T) {
	t.Parallel()
	rdb, err := NewRedisClient("redis://127.0.0.1:1/0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	_, err = NewStore(Config{Redis: rdb, WaitReplicas: -1})
	require.ErrorContains(t, err, "Config.WaitReplicas must not be negative")
	_, err = NewStore(Config{Redis: rdb, WaitReplicas: 1, WaitTimeout: 2 * time.Second})
	require.ErrorContains(t, err, "Config.WaitTimeout (2s) must be below the Redis client's ReadTimeout (2s)")
	_, err = NewStore(Config{Redis: rdb, WaitReplicas: 1, WaitTimeout: time.Microsecond})
	require.ErrorContains(t, err, "Config.WaitTimeout must be at least 1ms")
}

func TestSlotPrefix_KeepsTheHashTag(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ro:{07}:", slotPrefix("ro:{07}:job:acme:inv-1:v1"))
	require.Equal(t, "{plain}:", slotPrefix("plain"))
}
