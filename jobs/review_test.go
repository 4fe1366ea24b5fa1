package jobs

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func (x *bundle) succeed(t *testing.T, k Key) string {
	t.Helper()
	x.submit(t, k, "c-"+k.String())
	c := x.claim(t, k)
	r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
	require.NoError(t, err)
	return r.EventID
}

func TestApplyCommitted_OneReviewPerEvent(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		ev := x.succeed(t, k)
		r, err := x.store.ApplyCommitted(x.ctx, k, ev)
		require.NoError(t, err)
		require.Equal(t, &ApplyResult{Applied: true}, r)
		for range 3 { // relay republishes
			r, err = x.store.ApplyCommitted(x.ctx, k, ev)
			require.NoError(t, err)
			require.Equal(t, &ApplyResult{Applied: false, Reason: "duplicate_event"}, r)
		}
		page, err := x.store.ListReviews(x.ctx, ReviewOptions{Tenant: "acme"})
		require.NoError(t, err)
		require.Len(t, page.Reviews, 1)
		require.Equal(t, ReviewPending, page.Reviews[0].Status)
		require.Equal(t, ev, page.Reviews[0].EventID)
	})
}

func TestDecide_IsIdempotent_AndAudited(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		_, err := x.store.Decide(x.ctx, k, "alice", ReviewApproved, "")
		require.ErrorIs(t, err, ErrReviewNotFound)
		ev := x.succeed(t, k)
		_, err = x.store.ApplyCommitted(x.ctx, k, ev)
		require.NoError(t, err)
		d, err := x.store.Decide(x.ctx, k, "alice", ReviewApproved, "looks right")
		require.NoError(t, err)
		require.True(t, d.Decided, "this call decided")
		r := d.Review
		require.Equal(t, ReviewApproved, r.Status)
		require.Equal(t, "alice", r.Operator)
		require.Equal(t, "looks right", r.Note)
		require.Equal(t, ev, r.EventID)
		require.Equal(t, t0, r.DecidedAt)
		stored, err := x.store.GetReview(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, stored, r, "the reply carries the stored review")
		x.clock.Advance(time.Second)
		d2, err := x.store.Decide(x.ctx, k, "bob", ReviewApproved, "again")
		require.NoError(t, err)
		require.False(t, d2.Decided, "a repeat decides nothing")
		require.Equal(t, "alice", d2.Review.Operator, "the first decision stands")
		require.Equal(t, t0, d2.Review.DecidedAt)
		_, err = x.store.Decide(x.ctx, k, "bob", ReviewRejected, "")
		require.ErrorIs(t, err, ErrReviewDecided)
		audit, err := x.store.ListAudit(x.ctx, AuditOptions{Operator: "alice"})
		require.NoError(t, err)
		require.Len(t, audit.Entries, 1)
		require.Equal(t, AuditReviewDecided, audit.Entries[0].Action)
	})
}

// The audit stream's r is the reprocess reason only; a decision has its own
// field. Entries written before that carry the decision in r and are still
// read as decisions.
func TestAudit_DecisionAndReason_AreDistinctFields(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		ev := x.succeed(t, k)
		_, err := x.store.ApplyCommitted(x.ctx, k, ev)
		require.NoError(t, err)
		_, err = x.store.Decide(x.ctx, k, "alice", ReviewRejected, "")
		require.NoError(t, err)
		audit := x.rdb.XRange(x.ctx, x.store.keys.audit(x.store.keys.shardOf(k)), "-", "+").Val()
		last := audit[len(audit)-1].Values
		require.Equal(t, AuditReviewDecided, last[auAction])
		require.Equal(t, ReviewRejected, last[auDecision])
		require.NotContains(t, last, auReason)

		legacy := auditFromValues("1-0", map[string]any{auAction: AuditReviewDecided, auReason: ReviewApproved})
		require.Equal(t, ReviewApproved, legacy.Decision)
		require.Empty(t, legacy.Reason)
		reprocessed := auditFromValues("1-0", map[string]any{auAction: AuditReprocessed, auReason: "fixed the total"})
		require.Equal(t, "fixed the total", reprocessed.Reason)
		require.Empty(t, reprocessed.Decision)
	})
}

// One call applies several events of a shard, each judged on its own, and
// acks the relay's outbox entries in the same step.
func TestApplyCommittedBatch_AppliesEachEventOnce_AndAcksTheEntries(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Shards = 1 })
		stream := x.store.OutboxStream(0)
		require.NoError(t, x.rdb.XGroupCreateMkStream(x.ctx, stream, RelayGroup, "0").Err())
		a, dup, never := mustKey(t, "acme", "a", 1), mustKey(t, "acme", "dup", 1), mustKey(t, "acme", "never", 1)
		evA, evDup := x.succeed(t, a), x.succeed(t, dup)
		x.submit(t, never, "c")
		_, err := x.store.ApplyCommitted(x.ctx, dup, evDup)
		require.NoError(t, err)
		read, err := x.rdb.XReadGroup(x.ctx, &redis.XReadGroupArgs{Group: RelayGroup, Consumer: "r1", Streams: []string{stream, ">"}}).Result()
		require.NoError(t, err)
		var ids []string
		for _, m := range read[0].Messages {
			ids = append(ids, m.ID)
		}
		require.Len(t, ids, 5, "three submissions and two commits")

		res, err := x.store.ApplyCommittedBatch(x.ctx, 0, []Event{
			{Key: a, EventID: evA}, {Key: dup, EventID: evDup}, {Key: never, EventID: evA}, {Key: a, EventID: evA},
		}, ids)
		require.NoError(t, err)
		require.Equal(t, []ApplyResult{
			{Applied: true}, {Reason: "duplicate_event"}, {Reason: "not_committed"}, {Reason: "duplicate_event"},
		}, res)
		p, err := x.rdb.XPending(x.ctx, stream, RelayGroup).Result()
		require.NoError(t, err)
		require.Zero(t, p.Count, "every entry is acked")
		rv, err := x.store.GetReview(x.ctx, a)
		require.NoError(t, err)
		require.Equal(t, ReviewPending, rv.Status)
	})
}

func TestApplyCommittedBatch_EventOfAnotherShard_IsRefusedAndChangesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Shards = 16 })
		k := mustKey(t, "acme", "inv-1", 1)
		ev := x.succeed(t, k)
		other := (Shard(k.Tenant, k.DocumentID, 16) + 1) % 16
		_, err := x.store.ApplyCommittedBatch(x.ctx, other, []Event{{Key: k, EventID: ev}}, nil)
		require.ErrorContains(t, err, "shard")
		_, err = x.store.GetReview(x.ctx, k)
		require.ErrorIs(t, err, ErrReviewNotFound)
		_, err = x.store.ApplyCommittedBatch(x.ctx, 16, nil, nil)
		require.ErrorContains(t, err, "shard 16 out of range")
	})
}

// The batch queued on a pipeline behaves as the direct call, also when Redis
// lost its scripts (SCRIPT FLUSH, a restart): then the queued call did
// nothing and the result runs it.
func TestQueueApplyCommitted_InAPipeline_EvenWithoutTheScriptLoaded(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Shards = 1 })
		k1, k2 := mustKey(t, "acme", "one", 1), mustKey(t, "acme", "two", 1)
		ev1, ev2 := x.succeed(t, k1), x.succeed(t, k2)
		for i, k := range []Key{k1, k2} {
			ev := []string{ev1, ev2}[i]
			if i == 0 { // the second call finds the script the first one loaded
				require.NoError(t, x.rdb.ScriptFlush(x.ctx).Err())
			}
			pipe := x.rdb.Pipeline()
			result, err := x.store.QueueApplyCommitted(x.ctx, pipe, 0, []Event{{Key: k, EventID: ev}, {Key: k, EventID: ev}}, nil)
			require.NoError(t, err)
			ping := pipe.Ping(x.ctx)
			_, _ = pipe.Exec(x.ctx)
			require.NoError(t, ping.Err(), "the rest of the pipeline ran")
			res, err := result()
			require.NoError(t, err)
			require.Equal(t, []ApplyResult{{Applied: true}, {Reason: "duplicate_event"}}, res)
		}
		_, err := x.store.QueueApplyCommitted(x.ctx, x.rdb.Pipeline(), 0, []Event{{Key: k1}}, nil)
		require.ErrorContains(t, err, "empty eventId")
	})
}
