package outbox

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

type fakePublisher struct {
	mu   sync.Mutex
	got  []string
	fail bool
}

func (p *fakePublisher) Publish(_ context.Context, ev jobs.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return errors.New("asynq down")
	}
	p.got = append(p.got, ev.Key.String())
	return nil
}

func (p *fakePublisher) setFail(fail bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = fail
}

func (p *fakePublisher) published() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func newRelay(t *testing.T, x *bundle, p Publisher, name string, mod func(*RelayConfig)) *Relay {
	t.Helper()
	cfg := RelayConfig{Store: x.store, Publisher: p, Consumer: name, Clock: x.clock}
	if mod != nil {
		mod(&cfg)
	}
	r, err := NewRelay(cfg)
	require.NoError(t, err)
	return r
}

func TestRelay_PublishesSubmittedAndAppliesCommitted(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		n, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{k.String()}, pub.published())

		c := x.claim(t, k)
		_, err = x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		_, err = r.Drain(x.ctx)
		require.NoError(t, err)
		rev, err := x.store.GetReview(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, jobs.ReviewPending, rev.Status)
		n, err = r.Drain(x.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "everything was acked")
	})
}

// A relay republish (its ack was lost, or the reconciler appended a row) is
// absorbed by the review consumer: still one review.
func TestRelay_RepublishedCommit_IsAbsorbedByConsumer(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		var outcomes []string
		r := newRelay(t, x, &fakePublisher{}, "r1", func(c *RelayConfig) {
			c.OnEvent = func(ev jobs.Event, o string) {
				if ev.Type == jobs.EventExtractionCommitted {
					outcomes = append(outcomes, o)
				}
			}
		})
		k := mustKey(t, "acme", "inv-1", 1)
		ev := x.succeed(t, k)
		// Duplicate the committed row, as a crash before XACK would.
		shard := jobs.Shard(k.Tenant, k.DocumentID, x.store.Shards())
		require.NoError(t, x.rdb.XAdd(x.ctx, xaddArgs(x.store.OutboxStream(shard), k, ev)).Err())
		_, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"applied", "duplicate_event"}, outcomes)
		page, err := x.store.ListReviews(x.ctx, jobs.ReviewOptions{Tenant: "acme"})
		require.NoError(t, err)
		require.Len(t, page.Reviews, 1)
	})
}

func TestRelay_FailedPublish_StaysPending_AndIsRetriedAfterIdle(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{fail: true}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.ReclaimIdle = 50 * time.Millisecond })
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		_, err := r.Drain(x.ctx)
		require.Error(t, err)
		pub.mu.Lock()
		pub.fail = false
		pub.mu.Unlock()
		redistest.Eventually(t, 5*time.Second, func() bool {
			x.clock.Advance(time.Second) // the relay checks for idle entries every ReclaimIdle/2
			_, _ = r.pass(x.ctx)
			return len(pub.published()) == 1
		}, "the pending entry is reclaimed and published")
	})
}

func TestRelay_DeadRelaysEntries_AreTakenOverByAnother(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		dead := newRelay(t, x, &fakePublisher{fail: true}, "dead", nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		_, _ = dead.Drain(x.ctx) // delivered to "dead", never acked
		pub := &fakePublisher{}
		alive := newRelay(t, x, pub, "alive", func(c *RelayConfig) { c.ReclaimIdle = 50 * time.Millisecond })
		redistest.Eventually(t, 5*time.Second, func() bool {
			x.clock.Advance(time.Second)
			_, _ = alive.pass(x.ctx)
			return len(pub.published()) == 1
		}, "the dead relay's entry is taken over")
	})
}

func TestRelay_Trim_RemovesOnlyAckedEntriesPastRetention(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *jobs.Config) { c.Shards = 1; c.Retention.Outbox = time.Minute })
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.TrimInterval = time.Millisecond })
		acked := mustKey(t, "acme", "acked", 1)
		x.submit(t, acked, "c")
		_, err := r.Drain(x.ctx)
		require.NoError(t, err)
		pending := mustKey(t, "acme", "pending", 1)
		x.submit(t, pending, "c")
		pub.fail = true
		_, _ = r.Drain(x.ctx)
		stream := x.store.OutboxStream(0)
		require.EqualValues(t, 2, x.rdb.XLen(x.ctx, stream).Val())

		require.NoError(t, r.trim(x.ctx, 0))
		require.EqualValues(t, 2, x.rdb.XLen(x.ctx, stream).Val(), "nothing is older than the retention yet")

		var trimmed int64
		r.cfg.OnTrim = func(_ int, n int64) { trimmed += n }
		x.clock.Advance(time.Hour)
		require.NoError(t, r.trim(x.ctx, 0))
		require.EqualValues(t, 1, trimmed)
		msgs := x.rdb.XRange(x.ctx, stream, "-", "+").Val()
		require.Len(t, msgs, 1, "the unacked entry is never trimmed")
		require.Equal(t, pending.String(), msgs[0].Values["k"])
	})
}

// A relay whose Run stopped in the middle of a delivery holds the entry
// unacked; its Drain delivers it at once, without waiting for ReclaimIdle.
func TestRelay_Drain_DeliversWhatThisRelayHoldsUnacked(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *jobs.Config) { c.Shards = 2 })
		pub := &fakePublisher{fail: true}
		r := newRelay(t, x, pub, "r1", nil) // ReclaimIdle 30s: no takeover in this test
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		_, err := r.Drain(x.ctx)
		require.Error(t, err, "the delivery fails and the entry stays pending on r1")
		pub.mu.Lock()
		pub.fail = false
		pub.mu.Unlock()
		n, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{k.String()}, pub.published())
	})
}

// batchPublisher is a BatchPublisher: it records each PublishBatch call and
// fails the jobs it is told to.
type batchPublisher struct {
	fakePublisher
	calls [][]string
	fails map[string]bool
}

func (p *batchPublisher) PublishBatch(_ context.Context, evs []jobs.Event) []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := make([]error, len(evs))
	var call []string
	for i, ev := range evs {
		call = append(call, ev.Key.String())
		if p.fails[ev.Key.String()] {
			errs[i] = errors.New("asynq down")
			continue
		}
		p.got = append(p.got, ev.Key.String())
	}
	p.calls = append(p.calls, call)
	return errs
}

// A read's job.submitted entries go to a BatchPublisher in one call; those
// it could not publish stay pending, the others are acked.
func TestRelay_BatchPublisher_OneCallPerRead_FailedEntriesStayPending(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *jobs.Config) { c.Shards = 1 })
		var keys []string
		for _, doc := range []string{"a", "b", "c"} {
			k := mustKey(t, "acme", doc, 1)
			x.submit(t, k, "c")
			keys = append(keys, k.String())
		}
		pub := &batchPublisher{fails: map[string]bool{keys[1]: true}}
		var outcomes []string
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) {
			c.OnEvent = func(_ jobs.Event, o string) { outcomes = append(outcomes, o) }
		})
		_, err := r.Drain(x.ctx)
		require.ErrorContains(t, err, "asynq down")
		require.Equal(t, [][]string{keys}, pub.calls, "one call for the read, in stream order")
		require.Equal(t, []string{"published", "error", "published"}, outcomes)
		pending, err := x.rdb.XPending(x.ctx, x.store.OutboxStream(0), jobs.RelayGroup).Result()
		require.NoError(t, err)
		require.EqualValues(t, 1, pending.Count, "only the failed entry stays pending")

		pub.mu.Lock()
		pub.fails = nil
		pub.mu.Unlock()
		n, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{keys[0], keys[2], keys[1]}, pub.published())
	})
}
