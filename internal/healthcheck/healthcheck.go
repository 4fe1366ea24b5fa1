// Package healthcheck lets a binary probe its own /healthz, so a container
// healthcheck needs no shell or curl in the image (`relayops-api
// -healthcheck`). It starts no server and needs no Redis.
package healthcheck

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/relayops/relayops/internal/config"
)

// Timeout bounds one probe; compose allows the check a little more.
const Timeout = 2 * time.Second

// URL is the /healthz URL of a listen address: an empty or wildcard host
// becomes 127.0.0.1.
func URL(listenAddr string) (string, error) {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "", fmt.Errorf("healthcheck: listen address %q: %w", listenAddr, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}

// Probe GETs the /healthz of listenAddr and returns nil only for a 200.
func Probe(ctx context.Context, listenAddr string) error {
	url, err := URL(listenAddr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}

// Run handles the -healthcheck flag of a binary: when requested, it loads
// the configuration, probes the listen address addr picks from it, and ends
// the process with 0 (healthy) or 1. Otherwise it returns.
func Run(requested bool, binary string, addr func(*config.Config) string) {
	if !requested {
		return
	}
	cfg, err := config.Load()
	if err == nil {
		err = Probe(context.Background(), addr(cfg))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", binary, err)
		os.Exit(1)
	}
	os.Exit(0)
}
