// Command dev runs the whole relayops system in one process on an embedded,
// in-memory Redis (miniredis): the HTTP API with the dashboard, and a worker
// with its relay, review consumer and reconciler. It needs nothing installed
// but Go; its data lives only while it runs. Production runs cmd/api and any
// number of cmd/worker processes on a real Redis.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var o options
	flag.StringVar(&o.redisAddr, "redis-addr", "127.0.0.1:0", "address of the embedded Redis (port 0 picks a free one)")
	flag.BoolVar(&o.seed, "seed", false, "submit the sample invoices of -seed-dir at start")
	flag.StringVar(&o.seedDir, "seed-dir", "testdata/invoices", "directory of sample invoices (*.txt) for -seed")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "relayops dev:", err)
		os.Exit(1)
	}
}
