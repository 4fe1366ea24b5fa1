package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// t0 is the stub clock's start: near the wall clock, so stream IDs (server
// time) and script "now" (stub time) stay close, as in production.
var t0 = time.Now().UTC().Truncate(time.Millisecond)

type bundle struct {
	ctx   context.Context
	store *jobs.Store
	rdb   *redis.Client
	clock *clock.Stub
	b     *redistest.Backend
}

func setup(t *testing.T, b *redistest.Backend, mod func(*jobs.Config)) *bundle {
	t.Helper()
	clk := clock.NewStub(t0)
	cfg := jobs.Config{Redis: b.Client, Clock: clk, Shards: 4}
	if mod != nil {
		mod(&cfg)
	}
	s, err := jobs.NewStore(cfg)
	require.NoError(t, err)
	return &bundle{ctx: context.Background(), store: s, rdb: b.Client, clock: clk, b: b}
}

func mustKey(t testing.TB, tenant, doc string, v int64) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, doc, v)
	require.NoError(t, err)
	return k
}

func (x *bundle) submit(t *testing.T, k jobs.Key, content string) *jobs.SubmitResult {
	t.Helper()
	r, err := x.store.Submit(x.ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: jobs.DefaultLimits})
	require.NoError(t, err)
	return r
}

func (x *bundle) claim(t *testing.T, k jobs.Key) *jobs.Claim {
	t.Helper()
	c, err := x.store.Claim(x.ctx, k, "tok-"+time.Now().Format(time.RFC3339Nano))
	require.NoError(t, err)
	return c
}

func xaddArgs(stream string, k jobs.Key, eventID string) *redis.XAddArgs {
	return &redis.XAddArgs{Stream: stream, Values: []any{"t", jobs.EventExtractionCommitted, "k", k.String(), "e", eventID}}
}

// succeed runs k from submission to a committed result and returns the
// commit's event ID.
func (x *bundle) succeed(t *testing.T, k jobs.Key) string {
	t.Helper()
	x.submit(t, k, "c-"+k.String())
	c := x.claim(t, k)
	r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
	require.NoError(t, err)
	return r.EventID
}
