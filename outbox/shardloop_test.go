package outbox

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// runRelay runs r until stop is called (at the latest when the test ends);
// done is closed when Run returned, with its result in *runErr.
func runRelay(t *testing.T, r *Relay) (stop func(), done <-chan struct{}, runErr *error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan struct{})
	var err error
	go func() {
		defer close(ch)
		err = r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-ch
	})
	return cancel, ch, &err
}

// idleAtLeast waits until every pending entry of shard's stream has been
// idle (Redis's own clock) for d.
func (x *bundle) idleAtLeast(t *testing.T, shard int, d time.Duration) {
	t.Helper()
	redistest.Eventually(t, 5*time.Second, func() bool {
		p, err := x.rdb.XPendingExt(x.ctx, &redis.XPendingExtArgs{
			Stream: x.store.OutboxStream(shard), Group: jobs.RelayGroup, Start: "-", End: "+", Count: 10,
		}).Result()
		if err != nil || len(p) == 0 {
			return false
		}
		for _, e := range p {
			if e.Idle < d {
				return false
			}
		}
		return true
	}, "the pending entries turn idle")
}

// An idle relay waits in a blocking read; an entry appended meanwhile is
// delivered at once, not after the read's timeout (a minute here).
func TestRelayRun_EntryAppendedWhileIdle_IsDeliveredWithoutWaitingForTheBlockTimeout(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.IdleBlock = time.Minute })
		var outcomes []string
		applied := make(chan string, 4)
		r.cfg.OnEvent = func(ev jobs.Event, outcome string) { applied <- ev.Type + ":" + outcome }
		runRelay(t, r)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		redistest.Eventually(t, 5*time.Second, func() bool { return len(pub.published()) == 1 }, "the submission is published")
		require.Equal(t, []string{k.String()}, pub.published())

		c := x.claim(t, k)
		_, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
		require.NoError(t, err)
		for len(outcomes) < 2 {
			select {
			case o := <-applied:
				outcomes = append(outcomes, o)
			case <-time.After(5 * time.Second):
				t.Fatalf("the review was not applied; outcomes so far %v", outcomes)
			}
		}
		require.Equal(t, []string{"job.submitted:published", "extraction.committed:applied"}, outcomes)
		rv, err := x.store.GetReview(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, k, rv.Key)
	})
}

// Cancelling Run ends it although every shard is in a blocking read, and a
// stopped Run leaves nothing unacked behind.
func TestRelayRun_Cancelled_ReturnsWithoutWaitingForTheBlockedReads(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.IdleBlock = time.Minute })
		stop, done, runErr := runRelay(t, r)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		redistest.Eventually(t, 5*time.Second, func() bool { return len(pub.published()) == 1 }, "the submission is published")
		stop()
		select {
		case <-done:
			require.NoError(t, *runErr)
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after its context was cancelled")
		}
		n, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing is left to drain")
	})
}

// A delivery that keeps failing on one shard while the others are idle
// opens one incident (one warning) and stops the relay's progress; once the
// publisher works again the entry is retried, the incident ends (one info
// line) and progress resumes.
func TestRelayRun_FailingShard_OneIncident_ProgressStopsAndResumes(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{fail: true}
		rec := &logRecorder{}
		errs := &errorCounter{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) {
			c.IdleBlock = 20 * time.Millisecond
			c.ReclaimIdle = 50 * time.Millisecond
			c.PollInterval = time.Millisecond
			c.Logger = slog.New(rec)
			c.OnError = errs.add
		})
		runRelay(t, r)
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		redistest.Eventually(t, 5*time.Second, func() bool { return errs.get(RelayErrorPublish) >= 1 }, "the publish fails")
		stuck := r.Progress()
		shard := jobs.Shard(k.Tenant, k.DocumentID, x.store.Shards())
		// Once the entry has been idle for ReclaimIdle (Redis's clock) and
		// ReclaimIdle/2 has passed since the last check (the relay's clock,
		// still well within the 1.5 × ReclaimIdle the delivery is owed),
		// the shard's loop claims and retries it.
		x.idleAtLeast(t, shard, 60*time.Millisecond)
		x.clock.Advance(30 * time.Millisecond)
		redistest.Eventually(t, 5*time.Second, func() bool { return errs.get(RelayErrorPublish) >= 2 }, "the pending entry is retried")
		require.Equal(t, stuck, r.Progress(), "no progress while a delivery fails")
		require.Equal(t, 1, rec.count(slog.LevelWarn), "one warning for the incident")

		pub.setFail(false)
		x.idleAtLeast(t, shard, 60*time.Millisecond)
		x.clock.Advance(30 * time.Millisecond)
		redistest.Eventually(t, 5*time.Second, func() bool { return len(pub.published()) == 1 }, "the entry is delivered once the publisher works")
		redistest.Eventually(t, 5*time.Second, func() bool {
			return rec.count(slog.LevelInfo) >= 1 && r.Progress().After(stuck)
		}, "the incident ends and progress resumes")
		require.Equal(t, 1, rec.count(slog.LevelWarn), "still one warning")
	})
}
