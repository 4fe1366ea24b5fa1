package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// load is a closed-loop HTTP load: n POSTs over a fixed number of
// connections, each connection sending its next request when the previous
// one has answered.
type load struct {
	url, token  string
	n           int
	connections int
	body        func(i int) []byte // body of request i
	progress    string             // name on the progress lines; "" prints none
}

// sideResult is one measured load.
type sideResult struct {
	latencies []time.Duration // sorted
	elapsed   time.Duration
	redisUsec int64 // Redis time (INFO commandstats usec) during the load
}

func (r sideResult) rate() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

// run sends the requests; any answer other than 2xx stops it with an error
// naming the status.
func (l load) run(ctx context.Context) (sideResult, error) {
	tr := &http.Transport{MaxIdleConns: l.connections, MaxIdleConnsPerHost: l.connections, MaxConnsPerHost: l.connections}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	lat := make([]time.Duration, l.n)
	var next, done atomic.Int64
	var firstErr error
	var once sync.Once
	fail := func(err error) { once.Do(func() { firstErr = err }); next.Store(int64(l.n)) }
	stopProgress := l.report(&done)
	begin := time.Now()
	var wg sync.WaitGroup
	for range l.connections {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < l.n; i = int(next.Add(1)) - 1 {
				d, err := l.post(ctx, client, l.body(i))
				if err != nil {
					fail(fmt.Errorf("request %d: %w", i, err))
					return
				}
				lat[i] = d
				done.Add(1)
			}
		})
	}
	wg.Wait()
	res := sideResult{elapsed: time.Since(begin)}
	stopProgress()
	if firstErr != nil {
		return res, firstErr
	}
	res.latencies = lat
	slices.Sort(res.latencies)
	return res, nil
}

// post sends one request and reads the whole answer.
func (l load) post(ctx context.Context, client *http.Client, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.token)
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	d := time.Since(t0)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("%s answered %s", l.url, resp.Status)
	}
	return d, err
}

// report prints progress every second until the returned stop is called.
func (l load) report(done *atomic.Int64) (stop func()) {
	if l.progress == "" {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fmt.Fprintf(os.Stderr, "  %s: %d/%d requests\n", l.progress, done.Load(), l.n)
			}
		}
	}()
	return func() { close(quit); <-finished }
}
