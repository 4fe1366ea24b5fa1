package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

// Publisher publishes job.submitted events; the worker implements it with
// Asynq tasks (TaskID = job key, so a republish is absorbed).
type Publisher interface {
	Publish(ctx context.Context, ev jobs.Event) error
}

// BatchPublisher is a Publisher that also publishes many events at once (in
// one round trip): the relay hands it every job.submitted event of a read
// together. PublishBatch returns one error per event, nil when published.
type BatchPublisher interface {
	Publisher
	PublishBatch(ctx context.Context, evs []jobs.Event) []error
}

// Notifier is told of the events that end a job or decide its review (the
// webhook notifier): extraction.committed (once its review is applied),
// job.dead_lettered, job.cancelled and review.decided. An error leaves the
// entry pending, to be delivered again: Notify must absorb repeats.
type Notifier interface {
	Notify(ctx context.Context, ev jobs.Event) error
}

// Claimer claims the duplicate fingerprints of extraction.committed
// events before their reviews are applied (package supplier), setting
// each event's Match. It must answer a repeat alike: an error leaves the
// entries pending, to be claimed again.
type Claimer interface {
	ClaimEvents(ctx context.Context, evs []jobs.Event) error
}

// RelayConfig configures a Relay.
type RelayConfig struct {
	Store     *jobs.Store // required
	Publisher Publisher   // required: receives job.submitted
	// Notifier, if set, is told of terminal and review events (webhooks).
	Notifier Notifier
	// Claimer, if set, claims the fingerprints of committed documents
	// before their webhooks are sent and their reviews applied, which then
	// carry what it found (a possible duplicate).
	Claimer Claimer
	// Consumer names this relay in the consumer group; default hostname-pid.
	// Names must be unique among live relays.
	Consumer string
	Logger   *slog.Logger // default slog.Default()
	Clock    clock.Clock  // default clock.Real{}
	// PollInterval is the pause after a failed read or delivery before the
	// shard is tried again, and the wait between empty reads when no
	// blocking read is possible (see ReadRedis). Default 20ms.
	PollInterval time.Duration
	// IdleBlock is how long Run's read of one shard waits for a new entry
	// (a blocking XREADGROUP) before it reads again: an idle relay costs one
	// command per shard per IdleBlock, and an entry is delivered the moment
	// it is appended. Default 1s.
	IdleBlock time.Duration
	// ReadRedis serves Run's blocking reads, which each hold a connection
	// while their shard is idle. Default: a client with the store client's
	// options and a pool of one connection per shard (plus one), closed when
	// Run returns, which also ends the reads in flight. A client that is
	// neither a *redis.Client nor a *redis.ClusterClient cannot be copied:
	// Run then polls every PollInterval instead.
	ReadRedis redis.UniversalClient
	// BatchSize is the most entries read from one shard at once. Default 128.
	BatchSize int
	// ReclaimIdle is how long an entry may stay delivered but unacked (its
	// relay died or failed) before any relay takes it over. Default 30s.
	ReclaimIdle time.Duration
	// TrimInterval is how often acked entries older than the store's outbox
	// retention are trimmed. Default 1m.
	TrimInterval time.Duration
	// OnEvent, if set, is told the outcome of every event: "published",
	// "applied", "duplicate_event", "notified" or "error".
	OnEvent func(ev jobs.Event, outcome string)
	// OnTrim, if set, is told how many entries a trim removed from a shard.
	OnTrim func(shard int, trimmed int64)
	// OnError, if set, is told the kind of every error the relay meets (one
	// of the RelayError* constants), as it meets it.
	OnError func(kind string)
}

// Kinds of relay errors, the values passed to RelayConfig.OnError: a small
// fixed set, fit for a metric label.
const (
	// RelayErrorNoGroup: an outbox stream or its consumer group vanished
	// (Redis lost its data, or a failover promoted a replica without them).
	// The relay re-creates both and carries on in the same pass.
	RelayErrorNoGroup = "no_group"
	// RelayErrorRedis: reading or acking an outbox stream failed.
	RelayErrorRedis = "redis"
	// RelayErrorPublish: the Publisher failed; the entry stays pending.
	RelayErrorPublish = "publish"
	// RelayErrorConsume: the review consumer failed; the entry stays pending.
	RelayErrorConsume = "consume"
	// RelayErrorTrim: trimming an outbox stream failed.
	RelayErrorTrim = "trim"
	// RelayErrorNotify: the Notifier (webhooks) failed; the entry stays
	// pending.
	RelayErrorNotify = "notify"
)

// RelayErrorKinds lists every kind, so a metric can start each at zero.
var RelayErrorKinds = []string{RelayErrorNoGroup, RelayErrorRedis, RelayErrorPublish, RelayErrorConsume, RelayErrorTrim, RelayErrorNotify}

func (c RelayConfig) withDefaults() RelayConfig {
	if c.Consumer == "" {
		host, _ := os.Hostname()
		c.Consumer = host + "-" + strconv.Itoa(os.Getpid())
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.PollInterval == 0 {
		c.PollInterval = 20 * time.Millisecond
	}
	if c.IdleBlock == 0 {
		c.IdleBlock = time.Second
	}
	if c.BatchSize == 0 {
		c.BatchSize = 128
	}
	if c.ReclaimIdle == 0 {
		c.ReclaimIdle = 30 * time.Second
	}
	if c.TrimInterval == 0 {
		c.TrimInterval = time.Minute
	}
	if c.OnEvent == nil {
		c.OnEvent = func(jobs.Event, string) {}
	}
	if c.OnTrim == nil {
		c.OnTrim = func(int, int64) {}
	}
	if c.OnError == nil {
		c.OnError = func(string) {}
	}
	return c
}

func (c RelayConfig) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("outbox: RelayConfig.Store is required"))
	}
	if c.Publisher == nil {
		errs = append(errs, errors.New("outbox: RelayConfig.Publisher is required"))
	}
	if c.BatchSize < 1 || c.PollInterval < 0 || c.ReclaimIdle < time.Millisecond || c.TrimInterval < time.Millisecond {
		errs = append(errs, errors.New("outbox: RelayConfig.BatchSize, PollInterval, ReclaimIdle and TrimInterval must be positive"))
	}
	if c.IdleBlock < time.Millisecond {
		errs = append(errs, fmt.Errorf("outbox: RelayConfig.IdleBlock must be at least 1ms, got %s", c.IdleBlock))
	}
	return errors.Join(errs...)
}

// Relay moves outbox rows to their consumers: job.submitted to the
// Publisher (Asynq), extraction.committed to the review consumer.
//
// The review consumer runs in-process (Store.ApplyCommitted) rather than as a
// second Asynq task or consumer group: it is one Lua script on the same
// Redis, deduplicated by eventId, and every extra Asynq task per job costs
// about half the throughput (docs/architecture.md, Performance). The relay's
// own consumer group already gives it at-least-once delivery with takeover of
// a dead relay's entries.
//
// Each shard's stream is read with its own call (a multi-stream read across
// slots fails on Redis Cluster). Entries are acked only after their consumer
// succeeded; publishing twice is safe (TaskID conflicts, eventId dedupe,
// terminal-job no-ops).
type Relay struct {
	cfg      RelayConfig
	store    *jobs.Store
	log      *slog.Logger
	lastTrim time.Time
	// grouped says the consumer group of a shard was seen to exist. It is
	// only a hint that saves a command per pass: Redis may lose the group
	// (and the stream) at any time, and a NOGROUP answer clears it.
	// grouped and lastReclaim are per shard: in Run each shard's loop is the
	// only one to touch its entry.
	grouped []bool
	// lastReclaim is when each shard was last checked for idle entries: a
	// check every ReclaimIdle/2 finds every entry soon after it turns idle.
	lastReclaim []time.Time
	// progress is the clock's UnixNano when the relay last made progress
	// (see Progress).
	progress atomic.Int64

	// mu guards what the shard loops of Run share: the counters, the
	// incident and the per-shard progress below.
	mu       sync.Mutex
	incident incident
	// acked counts the entries acked so far, to tell a failing pass that
	// still moved entries from one that moved none.
	acked int
	// owing is until when a failed delivery may still be waiting, pending,
	// for its retry (1.5 × ReclaimIdle after it failed): until then a pass
	// that reads nothing is not progress.
	owing time.Time
	// regrouped lists the shards whose group this pass re-created.
	regrouped []int
	// loops is the state of Run's shard loops (nil outside Run).
	loops *loopState
}

// NewRelay checks cfg and returns a Relay.
func NewRelay(cfg RelayConfig) (*Relay, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Relay{
		cfg: cfg, store: cfg.Store, grouped: make([]bool, cfg.Store.Shards()), lastReclaim: make([]time.Time, cfg.Store.Shards()),
		log: cfg.Logger.With("component", "outbox.relay", "consumer", cfg.Consumer),
	}
	r.markProgress()
	return r, nil
}

// Drain relays until a pass over every shard finds nothing to do, and
// returns how many entries it handled. The worker calls it on shutdown, after
// its handlers stopped, to publish what they committed.
func (r *Relay) Drain(ctx context.Context) (int, error) {
	// First what this relay holds unacked: a delivery its Run was cancelled
	// in the middle of. No other relay takes it over before ReclaimIdle.
	total, err := r.drainOwn(ctx)
	if err != nil {
		return total, err
	}
	for {
		n, err := r.step(ctx)
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			return total, nil
		}
	}
}

// drainOwn delivers the entries this consumer holds unacked, on every shard,
// until none are left or a delivery fails.
func (r *Relay) drainOwn(ctx context.Context) (int, error) {
	total := 0
	for shard := range r.store.Shards() {
		if err := r.ensureGroup(ctx, shard); err != nil {
			return total, err
		}
		stream := r.store.OutboxStream(shard)
		for {
			streams, err := r.store.Redis().XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: jobs.RelayGroup, Consumer: r.cfg.Consumer, Streams: []string{stream, "0"},
				Count: int64(r.cfg.BatchSize), Block: -1,
			}).Result()
			if noGroup(err) {
				// A group created anew holds nothing of this relay's.
				if err := r.regroup(ctx, shard); err != nil {
					return total, err
				}
				break
			}
			if err != nil && !errors.Is(err, redis.Nil) {
				return total, r.fail(ctx, RelayErrorRedis, err)
			}
			var msgs []redis.XMessage
			for _, s := range streams {
				msgs = append(msgs, s.Messages...)
			}
			if len(msgs) == 0 {
				break
			}
			n, err := r.deliverAll(ctx, shard, msgs)
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// pass reads each shard once: entries left pending by this consumer (a failed
// publish), entries a dead relay left behind, then new ones.
func (r *Relay) pass(ctx context.Context) (int, error) {
	total := 0
	var errs []error
	for shard := range r.store.Shards() {
		n, err := r.shard(ctx, shard)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("shard %d: %w", shard, err))
		}
	}
	r.warnRegrouped()
	if now := r.cfg.Clock.Now(); now.Sub(r.lastTrim) >= r.cfg.TrimInterval {
		r.lastTrim = now
		for shard := range r.store.Shards() {
			if err := r.trim(ctx, shard); err != nil {
				errs = append(errs, fmt.Errorf("trim shard %d: %w", shard, r.fail(ctx, RelayErrorTrim, err)))
			}
		}
	}
	return total, errors.Join(errs...)
}

// warnRegrouped logs, in one warning, the shards whose stream and group
// this relay re-created since it last did.
func (r *Relay) warnRegrouped() {
	r.mu.Lock()
	shards := r.regrouped
	r.regrouped = nil
	r.mu.Unlock()
	if len(shards) > 0 {
		r.log.Warn("outbox streams or their consumer group vanished (Redis lost its data?); re-created them",
			"shards", shards, "group", jobs.RelayGroup)
	}
}

// ensureGroup creates the shard's stream and consumer group unless they
// were seen to exist. The group starts at "0": after Redis lost them, every
// entry appended since (by the API, or the reconciler) is delivered.
func (r *Relay) ensureGroup(ctx context.Context, shard int) error {
	if r.grouped[shard] {
		return nil
	}
	err := r.store.Redis().XGroupCreateMkStream(ctx, r.store.OutboxStream(shard), jobs.RelayGroup, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return r.fail(ctx, RelayErrorRedis, err)
	}
	r.grouped[shard] = true
	return nil
}

// noGroup reports Redis's answer to a read of a stream or group that does
// not exist.
func noGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOGROUP")
}

// regroup handles a NOGROUP answer on shard: Redis no longer has the stream
// or its consumer group, so the relay forgets it had them and creates them
// again. It is counted every time; the pass logs the shards this relay
// re-created in one warning (relays that find the group already back,
// BUSYGROUP, stay quiet), so one loss is about one warning however many
// relays and workers run.
func (r *Relay) regroup(ctx context.Context, shard int) error {
	r.cfg.OnError(RelayErrorNoGroup)
	r.grouped[shard] = false
	err := r.store.Redis().XGroupCreateMkStream(ctx, r.store.OutboxStream(shard), jobs.RelayGroup, "0").Err()
	switch {
	case err == nil:
		r.mu.Lock()
		r.regrouped = append(r.regrouped, shard)
		r.mu.Unlock()
	case !strings.Contains(err.Error(), "BUSYGROUP"):
		return r.fail(ctx, RelayErrorRedis, err)
	}
	r.grouped[shard] = true
	return nil
}

// shard reads one shard once, without waiting. A NOGROUP answer re-creates
// the stream and group and reads again, once.
func (r *Relay) shard(ctx context.Context, shard int) (int, error) {
	return r.readShard(ctx, shard, r.store.Redis(), -1)
}

// readShard reads one shard once, its new entries through rdb, waiting up
// to block for one (-1: not at all), and delivers what it read.
func (r *Relay) readShard(ctx context.Context, shard int, rdb redis.UniversalClient, block time.Duration) (int, error) {
	if err := r.ensureGroup(ctx, shard); err != nil {
		return 0, err
	}
	msgs, _, err := r.read(ctx, shard, rdb, block, owed{})
	if noGroup(err) {
		if err := r.regroup(ctx, shard); err != nil {
			return 0, err
		}
		msgs, _, err = r.read(ctx, shard, rdb, block, owed{})
	}
	if err != nil {
		return 0, r.fail(ctx, RelayErrorRedis, err)
	}
	return r.deliverAll(ctx, shard, msgs)
}

// read claims the shard's idle entries (when due) and reads its new ones
// through rdb, waiting up to block for one when it claimed none. What o
// owes (acks, and reviews to apply) is settled in the same round trip,
// pipelined before the read; settled is the outcome of that part, already
// counted and reported (errNotSettled: not tried).
func (r *Relay) read(ctx context.Context, shard int, rdb redis.UniversalClient, block time.Duration, o owed) (msgs []redis.XMessage, settled, err error) {
	stream := r.store.OutboxStream(shard)
	// Entries idle too long, whoever holds them (this relay after a failed
	// consume, or a dead one), come first.
	if now := r.cfg.Clock.Now(); now.Sub(r.lastReclaim[shard]) >= r.cfg.ReclaimIdle/2 {
		r.lastReclaim[shard] = now
		msgs, _, err = r.store.Redis().XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: stream, Group: jobs.RelayGroup, Consumer: r.cfg.Consumer,
			MinIdle: r.cfg.ReclaimIdle, Start: "0-0", Count: int64(r.cfg.BatchSize),
		}).Result()
		if err != nil {
			return nil, errNotSettled, err
		}
	}
	if len(msgs) > 0 {
		block = -1
	}
	args := &redis.XReadGroupArgs{
		Group: jobs.RelayGroup, Consumer: r.cfg.Consumer, Streams: []string{stream, ">"},
		Count: int64(r.cfg.BatchSize), Block: block,
	}
	var read *redis.XStreamSliceCmd
	if o.empty() {
		read = rdb.XReadGroup(ctx, args)
	} else {
		// A pipeline's replies are read within the client's ReadTimeout,
		// whatever a command would wait: a read that waits longer than that
		// allows is made not to wait. Behind reviews the read waits
		// applyWait at most, since their outcomes are reported after it.
		if len(o.committed) > 0 {
			args.Block = min(args.Block, applyWait)
		}
		if rt := jobs.ReadTimeout(rdb); rt >= 0 && args.Block > rt-minReadMargin {
			args.Block = -1
		}
		pipe := rdb.Pipeline()
		finish := r.queueSettle(ctx, pipe, shard, o)
		read = pipe.XReadGroup(ctx, args)
		_, _ = pipe.Exec(ctx)
		settled = finish()
	}
	streams, err := read.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, settled, err
	}
	for _, s := range streams {
		msgs = append(msgs, s.Messages...)
	}
	return msgs, settled, nil
}

// errNotSettled is read's answer when it did not try to settle what was
// owed.
var errNotSettled = errors.New("outbox: not settled")

// applyWait is how long a read pipelined behind a batch of reviews waits
// for a new entry: the batch's outcomes (OnEvent) are reported when the
// pipeline returns, so at most this late. The reviews themselves exist as
// soon as the script ran, before the read.
const applyWait = 20 * time.Millisecond

// minReadMargin is how much longer than a blocking read in a pipeline the
// client's ReadTimeout must be.
const minReadMargin = 500 * time.Millisecond

// consume hands one entry to its consumer; a failing consumer leaves it
// pending.
func (r *Relay) consume(ctx context.Context, ev jobs.Event) error {
	outcome, err := r.deliver(ctx, ev)
	if err != nil {
		r.cfg.OnEvent(ev, "error")
		// The pass reports the failure (once per incident, see Run).
		r.log.Debug("outbox entry not delivered; it stays pending", "event", ev.Type, "job_key", ev.Key.String(), "error", err)
		return err
	}
	r.cfg.OnEvent(ev, outcome)
	return nil
}

// deliver hands one event to its consumer and names the outcome.
// extraction.committed events do not come here: deliverAll applies them
// in batches (applyAndAck).
func (r *Relay) deliver(ctx context.Context, ev jobs.Event) (string, error) {
	switch ev.Type {
	case jobs.EventJobSubmitted:
		if err := r.cfg.Publisher.Publish(ctx, ev); err != nil {
			return "", r.failHeld(ctx, RelayErrorPublish, err)
		}
		return "published", nil
	case jobs.EventJobDeadLettered, jobs.EventJobCancelled, jobs.EventReviewDecided:
		if err := r.notify(ctx, ev); err != nil {
			return "", err
		}
		return "notified", nil
	}
	return "", fmt.Errorf("unknown event type %q", ev.Type)
}

// notify hands ev to the Notifier, if any.
func (r *Relay) notify(ctx context.Context, ev jobs.Event) error {
	if r.cfg.Notifier == nil {
		return nil
	}
	if err := r.cfg.Notifier.Notify(ctx, ev); err != nil {
		return r.failHeld(ctx, RelayErrorNotify, err)
	}
	return nil
}
