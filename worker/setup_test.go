package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// t0 is the stub clock's start, near the wall clock (stream IDs are server
// time, script "now" is stub time).
var t0 = time.Now().UTC().Truncate(time.Millisecond)

const testShards = 4

// fakeExtractor wraps the rules extractor, counts calls per stage, lets a
// test replace any stage, and says which stages are checkpointed: by default
// classify and extract, as for an expensive extractor (a model); cheap()
// checkpoints none, as the rules extractor.
type fakeExtractor struct {
	mu    sync.Mutex
	calls map[string]int
	hooks map[string]func(ctx context.Context) ([]byte, error) // stage → replacement
	ckpt  map[string]bool
}

func newFakeExtractor() *fakeExtractor {
	return &fakeExtractor{
		calls: map[string]int{}, hooks: map[string]func(context.Context) ([]byte, error){},
		ckpt: map[string]bool{extract.StageClassify: true, extract.StageExtract: true},
	}
}

func (f *fakeExtractor) on(stage string, fn func(ctx context.Context) ([]byte, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks[stage] = fn
}

// checkpoint sets the stages that are checkpointed (none: a cheap extractor).
func (f *fakeExtractor) checkpoint(stages ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ckpt = map[string]bool{}
	for _, s := range stages {
		f.ckpt[s] = true
	}
}

func (f *fakeExtractor) Checkpointed(stage string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ckpt[stage]
}

func (f *fakeExtractor) called(stage string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[stage]
}

func (f *fakeExtractor) enter(stage string) func(context.Context) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[stage]++
	return f.hooks[stage]
}

func (f *fakeExtractor) Classify(ctx context.Context, content string) ([]byte, error) {
	if h := f.enter(StageClassify); h != nil {
		return h(ctx)
	}
	return rules.Rules{}.Classify(ctx, content)
}

func (f *fakeExtractor) Extract(ctx context.Context, content string, cls []byte) ([]byte, error) {
	if h := f.enter(StageExtract); h != nil {
		return h(ctx)
	}
	return rules.Rules{}.Extract(ctx, content, cls)
}

func (f *fakeExtractor) Validate(ctx context.Context, ext []byte) ([]byte, error) {
	if h := f.enter(StageValidate); h != nil {
		return h(ctx)
	}
	return rules.Rules{}.Validate(ctx, ext)
}

// Stage names, short for the tests.
const (
	StageClassify = extract.StageClassify
	StageExtract  = extract.StageExtract
	StageValidate = extract.StageValidate
)

// Stages lists the stages in order.
var Stages = extract.Stages

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "invoices", name))
	require.NoError(t, err)
	return string(b)
}

// bundle is one handler test's world: a miniredis store, a stub clock, a
// fake extractor and the handler's log.
type bundle struct {
	ctx     context.Context
	mini    *miniredis.Miniredis
	rdb     *redis.Client
	store   *jobs.Store
	clock   *clock.Stub
	x       *fakeExtractor
	logs    *syncBuffer
	metrics *Metrics
	handler *Handler
}

type setupOpts struct {
	faults         string
	attemptTimeout time.Duration
	logLevel       slog.Level
	// extractor replaces the fake extractor (b.x then counts nothing).
	extractor extract.Extractor
	// metrics replaces the bundle's fresh metrics.
	metrics *Metrics
	// reader and vision are the handler's read stage and vision model
	// (default: text and XML, no vision).
	reader DocumentReader
	vision Vision
	// memory is the supplier memory (default: none).
	memory Memory
}

func setup(t *testing.T, opts *setupOpts) *bundle {
	t.Helper()
	if opts == nil {
		opts = &setupOpts{}
	}
	m, rdb := redistest.Mini(t)
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: testShards})
	require.NoError(t, err)
	faults, err := ParseFaults(opts.faults)
	require.NoError(t, err)
	b := &bundle{
		ctx: context.Background(), mini: m, rdb: rdb, store: store, clock: clk,
		x: newFakeExtractor(), logs: &syncBuffer{}, metrics: opts.metrics,
	}
	if b.metrics == nil {
		b.metrics = NewMetrics(false)
	}
	logger := slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: opts.logLevel}))
	var x extract.Extractor = b.x
	if opts.extractor != nil {
		x = opts.extractor
	}
	b.handler, err = NewHandler(HandlerConfig{
		Store: store, Extractor: x, Faults: faults, Clock: clk, Logger: logger,
		Metrics: b.metrics, AttemptTimeout: opts.attemptTimeout, Reader: opts.reader, Vision: opts.vision,
		Memory: opts.memory,
	})
	require.NoError(t, err)
	return b
}

func mustKey(t testing.TB, tenant, doc string, v int64) jobs.Key {
	t.Helper()
	k, err := jobs.BuildKey(tenant, doc, v)
	require.NoError(t, err)
	return k
}

// submit stores a job with the default limits and deadline d (0: 24h).
func (b *bundle) submit(t *testing.T, k jobs.Key, content string, deadline time.Duration) {
	t.Helper()
	lim := jobs.DefaultLimits
	if deadline > 0 {
		lim.Deadline = deadline
	}
	_, err := b.store.Submit(b.ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: lim})
	require.NoError(t, err)
}

// deliver calls the handler as Asynq would for one delivery of k's task.
func (b *bundle) deliver(k jobs.Key) error {
	payload := task.ExtractPayload{JobKey: k.String()}.Marshal()
	return b.handler.ProcessTask(b.ctx, asynq.NewTask(task.TypeExtract, payload))
}

func (b *bundle) job(t *testing.T, k jobs.Key) *jobs.Job {
	t.Helper()
	j, err := b.store.Get(b.ctx, k)
	require.NoError(t, err)
	return j
}

// jobHash is the raw job record in Redis.
func (b *bundle) jobHash(t *testing.T, k jobs.Key) map[string]string {
	t.Helper()
	key := fmt.Sprintf("ro:{%02d}:job:%s", jobs.Shard(k.Tenant, k.DocumentID, testShards), k)
	h, err := b.rdb.HGetAll(b.ctx, key).Result()
	require.NoError(t, err)
	require.NotEmpty(t, h, "job record %s", key)
	return h
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// counterValue sums the counter series of name whose label has value.
func counterValue(m *Metrics, name, label, value string) float64 {
	families, err := m.Registry.Gather()
	if err != nil {
		panic(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					sum += metric.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// logLines returns the handler's JSON log lines whose fields include every
// pair of match.
func (b *bundle) logLines(t *testing.T, match map[string]string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.logs.String()), "\n") {
		var line map[string]any
		if json.Unmarshal([]byte(l), &line) != nil {
			continue
		}
		ok := true
		for k, v := range match {
			if fmt.Sprint(line[k]) != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}
