// Command webhookreceiver is a local webhook receiver for demos: it verifies
// every delivery with the Standard Webhooks library, drops a webhook-id it
// already has (a redelivery), and prints one line per request. It prints
// its URL first, then serves until stopped.
//
//	go run ./scripts/webhookreceiver -secret-file /tmp/secret
//
// The secret is read from -secret-file on every request, so it can be
// written after the endpoint is registered (its URL is needed for that).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	secretFile := flag.String("secret-file", "", "file holding the endpoint's whsec_ secret (required)")
	flag.Parse()
	if *secretFile == "" {
		fmt.Fprintln(os.Stderr, "webhookreceiver: -secret-file is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhookreceiver:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/hook\n", ln.Addr())
	r := &receiver{secretFile: *secretFile, seen: map[string]bool{}}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "webhookreceiver:", err)
		os.Exit(1)
	}
}

type receiver struct {
	secretFile string
	mu         sync.Mutex
	seen       map[string]bool
}

// ServeHTTP is what a receiver needs: verify, drop duplicates by
// webhook-id, answer 2xx quickly.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	secret, _ := os.ReadFile(r.secretFile)
	wh, err := standardwebhooks.NewWebhook(strings.TrimSpace(string(secret)))
	if err == nil {
		err = wh.Verify(body, req.Header)
	}
	id := req.Header.Get(standardwebhooks.HeaderWebhookID)
	if err != nil {
		fmt.Printf("REJECTED %s: %v\n", id, err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	r.mu.Lock()
	dup := r.seen[id]
	r.seen[id] = true
	r.mu.Unlock()
	var e struct {
		Type string `json:"type"`
		Data struct {
			JobID, State, ErrorCode, Decision string
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &e)
	note := ""
	if dup {
		note = " (duplicate, dropped)"
	}
	fmt.Printf("verified %s %-18s %s %s%s%s\n", id, e.Type, e.Data.JobID, e.Data.State, suffix(e.Data.ErrorCode, e.Data.Decision), note)
	w.WriteHeader(http.StatusNoContent)
}

func suffix(code, decision string) string {
	if code != "" {
		return " " + code
	}
	if decision != "" {
		return " " + decision
	}
	return ""
}
