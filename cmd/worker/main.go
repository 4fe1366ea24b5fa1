// Command worker runs a relayops worker process: the Asynq extract handler,
// the outbox relay with the review consumer, the reconciler, and /metrics,
// /healthz and /readyz on RELAYOPS_METRICS_ADDR. Configuration comes from
// the RELAYOPS_* environment (docs/operations.md, Configuration); RELAYOPS_EXTRACTOR
// chooses the extractor (rules, llm or rules,llm, the model from
// RELAYOPS_LLM_*). SIGINT or SIGTERM stops it gracefully; it then exits 0.
//
// Two one-shot commands serve a data key rotation (docs/security.md):
// worker -reseal-secrets seals every webhook signing secret under the first
// key of RELAYOPS_DATA_KEYS; worker -data-key-usage counts the stored
// document values by the key that sealed them. Each prints and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/relayops/relayops/internal/app"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/healthcheck"
	"github.com/relayops/relayops/internal/lograte"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

func main() {
	probe := flag.Bool("healthcheck", false, "probe this worker's /healthz on RELAYOPS_METRICS_ADDR and exit 0 if it answers 200 (for container healthchecks)")
	reseal := flag.Bool("reseal-secrets", false, "seal every webhook signing secret under the first data key of RELAYOPS_DATA_KEYS, print the counts and exit (a data key rotation step)")
	usage := flag.Bool("data-key-usage", false, "count the stored inputs, results, checkpoints and review notes by the data key that sealed them, print the counts and exit (a data key rotation step)")
	flag.Parse()
	healthcheck.Run(*probe, "relayops worker", func(c *config.Config) string { return c.MetricsAddr })
	if err := run(oneShot{reseal: *reseal, usage: *usage}); err != nil {
		fmt.Fprintf(os.Stderr, "relayops worker: %v\n", err)
		if errors.As(err, new(configError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// configError marks an invalid environment (exit status 2).
type configError struct{ error }

func (e configError) Unwrap() error { return e.error }

// oneShot names the one-shot command to run instead of the worker.
type oneShot struct{ reseal, usage bool }

func run(once oneShot) error {
	cfg, err := config.Load()
	if err != nil {
		return configError{fmt.Errorf("invalid configuration:\n%w", err)}
	}
	faults, err := worker.ParseFaults(cfg.Faults)
	if err != nil {
		return configError{fmt.Errorf("invalid configuration:\n%w", err)}
	}
	rdb, err := app.StoreRedis(cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if err := app.CheckRedis(context.Background(), cfg); err != nil {
		return err
	}
	store, err := jobs.NewStore(app.Jobs(cfg, rdb))
	if err != nil {
		return err
	}
	if once.reseal || once.usage {
		return runOnce(store, cfg, once)
	}
	// Asynq gets its own, ordinary client: its scripts are safe to retry,
	// the store's are not.
	asynqRedis, err := app.AsynqRedis(cfg)
	if err != nil {
		return configError{err}
	}
	defer asynqRedis.Close()
	// The worker's parts tag their own component on this base logger.
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	// go-redis logs failed dials in plain text, one line each: through slog,
	// and each kind once per interval.
	lograte.RouteRedis(logger)
	cfg.LogWarnings(logger.With("component", "worker"))
	docs, err := app.OpenDocuments(context.Background(), cfg)
	if err != nil {
		return err
	}
	defer docs.Close()
	if err := docs.EnableOCR(cfg, logger); err != nil {
		return configError{err}
	}
	wcfg, err := app.Worker(cfg, store, asynqRedis, faults, docs, logger)
	if err != nil {
		return configError{fmt.Errorf("invalid configuration:\n%w", err)}
	}
	w, err := worker.New(wcfg)
	var le *worker.ListenError
	if errors.As(err, &le) {
		return fmt.Errorf("listen on RELAYOPS_METRICS_ADDR %s: %w", le.Addr, le.Err)
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	return w.Run(ctx)
}

// runOnce runs a one-shot command of a data key rotation and prints its
// counts.
func runOnce(store *jobs.Store, cfg *config.Config, once oneShot) error {
	ctx := context.Background()
	if once.reseal {
		res, err := app.WebhookRegistry(cfg, store).Reseal(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("webhook secrets: %d resealed, %d already under key %q\n", res.Resealed, res.Current, store.Keys().Primary())
	}
	if once.usage {
		counts, err := store.DataKeyUsage(ctx)
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(counts))
		for id := range counts {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Printf("%s\t%d\n", id, counts[id])
		}
	}
	return nil
}
