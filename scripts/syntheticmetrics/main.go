// Command syntheticmetrics is relayops' reference run of 12 synthetic
// documents. It runs the real pipeline in this process — the outbox store,
// the relay, the Asynq extract handler with the real rules extractor, the
// review consumer — on an in-memory Redis (miniredis), or on the Redis of
// -redis-url / $REDIS_URL. Two things are SYNTHETIC, fixed constants per
// document, standing in for what this repository does not have:
//
//   - an inference delay (200–800 ms) added to the extract stage, where a
//     model call would be;
//   - a human reviewer, who decides each review a fixed time after it
//     appears (through jobs.Store.Decide, as POST /v1/reviews/…/decision does).
//
// It submits the documents at a fixed cadence to a worker of concurrency 2,
// so a queue forms, and reports per document queue wait, inference time and
// review wait as separate columns, the Asynq queue depth sampled every
// 100 ms, and a legend saying which numbers are measured and which are the
// synthetic constants. Figures only; nothing is asserted.
//
// Usage: scripts/synthetic-metrics.sh [-redis-url URL] [-v]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

// The reference run. Changing any of these makes a different run.
const (
	tenant      = "synthetic"
	cadence     = 150 * time.Millisecond // one submission every 150 ms
	concurrency = 2                      // extract handlers at once: fewer than arrive, so a queue forms
	sampleEvery = 100 * time.Millisecond // queue depth sampling
	runTimeout  = 25 * time.Second       // the whole run, start to last decision
)

// SYNTHETIC constants, one per document, in submission order.
var (
	inferenceDelays = ms(420, 230, 780, 350, 610, 200, 540, 800, 290, 470, 660, 380)
	reviewDelays    = ms(1200, 900, 1500, 1000, 1800, 700, 1300, 1600, 800, 1100, 1400, 1000)
)

func ms(v ...int) []time.Duration {
	d := make([]time.Duration, len(v))
	for i, n := range v {
		d[i] = time.Duration(n) * time.Millisecond
	}
	return d
}

func main() {
	redisURL := flag.String("redis-url", os.Getenv("REDIS_URL"),
		"run on this Redis (default $REDIS_URL; empty: an in-memory miniredis). Use a scratch Redis that no other relayops worker serves")
	verbose := flag.Bool("v", false, "log the worker at info level (default: warnings only)")
	flag.Parse()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(*redisURL, logger, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "syntheticmetrics:", err)
		os.Exit(1)
	}
}

func run(redisURL string, logger *slog.Logger, out io.Writer) error {
	backend := "redis-server at " + redisURL
	if redisURL == "" {
		mini := miniredis.NewMiniRedis()
		if err := mini.Start(); err != nil {
			return fmt.Errorf("start miniredis: %w", err)
		}
		defer mini.Close()
		stop := followWallClock(mini)
		defer stop()
		redisURL, backend = "redis://"+mini.Addr()+"/0", "miniredis (in memory, in this process)"
	}
	p, err := newPipeline(redisURL, logger)
	if err != nil {
		return err
	}
	defer p.close()

	docs := syntheticDocuments(fmt.Sprintf("syn-%d", time.Now().Unix()))
	fmt.Fprintf(out, "relayops reference run: %d synthetic documents on %s\n", len(docs), backend)
	fmt.Fprintf(out, "  one submission every %s, worker concurrency %d, queue depth sampled every %s\n\n", cadence, concurrency, sampleEvery)

	for _, d := range docs {
		p.extractor.delays[d.content] = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	r, err := p.run(ctx, docs, out)
	if err != nil {
		return err
	}
	report(out, r)
	return nil
}

// followWallClock moves miniredis's clock with the wall clock, as cmd/dev
// does, so TTLs and leases behave; the returned func stops it.
func followWallClock(m *miniredis.Miniredis) func() {
	done := make(chan struct{})
	go func() {
		last := time.Now()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				m.SetTime(now)
				m.FastForward(now.Sub(last))
				last = now
			}
		}
	}()
	return func() { close(done) }
}

// pipeline is the system under measurement: a store and one worker.
type pipeline struct {
	store     *jobs.Store
	storeRDB  *redis.Client
	asynqRDB  *redis.Client
	worker    *worker.Worker
	extractor *syntheticExtractor
}

func newPipeline(redisURL string, logger *slog.Logger) (*pipeline, error) {
	p := &pipeline{extractor: newSyntheticExtractor()}
	var err error
	if p.storeRDB, err = jobs.NewRedisClient(redisURL); err != nil {
		return nil, err
	}
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	p.asynqRDB = redis.NewClient(opt)
	if err := p.storeRDB.Ping(context.Background()).Err(); err != nil {
		p.close()
		return nil, fmt.Errorf("redis at %s: %w", redisURL, err)
	}
	if p.store, err = jobs.NewStore(jobs.Config{Redis: p.storeRDB}); err != nil {
		p.close()
		return nil, err
	}
	p.worker, err = worker.New(worker.Config{
		Store: p.store, Redis: p.asynqRDB, Extractor: p.extractor, Logger: logger,
		Concurrency: concurrency, ShutdownTimeout: 5 * time.Second,
	})
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *pipeline) close() {
	_ = p.asynqRDB.Close()
	_ = p.storeRDB.Close()
}

// run starts the worker, submits the documents, lets the reviewer decide,
// samples the queue, and collects every document's figures.
func (p *pipeline) run(ctx context.Context, docs []*document, out io.Writer) (*results, error) {
	wctx, stopWorker := context.WithCancel(context.Background())
	workerDone := make(chan error, 1)
	go func() { workerDone <- p.worker.Run(wctx) }()
	defer func() {
		stopWorker()
		<-workerDone
	}()

	start := time.Now()
	sampler := newSampler(p.asynqRDB, start)
	go sampler.run(ctx)
	reviewed := make(chan error, len(docs))
	go p.submit(ctx, docs, start, reviewed)
	if err := p.await(ctx, docs, start, sampler, reviewed, out); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	sampler.stop()
	r, err := p.collect(ctx, docs)
	if err != nil {
		return nil, err
	}
	r.elapsed = elapsed
	r.samples, r.sampleErr = sampler.samples()
	reg := p.worker.Metrics().Registry
	r.workerQueueWait = histogramMean(reg, "relayops_queue_wait_seconds")
	r.workerInference = histogramMean(reg, "relayops_inference_seconds")
	return r, nil
}

// submit submits one document per cadence tick and starts its reviewer.
func (p *pipeline) submit(ctx context.Context, docs []*document, start time.Time, reviewed chan<- error) {
	for i, d := range docs {
		if wait := time.Until(start.Add(time.Duration(i) * cadence)); wait > 0 {
			select {
			case <-ctx.Done():
				reviewed <- ctx.Err()
				return
			case <-time.After(wait):
			}
		}
		_, err := p.store.Submit(ctx, jobs.SubmitRequest{Key: d.key, Content: d.content, Limits: jobs.DefaultLimits})
		if err != nil {
			reviewed <- fmt.Errorf("submit %s: %w", d.key, err)
			return
		}
		d.submitted.Store(true)
		go func() { reviewed <- p.review(ctx, d) }()
	}
}

// review is the SYNTHETIC reviewer of one document: it waits for the review
// to appear, then decides it d.reviewDelay after the review's creation.
func (p *pipeline) review(ctx context.Context, d *document) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		rv, err := p.store.GetReview(ctx, d.key)
		if err != nil && !errors.Is(err, jobs.ErrReviewNotFound) && !errors.Is(err, jobs.ErrNotFound) {
			return fmt.Errorf("review of %s: %w", d.key, err)
		}
		if rv != nil {
			d.reviewSeen.Store(true)
			if wait := time.Until(rv.CreatedAt.Add(d.reviewDelay)); wait > 0 {
				select {
				case <-ctx.Done():
					return fmt.Errorf("review of %s: %w", d.key, ctx.Err())
				case <-time.After(wait):
				}
			}
			if _, err := p.store.Decide(ctx, d.key, "synthetic-reviewer", jobs.ReviewApproved, "SYNTHETIC reviewer"); err != nil {
				return fmt.Errorf("decide %s: %w", d.key, err)
			}
			d.decided.Store(true)
			return nil
		}
		if j, err := p.store.Get(ctx, d.key); err == nil && j.State.Terminal() && j.State != jobs.StateSucceeded {
			return fmt.Errorf("%s ended %s (%s): a synthetic document must succeed", d.key, j.State, j.ErrorCode)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the review of %s: %w", d.key, ctx.Err())
		case <-tick.C:
		}
	}
}

// await prints progress every half second until every document is decided.
func (p *pipeline) await(ctx context.Context, docs []*document, start time.Time, s *sampler, reviewed <-chan error, out io.Writer) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for left := len(docs); left > 0; {
		select {
		case err := <-reviewed:
			if err != nil {
				return err
			}
			left--
		case <-tick.C:
			progress(out, docs, time.Since(start), s.last())
		case <-ctx.Done():
			return fmt.Errorf("the run took longer than %s: %w", runTimeout, ctx.Err())
		}
	}
	progress(out, docs, time.Since(start), s.last())
	fmt.Fprintln(out)
	return nil
}

func progress(out io.Writer, docs []*document, at time.Duration, depth int) {
	var submitted, extracted, inReview, decided int
	for _, d := range docs {
		submitted += btoi(d.submitted.Load())
		extracted += btoi(d.extracted.Load())
		inReview += btoi(d.reviewSeen.Load())
		decided += btoi(d.decided.Load())
	}
	fmt.Fprintf(out, "  t=%4.1fs  submitted %2d/%d  extracted %2d  reviews %2d  decided %2d  queue depth %d\n",
		at.Seconds(), submitted, len(docs), extracted, inReview, decided, depth)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// histogramMean is the mean and count of a worker histogram over all its
// label values; count 0 when the worker does not export it.
func histogramMean(g prometheus.Gatherer, name string) workerStat {
	families, err := g.Gather()
	if err != nil {
		return workerStat{}
	}
	var st workerStat
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetHistogram().GetSampleSum()
			st.count += m.GetHistogram().GetSampleCount()
		}
	}
	if st.count > 0 {
		st.mean = time.Duration(sum / float64(st.count) * float64(time.Second))
	}
	return st
}

// collect reads every document's timestamps back from the store.
func (p *pipeline) collect(ctx context.Context, docs []*document) (*results, error) {
	r := &results{}
	for _, d := range docs {
		j, err := p.store.Get(ctx, d.key)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", d.key, err)
		}
		rv, err := p.store.GetReview(ctx, d.key)
		if err != nil || rv == nil {
			return nil, fmt.Errorf("read the review of %s: %v", d.key, err)
		}
		enqueued := j.EnqueuedAt
		if enqueued.IsZero() {
			enqueued = j.CreatedAt
		}
		r.rows = append(r.rows, row{
			doc:             d,
			queueWait:       j.StartedAt.Sub(enqueued),
			extractMeasured: d.extractTook(),
			reviewMeasured:  rv.DecidedAt.Sub(rv.CreatedAt),
			commitToReview:  rv.CreatedAt.Sub(j.FinishedAt),
			endToEnd:        rv.DecidedAt.Sub(j.CreatedAt),
			attempts:        j.Attempt,
		})
	}
	return r, nil
}
