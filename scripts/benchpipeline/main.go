// Command benchpipeline measures relayops' full pipeline against bare Asynq
// on the same redis-server, in the same run, in interleaved rounds:
//
//   - pipeline: N jobs already submitted (submit.lua) are drained through the
//     relay (job.submitted → Asynq enqueue), the extract handler (claim,
//     classify → extract → validate with checkpoints, commit.lua) and the
//     relay again (extraction.committed → review, apply.lua), until N reviews
//     are applied;
//   - bare: N no-op Asynq tasks already enqueued are drained by an Asynq
//     server with the same concurrency and poll interval.
//
// It prints both drain rates, their ratio, and Redis commands per job: as
// Redis counts them (INFO commandstats, which includes the commands run
// inside Lua scripts) and as the clients send them (commands and network
// round trips, a pipeline being one trip). Figures only; nothing is asserted.
//
// Usage: go run ./scripts/benchpipeline [-n 20000] [-rounds 2] [-redis-url URL]
// Without -redis-url it starts redis-server on a free loopback port.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/webhook"
	"github.com/relayops/relayops/worker"
)

type options struct {
	n, rounds, concurrency, shards, submitters int
	bareServers                                int
	relays                                     int
	// admission is the worker's per-tenant in-flight cap (0: admission
	// off); webhooks runs the webhook notifier and delivery queue. Both
	// default to what ships (cap 100, webhooks on; the benchmark's tenant
	// registers no endpoint).
	admission                         int
	webhooks                          bool
	redisURL, contentPath, cpuProfile string
	// logLevel is the worker's log level; its lines go to logOut.
	logLevel  slog.Level
	logOut    *os.File
	taskCheck time.Duration
	timeout   time.Duration

	// latency mode
	mode         string
	rates        []int
	duration     time.Duration
	idle, settle time.Duration
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 20000, "jobs (and bare tasks) per round")
	flag.IntVar(&o.rounds, "rounds", 2, "rounds; each runs both sides, alternating which goes first")
	flag.IntVar(&o.concurrency, "concurrency", 20, "Asynq concurrency of both sides")
	flag.IntVar(&o.shards, "shards", 16, "store shards")
	flag.IntVar(&o.relays, "relays", 0, "relay loops in the worker (0: the worker's default)")
	flag.IntVar(&o.admission, "admission", 100, "worker's per-tenant in-flight cap, RELAYOPS_TENANT_MAX_INFLIGHT (0: fair admission off)")
	flag.BoolVar(&o.webhooks, "webhooks", true, "run the worker's webhook notifier and delivery queue, as shipped (no endpoint registered)")
	flag.IntVar(&o.bareServers, "bare-servers", 1, "Asynq servers of the bare side, sharing -concurrency (1: bare Asynq as it is usually run; the worker runs worker.DefaultServers)")
	flag.IntVar(&o.submitters, "submitters", 16, "goroutines submitting jobs / enqueueing bare tasks")
	flag.StringVar(&o.redisURL, "redis-url", "", "use this Redis (it is FLUSHALLed!) instead of starting redis-server")
	flag.StringVar(&o.contentPath, "content", "testdata/invoices/valid-basic-eur.txt", "document every job carries")
	flag.DurationVar(&o.taskCheck, "task-check-interval", shippedTaskCheckInterval, "Asynq TaskCheckInterval of both sides")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the pipeline rounds to this file")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up on a round after this long")
	flag.StringVar(&o.mode, "mode", "drain", "drain: drain rate against bare Asynq; latency: open-loop submit → review latency and idle Redis cost")
	logLevel := flag.String("log-level", "info", "worker's log level, RELAYOPS_LOG_LEVEL (info as shipped: a line per finished job); its lines go to -log-file")
	logFile := flag.String("log-file", os.DevNull, "where the worker's log lines go (warnings are printed to stderr as well)")
	rates := flag.String("rate", "200,1000", "latency mode: submissions per second, comma separated, one run each")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "latency mode: how long each rate submits")
	flag.DurationVar(&o.idle, "idle", 5*time.Second, "latency mode: how long idle Redis commands are counted (0: skip)")
	flag.DurationVar(&o.settle, "settle", 2*time.Second, "latency mode: wait after starting a worker before counting or submitting")
	flag.Parse()
	var err error
	if o.rates, err = parseRates(*rates); err != nil {
		fmt.Fprintln(os.Stderr, "benchpipeline: -rate:", err)
		os.Exit(2)
	}
	if err := o.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "benchpipeline: -log-level:", err)
		os.Exit(2)
	}
	if o.logOut, err = os.OpenFile(*logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchpipeline: -log-file:", err)
		os.Exit(2)
	}
	defer o.logOut.Close()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchpipeline:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.mode != "drain" && o.mode != "latency" {
		return fmt.Errorf("-mode: %q is neither drain nor latency", o.mode)
	}
	if o.mode == "drain" && (o.bareServers < 1 || o.bareServers > o.concurrency) {
		return fmt.Errorf("-bare-servers: must be 1..-concurrency (%d), got %d", o.concurrency, o.bareServers)
	}
	content, err := os.ReadFile(o.contentPath)
	if err != nil {
		return fmt.Errorf("read -content: %w (run from the repository root)", err)
	}
	url, stop, err := benchredis.Use(o.redisURL)
	if err != nil {
		return err
	}
	defer stop()
	b, err := newBench(o, url, string(content))
	if err != nil {
		return err
	}
	defer b.close()
	if o.mode == "latency" {
		return b.latency()
	}
	fmt.Printf("benchpipeline: n=%d rounds=%d concurrency=%d shards=%d task-check-interval=%s worker asynq servers=%d bare asynq servers=%d redis=%s cpus=%d load=%s\n",
		o.n, o.rounds, o.concurrency, o.shards, o.taskCheck, worker.DefaultServers, o.bareServers, b.redisVersion(), runtime.NumCPU(), loadAvg())
	if l, err := strconv.ParseFloat(strings.Fields(loadAvg() + " 0")[0], 64); err == nil && l > 0.5 {
		fmt.Println("warning: the machine is busy (1-minute load above 0.5): figures will be low and noisy")
	}
	var pipe, bare []result
	for r := 1; r <= o.rounds; r++ {
		sides := []func(int) (result, error){b.pipeline, b.bare}
		if r%2 == 0 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			res, err := side(r)
			if err != nil {
				return err
			}
			res.print()
			if res.name == "pipeline" {
				pipe = append(pipe, res)
			} else {
				bare = append(bare, res)
			}
		}
	}
	summarize(pipe, bare)
	return nil
}

type bench struct {
	o       options
	content string
	admin   *redis.Client // FLUSHALL, INFO: not counted
	store   *redis.Client // the store's client (no retries), counted
	asynq   *redis.Client // Asynq's client, counted
	// relayRead serves the relays' blocking reads (one connection per shard
	// and relay), counted.
	relayRead *redis.Client
	counter   *countHook
}

func newBench(o options, url, content string) (*bench, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	admin := redis.NewClient(opt)
	if err := admin.Ping(context.Background()).Err(); err != nil {
		return nil, fmt.Errorf("redis at %s: %w", url, err)
	}
	store, err := jobs.NewRedisClient(url)
	if err != nil {
		return nil, err
	}
	aopt := *opt
	aopt.PoolSize = 4 * o.concurrency
	ropt := *store.Options()
	ropt.PoolSize = o.shards*max(o.relays, 1) + 1
	// Its own maintenance-notification settings: the pointer in the copied
	// options is the store client's.
	ropt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	b := &bench{o: o, content: content, admin: admin, store: store, asynq: redis.NewClient(&aopt),
		relayRead: redis.NewClient(&ropt), counter: &countHook{}}
	b.store.AddHook(b.counter)
	b.asynq.AddHook(b.counter)
	b.relayRead.AddHook(b.counter)
	return b, nil
}

func (b *bench) close() {
	_ = b.admin.Close()
	_ = b.store.Close()
	_ = b.asynq.Close()
	_ = b.relayRead.Close()
}

func (b *bench) redisVersion() string {
	info, _ := b.admin.Info(context.Background(), "server").Result()
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "redis_version:"); ok {
			return v
		}
	}
	return "?"
}

// result is one side of one round.
type result struct {
	name                string
	round, n            int
	elapsed             time.Duration
	serverCmds          int64 // INFO commandstats delta during the drain
	clientCmds, trips   int64 // sent by the clients during the drain
	byCommand           map[string]int64
	usecByCommand       map[string]int64
	redisCPU, selfCPU   time.Duration // CPU used by redis-server and by this process during the drain
	prepRate            float64       // submits or enqueues per second before the drain
	prepCmds, prepTrips int64
}

func (r result) rate() float64 { return float64(r.n) / r.elapsed.Seconds() }

func (r result) print() {
	fmt.Printf("round %d %-8s drained %d in %6.2fs = %7.0f jobs/s | per job: %5.1f Redis commands (server), %5.1f sent, %5.1f round trips | prep %6.0f/s, %.1f sent/job\n",
		r.round, r.name, r.n, r.elapsed.Seconds(), r.rate(), per(r.serverCmds, r.n), per(r.clientCmds, r.n), per(r.trips, r.n),
		r.prepRate, per(r.prepCmds, r.n))
	fmt.Printf("         %-8s CPU: redis-server %3.0f%% of a core, benchmark process %3.0f%%\n", "",
		100*r.redisCPU.Seconds()/r.elapsed.Seconds(), 100*r.selfCPU.Seconds()/r.elapsed.Seconds())
	fmt.Printf("         %-8s top commands per job: %s\n", "", topCommands(r.byCommand, r.n, 30))
	fmt.Printf("         %-8s top Redis time per job (µs): %s\n", "", topCommands(r.usecByCommand, r.n, 8))
}

func per(v int64, n int) float64 { return float64(v) / float64(n) }

// pipeline runs one pipeline round.
func (b *bench) pipeline(round int) (result, error) {
	ctx := context.Background()
	if err := b.admin.FlushAll(ctx).Err(); err != nil {
		return result{}, err
	}
	st, err := jobs.NewStore(jobs.Config{Redis: b.store, Shards: b.o.shards})
	if err != nil {
		return result{}, err
	}
	res := result{name: "pipeline", round: round, n: b.o.n}
	c0, t0 := b.counter.snapshot()
	start := time.Now()
	err = benchredis.Parallel(b.o.n, b.o.submitters, func(i int) error {
		k, err := jobs.BuildKey("bench", fmt.Sprintf("doc-%d", i), int64(round))
		if err != nil {
			return err
		}
		_, err = st.Submit(ctx, jobs.SubmitRequest{Key: k, Content: b.content, Limits: jobs.DefaultLimits})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("submit: %w", err)
	}
	res.prepRate = float64(b.o.n) / time.Since(start).Seconds()
	c1, t1 := b.counter.snapshot()
	res.prepCmds, res.prepTrips = c1-c0, t1-t0

	var applied, published atomic.Int64
	w, err := worker.New(worker.Config{
		Store: st, Redis: b.asynq, Concurrency: b.o.concurrency, TaskCheckInterval: b.o.taskCheck, Relays: b.o.relays,
		RelayReadRedis: b.relayRead, TenantMaxInFlight: b.o.admission, Webhooks: b.webhooks(st),
		Logger: b.workerLogger(),
		OnRelayEvent: func(ev jobs.Event, outcome string) {
			switch {
			case ev.Type == jobs.EventExtractionCommitted && outcome == "applied":
				applied.Add(1)
			case ev.Type == jobs.EventJobSubmitted && outcome == "published":
				published.Add(1)
			}
		},
	})
	if err != nil {
		return res, err
	}
	if b.o.cpuProfile != "" {
		f, err := os.Create(fmt.Sprintf("%s.%d", b.o.cpuProfile, round))
		if err != nil {
			return res, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
		defer pprof.StopCPUProfile()
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	progress := func() string {
		return fmt.Sprintf("published %d, committed %.0f, reviews applied %d",
			published.Load(), counter(w.Metrics(), "relayops_worker_jobs_total"), applied.Load())
	}
	err = b.drain(&res, func() { go func() { done <- w.Run(wctx) }() }, applied.Load, progress)
	stop()
	if runErr := <-done; err == nil {
		err = runErr
	}
	return res, err
}

// bare runs one bare-Asynq round: no-op handler, default task options.
func (b *bench) bare(round int) (result, error) {
	ctx := context.Background()
	if err := b.admin.FlushAll(ctx).Err(); err != nil {
		return result{}, err
	}
	res := result{name: "bare", round: round, n: b.o.n}
	client := asynq.NewClientFromRedisClient(b.asynq)
	c0, t0 := b.counter.snapshot()
	start := time.Now()
	err := benchredis.Parallel(b.o.n, b.o.submitters, func(i int) error {
		_, err := client.EnqueueContext(ctx, asynq.NewTask("bench:noop", []byte(`{"jobKey":"bench:doc:v1"}`)))
		return err
	})
	if err != nil {
		return res, fmt.Errorf("enqueue: %w", err)
	}
	res.prepRate = float64(b.o.n) / time.Since(start).Seconds()
	c1, t1 := b.counter.snapshot()
	res.prepCmds, res.prepTrips = c1-c0, t1-t0

	var handled atomic.Int64
	// -bare-servers servers share the concurrency and poll every
	// servers × the interval, as the worker's extraction servers do.
	var srvs []*asynq.Server
	for i := range b.o.bareServers {
		n := b.o.concurrency / b.o.bareServers
		if i < b.o.concurrency%b.o.bareServers {
			n++
		}
		srvs = append(srvs, asynq.NewServerFromRedisClient(b.asynq, asynq.Config{
			Concurrency: n, TaskCheckInterval: b.o.taskCheck * time.Duration(b.o.bareServers), LogLevel: asynq.WarnLevel,
		}))
	}
	noop := asynq.HandlerFunc(func(context.Context, *asynq.Task) error { handled.Add(1); return nil })
	var startErr error
	err = b.drain(&res, func() {
		for _, srv := range srvs {
			startErr = errors.Join(startErr, srv.Start(noop))
		}
	}, handled.Load, nil)
	for _, srv := range srvs {
		srv.Shutdown()
	}
	return res, errors.Join(startErr, err)
}

// drain starts a side, waits until done() reaches n with a progress line
// every second, and records time and command counts.
func (b *bench) drain(res *result, start func(), done func() int64, progress func() string) error {
	ctx := context.Background()
	s0, u0, err := benchredis.CommandStats(ctx, b.admin)
	if err != nil {
		return err
	}
	r0, err := redisCPU(ctx, b.admin)
	if err != nil {
		return err
	}
	p0 := selfCPU()
	c0, t0 := b.counter.snapshot()
	begin := time.Now()
	start()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	lastReport := begin
	for done() < int64(res.n) {
		<-tick.C
		if time.Since(begin) > b.o.timeout {
			return fmt.Errorf("%s round %d: only %d of %d done after %s", res.name, res.round, done(), res.n, b.o.timeout)
		}
		if time.Since(lastReport) >= time.Second {
			lastReport = time.Now()
			d := done()
			detail := ""
			if progress != nil {
				detail = " — " + progress()
			}
			fmt.Fprintf(os.Stderr, "  %s round %d: %d/%d done (%.0f/s)%s\n", res.name, res.round, d, res.n, float64(d)/time.Since(begin).Seconds(), detail)
		}
	}
	res.elapsed = time.Since(begin)
	res.selfCPU = selfCPU() - p0
	c1, t1 := b.counter.snapshot()
	s1, u1, err := benchredis.CommandStats(ctx, b.admin)
	if err != nil {
		return err
	}
	r1, err := redisCPU(ctx, b.admin)
	if err != nil {
		return err
	}
	res.redisCPU = r1 - r0
	res.usecByCommand = map[string]int64{}
	for cmd, usec := range u1 {
		if d := usec - u0[cmd]; d > 0 && cmd != "info" {
			res.usecByCommand[cmd] = d
		}
	}
	res.clientCmds, res.trips = c1-c0, t1-t0
	res.byCommand = map[string]int64{}
	for cmd, calls := range s1 {
		if d := calls - s0[cmd]; d > 0 && cmd != "info" {
			res.byCommand[cmd] = d
			res.serverCmds += d
		}
	}
	return nil
}

// redisCPU returns redis-server's CPU time so far (INFO cpu, main thread
// and children).
func redisCPU(ctx context.Context, rdb *redis.Client) (time.Duration, error) {
	info, err := rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var secs float64
	for _, line := range strings.Split(info, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			secs += f
		}
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// selfCPU returns this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func topCommands(m map[string]int64, n, k int) string {
	type kv struct {
		cmd   string
		calls int64
	}
	var all []kv
	for c, v := range m {
		all = append(all, kv{c, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].calls > all[j].calls })
	var parts []string
	for i, e := range all {
		if i == k {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", e.cmd, per(e.calls, n)))
	}
	return strings.Join(parts, ", ")
}

func summarize(pipe, bare []result) {
	type sums struct {
		jobs                int
		secs, cpu           float64
		srv, sent, trips    int64
		rate, cpuPerJob     float64
		srvPer, sentPer, rt float64
	}
	total := func(rs []result) (s sums) {
		for _, r := range rs {
			s.jobs += r.n
			s.secs += r.elapsed.Seconds()
			s.cpu += (r.redisCPU + r.selfCPU).Seconds()
			s.srv, s.sent, s.trips = s.srv+r.serverCmds, s.sent+r.clientCmds, s.trips+r.trips
		}
		s.rate, s.cpuPerJob = float64(s.jobs)/s.secs, 1e6*s.cpu/float64(s.jobs)
		s.srvPer, s.sentPer, s.rt = per(s.srv, s.jobs), per(s.sent, s.jobs), per(s.trips, s.jobs)
		return s
	}
	p, b := total(pipe), total(bare)
	fmt.Println("---")
	fmt.Printf("pipeline: %7.0f jobs/s   %5.1f Redis commands/job (server)  %5.1f sent/job  %5.1f round trips/job  %4.0f µs CPU/job (Redis + Go)\n",
		p.rate, p.srvPer, p.sentPer, p.rt, p.cpuPerJob)
	fmt.Printf("bare:     %7.0f tasks/s  %5.1f Redis commands/task (server) %5.1f sent/task %5.1f round trips/task %4.0f µs CPU/task\n",
		b.rate, b.srvPer, b.sentPer, b.rt, b.cpuPerJob)
	fmt.Printf("ratio pipeline/bare: %.2f pooled, %.2f median of %d rounds (target >= 0.50); CPU per job: %.1fx bare\n",
		p.rate/b.rate, medianRatio(pipe, bare), len(pipe), p.cpuPerJob/b.cpuPerJob)
}

// medianRatio is the median over rounds of each round's pipeline/bare rate
// ratio (rounds interleave, so each ratio compares neighbours in time).
func medianRatio(pipe, bare []result) float64 {
	var ratios []float64
	for i := range min(len(pipe), len(bare)) {
		ratios = append(ratios, pipe[i].rate()/bare[i].rate())
	}
	if len(ratios) == 0 {
		return 0
	}
	sort.Float64s(ratios)
	if n := len(ratios); n%2 == 0 {
		return (ratios[n/2-1] + ratios[n/2]) / 2
	}
	return ratios[len(ratios)/2]
}

// loadAvg returns the 1-minute load average ("?" when unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b) + " ?")[0]
}

// countHook counts the commands and round trips a client sends.
type countHook struct{ cmds, trips atomic.Int64 }

func (h *countHook) snapshot() (cmds, trips int64) { return h.cmds.Load(), h.trips.Load() }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.cmds.Add(1)
		h.trips.Add(1)
		return next(ctx, cmd)
	}
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.cmds.Add(int64(len(cmds)))
		h.trips.Add(1)
		return next(ctx, cmds)
	}
}

// counter sums every series of a counter in m's registry.
func counter(m *worker.Metrics, name string) float64 {
	families, err := m.Registry.Gather()
	if err != nil {
		return 0
	}
	var sum float64
	for _, f := range families {
		if f.GetName() == name {
			for _, metric := range f.GetMetric() {
				sum += metric.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// workerLogger is the worker's logger: JSON lines at -log-level to
// -log-file, as a deployment writes them to its log collector, and
// warnings and errors also to stderr, where the benchmark's reader sees them.
func (b *bench) workerLogger() *slog.Logger {
	var out io.Writer = io.Discard // tests leave -log-file out
	if b.o.logOut != nil {
		out = b.o.logOut
	}
	file := slog.NewJSONHandler(out, &slog.HandlerOptions{Level: b.o.logLevel})
	return slog.New(teeHandler{file, slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})})
}

// teeHandler sends each record to both handlers that accept its level.
type teeHandler struct{ a, b slog.Handler }

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t.a.Enabled(ctx, l) || t.b.Enabled(ctx, l)
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range []slog.Handler{t.a, t.b} {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{t.a.WithAttrs(as), t.b.WithAttrs(as)}
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{t.a.WithGroup(name), t.b.WithGroup(name)}
}

// webhooks is the worker's webhook configuration as shipped (its defaults),
// or nil when the benchmark runs without webhooks.
func (b *bench) webhooks(st *jobs.Store) *worker.WebhookConfig {
	if !b.o.webhooks {
		return nil
	}
	reg, err := webhook.NewRegistry(webhook.RegistryConfig{Redis: st.Redis()})
	if err != nil {
		panic(fmt.Sprintf("benchpipeline: webhook registry: %v", err))
	}
	return &worker.WebhookConfig{Registry: reg}
}
