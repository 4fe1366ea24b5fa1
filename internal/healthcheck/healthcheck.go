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

// Main probes listenAddr and returns the process exit code: 0 healthy, 1
// not (the reason goes to stderr).
func Main(listenAddr string) int {
	if err := Probe(context.Background(), listenAddr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
