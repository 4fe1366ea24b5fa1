package scriptpipe

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// incrBy adds ARGV[1] to KEYS[1] and returns the new value.
var incrBy = redis.NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)

func calls(n int) []Call {
	out := make([]Call, n)
	for i := range out {
		out[i] = Call{Keys: []string{fmt.Sprintf("k%d", i%3)}, Args: []any{i + 1}}
	}
	return out
}

// run queues cs in one pipeline, retries, and returns the replies and the
// round trips it took.
func run(t *testing.T, rdb *redis.Client, cs []Call) ([]int64, int64) {
	t.Helper()
	ctx := context.Background()
	trips := &redistest.Trips{}
	rdb.AddHook(trips)
	pipe := rdb.Pipeline()
	cmds := Queue(ctx, pipe, incrBy, cs)
	_, _ = pipe.Exec(ctx)
	Retry(ctx, rdb, incrBy, cs, cmds)
	out := make([]int64, len(cmds))
	for i, c := range cmds {
		v, err := c.Int64()
		require.NoError(t, err, "call %d", i)
		out[i] = v
	}
	return out, trips.N()
}

func TestRetry_ScriptNotCached_EveryCallRunsOnceInOrder(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		ctx := context.Background()
		require.NoError(t, b.Client.Ping(ctx).Err())
		_, err := b.Client.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() })
		require.NoError(t, err, "connections open: their handshakes are not counted")
		require.NoError(t, b.Client.ScriptFlush(ctx).Err(), "as after a restart")

		got, trips := run(t, b.Client, calls(6))
		require.Equal(t, []int64{1, 2, 3, 5, 7, 9}, got, "each call ran once, in order (k0: 1, 1+4; k1: 2, 2+5; k2: 3, 3+6)")
		require.Equal(t, int64(3), trips, "the pipeline, SCRIPT LOAD, the refused calls again")

		got, trips = run(t, b.Client, calls(3))
		require.Equal(t, []int64{6, 9, 12}, got)
		require.Equal(t, int64(1), trips, "cached: one round trip, nothing retried")
	})
}
