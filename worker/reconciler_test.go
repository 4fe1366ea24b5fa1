package worker

import (
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/admission"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

func newTestReconciler(t *testing.T, b *bundle) *Reconciler {
	t.Helper()
	r, err := NewReconciler(ReconcilerConfig{
		Store: b.store, Inspector: asynq.NewInspectorFromRedisClient(b.rdb), Redis: b.rdb,
		Clock: b.clock, Metrics: b.metrics, Threshold: 10 * time.Minute,
	})
	require.NoError(t, err)
	return r
}

// submittedRows counts k's job.submitted outbox rows.
func (b *bundle) submittedRows(t *testing.T, k jobs.Key) int {
	t.Helper()
	stream := fmt.Sprintf("ro:{%02d}:outbox", jobs.Shard(k.Tenant, k.DocumentID, testShards))
	msgs, err := b.rdb.XRange(b.ctx, stream, "-", "+").Result()
	require.NoError(t, err)
	n := 0
	for _, m := range msgs {
		if m.Values["k"] == k.String() && m.Values["t"] == jobs.EventJobSubmitted {
			n++
		}
	}
	return n
}

func TestReconciler_JobWhoseTaskVanished_IsRepublishedThroughItsOutbox(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := newTestReconciler(t, b)
	p, _ := newTestPublisher(t, b, "")
	lost := mustKey(t, "acme", "lost", 1)
	fine := mustKey(t, "acme", "fine", 1)
	fresh := mustKey(t, "acme", "fresh", 1)
	b.submit(t, lost, "x", 0)
	b.submit(t, fine, "x", 0)
	require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: fine}))
	b.clock.Advance(11 * time.Minute)
	b.submit(t, fresh, "x", 0) // younger than the threshold: not checked

	rep, err := r.Reconcile(b.ctx)
	require.NoError(t, err)

	require.Equal(t, ReconcileReport{Checked: 2, Republished: 1}, rep)
	require.Equal(t, 2, b.submittedRows(t, lost), "the original row plus the republished one")
	require.Equal(t, 1, b.submittedRows(t, fine))
	require.Equal(t, 1, b.submittedRows(t, fresh))

	// A terminal job is never republished, even without a task.
	done := mustKey(t, "acme", "done", 1)
	b.submit(t, done, readSample(t, "valid-basic-eur.txt"), 0)
	require.NoError(t, b.deliver(done))
	b.clock.Advance(11 * time.Minute)
	_, err = r.Reconcile(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 1, b.submittedRows(t, done))
}

func TestReconciler_ActiveTaskWithoutLease_IsCountedAndLogged(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := newTestReconciler(t, b)
	p, insp := newTestPublisher(t, b, "")
	stuck := mustKey(t, "acme", "stuck", 1)
	leased := mustKey(t, "acme", "leased", 1)
	for _, k := range []struct {
		key   jobs.Key
		lease bool
	}{{stuck, false}, {leased, true}} {
		b.submit(t, k.key, "x", 0)
		require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k.key}))
		// What Asynq's dequeue does, minus the lease for the stuck one
		// (asynq#1144).
		id := k.key.String()
		require.NoError(t, b.rdb.LRem(b.ctx, "asynq:{extract}:pending", 0, id).Err())
		require.NoError(t, b.rdb.LPush(b.ctx, "asynq:{extract}:active", id).Err())
		require.NoError(t, b.rdb.HSet(b.ctx, "asynq:{extract}:t:"+id, "state", "active").Err())
		if k.lease {
			require.NoError(t, b.rdb.ZAdd(b.ctx, "asynq:{extract}:lease", redis.Z{Score: float64(time.Now().Add(30 * time.Second).Unix()), Member: id}).Err())
		}
	}
	info, err := insp.GetTaskInfo(task.QueueExtract, stuck.String())
	require.NoError(t, err)
	require.Equal(t, asynq.TaskStateActive, info.State)
	b.clock.Advance(11 * time.Minute)

	rep, err := r.Reconcile(b.ctx)
	require.NoError(t, err)

	require.Equal(t, ReconcileReport{Checked: 2, StuckActive: 1}, rep)
	require.Equal(t, 1, b.submittedRows(t, stuck), "an active task cannot be republished")
	require.Equal(t, 1.0, counterValue(b.metrics, "relayops_reconciler_jobs_total", "action", "stuck_active"))
}

// With tasks spread over several queues, the reconciler looks for each job's
// task in the queue of the job's shard: a task there is found, a task
// missing there is republished. A republish of a job whose task exists goes
// to the same queue, where the TaskID absorbs it.
func TestReconciler_ManyQueues_LooksForEachTaskInItsShardsQueue(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	layout := task.Layout{Queues: testShards}
	insp := asynq.NewInspectorFromRedisClient(b.rdb)
	r, err := NewReconciler(ReconcilerConfig{
		Store: b.store, Inspector: insp, Redis: b.rdb, Layout: layout,
		Clock: b.clock, Metrics: b.metrics, Threshold: 10 * time.Minute,
	})
	require.NoError(t, err)
	p, err := NewPublisher(PublisherConfig{Redis: b.rdb, Layout: layout, Metrics: b.metrics})
	require.NoError(t, err)

	// One published and one lost job per shard.
	published, lost := map[int]jobs.Key{}, map[int]jobs.Key{}
	for i := 0; len(published) < testShards || len(lost) < testShards; i++ {
		k := mustKey(t, "acme", fmt.Sprintf("doc-%d", i), 1)
		shard := jobs.Shard(k.Tenant, k.DocumentID, testShards)
		switch {
		case published[shard] == (jobs.Key{}):
			b.submit(t, k, "x", 0)
			require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, Shard: shard}))
			published[shard] = k
		case lost[shard] == (jobs.Key{}):
			b.submit(t, k, "x", 0)
			lost[shard] = k
		}
	}
	for shard, k := range published {
		_, err := insp.GetTaskInfo(layout.Queue(shard), k.String())
		require.NoError(t, err, "shard %d's task is in queue %s", shard, layout.Queue(shard))
	}
	b.clock.Advance(11 * time.Minute)

	rep, err := r.Reconcile(b.ctx)
	require.NoError(t, err)
	require.Equal(t, ReconcileReport{Checked: 2 * testShards, Republished: testShards}, rep)
	for shard := range testShards {
		require.Equal(t, 1, b.submittedRows(t, published[shard]), "shard %d: found in %s", shard, layout.Queue(shard))
		require.Equal(t, 2, b.submittedRows(t, lost[shard]), "shard %d: republished", shard)
	}
	queues, err := insp.Queues()
	require.NoError(t, err)
	require.ElementsMatch(t, layout.Names(), queues, "one queue per shard, nothing else")
	for shard, k := range published {
		require.NoError(t, p.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: k, Shard: shard}))
	}
	require.Equal(t, float64(testShards), counterValue(b.metrics, "relayops_relay_publish_total", "result", "already_enqueued"))
}

func TestReconciler_JobWaitingForAdmission_IsNotRepublished(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	p, _ := newTestPublisher(t, b, "")
	adm, err := admission.New(admission.Config{Store: b.store, Publisher: p, MaxInFlight: 1, Clock: b.clock})
	require.NoError(t, err)
	r, err := NewReconciler(ReconcilerConfig{
		Store: b.store, Inspector: asynq.NewInspectorFromRedisClient(b.rdb), Redis: b.rdb,
		Clock: b.clock, Metrics: b.metrics, Threshold: 10 * time.Minute, Waiting: adm.Waiting,
	})
	require.NoError(t, err)
	running := mustKey(t, "acme", "running", 1)
	waiting := mustKey(t, "acme", "waiting", 1)
	lost := mustKey(t, "acme", "lost", 1)
	b.submit(t, running, "x", 0)
	b.submit(t, waiting, "x", 0)
	b.submit(t, lost, "x", 0)
	// running takes the tenant's one slot (published at once, it has its
	// task); waiting then waits for admission, with no task by design.
	require.NoError(t, adm.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: running, At: b.clock.Now()}))
	require.NoError(t, adm.Publish(b.ctx, jobs.Event{Type: jobs.EventJobSubmitted, Key: waiting, At: b.clock.Now()}))
	w, err := adm.Waiting(b.ctx, waiting)
	require.NoError(t, err)
	require.True(t, w)
	b.clock.Advance(11 * time.Minute)

	rep, err := r.Reconcile(b.ctx)
	require.NoError(t, err)
	require.Equal(t, ReconcileReport{Checked: 2, Republished: 1}, rep, "only the jobs that are not waiting are checked")
	require.Equal(t, 1, b.submittedRows(t, running))
	require.Equal(t, 1, b.submittedRows(t, waiting))
	require.Equal(t, 2, b.submittedRows(t, lost))
}
