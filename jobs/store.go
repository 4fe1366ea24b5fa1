// Package jobs is relayops' durable job store: the idempotency key, the
// payload hash, and the Redis store whose Lua scripts commit a job's effects
// (record, ledger, indexes, outbox row, audit entry) atomically. The relay
// that reads the outbox rows lives in package outbox.
//
// Every script touches the keys of one document only, and every such key
// carries the document's {shard} hash tag, so the store runs unchanged on
// Redis Cluster. "Now" always comes from the injected clock.
package jobs

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/keyring"
)

// Retention says how long each class of data lives after the job that owns it
// ends. Expiry is set by the scripts that end a job.
type Retention struct {
	Input  time.Duration // stored inputs; default 7 days
	Result time.Duration // results, checkpoints, job status records, reviews; default 30 days
	Outbox time.Duration // acked outbox rows; default 24 hours
	Audit  time.Duration // audit entries; default 400 days
	Ledger time.Duration // idempotency ledger and applied-event markers; default 400 days; 0 keeps them forever
}

// DefaultRetention is the retention policy used for zero fields.
var DefaultRetention = Retention{
	Input:  7 * 24 * time.Hour,
	Result: 30 * 24 * time.Hour,
	Outbox: 24 * time.Hour,
	Audit:  400 * 24 * time.Hour,
	Ledger: 400 * 24 * time.Hour,
}

// Config configures a Store.
type Config struct {
	// Redis is the connection. Required. It must not retry commands by itself
	// (MaxRetries < 0): go-redis retries EVALSHA after network errors by
	// default, and a script may have run before the error. NewRedisClient
	// builds one that way.
	Redis redis.UniversalClient
	// Shards is the number of shards; it must match across every process of a
	// deployment. Default 16.
	Shards int
	// Clock is the source of "now". Default clock.Real{}.
	Clock clock.Clock
	// Keys, when set, encrypts every stored value that holds document data
	// (inputs, results, checkpoints, review notes) with AES-256-GCM under
	// its first key; every key of the ring decrypts. Default nil: stored in
	// clear (values sealed earlier cannot be read).
	Keys *keyring.Ring
	// Retention is the expiry policy; zero fields take DefaultRetention's.
	// Ledger is taken as given when LedgerForever is true.
	Retention     Retention
	LedgerForever bool
	// WaitReplicas, when > 0, is the number of replicas that must confirm
	// each write acknowledged to a caller (submit, commit, reprocess,
	// review decision) before it is reported done; otherwise the call
	// fails with ErrNotReplicated. Default 0: no wait (Redis replication
	// is asynchronous, and a failover may lose the last writes).
	WaitReplicas int
	// WaitTimeout is how long such a write waits for its replicas. It
	// must be below the client's ReadTimeout. Default 1s.
	WaitTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.Shards == 0 {
		c.Shards = 16
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = time.Second
	}
	r, d := &c.Retention, DefaultRetention
	for _, p := range []struct{ v, def *time.Duration }{
		{&r.Input, &d.Input}, {&r.Result, &d.Result}, {&r.Outbox, &d.Outbox}, {&r.Audit, &d.Audit},
	} {
		if *p.v == 0 {
			*p.v = *p.def
		}
	}
	if c.LedgerForever {
		c.Retention.Ledger = 0
	} else if c.Retention.Ledger == 0 {
		c.Retention.Ledger = d.Ledger
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Redis == nil {
		errs = append(errs, errors.New("jobs: Config.Redis is required"))
	}
	if c.Shards < 1 || c.Shards > 16384 {
		errs = append(errs, fmt.Errorf("jobs: Config.Shards must be 1..16384, got %d", c.Shards))
	}
	if rc, ok := c.Redis.(*redis.Client); ok && rc.Options().MaxRetries > 0 {
		errs = append(errs, errors.New("jobs: Config.Redis must not retry commands (set MaxRetries -1); use NewRedisClient"))
	}
	if cc, ok := c.Redis.(*redis.ClusterClient); ok && (cc.Options().MaxRedirects > 0 || cc.Options().MaxRetries > 0) {
		errs = append(errs, errors.New("jobs: Config.Redis, a cluster client, must not retry commands (set MaxRedirects and MaxRetries -1); use NewRedisClusterClient"))
	}
	if c.WaitReplicas < 0 || c.WaitTimeout < time.Millisecond {
		errs = append(errs, fmt.Errorf("jobs: Config.WaitReplicas must not be negative and Config.WaitTimeout must be at least 1ms, got %d and %s", c.WaitReplicas, c.WaitTimeout))
	}
	if rt := ReadTimeout(c.Redis); c.WaitReplicas > 0 && rt > 0 && c.WaitTimeout >= rt {
		errs = append(errs, fmt.Errorf("jobs: Config.WaitTimeout (%s) must be below the Redis client's ReadTimeout (%s)", c.WaitTimeout, rt))
	}
	r := c.Retention
	if r.Input < time.Millisecond || r.Result < time.Millisecond || r.Outbox < time.Millisecond || r.Audit < time.Millisecond {
		errs = append(errs, errors.New("jobs: Config.Retention durations must be at least 1ms"))
	}
	if r.Ledger != 0 && r.Ledger < r.Result {
		errs = append(errs, errors.New("jobs: Config.Retention.Ledger must outlive Result (or be 0, forever)"))
	}
	return errors.Join(errs...)
}

// ReadTimeout is rdb's ReadTimeout (negative: none), 0 when rdb is neither
// a *redis.Client nor a *redis.ClusterClient.
func ReadTimeout(rdb redis.UniversalClient) time.Duration {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().ReadTimeout
	case *redis.ClusterClient:
		return c.Options().ReadTimeout
	}
	return 0
}

// Store is the durable store of jobs, their effects and the outbox.
type Store struct {
	rdb    redis.UniversalClient
	clock  clock.Clock
	keys   keyspace
	seal   sealer
	ret    Retention
	shards int

	waitReplicas int
	waitTimeout  time.Duration

	// commits counts commits per succeeded index (succeededIndex to
	// *atomic.Uint32), for trimSucceeded: one counter per tenant and shard.
	commits sync.Map
}

// NewStore checks cfg and returns a Store.
func NewStore(cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Store{
		rdb: cfg.Redis, clock: cfg.Clock, keys: newKeyspace(cfg.Shards),
		seal: sealer{ring: cfg.Keys}, ret: cfg.Retention, shards: cfg.Shards,
		waitReplicas: cfg.WaitReplicas, waitTimeout: cfg.WaitTimeout,
	}, nil
}

// NewRedisClient connects to a redis:// URL with settings the store needs:
// no automatic retries (a retried script may run twice) and bounded timeouts,
// so a Redis outage surfaces as an error within about two seconds.
func NewRedisClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("jobs: redis url: %w", err)
	}
	opt.MaxRetries = -1
	opt.DialerRetries = 1 // go-redis otherwise dials 5 times, 100ms apart, whatever MaxRetries says
	opt.DialTimeout = time.Second
	opt.ReadTimeout = 2 * time.Second
	opt.WriteTimeout = 2 * time.Second
	opt.PoolTimeout = 2 * time.Second
	opt.ContextTimeoutEnabled = true // a caller's deadline cuts a stuck call short
	return redis.NewClient(opt), nil
}

// NewRedisClusterClient connects to a Redis Cluster through seed addresses
// (host:port; any reachable node will do) with the settings NewRedisClient
// uses for one Redis, and no redirects: go-redis's cluster client retries a
// command after a network error or a timeout within its MaxRedirects loop,
// whatever MaxRetries says, and a retried script may run twice. With
// MaxRedirects -1 a MOVED or ASK reply (a failover, a resharding) comes back
// as an error, the client reloads the slot map, and the caller's next call
// goes to the slot's new owner. The slot map is also reloaded every second
// while the client is in use: go-redis does not reload it when a master stops
// answering (only on a redirect, or every 60 s by default), so after a
// failover calls to the dead master's slots would fail for up to a minute.
func NewRedisClusterClient(addrs []string) (*redis.ClusterClient, error) {
	opt, err := RedisClusterOptions(addrs)
	if err != nil {
		return nil, err
	}
	return redis.NewClusterClient(opt), nil
}

// RedisClusterOptions are NewRedisClusterClient's options, for a caller that
// adds credentials or TLS before building the client.
func RedisClusterOptions(addrs []string) (*redis.ClusterOptions, error) {
	if len(addrs) == 0 {
		return nil, errors.New("jobs: redis cluster addresses: none given")
	}
	for _, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("jobs: redis cluster address %q: %w", a, err)
		}
	}
	return &redis.ClusterOptions{
		Addrs:                 addrs,
		MaxRedirects:          -1,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           time.Second,
		ReadTimeout:           2 * time.Second,
		WriteTimeout:          2 * time.Second,
		PoolTimeout:           2 * time.Second,
		ContextTimeoutEnabled: true,
		// CLUSTER SLOTS once a second at most, and only while commands run.
		ClusterStateReloadInterval: time.Second,
	}, nil
}

// Shards returns the number of shards.
func (s *Store) Shards() int { return s.shards }

// Keys returns the store's data key ring (nil: none), for the other
// stores of the deployment's secrets (webhook signing secrets).
func (s *Store) Keys() *keyring.Ring { return s.seal.ring }

// Redis returns the store's connection.
func (s *Store) Redis() redis.UniversalClient { return s.rdb }

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

func (s *Store) nowMs() int64 { return s.clock.Now().UnixMilli() }

func ms(d time.Duration) int64 { return d.Milliseconds() }

// familyKeys is the common KEYS layout (commonKeys) for one job.
func (s *Store) familyKeys(k Key) []string {
	shard := s.keys.shardOf(k)
	keys := make([]string, len(commonKeys), len(commonKeys)+len(jobKeySlots))
	for i, slot := range commonKeys {
		keys[i] = slot.build(s.keys, k, shard)
	}
	return keys
}

// jobKeys are the own keys of job version k (jobKeySlots), for a script
// that acts on a second job (lib.lua's job_keys).
func (s *Store) jobKeys(k Key) []string {
	keys := make([]string, len(jobKeySlots))
	for i, slot := range jobKeySlots {
		keys[i] = slot.build(s.keys, k, 0)
	}
	return keys
}

// familyArgs is the common ARGV layout of lib.lua, followed by extra.
func (s *Store) familyArgs(k Key, extra ...any) []any {
	return s.familyArgsAt(k, s.nowMs(), extra...)
}

// familyArgsAt is familyArgs with a given "now" (unix ms), in the order of
// commonArgs.
func (s *Store) familyArgsAt(k Key, now int64, extra ...any) []any {
	args := []any{k.String(), now, ms(s.ret.Input), ms(s.ret.Result), ms(s.ret.Ledger), ms(s.ret.Audit)}
	return append(args, extra...)
}

func checkKey(k Key) error {
	if !k.Valid() {
		_, err := BuildKey(k.Tenant, k.DocumentID, k.Version)
		return err
	}
	return nil
}

// Get returns the job record of k. A job whose record has expired but whose
// ledger entry remains is returned with its final state, ErrorCode and
// EventID, and with InputExpired and ResultExpired set.
func (s *Store) Get(ctx context.Context, k Key) (*Job, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	all := pipe.HGetAll(ctx, s.keys.job(k))
	in := pipe.Exists(ctx, s.keys.input(k))
	res := pipe.Exists(ctx, s.keys.result(k))
	led := pipe.Get(ctx, s.keys.ledger(k))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("jobs: get %s: %w", k, err)
	}
	if len(all.Val()) == 0 {
		if led.Err() != nil {
			return nil, ErrNotFound
		}
		return jobFromLedger(k, led.Val())
	}
	j := jobFromHash(k, all.Val())
	j.InputExpired = in.Val() == 0
	j.ResultExpired = j.State == StateSucceeded && res.Val() == 0
	return j, nil
}

// Input returns the decrypted stored input of k.
func (s *Store) Input(ctx context.Context, k Key) (string, error) {
	if err := checkKey(k); err != nil {
		return "", err
	}
	b, err := s.rdb.Get(ctx, s.keys.input(k)).Bytes()
	if errors.Is(err, redis.Nil) {
		return "", ErrInputExpired
	}
	if err != nil {
		return "", fmt.Errorf("jobs: input %s: %w", k, err)
	}
	return s.seal.open(k, b)
}

// Result returns the committed result of k.
func (s *Store) Result(ctx context.Context, k Key) ([]byte, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	b, err := s.rdb.Get(ctx, s.keys.result(k)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrResultExpired
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: result %s: %w", k, err)
	}
	return s.seal.openValue(k, kindResult, b)
}

func msTime(v string) time.Time {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}

func atoi(v string) int {
	n, _ := strconv.Atoi(v)
	return n
}

func jobFromHash(k Key, h map[string]string) *Job {
	fence, _ := strconv.ParseInt(h[fFence], 10, 64)
	ds, _ := strconv.ParseInt(h[fDeadlineSeconds], 10, 64)
	return &Job{
		Key: k, State: State(h[fState]), Attempt: atoi(h[fAttempts]), Recoveries: atoi(h[fRecoveries]), Fence: fence,
		PayloadHash: h[fPayloadHash], MaxAttempts: atoi(h[fMaxAttempts]), MaxRecoveries: atoi(h[fMaxRecoveries]),
		DeadlineSeconds: ds, DeadlineAt: msTime(h[fDeadlineAt]), CreatedAt: msTime(h[fCreatedAt]), UpdatedAt: msTime(h[fUpdatedAt]),
		EnqueuedAt: msTime(h[fEnqueuedAt]), StartedAt: msTime(h[fStartedAt]), FinishedAt: msTime(h[fFinishedAt]),
		ErrorCode: h[fErrorCode], ErrorReason: h[fErrorReason], EventID: h[fEventID],
		ReprocessedFrom: h[fReprocessedFrom], ReprocessedAs: h[fReprocessedAs],
	}
}

// ledgerEntry is a parsed ledger entry (its packing: schema.go).
type ledgerEntry struct {
	state               State
	hash, eventID, code string
	finished            time.Time
}

func parseLedger(v string) (ledgerEntry, error) {
	bad := fmt.Errorf("jobs: malformed ledger entry (%d bytes)", len(v))
	if len(v) <= ledgerEventEnd {
		return ledgerEntry{}, bad
	}
	st, ok := ledgerState(v[0])
	parts := strings.SplitN(v[ledgerEventEnd:], "|", 3)
	if !ok || len(parts) != 3 {
		return ledgerEntry{}, bad
	}
	e := ledgerEntry{state: st, hash: hex.EncodeToString([]byte(v[1:ledgerHashEnd])), finished: msTime(parts[0]), code: parts[1]}
	if ev := v[ledgerHashEnd:ledgerEventEnd]; ev != strings.Repeat("\x00", ledgerEventEnd-ledgerHashEnd) {
		e.eventID = hex.EncodeToString([]byte(ev))
	}
	return e, nil
}

func jobFromLedger(k Key, v string) (*Job, error) {
	e, err := parseLedger(v)
	if err != nil {
		return nil, err
	}
	return e.job(k), nil
}

func (e ledgerEntry) job(k Key) *Job {
	return &Job{
		Key: k, State: e.state, PayloadHash: e.hash, EventID: e.eventID, ErrorCode: e.code,
		FinishedAt: e.finished, UpdatedAt: e.finished, InputExpired: true,
		ResultExpired: e.state == StateSucceeded, RecordExpired: true,
	}
}
