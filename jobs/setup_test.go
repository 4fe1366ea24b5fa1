package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
)

// t0 is the stub clock's start: near the wall clock, so stream IDs (server
// time) and script "now" (stub time) stay close, as in production.
var t0 = time.Now().UTC().Truncate(time.Millisecond)

type bundle struct {
	ctx   context.Context
	store *Store
	rdb   *redis.Client
	clock *clock.Stub
	b     *redistest.Backend
}

func setup(t *testing.T, b *redistest.Backend, mod func(*Config)) *bundle {
	t.Helper()
	clk := clock.NewStub(t0)
	cfg := Config{Redis: b.Client, Clock: clk, Shards: 4}
	if mod != nil {
		mod(&cfg)
	}
	s, err := NewStore(cfg)
	require.NoError(t, err)
	return &bundle{ctx: context.Background(), store: s, rdb: b.Client, clock: clk, b: b}
}

func mustKey(t testing.TB, tenant, doc string, v int64) Key {
	t.Helper()
	k, err := BuildKey(tenant, doc, v)
	require.NoError(t, err)
	return k
}

func (x *bundle) submit(t *testing.T, k Key, content string) *SubmitResult {
	t.Helper()
	r, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: content, Limits: DefaultLimits})
	require.NoError(t, err)
	return r
}

func (x *bundle) claim(t *testing.T, k Key) *Claim {
	t.Helper()
	c, err := x.store.Claim(x.ctx, k, "tok-"+time.Now().Format(time.RFC3339Nano))
	require.NoError(t, err)
	return c
}

func (x *bundle) outboxRows(t *testing.T, k Key, typ string) []map[string]any {
	t.Helper()
	msgs, err := x.rdb.XRange(x.ctx, x.store.keys.outbox(x.store.keys.shardOf(k)), "-", "+").Result()
	require.NoError(t, err)
	var out []map[string]any
	for _, m := range msgs {
		if m.Values[evKey] == k.String() && m.Values[evType] == typ {
			out = append(out, m.Values)
		}
	}
	return out
}

func (x *bundle) dbsize(t *testing.T) int64 {
	t.Helper()
	n, err := x.rdb.DBSize(x.ctx).Result()
	require.NoError(t, err)
	return n
}

// snapshot returns every key with its type and a dump of its value, to prove
// a call changed nothing.
func (x *bundle) snapshot(t *testing.T) map[string]string {
	t.Helper()
	keys, err := x.rdb.Keys(x.ctx, "*").Result()
	require.NoError(t, err)
	out := map[string]string{}
	for _, k := range keys {
		typ := x.rdb.Type(x.ctx, k).Val()
		var v any
		switch typ {
		case "string":
			v = x.rdb.Get(x.ctx, k).Val()
		case "hash":
			v = x.rdb.HGetAll(x.ctx, k).Val()
		case "zset":
			v = x.rdb.ZRangeWithScores(x.ctx, k, 0, -1).Val()
		case "stream":
			v = x.rdb.XRange(x.ctx, k, "-", "+").Val()
		}
		out[k] = typ + ":" + fmt.Sprint(v)
	}
	return out
}
