// Command benchsubmit measures HTTP submission (POST /v1/jobs with unique
// documentIds) through relayops' real API handler, beside two baselines in
// the same run on the same redis-server:
//
//   - trivial: an Echo handler that decodes the same JSON body and answers
//     202 with a small JSON object, touching no Redis;
//   - durable: the same, plus one minimal durable script on Redis (HSET of
//     the job record with the document, XADD of its event);
//   - submit: relayops' API as shipped (authentication, validation,
//     submit.lua: record, stored input, outbox row, audit entry).
//
// Every server listens on a loopback port of this process; one closed-loop
// load generator (a fixed number of connections, each sending its next
// request when the last one answered) drives them in turn. It prints
// requests per second, p50/p99/max, Redis time per request, and the ratios
// submit/durable (target >= 0.6) and submit/trivial. Figures only.
//
// Usage: go run ./scripts/benchsubmit [-n 20000] [-connections 50] [-rounds 1] [-redis-url URL]
// Without -redis-url it starts redis-server on a free loopback port.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/scripts/benchredis"
)

type options struct {
	n, connections, rounds, warmup int
	redisURL, contentPath          string
	cpuProfile                     string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 20000, "requests per side per round")
	flag.IntVar(&o.connections, "connections", 50, "concurrent connections (closed loop)")
	flag.IntVar(&o.rounds, "rounds", 1, "rounds; each runs every side, rotating which goes first")
	flag.IntVar(&o.warmup, "warmup", 500, "unmeasured requests before each side")
	flag.StringVar(&o.redisURL, "redis-url", "", "use this Redis (it is FLUSHALLed!) instead of starting redis-server")
	flag.StringVar(&o.contentPath, "content", "testdata/invoices/valid-basic-eur.txt", "document every request carries")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (servers and load generator) to this file")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchsubmit:", err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	var errs []error
	if o.n < 1 {
		errs = append(errs, errors.New("-n must be at least 1"))
	}
	if o.connections < 1 {
		errs = append(errs, errors.New("-connections must be at least 1"))
	}
	if o.rounds < 1 {
		errs = append(errs, errors.New("-rounds must be at least 1"))
	}
	if o.warmup < 0 {
		errs = append(errs, errors.New("-warmup must not be negative"))
	}
	return errors.Join(errs...)
}

func run(o options) error {
	if err := o.validate(); err != nil {
		return err
	}
	content, err := os.ReadFile(o.contentPath)
	if err != nil {
		return fmt.Errorf("read -content: %w (run from the repository root)", err)
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	url, stop, err := benchredis.Use(o.redisURL)
	if err != nil {
		return err
	}
	defer stop()
	rdb, err := jobs.NewRedisClient(url)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return fmt.Errorf("redis at %s: %w", url, err)
	}
	sides, err := newSides(rdb)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range sides {
			s.close()
		}
	}()
	fmt.Printf("benchsubmit: n=%d connections=%d rounds=%d content=%d bytes cpus=%d\n",
		o.n, o.connections, o.rounds, len(content), runtime.NumCPU())
	results := map[string][]sideResult{}
	for r := range o.rounds {
		for i := range sides {
			s := sides[(i+r)%len(sides)]
			res, err := measure(ctx, o, rdb, s, string(content), r)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			res.print(s.name, r+1)
			results[s.name] = append(results[s.name], res)
		}
	}
	summarize(results)
	return nil
}

// measure warms side s up, then sends o.n requests with unique documentIds
// and counts Redis time spent meanwhile.
func measure(ctx context.Context, o options, rdb *redis.Client, s *side, content string, round int) (sideResult, error) {
	prefix := fmt.Sprintf("%s-r%d", s.name, round)
	quoted, _ := json.Marshal(content)
	body := func(tag string) func(int) []byte {
		return func(i int) []byte {
			return fmt.Appendf(nil, `{"documentId":"%s-%s-%d","operationVersion":1,"content":%s}`, prefix, tag, i, quoted)
		}
	}
	target := load{url: s.url + "/v1/jobs", token: benchToken, connections: o.connections, progress: s.name}
	if o.warmup > 0 {
		w := target
		w.n, w.body, w.progress = o.warmup, body("w"), ""
		if _, err := w.run(ctx); err != nil {
			return sideResult{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	_, usec0, err := benchredis.CommandStats(ctx, rdb)
	if err != nil {
		return sideResult{}, err
	}
	target.n, target.body = o.n, body("m")
	res, err := target.run(ctx)
	if err != nil {
		return res, err
	}
	_, usec1, err := benchredis.CommandStats(ctx, rdb)
	if err != nil {
		return res, err
	}
	for cmd, u := range usec1 {
		if cmd != "info" {
			res.redisUsec += u - usec0[cmd]
		}
	}
	return res, nil
}

func (r sideResult) print(name string, round int) {
	fmt.Printf("round %d %-8s %6d requests in %6.2fs = %7.0f req/s | p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms | Redis %5.1f µs/request\n",
		round, name, len(r.latencies), r.elapsed.Seconds(), r.rate(), ms(benchredis.Percentile(r.latencies, 50)),
		ms(benchredis.Percentile(r.latencies, 99)), ms(r.latencies[len(r.latencies)-1]), float64(r.redisUsec)/float64(len(r.latencies)))
}

// summarize pools every round of each side and prints the comparison.
func summarize(results map[string][]sideResult) {
	fmt.Println("---")
	pooled := map[string]sideResult{}
	for _, name := range sideNames {
		var p sideResult
		for _, r := range results[name] {
			p.latencies = append(p.latencies, r.latencies...)
			p.elapsed += r.elapsed
			p.redisUsec += r.redisUsec
		}
		slices.Sort(p.latencies)
		pooled[name] = p
		fmt.Printf("%-8s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  Redis %5.1f µs/request\n", name, p.rate(),
			ms(benchredis.Percentile(p.latencies, 50)), ms(benchredis.Percentile(p.latencies, 99)), float64(p.redisUsec)/float64(len(p.latencies)))
	}
	sub, dur, triv := pooled[sideSubmit], pooled[sideDurable], pooled[sideTrivial]
	fmt.Printf("ratio submit/durable: %.2f (target >= 0.60); submit/trivial: %.2f; durable/trivial: %.2f\n",
		sub.rate()/dur.rate(), sub.rate()/triv.rate(), dur.rate()/triv.rate())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// listen serves h on a free loopback port until the returned stop is called.
func listen(h http.Handler) (url string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
	return "http://" + l.Addr().String(), stop, nil
}
