package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/worker"
)

// shippedTaskCheckInterval is worker.Config's default TaskCheckInterval; the
// bare Asynq server of the idle comparison polls as often.
const shippedTaskCheckInterval = 5 * time.Millisecond

// latencyResult is one open-loop run at one rate.
type latencyResult struct {
	rate, n            int
	sendRate           float64         // submissions actually started per second
	endToEnd, submitRT []time.Duration // sorted: due → review created; Submit call
	// stages, each sorted, from the job record's own timestamps: created →
	// first claim (relay publish + Asynq pickup), claim → finished (the
	// work and commit), finished → review created (relay → review consumer).
	toClaim, toFinish, toReview []time.Duration
}

// latency runs the open-loop latency mode: one run per rate, each with a
// fresh worker as shipped, then the idle comparison.
func (b *bench) latency() error {
	fmt.Printf("benchpipeline latency: rates=%v duration=%s via jobs.Store.Submit, one worker as shipped (worker.Config defaults), redis=%s cpus=%d load=%s\n",
		b.o.rates, b.o.duration, b.redisVersion(), runtime.NumCPU(), loadAvg())
	var results []latencyResult
	for _, rate := range b.o.rates {
		r, err := b.latencyRun(rate)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	fmt.Println("---")
	for _, r := range results {
		fmt.Printf("latency at %5d/s (%d jobs, sent %.0f/s): submit → review created p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms | Submit call p50 %.2f ms p99 %.2f ms (target at 1000/s: p50 <= 15 ms, p99 <= 60 ms)\n",
			r.rate, r.n, r.sendRate, ms(benchredis.Percentile(r.endToEnd, 50)), ms(benchredis.Percentile(r.endToEnd, 99)),
			ms(r.endToEnd[len(r.endToEnd)-1]), ms(benchredis.Percentile(r.submitRT, 50)), ms(benchredis.Percentile(r.submitRT, 99)))
		fmt.Printf("          stages p50/p99 ms: created → claimed %.0f/%.0f (relay publish + Asynq pickup), claimed → finished %.0f/%.0f (work + commit), finished → review %.0f/%.0f (relay → review)\n",
			ms(benchredis.Percentile(r.toClaim, 50)), ms(benchredis.Percentile(r.toClaim, 99)),
			ms(benchredis.Percentile(r.toFinish, 50)), ms(benchredis.Percentile(r.toFinish, 99)),
			ms(benchredis.Percentile(r.toReview, 50)), ms(benchredis.Percentile(r.toReview, 99)))
	}
	if b.o.idle <= 0 {
		return nil
	}
	return b.idleComparison()
}

// latencyRun submits rate jobs per second for o.duration on a schedule fixed
// in advance (open loop: a slow submission never delays the next one), waits
// for every review, then reads each review's creation time from the job
// record. Latency runs from a submission's scheduled time, so a late start
// counts against the pipeline rather than vanishing.
func (b *bench) latencyRun(rate int) (latencyResult, error) {
	ctx := context.Background()
	res := latencyResult{rate: rate, n: int(float64(rate) * b.o.duration.Seconds())}
	if res.n < 1 {
		return res, fmt.Errorf("-rate %d for -duration %s submits nothing", rate, b.o.duration)
	}
	if err := b.admin.FlushAll(ctx).Err(); err != nil {
		return res, err
	}
	st, err := jobs.NewStore(jobs.Config{Redis: b.store})
	if err != nil {
		return res, err
	}
	var applied atomic.Int64
	stop, err := b.startShippedWorker(st, func(ev jobs.Event, outcome string) {
		if ev.Type == jobs.EventExtractionCommitted && outcome == "applied" {
			applied.Add(1)
		}
	})
	if err != nil {
		return res, err
	}
	time.Sleep(b.o.settle)
	keys, due, submitRT, sendRate, err := b.submitOpenLoop(st, rate, res.n)
	res.sendRate = sendRate
	if err == nil {
		err = b.awaitReviews(rate, res.n, applied.Load)
	}
	if stopErr := stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return res, err
	}
	// Read after the worker stopped: the measurement adds no Redis traffic
	// while jobs flow.
	for i, k := range keys {
		rv, err := st.GetReview(ctx, k)
		if err != nil {
			return res, fmt.Errorf("review of %s: %w", k, err)
		}
		j, err := st.Get(ctx, k)
		if err != nil {
			return res, fmt.Errorf("job %s: %w", k, err)
		}
		res.endToEnd = append(res.endToEnd, rv.CreatedAt.Sub(due[i]))
		res.toClaim = append(res.toClaim, j.StartedAt.Sub(j.CreatedAt))
		res.toFinish = append(res.toFinish, j.FinishedAt.Sub(j.StartedAt))
		res.toReview = append(res.toReview, rv.CreatedAt.Sub(j.FinishedAt))
	}
	res.submitRT = submitRT
	for _, d := range [][]time.Duration{res.endToEnd, res.submitRT, res.toClaim, res.toFinish, res.toReview} {
		slices.Sort(d)
	}
	return res, nil
}

// submitOpenLoop starts submission i at start + i/rate, each in its own
// goroutine, and returns the keys, their scheduled times and Submit's own
// durations.
func (b *bench) submitOpenLoop(st *jobs.Store, rate, n int) ([]jobs.Key, []time.Time, []time.Duration, float64, error) {
	keys := make([]jobs.Key, n)
	due := make([]time.Time, n)
	rt := make([]time.Duration, n)
	errs := make([]error, n)
	for i := range keys {
		k, err := jobs.BuildKey("bench", fmt.Sprintf("lat-%d-%d", rate, i), 1)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		keys[i] = k
	}
	period := time.Second / time.Duration(rate)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range keys {
		due[i] = start.Add(time.Duration(i) * period)
		time.Sleep(time.Until(due[i]))
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			_, errs[i] = st.Submit(context.Background(), jobs.SubmitRequest{Key: keys[i], Content: b.content, Limits: jobs.DefaultLimits})
			rt[i] = time.Since(t0)
		}()
	}
	sendRate := float64(n) / time.Since(start).Seconds()
	wg.Wait()
	return keys, due, rt, sendRate, errors.Join(errs...)
}

// awaitReviews waits until done() reaches n, printing progress every second.
func (b *bench) awaitReviews(rate, n int, done func() int64) error {
	begin := time.Now()
	last := begin
	for done() < int64(n) {
		if time.Since(begin) > b.o.timeout {
			return fmt.Errorf("latency at %d/s: only %d of %d reviews after %s", rate, done(), n, b.o.timeout)
		}
		if time.Since(last) >= time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "  latency %d/s: %d/%d reviews\n", rate, done(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// startShippedWorker runs a worker with every setting at its default (the
// store's and Asynq's clients are the benchmark's) and returns its stop.
func (b *bench) startShippedWorker(st *jobs.Store, onRelay func(jobs.Event, string)) (func() error, error) {
	w, err := worker.New(worker.Config{
		Store: st, Redis: b.asynq, OnRelayEvent: onRelay,
		TenantMaxInFlight: b.o.admission, Webhooks: b.webhooks(st),
		Logger: b.workerLogger(),
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	return func() error { cancel(); return <-done }, nil
}

// idleComparison counts the Redis commands per second of one idle worker as
// shipped, then of a bare Asynq server polling as often, each on an empty,
// flushed Redis after o.settle.
func (b *bench) idleComparison() error {
	ctx := context.Background()
	measure := func(start func() (func() error, error)) (float64, map[string]int64, error) {
		if err := b.admin.FlushAll(ctx).Err(); err != nil {
			return 0, nil, err
		}
		stop, err := start()
		if err != nil {
			return 0, nil, err
		}
		time.Sleep(b.o.settle)
		before, _, err := benchredis.CommandStats(ctx, b.admin)
		if err == nil {
			time.Sleep(b.o.idle)
		}
		var after map[string]int64
		if err == nil {
			after, _, err = benchredis.CommandStats(ctx, b.admin)
		}
		err = errors.Join(err, stop())
		delta, total := map[string]int64{}, int64(0)
		for cmd, calls := range after {
			if d := calls - before[cmd]; d > 0 && cmd != "info" && cmd != "flushall" {
				delta[cmd], total = d, total+d
			}
		}
		return float64(total) / b.o.idle.Seconds(), delta, err
	}
	wRate, wCmds, err := measure(func() (func() error, error) {
		st, err := jobs.NewStore(jobs.Config{Redis: b.store})
		if err != nil {
			return nil, err
		}
		return b.startShippedWorker(st, nil)
	})
	if err != nil {
		return fmt.Errorf("idle worker: %w", err)
	}
	bRate, bCmds, err := measure(func() (func() error, error) {
		srv := asynq.NewServerFromRedisClient(b.asynq, asynq.Config{TaskCheckInterval: shippedTaskCheckInterval, LogLevel: asynq.WarnLevel})
		noop := asynq.HandlerFunc(func(context.Context, *asynq.Task) error { return nil })
		if err := srv.Start(noop); err != nil {
			return nil, err
		}
		return func() error { srv.Shutdown(); return nil }, nil
	})
	if err != nil {
		return fmt.Errorf("idle bare Asynq: %w", err)
	}
	fmt.Printf("idle Redis commands/s: worker as shipped %.0f (top per s: %s)\n", wRate, topRates(wCmds, b.o.idle, 6))
	fmt.Printf("idle Redis commands/s: bare Asynq, TaskCheckInterval %s, %.0f (top per s: %s); worker/bare %.2f\n",
		shippedTaskCheckInterval, bRate, topRates(bCmds, b.o.idle, 6), wRate/bRate)
	return nil
}

// topRates lists the k commands of m (calls over d) most called, per second.
func topRates(m map[string]int64, d time.Duration, k int) string {
	cmds := make([]string, 0, len(m))
	for c := range m {
		cmds = append(cmds, c)
	}
	slices.SortFunc(cmds, func(a, b string) int { return int(m[b] - m[a]) })
	var parts []string
	for _, c := range cmds[:min(k, len(cmds))] {
		parts = append(parts, fmt.Sprintf("%s %.1f", c, float64(m[c])/d.Seconds()))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// parseRates parses "200,1000" into positive rates.
func parseRates(s string) ([]int, error) {
	var rates []int
	for _, f := range strings.Split(s, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r < 1 {
			return nil, fmt.Errorf("%q is not a positive integer rate", f)
		}
		rates = append(rates, r)
	}
	return rates, nil
}
