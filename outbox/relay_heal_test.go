package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// logRecorder is a slog.Handler keeping every record, for tests that count
// log lines by level (never by wording).
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

// count is the number of records at level.
func (l *logRecorder) count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.records {
		if r.Level == level {
			n++
		}
	}
	return n
}

// last returns the value of attribute key in the last record at level.
func (l *logRecorder) last(level slog.Level, key string) (slog.Value, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.records) - 1; i >= 0; i-- {
		if l.records[i].Level != level {
			continue
		}
		var v slog.Value
		found := false
		l.records[i].Attrs(func(a slog.Attr) bool {
			if a.Key == key {
				v, found = a.Value, true
			}
			return !found
		})
		return v, found
	}
	return slog.Value{}, false
}

// errorCounter records RelayConfig.OnError calls by kind.
type errorCounter struct {
	mu     sync.Mutex
	byKind map[string]int
}

func (c *errorCounter) add(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKind == nil {
		c.byKind = map[string]int{}
	}
	c.byKind[kind]++
}

func (c *errorCounter) get(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byKind[kind]
}

// Redis restarted without its data (or a replica without the streams was
// promoted): the relay's streams and consumer group are gone. The relay
// re-creates them in the next pass and delivers what was appended since;
// one warning per loss, not one per pass or per relay.
func TestRelay_RedisLostItsData_RecreatesStreamAndGroup_AndDeliversNewRows(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		logs, errs := &logRecorder{}, &errorCounter{}
		relay := func(name string) *Relay {
			return newRelay(t, x, pub, name, func(c *RelayConfig) {
				c.Logger, c.OnError = slog.New(logs), errs.add
			})
		}
		r1, r2 := relay("r1"), relay("r2")
		before := mustKey(t, "acme", "before", 1)
		x.submit(t, before, "c")
		for _, r := range []*Relay{r1, r2} {
			_, err := r.step(x.ctx)
			require.NoError(t, err)
		}
		require.Equal(t, []string{before.String()}, pub.published())

		require.NoError(t, x.rdb.FlushAll(x.ctx).Err())
		var after []string
		for i := range 8 { // spread over the shards
			k := mustKey(t, "acme", fmt.Sprintf("after-%d", i), 1)
			x.submit(t, k, "c")
			after = append(after, k.String())
		}
		for range 3 {
			for _, r := range []*Relay{r1, r2} {
				_, err := r.step(x.ctx)
				require.NoError(t, err, "the vanished group is re-created within the pass")
			}
		}
		require.ElementsMatch(t, append([]string{before.String()}, after...), pub.published(),
			"every row appended after the loss is delivered, once")
		require.Positive(t, errs.get(RelayErrorNoGroup))
		require.Equal(t, 1, logs.count(slog.LevelWarn), "one warning for the loss")

		require.NoError(t, x.rdb.FlushAll(x.ctx).Err())
		again := mustKey(t, "acme", "again", 1)
		x.submit(t, again, "c")
		for _, r := range []*Relay{r2, r1} {
			_, err := r.step(x.ctx)
			require.NoError(t, err)
		}
		require.Contains(t, pub.published(), again.String())
		require.Equal(t, 2, logs.count(slog.LevelWarn), "a second loss is a second incident")
	})
}

// A relay that stopped in the middle of a delivery drains on shutdown; if
// Redis lost the group meanwhile, the drain re-creates it and delivers.
func TestRelay_Drain_AfterRedisLostItsData_DeliversNewRows(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", nil)
		_, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.NoError(t, x.rdb.FlushAll(x.ctx).Err())
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "c")
		n, err := r.Drain(x.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{k.String()}, pub.published())
	})
}

// Passes that keep failing are one incident: one warning when it starts, one
// info line when it ends, whatever the number of passes in between.
func TestRelay_FailingPasses_WarnOncePerIncident(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{fail: true}
		logs, errs := &logRecorder{}, &errorCounter{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.Logger, c.OnError = slog.New(logs), errs.add })
		for i := range 5 { // a new entry each pass, each failing
			x.submit(t, mustKey(t, "acme", fmt.Sprintf("fail-%d", i), 1), "c")
			x.clock.Advance(time.Second)
			_, err := r.step(x.ctx)
			require.Error(t, err)
		}
		require.Equal(t, 1, logs.count(slog.LevelWarn))
		require.Equal(t, 5, errs.get(RelayErrorPublish))

		pub.setFail(false)
		x.submit(t, mustKey(t, "acme", "ok", 1), "c")
		x.clock.Advance(time.Second)
		_, err := r.step(x.ctx)
		require.NoError(t, err)
		require.Len(t, pub.published(), 1)
		require.Equal(t, 1, logs.count(slog.LevelInfo), "the end of the incident")
		passes, ok := logs.last(slog.LevelInfo, "failed_passes")
		require.True(t, ok)
		require.EqualValues(t, 5, passes.Int64())

		pub.setFail(true)
		x.submit(t, mustKey(t, "acme", "fail-again", 1), "c")
		_, err = r.step(x.ctx)
		require.Error(t, err)
		require.Equal(t, 2, logs.count(slog.LevelWarn), "a new incident")
	})
}

// Progress stops while deliveries fail (also across the passes that read
// nothing while the failed entry waits for its retry) and resumes with the
// next delivery; an idle relay over an empty outbox keeps making progress.
func TestRelay_Progress_StopsWhileDeliveriesFail_ResumesAfter(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		pub := &fakePublisher{}
		r := newRelay(t, x, pub, "r1", func(c *RelayConfig) { c.ReclaimIdle = time.Minute })
		require.Equal(t, t0, r.Progress(), "a new relay counts as progressing")
		x.clock.Advance(time.Minute)
		_, err := r.step(x.ctx)
		require.NoError(t, err)
		require.Equal(t, x.clock.Now(), r.Progress(), "an empty pass is progress")

		pub.setFail(true)
		x.submit(t, mustKey(t, "acme", "inv-1", 1), "c")
		stuck := r.Progress()
		_, err = r.step(x.ctx)
		require.Error(t, err)
		for range 3 {
			x.clock.Advance(20 * time.Second)
			_, err := r.step(x.ctx)
			require.NoError(t, err, "nothing new to read")
		}
		require.Equal(t, stuck, r.Progress(), "a failed delivery waiting for its retry is no progress")

		pub.setFail(false)
		x.submit(t, mustKey(t, "acme", "inv-2", 1), "c")
		x.clock.Advance(time.Second)
		_, err = r.step(x.ctx)
		require.NoError(t, err)
		require.Equal(t, x.clock.Now(), r.Progress(), "a delivery is progress")
	})
}

// An unreachable Redis is counted as a redis error and stops progress.
func TestRelay_RedisDown_CountsRedisErrors(t *testing.T) {
	m, c := redistest.Mini(t)
	x := setup(t, &redistest.Backend{Name: "miniredis", Client: c, Mini: m}, nil)
	errs := &errorCounter{}
	r := newRelay(t, x, &fakePublisher{}, "r1", func(c *RelayConfig) { c.OnError = errs.add })
	m.Close()
	x.clock.Advance(time.Minute)
	_, err := r.step(x.ctx)
	require.Error(t, err)
	require.Equal(t, x.store.Shards(), errs.get(RelayErrorRedis), "one per shard")
	require.Equal(t, t0, r.Progress())
}

// A stream whose consumer group is gone (Redis lost it, and no relay has
// re-created it yet) holds entries never delivered: the trim keeps them
// all, however old.
func TestRelay_Trim_StreamWithoutTheGroup_TrimsNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *jobs.Config) { c.Shards = 1; c.Retention.Outbox = time.Minute })
		r := newRelay(t, x, &fakePublisher{}, "r1", nil)
		for i := range 3 {
			x.submit(t, mustKey(t, "acme", fmt.Sprintf("inv-%d", i), 1), "c")
		}
		x.clock.Advance(time.Hour)
		require.NoError(t, r.trim(x.ctx, 0))
		require.EqualValues(t, 3, x.rdb.XLen(x.ctx, x.store.OutboxStream(0)).Val())
	})
}

// An outage whose passes fail with alternating kinds (a Redis restart:
// reads fail, then the review consumer, then reads again) is one incident:
// one warning at its start, one info line at its end listing every kind.
func TestRelay_OutageWithAlternatingErrorKinds_IsOneIncident(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		logs := &logRecorder{}
		r := newRelay(t, x, &fakePublisher{}, "r1", func(c *RelayConfig) { c.Logger = slog.New(logs) })
		kinds := []string{RelayErrorRedis, RelayErrorConsume, RelayErrorRedis, RelayErrorNoGroup, RelayErrorConsume}
		r.mu.Lock()
		for i := range 236 {
			x.clock.Advance(17 * time.Millisecond)
			r.record(&kindError{kind: kinds[i%len(kinds)], err: errors.New("down")}, false)
		}
		r.record(nil, true)
		r.mu.Unlock()

		require.Equal(t, 1, logs.count(slog.LevelWarn), "one warning for the outage")
		require.Equal(t, 1, logs.count(slog.LevelInfo), "one line for its end")
		got, ok := logs.last(slog.LevelInfo, "kinds")
		require.True(t, ok)
		require.Equal(t, "redis,consume,no_group", got.String())
		passes, _ := logs.last(slog.LevelInfo, "failed_passes")
		require.EqualValues(t, 236, passes.Int64())
	})
}
