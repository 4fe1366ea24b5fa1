package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/dashboard"
	"github.com/relayops/relayops/internal/app"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/lograte"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

type options struct {
	redisAddr string
	seed      bool
	seedDir   string
}

// Demo credentials, used when the environment names none.
var (
	demoTenants   = []config.Credential{{Name: "acme", Token: "acme-demo-tenant-token"}, {Name: "globex", Token: "globex-demo-tenant-token"}}
	demoOperators = []config.Credential{{Name: "alice", Token: "alice-demo-operator-token"}}
)

// clockTick is how often the embedded Redis's clock follows the wall clock:
// miniredis only expires keys when told time has passed.
const clockTick = 100 * time.Millisecond

func run(ctx context.Context, o options) error {
	cfg, err := config.Load()
	if err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	if len(cfg.TenantTokens) == 0 {
		cfg.TenantTokens = demoTenants
	}
	if len(cfg.OperatorTokens) == 0 {
		cfg.OperatorTokens = demoOperators
	}
	// dev runs on one machine for trying things out: webhook receivers on
	// it (http://127.0.0.1:...) are allowed. Production keeps https and
	// public addresses only unless told otherwise.
	cfg.Webhook.AllowInsecure, cfg.Webhook.AllowPrivate = true, true
	if err := checkPorts(cfg); err != nil {
		return err
	}
	logger := cfg.NewLogger(os.Stderr, "dev")
	cfg.LogWarnings(logger)
	lograte.RouteRedis(logger) // go-redis's own lines, as JSON and held back when repeated

	mini := miniredis.NewMiniRedis()
	if err := mini.StartAddr(o.redisAddr); err != nil {
		return fmt.Errorf("start the embedded Redis on %s: %w", o.redisAddr, err)
	}
	defer mini.Close()
	cfg.RedisURL = "redis://" + mini.Addr() + "/0"
	cfg.RedisCluster = nil // dev always runs on its embedded Redis
	cfg.DashboardRedisURL, cfg.DashboardRedisCluster = cfg.RedisURL, nil

	rdb, err := jobs.NewRedisClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	store, err := jobs.NewStore(app.Jobs(cfg, rdb))
	if err != nil {
		return err
	}
	dcfg, err := app.Dashboard(cfg, cfg.NewLogger(os.Stderr, "dashboard"))
	if err != nil {
		return err
	}
	dash, err := dashboard.New(dcfg)
	if err != nil {
		return err
	}
	defer dash.Close()
	docs, err := app.OpenDocuments(ctx, cfg)
	if err != nil {
		return err
	}
	defer docs.Close()
	if err := docs.OpenPageRenders(ctx, cfg, "", logger); err != nil {
		return err
	}
	if err := docs.EnableOCR(cfg, logger); err != nil {
		return err
	}
	srv, err := api.New(app.API(cfg, store, rdb, dash, docs, cfg.NewLogger(os.Stderr, "api")))
	if err != nil {
		return err
	}
	faults, err := worker.ParseFaults(cfg.Faults)
	if err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	asynqRedis := redis.NewClient(&redis.Options{Addr: mini.Addr()})
	defer asynqRedis.Close()
	wcfg, err := app.Worker(cfg, store, asynqRedis, faults, docs,
		slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	if err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	w, err := worker.New(wcfg)
	var le *worker.ListenError
	if errors.As(err, &le) {
		return fmt.Errorf("listen on RELAYOPS_METRICS_ADDR %s: %w", le.Addr, le.Err)
	}
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on RELAYOPS_HTTP_ADDR %s: %w", cfg.HTTPAddr, err)
	}
	banner(os.Stdout, cfg, ln.Addr().String(), mini.Addr())

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { followWallClock(gctx, mini); return nil })
	g.Go(func() error { return srv.Serve(gctx, ln) })
	g.Go(func() error { return w.Run(gctx) })
	if o.seed {
		g.Go(func() error { return seed(gctx, store, cfg, o.seedDir, logger) })
	}
	err = g.Wait()
	fmt.Fprintln(os.Stdout, "relayops dev: stopped; the in-memory data is gone.")
	return err
}

// checkPorts tries, before anything starts, every address run listens on,
// so a user whose ports are taken learns all of them at once rather than
// one per try; each is named by its variable, with a free-looking
// alternative to set.
func checkPorts(cfg *config.Config) error {
	if cfg.HTTPAddr == cfg.MetricsAddr && !strings.HasSuffix(cfg.HTTPAddr, ":0") {
		return fmt.Errorf("RELAYOPS_HTTP_ADDR and RELAYOPS_METRICS_ADDR are both %s: give them different ports", cfg.HTTPAddr)
	}
	var errs []error
	var fix []string
	for _, a := range []struct{ name, addr string }{{"RELAYOPS_HTTP_ADDR", cfg.HTTPAddr}, {"RELAYOPS_METRICS_ADDR", cfg.MetricsAddr}} {
		ln, err := net.Listen("tcp", a.addr)
		if err == nil {
			_ = ln.Close()
			continue
		}
		errs = append(errs, fmt.Errorf("listen on %s %s: %w", a.name, a.addr, err))
		fix = append(fix, a.name+"="+nextPort(a.addr))
	}
	if len(errs) == 0 {
		return nil
	}
	errs = append(errs, fmt.Errorf("choose other ports, e.g. %s make run", strings.Join(fix, " ")))
	return errors.Join(errs...)
}

// nextPort is addr with the port after its own (":8080" gives ":8081").
func nextPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n >= 65535 {
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}

// followWallClock advances the embedded Redis's clock with the wall clock so
// leases, TTLs and rate limits behave as on a real Redis.
func followWallClock(ctx context.Context, m *miniredis.Miniredis) {
	last := time.Now()
	t := time.NewTicker(clockTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			m.SetTime(now)
			m.FastForward(now.Sub(last))
			last = now
		}
	}
}

// extractorLine names RELAYOPS_EXTRACTOR and, when it calls one, the model.
func extractorLine(cfg *config.Config) string {
	if !cfg.UsesModel() {
		return cfg.Extractor + "   (RELAYOPS_EXTRACTOR; no network)"
	}
	return cfg.Extractor + "   (model " + cfg.LLM.Model + ", RELAYOPS_LLM_*)"
}

func banner(w io.Writer, cfg *config.Config, httpAddr, redisAddr string) {
	base := "http://" + localhost(httpAddr)
	tenant, op := cfg.TenantTokens[0], cfg.OperatorTokens[0]
	fmt.Fprintf(w, `
relayops dev: the whole system in one process (API, console, dashboard, worker, relay)
  API         %[1]s   (contract: %[1]s/openapi.json)
  console     %[1]s/console/   (reviews, dead letters, audit; sign in as %[2]s with the operator token)
  dashboard   %[1]s/monitoring/   (queues; the same sign-in)
  metrics     %[1]s/metrics   (worker: http://%[4]s/metrics)
  Redis       redis://%[3]s/0   (embedded, in memory)
  extractor   %[5]s

  Webhook endpoints may be local http:// receivers here (never so by default elsewhere).
  Data lives only while this process runs. Production runs cmd/api and any number
  of cmd/worker processes on a real Redis (RELAYOPS_REDIS_URL); see docs/operations.md.

  tokens:
`, base, op.Name, redisAddr, localhost(cfg.MetricsAddr), extractorLine(cfg))
	for _, c := range cfg.TenantTokens {
		fmt.Fprintf(w, "    tenant   %-8s %s\n", c.Name, c.Token)
	}
	for _, c := range cfg.OperatorTokens {
		fmt.Fprintf(w, "    operator %-8s %s\n", c.Name, c.Token)
	}
	fmt.Fprintf(w, `
  try:
    curl -s -X POST %[1]s/v1/jobs -H 'Authorization: Bearer %[2]s' -H 'Content-Type: application/json' \
      -d '{"documentId":"inv-1","operationVersion":1,"content":"INVOICE\nInvoice Number: INV-1\nVendor: Acme Supplies\nIssue Date: 2026-11-02\nCurrency: EUR\nItems:\nPaper 2 x 5.00\nTotal: 10.00"}'
    curl -s %[1]s/v1/jobs/%[3]s:inv-1:v1 -H 'Authorization: Bearer %[2]s'
    curl -s %[1]s/v1/reviews -H 'Authorization: Bearer %[2]s'
  or run the whole demo:  scripts/demo.sh %[1]s

`, base, tenant.Token, tenant.Name)
}

// localhost turns a listen address such as ":8080" or "[::]:8080" into one a
// browser can open.
func localhost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "::" || host == "0.0.0.0" {
		return "localhost:" + port
	}
	return addr
}

// seed submits every *.txt of dir as the first tenant, one document each.
func seed(ctx context.Context, store *jobs.Store, cfg *config.Config, dir string, log *slog.Logger) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		log.Warn("nothing to seed: no *.txt files", "dir", dir)
		return nil
	}
	sort.Strings(files)
	tenant := cfg.TenantTokens[0].Name
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		doc := strings.TrimSuffix(filepath.Base(f), ".txt")
		k, err := jobs.BuildKey(tenant, doc, 1)
		if err != nil {
			return fmt.Errorf("seed %s: %w", f, err)
		}
		_, err = store.Submit(ctx, jobs.SubmitRequest{Key: k, Content: string(b), Limits: app.Limits(cfg)})
		switch {
		case errors.Is(err, jobs.ErrIdempotencyConflict):
			fmt.Fprintf(os.Stdout, "not seeded %s: the key holds other content\n", k)
		case err != nil:
			return fmt.Errorf("seed %s: %w", f, err)
		default:
			fmt.Fprintf(os.Stdout, "seeded %s\n", k)
		}
	}
	return nil
}
