// Command benchwebhook measures webhook delivery latency: event committed →
// the receiver got it, open loop at a given rate, one worker as shipped
// (webhooks on, defaults) in-process on a throwaway redis-server, the
// receiver a local HTTP server that verifies every signature with the
// Standard Webhooks library. It then counts the Redis commands per job of
// a tenant without endpoints (submit to review), so the cost of the webhook
// events for such tenants can be compared with a worker without webhooks.
//
// -scenario hanging measures instead the other tenants' delivery latency
// while one tenant's endpoint never answers (hanging.go).
//
//	go run ./scripts/benchwebhook -rate 100 -duration 20s
//	go run ./scripts/benchwebhook -scenario hanging -rate 100 -duration 20s
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/webhook"
	"github.com/relayops/relayops/worker"
)

type options struct {
	rate        int
	duration    time.Duration
	contentPath string
	scenario    string
	others      int
}

func main() {
	var o options
	flag.IntVar(&o.rate, "rate", 100, "jobs submitted per second (open loop)")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "how long to submit")
	flag.StringVar(&o.contentPath, "content", "testdata/invoices/valid-basic-eur.txt", "document every job carries")
	flag.StringVar(&o.scenario, "scenario", "latency", "latency (one tenant, and the cost for tenants without endpoints) or hanging (one tenant's endpoint never answers)")
	flag.IntVar(&o.others, "others", 4, "hanging: how many other tenants share the events")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchwebhook:", err)
		os.Exit(1)
	}
}

// receiver records, per webhook-id, when the first verified request came
// and the event's commit time.
type receiver struct {
	secret string

	mu       sync.Mutex
	lags     []time.Duration
	seen     map[string]bool
	dups     int
	invalid  int
	received atomic.Int64
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(req.Body)
	wh, err := standardwebhooks.NewWebhook(r.secret)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || wh.Verify(body, req.Header) != nil {
		r.invalid++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	id := req.Header.Get(standardwebhooks.HeaderWebhookID)
	if r.seen[id] {
		r.dups++
		w.WriteHeader(http.StatusNoContent)
		return
	}
	r.seen[id] = true
	var e webhook.Event
	if json.Unmarshal(body, &e) == nil {
		if at, err := time.Parse(webhook.TimeFormat, e.Timestamp); err == nil {
			r.lags = append(r.lags, now.Sub(at))
		}
	}
	r.received.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

func run(o options) error {
	content, err := os.ReadFile(o.contentPath)
	if err != nil {
		return err
	}
	switch o.scenario {
	case "latency":
	case "hanging":
		return runHanging(o, string(content))
	default:
		return fmt.Errorf("unknown -scenario %q", o.scenario)
	}
	stopRedis, rdb, store, reg, err := startStore()
	if err != nil {
		return err
	}
	defer stopRedis()
	rcv := &receiver{seen: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: rcv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	ctx := context.Background()
	_, rcv.secret, err = reg.Create(ctx, webhook.Registration{Tenant: "bench", URL: "http://" + ln.Addr().String() + "/hook",
		Events: []string{webhook.EventJobSucceeded}})
	if err != nil {
		return err
	}
	asynqRedis := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	defer asynqRedis.Close()
	w, stop, err := startWorker(store, asynqRedis, &worker.WebhookConfig{Registry: reg})
	if err != nil {
		return err
	}

	fmt.Printf("benchwebhook: rate=%d/s duration=%s, one worker as shipped with webhooks, cpus=%d\n", o.rate, o.duration, runtime.NumCPU())
	n, err := submit(ctx, store, "bench", "job", string(content), o)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for rcv.received.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	rcv.mu.Lock()
	lags := slices.Clone(rcv.lags)
	dups, invalid := rcv.dups, rcv.invalid
	rcv.mu.Unlock()
	if len(lags) == 0 {
		return errors.New("no delivery arrived")
	}
	slices.Sort(lags)
	fmt.Printf("delivery latency (event committed → receiver got it) at %d/s: %d of %d events, p50 %.1f ms  p99 %.1f ms  max %.1f ms; duplicates %d, bad signatures %d\n",
		o.rate, len(lags), n, msOf(benchredis.Percentile(lags, 50)), msOf(benchredis.Percentile(lags, 99)), msOf(lags[len(lags)-1]), dups, invalid)
	fmt.Println("webhook counters:", webhookCounters(w))
	with, err := commandsPerJob(ctx, store, rdb, string(content), "quiet-a")
	stop()
	if err != nil {
		return err
	}
	_, stop, err = startWorker(store, asynqRedis, nil)
	if err != nil {
		return err
	}
	defer stop()
	without, err := commandsPerJob(ctx, store, rdb, string(content), "quiet-b")
	if err != nil {
		return err
	}
	fmt.Printf("tenant without endpoints, Redis commands per job (submit to review, idle polling taken out): %.2f with webhooks on, %.2f with webhooks off\n", with, without)
	return nil
}

// startWorker runs a worker as shipped (webhooks as given) until the
// returned stop is called.
// startStore starts a redis-server with a job store and a webhook registry
// that accepts local http receivers; stop stops the server.
func startStore() (stop func(), rdb *redis.Client, store *jobs.Store, reg *webhook.Registry, err error) {
	srv, err := benchredis.Start()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	fail := func(err error) (func(), *redis.Client, *jobs.Store, *webhook.Registry, error) {
		srv.Stop()
		return nil, nil, nil, nil, err
	}
	if rdb, err = jobs.NewRedisClient(srv.URL); err != nil {
		return fail(err)
	}
	if store, err = jobs.NewStore(jobs.Config{Redis: rdb}); err != nil {
		return fail(err)
	}
	policy := webhook.TargetPolicy{AllowInsecure: true, AllowPrivate: true}
	if reg, err = webhook.NewRegistry(webhook.RegistryConfig{Redis: rdb, Policy: policy}); err != nil {
		return fail(err)
	}
	return srv.Stop, rdb, store, reg, nil
}

func startWorker(store *jobs.Store, asynqRedis *redis.Client, hooks *worker.WebhookConfig) (*worker.Worker, func(), error) {
	w, err := worker.New(worker.Config{Store: store, Redis: asynqRedis, Logger: slog.New(slog.DiscardHandler), Webhooks: hooks})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	return w, func() { once.Do(func() { cancel(); <-done }) }, nil
}

// submit submits jobs open loop at o.rate for o.duration and returns how
// many.
func submit(ctx context.Context, store *jobs.Store, tenant, prefix, content string, o options) (int, error) {
	interval := time.Second / time.Duration(o.rate)
	total := int(o.duration / interval)
	var wg sync.WaitGroup
	var failed atomic.Int64
	start := time.Now()
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		k, err := jobs.BuildKey(tenant, fmt.Sprintf("%s-%d", prefix, i), 1)
		if err != nil {
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := store.Submit(ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: jobs.DefaultLimits}); err != nil {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return 0, fmt.Errorf("%d submissions failed", f)
	}
	return total, nil
}

// commandsPerJob runs jobs of a tenant without endpoints to their reviews
// and counts Redis commands per job (INFO commandstats): the webhook events
// of such a tenant should cost close to nothing.
func commandsPerJob(ctx context.Context, store *jobs.Store, rdb *redis.Client, content, tenant string) (float64, error) {
	const n = 500
	// The worker's idle polling, measured first, is taken out of the count.
	idleStart, _, err := benchredis.CommandStats(ctx, rdb)
	if err != nil {
		return 0, err
	}
	const idleFor = 2 * time.Second
	time.Sleep(idleFor)
	idle, err := benchredis.CommandsSince(ctx, rdb, idleStart)
	if err != nil {
		return 0, err
	}
	before, _, err := benchredis.CommandStats(ctx, rdb)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	keys := make([]jobs.Key, n)
	for i := range keys {
		keys[i], _ = jobs.BuildKey(tenant, fmt.Sprintf("q-%d", i), 1)
		if _, err := store.Submit(ctx, jobs.SubmitRequest{Key: keys[i], Content: content, Limits: jobs.DefaultLimits}); err != nil {
			return 0, err
		}
	}
	// Poll the last job only (a few commands in all), count, then check
	// every job.
	polls := 0
	for deadline := time.Now().Add(time.Minute); ; polls++ {
		if _, err := store.GetReview(ctx, keys[n-1]); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return 0, errors.New("reviews did not come within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // let the relays ack and go idle
	total, err := benchredis.CommandsSince(ctx, rdb, before)
	total -= int64(float64(idle) * float64(time.Since(start)) / float64(idleFor))
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if _, err := store.GetReview(ctx, k); err != nil {
			return 0, fmt.Errorf("review of %s: %w", k, err)
		}
	}
	return float64(total-int64(polls+1)) / n, nil
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
