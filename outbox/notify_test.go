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

type fakeNotifier struct {
	mu   sync.Mutex
	got  []jobs.Event
	fail bool
}

func (n *fakeNotifier) Notify(_ context.Context, ev jobs.Event) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		return errors.New("asynq down")
	}
	n.got = append(n.got, ev)
	return nil
}

func (n *fakeNotifier) types() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, len(n.got))
	for i, ev := range n.got {
		out[i] = ev.Type
	}
	return out
}

// The relay hands the notifier every event that ends a job or decides its
// review, with its codes, and never job.submitted.
func TestRelay_Notifier_GetsTerminalAndReviewEventsWithCodes(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		nf := &fakeNotifier{}
		r := newRelay(t, x, &fakePublisher{}, "r1", func(c *RelayConfig) { c.Notifier = nf })
		ok, dead, gone := mustKey(t, "acme", "ok", 1), mustKey(t, "acme", "dead", 1), mustKey(t, "acme", "gone", 1)
		x.succeed(t, ok)
		x.submit(t, dead, "c")
		c := x.claim(t, dead)
		require.NoError(t, x.store.Reject(x.ctx, dead, c.Fence, "missing_field:total", nil))
		x.submit(t, gone, "c")
		c = x.claim(t, gone)
		require.NoError(t, x.store.Cancel(x.ctx, gone, c.Fence, jobs.CodeDeadlineExceeded))
		_, err := r.Drain(x.ctx)
		require.NoError(t, err)
		_, err = x.store.Decide(x.ctx, ok, "alice", jobs.ReviewRejected, "")
		require.NoError(t, err)
		_, err = r.Drain(x.ctx)
		require.NoError(t, err)

		require.ElementsMatch(t, []string{jobs.EventExtractionCommitted, jobs.EventJobDeadLettered, jobs.EventJobCancelled, jobs.EventReviewDecided}, nf.types())
		for _, ev := range nf.got {
			switch ev.Type {
			case jobs.EventJobDeadLettered:
				require.Equal(t, dead, ev.Key)
				require.Equal(t, jobs.CodePermanent, ev.Code)
				require.Equal(t, "missing_field:total", ev.ErrorReason)
			case jobs.EventJobCancelled:
				require.Equal(t, jobs.CodeDeadlineExceeded, ev.Code)
			case jobs.EventReviewDecided:
				require.Equal(t, jobs.ReviewRejected, ev.Decision)
			}
		}
	})
}

// A failing notifier leaves the row pending; the retry notifies again (the
// review is not applied twice).
func TestRelay_FailedNotify_StaysPendingAndIsRetried(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		nf := &fakeNotifier{fail: true}
		var errs []string
		r := newRelay(t, x, &fakePublisher{}, "r1", func(c *RelayConfig) {
			c.Notifier, c.ReclaimIdle = nf, 50*time.Millisecond
			c.OnError = func(kind string) { errs = append(errs, kind) }
		})
		k := mustKey(t, "acme", "inv-1", 1)
		x.succeed(t, k)
		_, err := r.Drain(x.ctx)
		require.Error(t, err)
		require.Contains(t, errs, RelayErrorNotify)
		nf.mu.Lock()
		nf.fail = false
		nf.mu.Unlock()
		redistest.Eventually(t, 5*time.Second, func() bool {
			x.clock.Advance(time.Second)
			_, _ = r.pass(x.ctx)
			return len(nf.types()) == 1
		}, "the pending row is reclaimed and notified")
		page, err := x.store.ListReviews(x.ctx, jobs.ReviewOptions{Tenant: "acme"})
		require.NoError(t, err)
		require.Len(t, page.Reviews, 1)
	})
}
