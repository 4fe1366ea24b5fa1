// Command benchcluster runs the same drain on one Redis and on a 3-master
// Redis Cluster, in the same run, and prints what the cluster changes:
//
//   - drain: N submitted jobs drained through the relay, the extract handler
//     and the review consumer by one in-process worker, on one redis-server
//     with the single-queue layout (RELAYOPS_QUEUES=1), on the same server
//     with the default layout (16 queues), and on the cluster with the
//     default layout: jobs/s and the CPU seconds of every redis-server
//     process, so the spread over the three masters shows;
//   - idle: Redis commands/s and redis-server CPU of one idle worker with 1
//     and with 16 queues, the standing cost of the layout on one Redis;
//   - WAIT: submit latency (p50, p99) on the cluster with
//     RELAYOPS_REDIS_WAIT_REPLICAS 0 and 1, in alternating batches: the
//     per-write cost of waiting for a replica.
//
// Both sides run with AOF (appendfsync everysec), as scripts/redis-cluster.sh
// starts the cluster. The machine's cores are shared by every process here,
// so the cluster is not expected to drain faster: the spread and the
// per-write cost are the figures. Figures only; nothing is asserted.
//
// Usage: go run ./scripts/benchcluster [-n 3000] [-wait-n 2000] [-idle 3s]
// Run it from the repository root (it starts scripts/redis-cluster.sh).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/worker"
)

type options struct {
	n, rounds, waitN, concurrency, shards, submitters int
	idle, timeout                                     time.Duration
	contentPath, clusterScript                        string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 3000, "jobs per drain")
	flag.IntVar(&o.rounds, "rounds", 2, "rounds of the three drains, alternating their order")
	flag.IntVar(&o.waitN, "wait-n", 2000, "submissions per WAIT setting (latency comparison; 0 skips it)")
	flag.IntVar(&o.concurrency, "concurrency", 20, "worker concurrency")
	flag.IntVar(&o.shards, "shards", 16, "store shards")
	flag.IntVar(&o.submitters, "submitters", 8, "goroutines submitting")
	flag.DurationVar(&o.idle, "idle", 3*time.Second, "how long an idle worker's Redis commands are counted (0 skips it)")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up on a drain after this long")
	flag.StringVar(&o.contentPath, "content", "testdata/invoices/valid-basic-eur.txt", "document every job carries")
	flag.StringVar(&o.clusterScript, "cluster-script", "scripts/redis-cluster.sh", "the script that starts and stops the cluster")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchcluster:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	content, err := os.ReadFile(o.contentPath)
	if err != nil {
		return err
	}
	b := &bench{o: o, content: string(content)}
	defer b.close()
	fmt.Printf("benchcluster: n=%d shards=%d concurrency=%d cpus=%d\n", o.n, o.shards, o.concurrency, runtime.NumCPU())
	if err := b.startSingle(); err != nil {
		return err
	}
	if err := b.startCluster(); err != nil {
		return err
	}
	fmt.Println("== drain: the same jobs on one Redis and on the cluster")
	drains := []drainCase{{t: b.single, queues: 1}, {t: b.single, queues: task.ClusterQueues}, {t: b.cluster, queues: task.ClusterQueues}}
	for round := range o.rounds {
		for i := range drains {
			d := &drains[(i+round)%len(drains)]
			rate, err := b.drain(d.t, d.queues)
			if err != nil {
				return fmt.Errorf("%s drain: %w", d.t.name, err)
			}
			d.rates = append(d.rates, rate)
		}
	}
	for _, d := range drains {
		fmt.Printf("%-26s median %6.0f jobs/s over %d round(s)\n", d.name()+":", median(d.rates), len(d.rates))
	}
	if o.idle > 0 {
		fmt.Printf("== idle: one worker, no jobs, %s each\n", o.idle)
		for _, q := range []int{1, task.ClusterQueues} {
			if err := b.idleCost(b.single, q); err != nil {
				return fmt.Errorf("idle: %w", err)
			}
		}
	}
	if o.waitN > 0 {
		fmt.Println("== WAIT: submit latency on the cluster, RELAYOPS_REDIS_WAIT_REPLICAS 0 against 1")
		if err := b.waitCost(); err != nil {
			return fmt.Errorf("wait: %w", err)
		}
	}
	return nil
}

// drainCase is one of the drains compared, with its rates so far.
type drainCase struct {
	t      *target
	queues int
	rates  []float64
}

func (d drainCase) name() string { return fmt.Sprintf("%s, %d queue(s)", d.t.name, d.queues) }

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// node is one redis-server of a target.
type node struct {
	addr, role string
	rdb        *redis.Client
}

// target is a Redis deployment the bench drains on.
type target struct {
	name  string
	store redis.UniversalClient // the store's client: no retries
	asynq redis.UniversalClient // Asynq's: go-redis's defaults
	nodes []node
	flush func(context.Context) error
}

type bench struct {
	o       options
	content string
	single  *target
	cluster *target
	closers []func()
}

func (b *bench) close() {
	for _, c := range slices.Backward(b.closers) {
		c()
	}
}

// startSingle starts one redis-server with AOF everysec, as the cluster's
// nodes run.
func (b *bench) startSingle() error {
	srv, err := benchredis.Start()
	if err != nil {
		return err
	}
	b.closers = append(b.closers, srv.Stop)
	store, err := jobs.NewRedisClient(srv.URL)
	if err != nil {
		return err
	}
	opt, err := redis.ParseURL(srv.URL)
	if err != nil {
		return err
	}
	admin := redis.NewClient(opt)
	ctx := context.Background()
	if err := errors.Join(admin.ConfigSet(ctx, "appendonly", "yes").Err(), admin.ConfigSet(ctx, "appendfsync", "everysec").Err()); err != nil {
		return fmt.Errorf("enable AOF: %w", err)
	}
	b.single = &target{
		name: "one Redis", store: store, asynq: redis.NewClient(opt),
		nodes: []node{{addr: opt.Addr, role: "single", rdb: admin}},
		flush: func(ctx context.Context) error { return admin.FlushAll(ctx).Err() },
	}
	fmt.Printf("one Redis: %s (AOF everysec)\n", opt.Addr)
	return nil
}

// startCluster runs scripts/redis-cluster.sh start in a temporary directory
// (its progress lines pass through) and connects to the seeds it prints.
func (b *bench) startCluster() error {
	dir, err := os.MkdirTemp("", "benchcluster-")
	if err != nil {
		return err
	}
	b.closers = append(b.closers, func() {
		out, err := exec.Command("sh", b.o.clusterScript, "stop", "-dir", dir).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchcluster: stopping the cluster: %v\n%s", err, out)
		}
		_ = os.RemoveAll(dir)
	})
	cmd := exec.Command("sh", b.o.clusterScript, "start", "-dir", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fmt.Println("  " + line)
	}
	if err != nil {
		return fmt.Errorf("%s start: %w", b.o.clusterScript, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	addrs := strings.Split(lines[len(lines)-1], ",")
	store, err := jobs.NewRedisClusterClient(addrs)
	if err != nil {
		return err
	}
	t := &target{name: "cluster", store: store, asynq: redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})}
	ctx := context.Background()
	for _, a := range addrs {
		rdb := redis.NewClient(&redis.Options{Addr: a})
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return fmt.Errorf("INFO replication on %s: %w", a, err)
		}
		role := "replica"
		if strings.Contains(info, "role:master") {
			role = "master"
		}
		t.nodes = append(t.nodes, node{addr: a, role: role, rdb: rdb})
	}
	slices.SortStableFunc(t.nodes, func(x, y node) int { return strings.Compare(x.role, y.role) })
	cc := store
	t.flush = func(ctx context.Context) error {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return c.FlushAll(ctx).Err() })
	}
	b.cluster = t
	return nil
}

// cpu returns each node's CPU time (INFO cpu: user + system).
func (t *target) cpu(ctx context.Context) ([]time.Duration, error) {
	out := make([]time.Duration, len(t.nodes))
	for i, n := range t.nodes {
		info, err := n.rdb.Info(ctx, "cpu").Result()
		if err != nil {
			return nil, fmt.Errorf("INFO cpu on %s: %w", n.addr, err)
		}
		var user, sys float64
		for _, line := range strings.Split(info, "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			switch k {
			case "used_cpu_user":
				fmt.Sscanf(v, "%g", &user)
			case "used_cpu_sys":
				fmt.Sscanf(v, "%g", &sys)
			}
		}
		out[i] = time.Duration((user + sys) * float64(time.Second))
	}
	return out, nil
}

// submit submits n jobs of version round through st, from o.submitters
// goroutines, and returns each call's latency.
func (b *bench) submit(st *jobs.Store, prefix string, n int) ([]time.Duration, error) {
	ctx := context.Background()
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, b.o.submitters)
	for range b.o.submitters {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				k, err := jobs.BuildKey("bench", fmt.Sprintf("%s-%d", prefix, i), 1)
				if err == nil {
					begin := time.Now()
					_, err = st.Submit(ctx, jobs.SubmitRequest{Key: k, Content: b.content, Limits: jobs.DefaultLimits})
					lat[i] = time.Since(begin)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return lat, <-errs
}

// newWorker builds an in-process worker on t with the given queues, and
// counts the reviews it applies.
func (b *bench) newWorker(t *target, st *jobs.Store, queues int, applied *atomic.Int64) (*worker.Worker, error) {
	return worker.New(worker.Config{
		Store: st, Redis: t.asynq, Concurrency: b.o.concurrency, Queues: queues,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		OnRelayEvent: func(ev jobs.Event, outcome string) {
			if ev.Type == jobs.EventExtractionCommitted && outcome == "applied" {
				applied.Add(1)
			}
		},
	})
}

// drain submits n jobs on t, then drains them with one worker serving
// queues queues, printing progress every second, then the rate and the CPU
// of each redis-server. It returns the rate in jobs/s.
func (b *bench) drain(t *target, queues int) (float64, error) {
	ctx := context.Background()
	name := drainCase{t: t, queues: queues}.name()
	if err := t.flush(ctx); err != nil {
		return 0, err
	}
	st, err := jobs.NewStore(jobs.Config{Redis: t.store, Shards: b.o.shards})
	if err != nil {
		return 0, err
	}
	fmt.Printf("  %s: submitting %d jobs\n", name, b.o.n)
	if _, err := b.submit(st, "drain", b.o.n); err != nil {
		return 0, fmt.Errorf("submit: %w", err)
	}
	var applied atomic.Int64
	w, err := b.newWorker(t, st, queues, &applied)
	if err != nil {
		return 0, err
	}
	cpu0, err := t.cpu(ctx)
	if err != nil {
		return 0, err
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	begin := time.Now()
	go func() { done <- w.Run(wctx) }()
	tick := time.NewTicker(time.Second)
	for applied.Load() < int64(b.o.n) {
		select {
		case err := <-done:
			stop()
			return 0, fmt.Errorf("worker stopped early: %v", err)
		case <-tick.C:
			if time.Since(begin) > b.o.timeout {
				stop()
				<-done
				return 0, fmt.Errorf("timed out with %d of %d reviews applied", applied.Load(), b.o.n)
			}
			fmt.Printf("    %s: %d/%d reviews applied (%.0f/s)\n", name, applied.Load(), b.o.n, float64(applied.Load())/time.Since(begin).Seconds())
		case <-time.After(10 * time.Millisecond):
		}
	}
	elapsed := time.Since(begin)
	tick.Stop()
	cpu1, err := t.cpu(ctx)
	stop()
	if runErr := <-done; err == nil {
		err = runErr
	}
	if err != nil {
		return 0, err
	}
	rate := float64(b.o.n) / elapsed.Seconds()
	fmt.Printf("%-26s drained %d in %6.2fs = %6.0f jobs/s | redis-server CPU: %s\n", name+":", b.o.n, elapsed.Seconds(),
		rate, cpuSpread(t.nodes, cpu0, cpu1))
	return rate, nil
}

// cpuSpread prints each node's CPU seconds and, for masters, its share of
// the masters' total.
func cpuSpread(nodes []node, before, after []time.Duration) string {
	var masters time.Duration
	for i, n := range nodes {
		if n.role == "master" {
			masters += after[i] - before[i]
		}
	}
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		d := after[i] - before[i]
		parts[i] = fmt.Sprintf("%s %s %.2fs", n.role, n.addr, d.Seconds())
		if n.role == "master" && masters > 0 {
			parts[i] += fmt.Sprintf(" (%.0f%%)", 100*d.Seconds()/masters.Seconds())
		}
	}
	return strings.Join(parts, ", ")
}

// idleCost counts the Redis commands and CPU of one idle worker with the
// given queues on t's single node.
func (b *bench) idleCost(t *target, queues int) error {
	ctx := context.Background()
	if err := t.flush(ctx); err != nil {
		return err
	}
	st, err := jobs.NewStore(jobs.Config{Redis: t.store, Shards: b.o.shards})
	if err != nil {
		return err
	}
	var applied atomic.Int64
	w, err := b.newWorker(t, st, queues, &applied)
	if err != nil {
		return err
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	time.Sleep(time.Second) // start-up passes are not idle cost
	err = b.countIdle(t, queues)
	stop()
	return errors.Join(err, <-done)
}

// countIdle prints the commands/s and CPU of t's single node over o.idle.
func (b *bench) countIdle(t *target, queues int) error {
	ctx := context.Background()
	admin := t.nodes[0].rdb
	calls0, _, err := benchredis.CommandStats(ctx, admin)
	if err != nil {
		return err
	}
	cpu0, err := t.cpu(ctx)
	if err != nil {
		return err
	}
	time.Sleep(b.o.idle)
	n, err := benchredis.CommandsSince(ctx, admin, calls0)
	if err != nil {
		return err
	}
	cpu1, err := t.cpu(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%-26s %6.0f Redis commands/s, redis-server %.2f%% of a core\n", fmt.Sprintf("idle, %d queue(s):", queues),
		float64(n)/b.o.idle.Seconds(), 100*(cpu1[0]-cpu0[0]).Seconds()/b.o.idle.Seconds())
	return nil
}

// waitCost submits o.waitN jobs with WAIT 0 and as many with WAIT 1 on the
// cluster, in alternating batches, and prints each side's latency.
func (b *bench) waitCost() error {
	if err := b.cluster.flush(context.Background()); err != nil {
		return err
	}
	stores := make([]*jobs.Store, 2)
	for i := range stores {
		st, err := jobs.NewStore(jobs.Config{Redis: b.cluster.store, Shards: b.o.shards, WaitReplicas: i})
		if err != nil {
			return err
		}
		stores[i] = st
	}
	const batches = 10
	lat := make([][]time.Duration, 2)
	for batch := range batches {
		for j := range 2 {
			i := (batch + j) % 2 // alternate which goes first
			l, err := b.submit(stores[i], fmt.Sprintf("wait%d-b%d", i, batch), b.o.waitN/batches)
			if err != nil {
				return err
			}
			lat[i] = append(lat[i], l...)
		}
		fmt.Printf("    batch %d/%d done\n", batch+1, batches)
	}
	var p50 [2]time.Duration
	for i := range lat {
		slices.Sort(lat[i])
		p50[i] = benchredis.Percentile(lat[i], 50)
		fmt.Printf("WAIT %d: %d submits, p50 %6.2f ms, p99 %6.2f ms, max %6.2f ms\n", i, len(lat[i]),
			ms(p50[i]), ms(benchredis.Percentile(lat[i], 99)), ms(lat[i][len(lat[i])-1]))
	}
	fmt.Printf("WAIT 1 costs %+.2f ms per acknowledged write at p50 (%d submitters at once)\n", ms(p50[1]-p50[0]), b.o.submitters)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
