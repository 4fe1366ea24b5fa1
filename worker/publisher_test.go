package worker

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

func newTestPublisher(t *testing.T, b *bundle, faults string) (*Publisher, *asynq.Inspector) {
	t.Helper()
	f, err := ParseFaults(faults)
	require.NoError(t, err)
	p, err := NewPublisher(PublisherConfig{
		Client: asynq.NewClientFromRedisClient(b.rdb), MaxRetry: MaxRetry(3, 5),
		Timeout: AsynqTimeout(time.Minute, 1500*time.Millisecond), Retention: 24 * time.Hour,
		Faults: f, Metrics: b.metrics,
	})
	require.NoError(t, err)
	return p, asynq.NewInspectorFromRedisClient(b.rdb)
}

func TestPublisher_EnqueuesReferenceOnlyTaskAndAbsorbsRepublish(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, insp := newTestPublisher(t, b, "")
	k := mustKey(t, "acme", "inv-1", 3)
	ev := jobs.Event{Type: jobs.EventJobSubmitted, Key: k}

	require.NoError(t, p.Publish(b.ctx, ev))
	require.NoError(t, p.Publish(b.ctx, ev), "a TaskID conflict is success")

	info, err := insp.GetTaskInfo(task.QueueExtract, k.String())
	require.NoError(t, err)
	require.Equal(t, task.TypeExtract, info.Type)
	require.JSONEq(t, `{"jobKey":"acme:inv-1:v3"}`, string(info.Payload), "references only")
	require.Equal(t, 10, info.MaxRetry)
	require.Equal(t, 62*time.Second, info.Timeout, "attempt + grace, rounded up to whole seconds")
	require.Equal(t, 24*time.Hour, info.Retention)
	require.Equal(t, asynq.TaskStatePending, info.State)
	pending, err := insp.ListPendingTasks(task.QueueExtract)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, 1.0, counterValue(b.metrics, "relayops_relay_publish_total", "result", "already_enqueued"))
}

func TestPublisher_RelayFaultFiresAfterEnqueue(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, insp := newTestPublisher(t, b, "relay_after_enqueue_before_ack=transient#1")
	k := mustKey(t, "acme", "inv-2", 1)

	err := p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k})
	require.ErrorIs(t, err, ErrTransient, "the relay must not ack")
	_, err = insp.GetTaskInfo(task.QueueExtract, k.String())
	require.NoError(t, err, "the task was enqueued before the fault")
	require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k}), "the republish is absorbed")
}

func TestPublisher_RejectsOtherEvents(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, _ := newTestPublisher(t, b, "")
	err := p.Publish(context.Background(), jobs.Event{Type: jobs.EventExtractionCommitted, Key: mustKey(t, "acme", "x", 1)})
	require.ErrorContains(t, err, "unexpected event type")
}
