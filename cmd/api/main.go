// Command api serves relayops' HTTP API and, under /monitoring, the
// read-only Asynq dashboard. It is configured by RELAYOPS_* environment
// variables (see internal/config) and runs until SIGINT or SIGTERM, then
// finishes in-flight requests and exits. It renders PDF page images in
// processes of its own: itself, started with -render-pages.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/dashboard"
	"github.com/relayops/relayops/internal/app"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/healthcheck"
	"github.com/relayops/relayops/internal/lograte"
	"github.com/relayops/relayops/jobs"
)

func main() {
	probe := flag.Bool("healthcheck", false, "probe this API's /healthz on RELAYOPS_HTTP_ADDR and exit 0 if it answers 200 (for container healthchecks)")
	render := flag.Bool("render-pages", false, "run as one of the API's page renderer processes, on standard input and output (the API starts them)")
	maxPages := flag.Int("max-pages", 50, "with -render-pages: the most pages of a document")
	flag.Parse()
	if *render {
		if err := app.ServePageRenders(context.Background(), *maxPages); err != nil {
			fmt.Fprintln(os.Stderr, "api page renderer:", err)
			os.Exit(1)
		}
		return
	}
	healthcheck.Run(*probe, "api", func(c *config.Config) string { return c.HTTPAddr })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log := cfg.NewLogger(os.Stderr, "api")
	cfg.LogWarnings(log)
	lograte.RouteRedis(log) // go-redis's own lines, as JSON and held back when repeated
	if len(cfg.TenantTokens) == 0 {
		log.Warn("RELAYOPS_TENANT_TOKENS is empty: no tenant can submit")
	}
	rdb, err := app.StoreRedis(cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if err := app.CheckRedis(ctx, cfg); err != nil {
		return err
	}
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
	docs, err := app.OpenDocuments(context.Background(), cfg)
	if err != nil {
		return err
	}
	defer docs.Close()
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("api: find this program to start its page renderers: %w", err)
	}
	if err := docs.OpenPageRenders(context.Background(), cfg, self, log); err != nil {
		return err
	}
	srv, err := api.New(app.API(cfg, store, rdb, dash, docs, log))
	if err != nil {
		return err
	}
	return srv.Run(ctx, cfg.HTTPAddr)
}
