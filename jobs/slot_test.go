package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// crc16 is Redis Cluster's key hash (XMODEM).
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// slot is the Redis Cluster slot of a key, honouring {hash tags}.
func slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16([]byte(key)) % 16384)
}

func TestCRC16_MatchesRedisReferenceValues(t *testing.T) {
	t.Parallel()
	require.Equal(t, uint16(0x31C3), crc16([]byte("123456789"))) // from the Redis Cluster spec
	require.Equal(t, slot("{user1000}.following"), slot("{user1000}.followers"))
}

// scriptKeys records the KEYS of every script call.
type scriptKeys struct {
	mu    sync.Mutex
	calls [][]string
}

func (h *scriptKeys) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *scriptKeys) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *scriptKeys) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if name := strings.ToLower(fmt.Sprint(args[0])); name == "evalsha" || name == "eval" {
			n, _ := strconv.Atoi(fmt.Sprint(args[2]))
			keys := make([]string, n)
			for i := range n {
				keys[i] = fmt.Sprint(args[3+i])
			}
			h.mu.Lock()
			h.calls = append(h.calls, keys)
			h.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

// Every script call of a full lifecycle (submit, claim, checkpoint, fail,
// dead-letter, reprocess, commit, apply, decide, republish) touches one slot.
func TestScripts_EveryCallTouchesOneClusterSlot(t *testing.T) {
	_, c := redistest.Mini(t)
	hook := &scriptKeys{}
	c.AddHook(hook)
	x := setup(t, &redistest.Backend{Client: c}, func(cfg *Config) { cfg.Shards = 16 })
	for i := range 20 {
		k := mustKey(t, fmt.Sprintf("tenant-%d", i%3), fmt.Sprintf("doc-%d", i), 1)
		x.submit(t, k, "c")
		cl := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, cl.Fence, "classify", []byte(`{}`)))
		_, err := x.store.Fail(x.ctx, k, cl.Fence, CodeTransient)
		require.NoError(t, err)
		cl = x.claim(t, k)
		require.NoError(t, x.store.DeadLetter(x.ctx, k, cl.Fence, CodePermanent))
		r, err := x.store.Reprocess(x.ctx, ReprocessRequest{Key: k, Operator: "op", Reason: "r"})
		require.NoError(t, err)
		nk := r.Job.Key
		_, err = x.store.Republish(x.ctx, nk)
		require.NoError(t, err)
		cl = x.claim(t, nk)
		cr, err := x.store.Commit(x.ctx, nk, cl.Fence, cl.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		_, err = x.store.ApplyCommitted(x.ctx, nk, cr.EventID)
		require.NoError(t, err)
		_, err = x.store.Decide(x.ctx, nk, "op", ReviewApproved, "")
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, len(hook.calls), 20*10)
	slots := map[int]bool{}
	for _, keys := range hook.calls {
		require.NotEmpty(t, keys)
		s := slot(keys[0])
		slots[s] = true
		for _, k := range keys {
			require.Equal(t, s, slot(k), "script keys %v span slots", keys)
			require.True(t, strings.HasPrefix(k, "ro:{"), "key %q has no hash tag", k)
		}
	}
	require.Greater(t, len(slots), 4, "documents spread over shards")
}
