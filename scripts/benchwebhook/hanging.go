package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
	"github.com/relayops/relayops/webhook"
	"github.com/relayops/relayops/worker"
)

// The hanging scenario: tenant "slowco" has an endpoint that accepts every
// connection and never answers; -others tenants have receivers that answer
// at once. Jobs of all of them finish at -rate per second in all, half of
// them slowco's, and the figure is the delivery latency (event committed →
// receiver got it) of the other tenants' events, which must not wait
// behind slowco's hanging requests. The worker runs as shipped (defaults).

const hangingTenant = "slowco"

// hangingServer accepts requests and answers none until it is closed.
type hangingServer struct {
	arrived atomic.Int64
}

func (h *hangingServer) ServeHTTP(_ http.ResponseWriter, req *http.Request) {
	h.arrived.Add(1)
	<-req.Context().Done()
}

// listen serves h on a fresh loopback port; stop closes it.
func listen(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/hook", func() { _ = hs.Close() }, nil
}

func runHanging(o options, content string) error {
	stopRedis, rdb, store, reg, err := startStore()
	if err != nil {
		return err
	}
	defer stopRedis()
	ctx := context.Background()
	hang := &hangingServer{}
	url, stopHang, err := listen(hang)
	if err != nil {
		return err
	}
	defer stopHang()
	if _, _, err := reg.Create(ctx, webhook.Registration{Tenant: hangingTenant, URL: url, Events: []string{webhook.EventJobSucceeded}}); err != nil {
		return err
	}
	others := make([]string, o.others)
	rcvs := make([]*receiver, o.others)
	for i := range others {
		others[i] = fmt.Sprintf("tenant%d", i+1)
		rcvs[i] = &receiver{seen: map[string]bool{}}
		url, stop, err := listen(rcvs[i])
		if err != nil {
			return err
		}
		defer stop()
		if _, rcvs[i].secret, err = reg.Create(ctx, webhook.Registration{Tenant: others[i], URL: url, Events: []string{webhook.EventJobSucceeded}}); err != nil {
			return err
		}
	}
	asynqRedis := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	defer asynqRedis.Close()
	w, err := worker.New(worker.Config{Store: store, Redis: asynqRedis, Logger: slog.New(slog.DiscardHandler), Webhooks: &worker.WebhookConfig{Registry: reg}})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() { cancel(); <-done }()

	fmt.Printf("benchwebhook hanging: rate=%d/s duration=%s, half the events for %s whose endpoint never answers, half for %d other tenants; one worker as shipped\n",
		o.rate, o.duration, hangingTenant, o.others)
	start := time.Now()
	want, err := submitMixed(ctx, store, others, content, o)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for received(rcvs) < want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	var lags []time.Duration
	for _, r := range rcvs {
		r.mu.Lock()
		lags = append(lags, r.lags...)
		r.mu.Unlock()
	}
	if len(lags) == 0 {
		return errors.New("no delivery of the other tenants arrived")
	}
	slices.Sort(lags)
	fmt.Printf("other tenants' delivery latency (event committed → receiver got it): %d of %d events in %.0f s, p50 %.1f ms  p99 %.1f ms  max %.1f ms (target p99 < 2 s)\n",
		len(lags), want, time.Since(start).Seconds(), msOf(benchredis.Percentile(lags, 50)), msOf(benchredis.Percentile(lags, 99)), msOf(lags[len(lags)-1]))
	fmt.Printf("%s: %d requests reached its hanging endpoint; %s\n", hangingTenant, hang.arrived.Load(), webhookCounters(w))
	return nil
}

// received counts the events the receivers got.
func received(rcvs []*receiver) int {
	n := 0
	for _, r := range rcvs {
		n += int(r.received.Load())
	}
	return n
}

// submitMixed submits jobs open loop at o.rate for o.duration: every other
// one slowco's, the rest spread over others. It returns how many were the
// others'.
func submitMixed(ctx context.Context, store *jobs.Store, others []string, content string, o options) (int, error) {
	interval := time.Second / time.Duration(o.rate)
	total := int(o.duration / interval)
	var wg sync.WaitGroup
	var failed atomic.Int64
	start := time.Now()
	n := 0
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		tenant := hangingTenant
		if i%2 == 1 {
			tenant = others[(i/2)%len(others)]
			n++
		}
		k, err := jobs.BuildKey(tenant, fmt.Sprintf("job-%d", i), 1)
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
	return n, nil
}

// webhookCounters prints the worker's webhook counters (the attempts by
// outcome and, where the worker has them, the deferrals and circuit
// openings).
func webhookCounters(w *worker.Worker) string {
	families, err := w.Metrics().Registry.Gather()
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, f := range families {
		name := f.GetName()
		if !strings.HasPrefix(name, "relayops_webhook_") || !strings.HasSuffix(name, "_total") || strings.Contains(name, "published") {
			continue
		}
		for _, m := range f.GetMetric() {
			if v := m.GetCounter().GetValue(); v > 0 {
				label := ""
				for _, l := range m.GetLabel() {
					label += "{" + l.GetValue() + "}"
				}
				parts = append(parts, fmt.Sprintf("%s%s=%.0f", strings.TrimPrefix(name, "relayops_webhook_"), label, v))
			}
		}
	}
	return strings.Join(parts, " ")
}
