// Command benchfairness measures what tenant admission does for the quiet
// tenants of a flood, on a real redis-server, with one in-process worker
// (the same code as cmd/worker) run twice: admission off
// (RELAYOPS_TENANT_MAX_INFLIGHT=0) and on (the cap given by -cap).
//
// Each run: a flood tenant submits -flood jobs at once; the worker starts;
// once the relay has handed every flood row on (to Asynq, or to the
// waiting sets), or after -quiet-after, -quiet tenants each submit
// -quiet-jobs jobs at -quiet-rate jobs/s while the flood drains. It prints progress every
// second, then the quiet tenants' queue wait (submission → the handler's
// first claim, read from each job record) p50/p99/max, and the overall drain
// rate (every job, flood and quiet, from the worker's start to the last
// review applied). Figures only; nothing is asserted.
//
// Usage: go run ./scripts/benchfairness [-flood 20000] [-cap 100] [-redis-url URL]
// Without -redis-url it starts redis-server on a free loopback port.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/worker"
)

type options struct {
	flood, quiet, quietJobs, cap, concurrency, shards, submitters int
	rounds                                                        int
	quietRate                                                     float64
	quietAfter, timeout                                           time.Duration
	redisURL, contentPath, modes                                  string
}

func main() {
	var o options
	flag.IntVar(&o.flood, "flood", 20000, "jobs the flood tenant submits at once")
	flag.IntVar(&o.quiet, "quiet", 5, "quiet tenants")
	flag.IntVar(&o.quietJobs, "quiet-jobs", 20, "jobs each quiet tenant submits")
	flag.Float64Var(&o.quietRate, "quiet-rate", 10, "jobs per second each quiet tenant submits")
	flag.DurationVar(&o.quietAfter, "quiet-after", 0, "the quiet tenants start this long after the worker starts; 0: once the relay has handed on every flood row (so their rows are not behind the flood's in the outbox)")
	flag.IntVar(&o.cap, "cap", 100, "RELAYOPS_TENANT_MAX_INFLIGHT of the admission-on run")
	flag.IntVar(&o.concurrency, "concurrency", 20, "the worker's Asynq concurrency")
	flag.IntVar(&o.shards, "shards", 16, "store shards")
	flag.IntVar(&o.submitters, "submitters", 16, "goroutines submitting the flood")
	flag.StringVar(&o.modes, "modes", "off,on", "runs of a round: off, on, or both")
	flag.IntVar(&o.rounds, "rounds", 2, "rounds; each runs every mode, rotating which goes first; the summary pools them")
	flag.StringVar(&o.redisURL, "redis-url", "", "use this Redis (it is FLUSHALLed!) instead of starting redis-server")
	flag.StringVar(&o.contentPath, "content", "testdata/invoices/valid-basic-eur.txt", "document every job carries")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up on a run after this long")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchfairness:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	content, err := os.ReadFile(o.contentPath)
	if err != nil {
		return fmt.Errorf("read -content: %w (run from the repository root)", err)
	}
	url, stop, err := benchredis.Use(o.redisURL)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("benchfairness: flood=%d quiet=%dx%d at %.0f/s each, cap=%d concurrency=%d shards=%d cpus=%d\n",
		o.flood, o.quiet, o.quietJobs, o.quietRate, o.cap, o.concurrency, o.shards, runtime.NumCPU())
	modes, err := splitModes(o.modes)
	if err != nil {
		return err
	}
	pooled := map[string]*pool{}
	for r := range o.rounds {
		for i := range modes {
			mode := modes[(i+r)%len(modes)]
			capv := 0
			if mode == "on" {
				capv = o.cap
			}
			res, err := runOnce(o, url, string(content), mode, capv)
			if err != nil {
				return fmt.Errorf("round %d, admission %s: %w", r+1, mode, err)
			}
			p := pooled[mode]
			if p == nil {
				p = &pool{label: res.label}
				pooled[mode] = p
			}
			p.add(res)
		}
	}
	fmt.Println()
	fmt.Printf("pooled over %d round(s):\n\n", o.rounds)
	fmt.Println("| admission | quiet wait p50 | quiet wait p99 | quiet wait max | drain (all jobs) |")
	fmt.Println("|---|---|---|---|---|")
	for _, mode := range modes {
		p := pooled[mode]
		slices.Sort(p.waits)
		fmt.Printf("| %s | %s | %s | %s | %.0f jobs/s (%d in %.1fs) |\n", p.label, ms(benchredis.Percentile(p.waits, 50)), ms(benchredis.Percentile(p.waits, 99)),
			ms(p.waits[len(p.waits)-1]), float64(p.n)/p.elapsed.Seconds(), p.n, p.elapsed.Seconds())
	}
	if on, off := pooled["on"], pooled["off"]; on != nil && off != nil {
		fmt.Printf("\ndrain rate on/off: %.2f\n", (float64(on.n)/on.elapsed.Seconds())/(float64(off.n)/off.elapsed.Seconds()))
	}
	return nil
}

// pool sums the runs of one mode.
type pool struct {
	label   string
	n       int
	elapsed time.Duration
	waits   []time.Duration
}

func (p *pool) add(r result) {
	p.n += r.n
	p.elapsed += r.elapsed
	p.waits = append(p.waits, r.waits...)
}

func splitModes(s string) ([]string, error) {
	modes := strings.Split(s, ",")
	for _, m := range modes {
		if m != "off" && m != "on" {
			return nil, fmt.Errorf("-modes: %q is neither off nor on", m)
		}
	}
	return modes, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

type result struct {
	label   string
	n       int
	elapsed time.Duration
	waits   []time.Duration // the quiet jobs' queue waits, sorted
}

func runOnce(o options, url, content, mode string, capv int) (result, error) {
	ctx := context.Background()
	res := result{label: "off (cap 0)", n: o.flood + o.quiet*o.quietJobs}
	if capv > 0 {
		res.label = fmt.Sprintf("on (cap %d)", capv)
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return res, err
	}
	admin := redis.NewClient(opt)
	defer admin.Close()
	if err := admin.FlushAll(ctx).Err(); err != nil {
		return res, err
	}
	storeRdb, err := jobs.NewRedisClient(url)
	if err != nil {
		return res, err
	}
	defer storeRdb.Close()
	asynqOpt := *opt
	asynqOpt.PoolSize = 4 * o.concurrency
	asynqRdb := redis.NewClient(&asynqOpt)
	defer asynqRdb.Close()
	st, err := jobs.NewStore(jobs.Config{Redis: storeRdb, Shards: o.shards})
	if err != nil {
		return res, err
	}

	fmt.Printf("\n[%s] flood: submitting %d jobs of tenant flood...\n", mode, o.flood)
	start := time.Now()
	if err := benchredis.Parallel(o.flood, o.submitters, func(i int) error {
		return submit(ctx, st, "flood", i, content)
	}); err != nil {
		return res, err
	}
	fmt.Printf("[%s] flood submitted in %.1fs\n", mode, time.Since(start).Seconds())

	var applied, relayed atomic.Int64
	var rmu sync.Mutex
	relayedAt := map[jobs.Key]time.Time{} // quiet jobs: when the relay handed their row on
	w, err := worker.New(worker.Config{
		Store: st, Redis: asynqRdb, Concurrency: o.concurrency, TenantMaxInFlight: capv,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnRelayEvent: func(ev jobs.Event, outcome string) {
			switch {
			case ev.Type == jobs.EventExtractionCommitted && outcome == "applied":
				applied.Add(1)
			case ev.Type == jobs.EventJobSubmitted && outcome == "published" && ev.Key.Tenant == "flood":
				relayed.Add(1)
			case ev.Type == jobs.EventJobSubmitted && outcome == "published":
				rmu.Lock()
				if _, ok := relayedAt[ev.Key]; !ok {
					relayedAt[ev.Key] = time.Now()
				}
				rmu.Unlock()
			}
		},
	})
	if err != nil {
		return res, err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	begin := time.Now()
	go func() { done <- w.Run(wctx) }()

	var quietKeys []jobs.Key
	var qmu sync.Mutex
	var qwg sync.WaitGroup
	qerr := make(chan error, o.quiet)
	startQuiet := func() {
		fmt.Printf("[%s] %5.1fs: quiet tenants start submitting (%d flood rows relayed, %d reviews applied)\n",
			mode, time.Since(begin).Seconds(), relayed.Load(), applied.Load())
		for q := range o.quiet {
			qwg.Go(func() {
				tick := time.NewTicker(time.Duration(float64(time.Second) / o.quietRate))
				defer tick.Stop()
				for i := range o.quietJobs {
					<-tick.C
					tenant := fmt.Sprintf("quiet-%d", q)
					if err := submit(ctx, st, tenant, i, content); err != nil {
						qerr <- err
						return
					}
					k, _ := jobs.BuildKey(tenant, fmt.Sprintf("doc-%d", i), 1)
					qmu.Lock()
					quietKeys = append(quietKeys, k)
					qmu.Unlock()
				}
			})
		}
	}
	go func() {
		if o.quietAfter > 0 {
			time.Sleep(o.quietAfter)
		} else {
			for relayed.Load() < int64(o.flood) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		startQuiet()
	}()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	lastPrint := begin
	for applied.Load() < int64(res.n) {
		select {
		case err := <-qerr:
			return res, err
		case err := <-done:
			return res, fmt.Errorf("worker stopped: %v", err)
		case now := <-poll.C:
			if now.Sub(lastPrint) < time.Second {
				continue
			}
			lastPrint = now
			fmt.Printf("[%s] %5.0fs: %d/%d flood rows relayed, %d/%d reviews applied\n", mode, now.Sub(begin).Seconds(), relayed.Load(), o.flood, applied.Load(), res.n)
			if now.Sub(begin) > o.timeout {
				return res, fmt.Errorf("timed out after %s", o.timeout)
			}
		}
	}
	res.elapsed = time.Since(begin)
	qwg.Wait()
	stop()
	if err := <-done; err != nil {
		return res, err
	}
	waits := make([]time.Duration, 0, len(quietKeys))
	var relayWaits []time.Duration
	for _, k := range quietKeys {
		j, err := st.Get(ctx, k)
		if err != nil {
			return res, err
		}
		waits = append(waits, j.StartedAt.Sub(j.CreatedAt))
		if at, ok := relayedAt[k]; ok {
			relayWaits = append(relayWaits, at.Sub(j.CreatedAt))
		}
	}
	if len(relayWaits) > 0 {
		slices.Sort(relayWaits)
		fmt.Printf("[%s] of which outbox → relay (the quiet rows behind other rows in the outbox): p50 %s p99 %s\n",
			mode, ms(benchredis.Percentile(relayWaits, 50)), ms(benchredis.Percentile(relayWaits, 99)))
	}
	slices.Sort(waits)
	res.waits = waits
	fmt.Printf("[%s] drained %d jobs in %.1fs (%.0f jobs/s); quiet wait p50 %s p99 %s max %s\n", mode, res.n, res.elapsed.Seconds(),
		float64(res.n)/res.elapsed.Seconds(), ms(benchredis.Percentile(waits, 50)), ms(benchredis.Percentile(waits, 99)), ms(waits[len(waits)-1]))
	return res, nil
}

func submit(ctx context.Context, st *jobs.Store, tenant string, i int, content string) error {
	k, err := jobs.BuildKey(tenant, fmt.Sprintf("doc-%d", i), 1)
	if err != nil {
		return err
	}
	_, err = st.Submit(ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: jobs.DefaultLimits})
	return err
}
