package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/lograte"
	"github.com/relayops/relayops/internal/task"
)

func jsonRecords(t *testing.T, buf *bytes.Buffer) []map[string]any {
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

// Asynq warns "Retry exhausted" when it archives a task whose handler said
// not to retry: in relayops that is a dead-lettered job, however early
// (attempt 1 of an invalid invoice), so it is an info line saying so.
func TestAsynqLogger_RetryExhausted_IsAnInfoAboutTheArchive(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := newAsynqLogger(slog.New(slog.NewJSONHandler(&buf, nil)), lograte.NewLimiter(time.Minute, clock.NewStub(t0)))
	l.Warn("Retry exhausted for task id=acme:inv-1:v1")
	rs := jsonRecords(t, &buf)
	require.Len(t, rs, 1)
	require.Equal(t, "INFO", rs[0]["level"])
	require.Equal(t, "acme:inv-1:v1", rs[0]["task_id"])
	require.NotContains(t, rs[0]["msg"], "exhausted")
}

// Asynq repeats its errors on every poll while Redis is down (the forwarder
// every second, the heartbeat every 5 s): each kind is logged once per
// interval, with the count of those held back.
func TestAsynqLogger_RepeatedErrors_HeldBack(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clk := clock.NewStub(t0)
	l := newAsynqLogger(slog.New(slog.NewJSONHandler(&buf, nil)), lograte.NewLimiter(time.Minute, clk))
	for i := range 100 {
		l.Error(fmt.Sprintf("Failed to forward scheduled tasks: UNKNOWN: redis eval error: dial tcp 127.0.0.1:%d: connection refused", 6379+i%2))
		l.Error("Failed to write server state data: dial tcp: connection refused")
		clk.Advance(100 * time.Millisecond)
	}
	require.Len(t, jsonRecords(t, &buf), 2, "one line of each kind")
	clk.Advance(time.Minute)
	l.Error("Failed to forward scheduled tasks: UNKNOWN: redis eval error: dial tcp 127.0.0.1:6379: connection refused")
	rs := jsonRecords(t, &buf)
	require.Len(t, rs, 3)
	require.EqualValues(t, 99, rs[2]["suppressed"])
	l.Info("Starting processing")
	l.Info("Starting processing")
	require.Len(t, jsonRecords(t, &buf), 5, "info lines are not held back")
}

func TestExtractionQueues_EveryQueueOfTheLayoutServedWithTheSameWeight(t *testing.T) {
	t.Parallel()
	require.Equal(t, map[string]int{"extract": 1}, extractionQueues(task.Layout{}))
	w := extractionQueues(task.NewLayout(0, 16, true))
	require.Len(t, w, 16, "the 16 extraction queues, and no other")
	for _, q := range task.NewLayout(0, 16, true).Names() {
		require.Equal(t, 1, w[q], q)
	}
}
