package outbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/relayops/relayops/jobs"
)

// loopState is what Run's shard loops share, guarded by Relay.mu. Each
// slice has one entry per shard and one more for the trim loop.
type loopState struct {
	// acked counts the entries each loop acked since its last step was
	// recorded.
	acked []int
	// progress is when each loop last made progress; the relay's Progress is
	// the oldest shard's, so one stuck shard is enough to report it.
	progress []time.Time
	// owing is until when a failed delivery of the loop's shard may still
	// be waiting, pending, for its retry (see Relay.owing).
	owing []time.Time
	// failing says the loop's last step failed, or its shard still owes a
	// failed delivery: the incident ends when no loop is failing any more.
	failing []bool
}

// Run relays until ctx is done. Each shard has its own loop: a blocking read
// of its stream (IdleBlock at most) that returns as soon as an entry is
// appended, then delivery of what it read. An idle relay thus costs Redis
// one read per shard per IdleBlock, a busy one delivers each shard's entries
// in parallel with the others', and nothing waits for a poll. On Redis
// Cluster each read names one stream, so each goes to its shard's master.
//
// Errors never stop the relay: the shard is tried again after PollInterval,
// and an incident (steps failing, on any shard) is logged once when it
// starts and once when the last failing shard recovers.
func (r *Relay) Run(ctx context.Context) error {
	rdb, closeReads := r.readClient()
	block := r.cfg.IdleBlock
	if rdb == nil {
		rdb, block = r.store.Redis(), -1
	}
	n := r.store.Shards()
	now := r.cfg.Clock.Now()
	l := &loopState{acked: make([]int, n+1), progress: make([]time.Time, n+1), owing: make([]time.Time, n+1), failing: make([]bool, n+1)}
	for i := range l.progress {
		l.progress[i] = now
	}
	r.mu.Lock()
	r.loops = l
	r.mu.Unlock()
	r.markProgress()

	var wg sync.WaitGroup
	for shard := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(ctx, rdb, shard, block)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.trimLoop(ctx, n)
	}()
	<-ctx.Done()
	closeReads() // ends the blocking reads in flight
	wg.Wait()
	r.mu.Lock()
	r.loops = nil
	r.mu.Unlock()
	return nil
}

// owed is what a loop delivered but has not settled yet: the acks of
// entries consumed one by one, and the extraction.committed events whose
// reviews the review script applies (acking them and the others in the same
// step). The loop's next read settles it in its own round trip.
type owed struct {
	acks      []string
	committed []jobs.Event
}

func (o owed) empty() bool { return len(o.acks) == 0 && len(o.committed) == 0 }

// with returns o followed by more.
func (o owed) with(more owed) owed {
	return owed{acks: append(o.acks, more.acks...), committed: append(o.committed, more.committed...)}
}

// loop reads and delivers one shard until ctx is done. What a batch owes is
// settled with the next read, in its round trip; the loop settles what it
// still owes when it stops.
func (r *Relay) loop(ctx context.Context, rdb redis.UniversalClient, shard int, block time.Duration) {
	var o owed
	defer func() { r.settleNow(ctx, shard, o) }()
	for ctx.Err() == nil {
		var n int
		var err error
		n, o, err = r.loopStep(ctx, rdb, shard, block, o)
		if ctx.Err() != nil {
			return
		}
		r.recordLoop(shard, err)
		r.warnRegrouped()
		if err != nil || (n == 0 && block < 0 && o.empty()) {
			pause(ctx, r.cfg.PollInterval)
		}
	}
}

// loopStep is one read of a shard, settling o (what the previous step
// delivered) in the same round trip: a pipeline of the XACK or the review
// script and the blocking XREADGROUP, when the client's ReadTimeout allows
// the wait. It delivers what it read and returns what that owes.
func (r *Relay) loopStep(ctx context.Context, rdb redis.UniversalClient, shard int, block time.Duration, o owed) (int, owed, error) {
	if err := r.ensureGroup(ctx, shard); err != nil {
		return 0, o, err
	}
	msgs, settled, err := r.read(ctx, shard, rdb, block, o)
	if settled == nil {
		o = owed{}
	} else if errors.Is(settled, errNotSettled) {
		settled = nil
	}
	// A failed settle may still have run (a reply lost with its
	// connection): o is settled again, by the next read or when the loop
	// stops. XACK and the review script are idempotent.
	if noGroup(err) {
		// The group is new: what was owed to the old one is moot.
		o = owed{}
		if err := r.regroup(ctx, shard); err != nil {
			return 0, o, errors.Join(settled, err)
		}
		msgs, _, err = r.read(ctx, shard, rdb, block, owed{})
	}
	if err != nil {
		return 0, o, errors.Join(settled, r.fail(ctx, RelayErrorRedis, err))
	}
	next, err := r.deliverBatch(ctx, shard, msgs)
	return len(msgs), o.with(next), errors.Join(settled, err)
}

// queueSettle queues on pipe what o owes (the review script, or an XACK)
// and returns the function that reports its outcome once pipe ran. Until
// it succeeds the entries stay pending (another relay reclaims them after
// ReclaimIdle; the eventId dedupe and the TaskID absorb a second delivery).
func (r *Relay) queueSettle(ctx context.Context, pipe redis.Pipeliner, shard int, o owed) func() error {
	if len(o.committed) > 0 {
		acks := withCommitted(o.acks, o.committed)
		result, err := r.store.QueueApplyCommitted(ctx, pipe, shard, o.committed, acks)
		if err != nil {
			return func() error { return r.applied(ctx, shard, o.committed, 0, nil, err) }
		}
		return func() error {
			res, err := result()
			return r.applied(ctx, shard, o.committed, len(acks), res, err)
		}
	}
	ack := pipe.XAck(ctx, r.store.OutboxStream(shard), jobs.RelayGroup, o.acks...)
	return func() error {
		if err := ack.Err(); err != nil {
			return r.failHeld(ctx, RelayErrorRedis, err)
		}
		r.countAcked(shard, len(o.acks))
		return nil
	}
}

// settleNow settles what a stopping loop still owes, on a context that is
// not cancelled (bounded by a second): otherwise the entries would wait,
// pending, for this relay's Drain or another relay's reclaim, and be
// delivered twice.
func (r *Relay) settleNow(ctx context.Context, shard int, o owed) {
	if o.empty() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = r.applyAndAck(ctx, shard, o.committed, o.acks) // a failure is counted and logged there
}

// trimLoop trims every shard each TrimInterval.
func (r *Relay) trimLoop(ctx context.Context, slot int) {
	for {
		pause(ctx, r.cfg.TrimInterval)
		if ctx.Err() != nil {
			return
		}
		var errs []error
		for shard := range r.store.Shards() {
			if err := r.trim(ctx, shard); err != nil {
				errs = append(errs, fmt.Errorf("trim shard %d: %w", shard, r.fail(ctx, RelayErrorTrim, err)))
			}
		}
		if ctx.Err() != nil {
			return
		}
		r.recordLoop(slot, errors.Join(errs...))
	}
}

// recordLoop records the outcome of one step of loop i (a shard, or the
// trim loop): its progress, the relay's (the oldest loop's), and the
// incident log.
func (r *Relay) recordLoop(i int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.loops
	now := r.cfg.Clock.Now()
	if failedDelivery(err) {
		l.owing[i] = now.Add(r.cfg.ReclaimIdle * 3 / 2)
	}
	progressed := l.acked[i] > 0 || (onlyTrimFailed(err) && !now.Before(l.owing[i]))
	if progressed {
		l.progress[i] = now
		oldest := now
		for _, t := range l.progress[:len(l.progress)-1] { // the trim loop holds no entry back
			if t.Before(oldest) {
				oldest = t
			}
		}
		r.progress.Store(oldest.UnixNano())
	}
	l.acked[i] = 0
	// A shard that still owes a failed delivery keeps the incident open.
	l.failing[i] = err != nil || !progressed && now.Before(l.owing[i])
	if err == nil {
		for _, f := range l.failing {
			if f {
				return // the incident goes on elsewhere
			}
		}
	}
	r.record(err, progressed)
}

// pause waits d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ownMaintConfig is the read client's own maintenance-notifications
// settings: the options' pointer is shared with the store's client, which
// updates it while connecting (a data race, and a handler registered twice).
// The reads need none of it: a failover shows as an error, and the loop
// reads again.
func ownMaintConfig() *maintnotifications.Config {
	return &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}

// readClient returns the client of Run's blocking reads and a function that
// closes it (when Run made it), or nil when the store's client cannot be
// copied.
func (r *Relay) readClient() (redis.UniversalClient, func()) {
	if r.cfg.ReadRedis != nil {
		return r.cfg.ReadRedis, func() {}
	}
	size := r.store.Shards() + 1
	switch c := r.store.Redis().(type) {
	case *redis.Client:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.MaxIdleConns = size, 0, size
		if opt.ReadTimeout >= 0 {
			opt.ReadTimeout += r.cfg.IdleBlock + minReadMargin // a blocking read may be pipelined
		}
		opt.MaintNotificationsConfig = ownMaintConfig()
		rc := redis.NewClient(&opt)
		return rc, func() { _ = rc.Close() }
	case *redis.ClusterClient:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.MaxIdleConns = size, 0, size
		if opt.ReadTimeout >= 0 {
			opt.ReadTimeout += r.cfg.IdleBlock + minReadMargin // a blocking read may be pipelined
		}
		opt.MaintNotificationsConfig = ownMaintConfig()
		rc := redis.NewClusterClient(&opt)
		return rc, func() { _ = rc.Close() }
	}
	return nil, func() {}
}
