package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The deployment a replay runs against: a throwaway redis-server, the api
// and one worker, built from this repository, on loopback ports only.
const (
	tenant       = "inbox" // the one tenant whose inbox is replayed
	operatorName = "clerk" // the operator who corrects and decides

	startTimeout = 60 * time.Second // a process started → ready
	stopTimeout  = 15 * time.Second // SIGTERM → SIGKILL
	portAttempts = 3                // a free port taken by another process meanwhile: retried on a new one
	logTail      = 40               // lines of a process's log shown when it fails
)

// binaries are the api and worker programs built for the replay.
type binaries struct {
	dir, api, worker string
}

// build compiles ./cmd/api and ./cmd/worker of the repository at root into
// a temporary directory (Go's build cache makes a second build quick).
func build(ctx context.Context, root string, progress io.Writer) (binaries, error) {
	dir, err := os.MkdirTemp("", "evalinbox-bin-")
	if err != nil {
		return binaries{}, err
	}
	b := binaries{dir: dir, api: filepath.Join(dir, "api"), worker: filepath.Join(dir, "worker")}
	for _, p := range []struct{ out, pkg string }{{b.api, "./cmd/api"}, {b.worker, "./cmd/worker"}} {
		fmt.Fprintf(progress, "evalinbox: go build %s\n", p.pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", p.out, p.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.remove()
			return binaries{}, fmt.Errorf("go build %s: %v\n%s", p.pkg, err, out)
		}
	}
	return b, nil
}

func (b binaries) remove() { _ = os.RemoveAll(b.dir) }

// checkTools reports what the replay needs and the machine lacks.
func checkTools() error {
	var missing []string
	for _, t := range []struct{ bin, why string }{
		{"redis-server", "redis-server is not installed (apt-get install redis-server): the replay runs the real system on a throwaway redis-server"},
		{"pdfdetach", "pdfdetach is not installed (apt-get install poppler-utils): it reads the truth of the hybrid PDFs"},
		{"go", "go is not on the PATH: the replay builds ./cmd/api and ./cmd/worker"},
	} {
		if _, err := exec.LookPath(t.bin); err != nil {
			missing = append(missing, t.why)
		}
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, "; "))
	}
	return nil
}

// system is one deployment: redis-server, api and worker, each with its
// log file in dir, and the tokens the replay set.
type system struct {
	profiles                   string // RELAYOPS_SUPPLIER_PROFILES: on or off
	dir                        string // logs and Redis' files
	redis, api, worker         *process
	apiURL                     string
	tenantToken, operatorToken string
}

// deploy starts a fresh system: nothing learned, no fingerprint, no job.
func deploy(ctx context.Context, bins binaries, profiles string) (*system, error) {
	dir, err := os.MkdirTemp("", "evalinbox-"+profiles+"-")
	if err != nil {
		return nil, err
	}
	s := &system{profiles: profiles, dir: dir, tenantToken: secret("inbox-"), operatorToken: secret("clerk-")}
	if err := s.start(ctx, bins); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *system) start(ctx context.Context, bins binaries) error {
	var redisAddr string
	var err error
	s.redis, redisAddr, err = startListening(ctx, "redis", func(addr string) (*process, error) {
		_, port, _ := net.SplitHostPort(addr)
		return launch("redis", s.dir, "redis-server", []string{"--port", port, "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", s.dir}, os.Environ())
	}, redisReady)
	if err != nil {
		return err
	}
	env := s.env(redisAddr)
	s.api, s.apiURL, err = startListening(ctx, "api", func(addr string) (*process, error) {
		return launch("api", s.dir, bins.api, nil, append(env, "RELAYOPS_HTTP_ADDR="+addr))
	}, httpReady)
	if err != nil {
		return err
	}
	s.apiURL = "http://" + s.apiURL
	s.worker, _, err = startListening(ctx, "worker", func(addr string) (*process, error) {
		return launch("worker", s.dir, bins.worker, nil, append(env, "RELAYOPS_METRICS_ADDR="+addr))
	}, httpReady)
	return err
}

// env is the deployment's configuration: the machine's environment without
// any RELAYOPS_ variable of its own, then the replay's.
func (s *system) env(redisAddr string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RELAYOPS_") {
			env = append(env, kv)
		}
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return append(env,
		"RELAYOPS_REDIS_URL=redis://"+redisAddr+"/0",
		"RELAYOPS_TENANT_TOKENS="+tenant+":"+s.tenantToken,
		"RELAYOPS_OPERATOR_TOKENS="+operatorName+":"+s.operatorToken,
		// Profiles are tenant data, sealed at rest as in production.
		"RELAYOPS_DATA_KEY="+base64.StdEncoding.EncodeToString(key),
		profilesSetting+"="+s.profiles,
	)
}

// stop ends the worker, the api and Redis, in that order, and removes the
// files unless keepFiles.
func (s *system) stop() {
	for _, p := range []*process{s.worker, s.api, s.redis} {
		if p != nil {
			p.stop()
		}
	}
}

func (s *system) removeFiles() { _ = os.RemoveAll(s.dir) }

// secret is a fresh bearer token.
func secret(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// process is one program the replay started, its output in a log file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed once it exited
}

func launch(name, dir, bin string, args, env []string) (*process, error) {
	p := &process{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own descriptor
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, f, f
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM (a clean shutdown), then SIGKILL after stopTimeout.
func (p *process) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail is the end of the process's log.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-logTail):], "\n")
}

// startListening starts a process on a free loopback address and waits
// until ready answers on it; a port another process took meanwhile is
// retried on a new one.
func startListening(ctx context.Context, name string, start func(addr string) (*process, error),
	ready func(ctx context.Context, addr string) bool) (*process, string, error) {
	for attempt := 1; ; attempt++ {
		addr, err := freeAddr()
		if err != nil {
			return nil, "", err
		}
		p, err := start(addr)
		if err != nil {
			return nil, "", err
		}
		if err := awaitReady(ctx, p, addr, ready); err == nil {
			return p, addr, nil
		} else if !p.exited() || attempt == portAttempts || ctx.Err() != nil {
			p.stop()
			return nil, "", fmt.Errorf("%s on %s: %w; the end of its log (%s):\n%s", name, addr, err, p.log, p.tail())
		}
	}
}

func awaitReady(ctx context.Context, p *process, addr string, ready func(ctx context.Context, addr string) bool) error {
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		switch {
		case p.exited():
			return errors.New("exited at start")
		case ready(ctx, addr):
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("not ready within %s", startTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// freeAddr is a loopback address with a port free at the time of asking.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// redisReady: the server answers PING with PONG.
func redisReady(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	b := make([]byte, 7)
	n, _ := io.ReadFull(c, b)
	return string(b[:n]) == "+PONG\r\n"
}

// httpReady: GET /readyz answers 200 (the api's, and the worker's on its
// metrics address).
func httpReady(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
