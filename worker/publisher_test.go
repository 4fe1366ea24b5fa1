package worker

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

func newTestPublisher(t *testing.T, b *bundle, faults string) (*Publisher, *asynq.Inspector) {
	t.Helper()
	f, err := ParseFaults(faults)
	require.NoError(t, err)
	p, err := NewPublisher(PublisherConfig{
		Redis: b.rdb, MaxRetry: MaxRetry(3, 5),
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

func TestPublisher_WritesWhatAsynqClientWrites(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, _ := newTestPublisher(t, b, "")
	k := mustKey(t, "acme", "inv-7", 2)
	require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k}))

	// The same task, as asynq.Client enqueues it, on another Redis.
	ref := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { _ = ref.Close() })
	client := asynq.NewClientFromRedisClient(ref)
	_, err := client.EnqueueContext(b.ctx, asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: k.String()}.Marshal()),
		asynq.MaxRetry(MaxRetry(3, 5)), asynq.Timeout(AsynqTimeout(time.Minute, 1500*time.Millisecond)),
		asynq.Retention(24*time.Hour), asynq.Queue(task.QueueExtract), asynq.TaskID(k.String()))
	require.NoError(t, err)

	for _, rdb := range []*redis.Client{b.rdb, ref} {
		keys, err := rdb.Keys(b.ctx, "asynq:*").Result()
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"asynq:queues", "asynq:{extract}:pending", "asynq:{extract}:t:acme:inv-7:v2"}, keys)
	}
	taskKey := "asynq:{extract}:t:" + k.String()
	got, err := b.rdb.HGetAll(b.ctx, taskKey).Result()
	require.NoError(t, err)
	want, err := ref.HGetAll(b.ctx, taskKey).Result()
	require.NoError(t, err)
	require.Equal(t, want["msg"], got["msg"], "the message, byte for byte")
	require.Equal(t, "pending", got["state"])
	require.Len(t, got, len(want), "the same fields")
	since, err := strconv.ParseInt(got["pending_since"], 10, 64)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), time.Unix(0, since), time.Minute, "pending_since in ns, as Asynq writes it")
	for _, key := range []string{"asynq:{extract}:pending"} {
		require.Equal(t, ref.LRange(b.ctx, key, 0, -1).Val(), b.rdb.LRange(b.ctx, key, 0, -1).Val(), key)
	}
	require.Equal(t, ref.SMembers(b.ctx, "asynq:queues").Val(), b.rdb.SMembers(b.ctx, "asynq:queues").Val())
}

func TestPublisher_PublishBatch_OneRoundTripEachTaskOnceInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, insp := newTestPublisher(t, b, "")
	var evs []jobs.Event
	for i := range 50 {
		evs = append(evs, jobs.Event{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", fmt.Sprintf("inv-%02d", i), 1)})
	}
	_, err := b.rdb.Pipelined(b.ctx, func(pipe redis.Pipeliner) error { return pipe.Ping(b.ctx).Err() })
	require.NoError(t, err, "a pipeline connection is open: its handshake is not counted")
	require.NoError(t, b.rdb.Ping(b.ctx).Err(), "and a plain one")
	trips := &redistest.Trips{}
	b.rdb.AddHook(trips)
	for _, err := range p.PublishBatch(b.ctx, evs[:25]) {
		require.NoError(t, err)
	}
	require.Equal(t, int64(3), trips.N(), "first use: the pipeline, SCRIPT LOAD, and the pipeline again")
	trips.Reset()
	for _, err := range p.PublishBatch(b.ctx, evs[25:]) {
		require.NoError(t, err)
	}
	require.Equal(t, int64(1), trips.N(), "one pipelined round trip for the batch")
	var pending []*asynq.TaskInfo
	for i, err := range p.PublishBatch(b.ctx, append(evs[:3:3], jobs.Event{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", "inv-new", 1)})) {
		require.NoError(t, err, "event %d: a republish is absorbed", i)
	}
	pending, err = insp.ListPendingTasks(task.QueueExtract, asynq.PageSize(100))
	require.NoError(t, err)
	require.Len(t, pending, 51, "each task once")
	order, err := b.rdb.LRange(b.ctx, "asynq:{extract}:pending", 0, -1).Result()
	require.NoError(t, err)
	require.Equal(t, evs[0].Key.String(), order[len(order)-1], "Asynq pops from the right: the first event is served first")
	require.Equal(t, evs[49].Key.String(), order[1])
	require.Equal(t, 51.0, counterValue(b.metrics, "relayops_relay_publish_total", "result", "enqueued"))
	require.Equal(t, 3.0, counterValue(b.metrics, "relayops_relay_publish_total", "result", "already_enqueued"))
}

func TestPublisher_PublishBatch_ScriptNotCached_EachTaskStillEnqueued(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, insp := newTestPublisher(t, b, "")
	require.NoError(t, b.rdb.ScriptFlush(b.ctx).Err(), "as after a Redis restart")
	evs := []jobs.Event{
		{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", "a", 1)},
		{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", "b", 1)},
	}
	for _, err := range p.PublishBatch(b.ctx, evs) {
		require.NoError(t, err)
	}
	for _, ev := range evs {
		_, err := insp.GetTaskInfo(task.QueueExtract, ev.Key.String())
		require.NoError(t, err)
	}
}

func TestPublisher_PublishBatch_OtherEventRefused_TheOthersPublished(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, insp := newTestPublisher(t, b, "")
	ok := mustKey(t, "acme", "ok", 1)
	errs := p.PublishBatch(b.ctx, []jobs.Event{
		{Type: jobs.EventExtractionCommitted, Key: mustKey(t, "acme", "x", 1)},
		{Type: jobs.EventJobSubmitted, Key: ok},
	})
	require.ErrorContains(t, errs[0], "unexpected event type")
	require.NoError(t, errs[1])
	_, err := insp.GetTaskInfo(task.QueueExtract, ok.String())
	require.NoError(t, err)
}

func TestPublisher_RedisDown_EveryEventFails(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, _ := newTestPublisher(t, b, "")
	b.mini.Close()
	for _, err := range p.PublishBatch(b.ctx, []jobs.Event{
		{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", "a", 1)},
		{Type: jobs.EventJobSubmitted, Key: mustKey(t, "acme", "b", 1)},
	}) {
		require.Error(t, err)
	}
}
