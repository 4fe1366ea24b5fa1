package lograte

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
)

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v), line)
		out = append(out, v)
	}
	return out
}

// A line repeated on every retry is logged once per interval, and the next
// one says how many were held back; other kinds are not held back by it.
func TestLimiter_RepeatedLine_OncePerIntervalWithTheCount(t *testing.T) {
	t.Parallel()
	clk := clock.NewStub(time.Unix(0, 0))
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	lim := NewLimiter(10*time.Second, clk)
	ctx := context.Background()
	for range 500 {
		lim.Log(ctx, log, slog.LevelWarn, "dial", "dial failed")
		clk.Advance(10 * time.Millisecond)
	}
	lim.Log(ctx, log, slog.LevelError, "other", "another kind")
	rs := records(t, &buf)
	require.Len(t, rs, 2, "500 lines over 5 s: the first, and one of another kind")
	clk.Advance(5 * time.Second)
	lim.Log(ctx, log, slog.LevelWarn, "dial", "dial failed")
	rs = records(t, &buf)
	require.Len(t, rs, 3)
	require.EqualValues(t, 499, rs[2]["suppressed"])
	require.Equal(t, "WARN", rs[2]["level"])
}

// go-redis's own lines go through slog (JSON, component go-redis), held
// back like any other.
func TestRedisLogger_WritesJSONThroughTheLimiter(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clk := clock.NewStub(time.Unix(0, 0))
	r := redisLogger{log: slog.New(slog.NewJSONHandler(&buf, nil)).With("component", "go-redis"), lim: NewLimiter(time.Minute, clk)}
	for range 100 {
		r.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %v", 1, "dial tcp: connection refused")
	}
	rs := records(t, &buf)
	require.Len(t, rs, 1)
	require.Equal(t, "go-redis", rs[0]["component"])
	require.Equal(t, "connection pool: failed to dial after 1 attempts: dial tcp: connection refused", rs[0]["msg"])
}

// The limiter forgets rather than grows without bound.
func TestLimiter_BoundedKinds(t *testing.T) {
	t.Parallel()
	lim := NewLimiter(time.Minute, clock.NewStub(time.Unix(0, 0)))
	for i := range 3 * maxKinds {
		lim.Allow(strings.Repeat("k", i%50) + string(rune('a'+i%26)) + time.Duration(i).String())
	}
	require.LessOrEqual(t, len(lim.kinds), maxKinds)
}
