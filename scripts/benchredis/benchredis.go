// Package benchredis is what the benchmark commands under scripts/ share: a
// throwaway redis-server on a loopback port, the server's own counters (INFO
// commandstats), percentiles and a parallel loop, so every benchmark loads
// and counts the same way.
package benchredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server started for a benchmark: no persistence,
// loopback only, its files in a temporary directory removed by Stop.
type Server struct {
	URL string
	cmd *exec.Cmd
	dir string
}

// Start runs redis-server on a free loopback port and returns once it
// answers PING.
func Start() (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("redis-server not found on PATH (apt-get install -y redis-server), or pass -redis-url")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	dir, err := os.MkdirTemp("", "bench-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{cmd: cmd, dir: dir, URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port)}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1})
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if rdb.Ping(context.Background()).Err() == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, errors.New("redis-server did not answer PING within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Use returns url when it is set (the -redis-url a benchmark was given,
// which the benchmark may FLUSHALL), or else starts a throwaway
// redis-server and returns its URL; stop stops what was started.
func Use(url string) (string, func(), error) {
	if url != "" {
		return url, func() {}, nil
	}
	srv, err := Start()
	if err != nil {
		return "", nil, err
	}
	return srv.URL, srv.Stop, nil
}

// Stop kills the server and removes its directory.
func (s *Server) Stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = os.RemoveAll(s.dir)
}

// CommandStats returns INFO commandstats as command → calls and command →
// microseconds spent. Commands run inside Lua scripts are counted too.
func CommandStats(ctx context.Context, rdb *redis.Client) (calls, usec map[string]int64, err error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, nil, err
	}
	calls, usec = map[string]int64{}, map[string]int64{}
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				calls[name] = n
			case "usec":
				usec[name] = n
			}
		}
	}
	return calls, usec, nil
}

// CommandsSince returns the calls counted since before (a CommandStats
// result), leaving out INFO itself (the benchmark's own reads).
func CommandsSince(ctx context.Context, rdb *redis.Client, before map[string]int64) (int64, error) {
	after, _, err := CommandStats(ctx, rdb)
	if err != nil {
		return 0, err
	}
	var n int64
	for cmd, calls := range after {
		if cmd != "info" {
			n += calls - before[cmd]
		}
	}
	return n, nil
}

// Percentile returns the p-th percentile (0 < p <= 100, nearest rank) of
// sorted, which must be sorted ascending and non-empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Parallel runs fn(0..n-1) on workers goroutines; the first error stops it
// and is returned.
func Parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errs <- err
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
