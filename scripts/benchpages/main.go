// Command benchpages measures what one tenant's page renders cost another
// tenant's PDF intake, on the real api binary and a real redis-server.
//
// A tenant ("flood") submits -bombs PDFs whose page 1 is a rendering bomb:
// a 51 KB file whose one page draws 20 MiB of path operators, which PDFium
// renders until its time limit. Then, twice, a second tenant ("quiet")
// submits one-page PDFs, one after another, -pace apart, and the command
// records each submission's latency: first -submits of them alone
// ("before"), then -during of them while -threads goroutines of the flood
// tenant ask for the bombs' page 1 as an image, in turn, each asking again
// as soon as it has its answer ("during"). It prints progress every
// second, then the quiet tenant's submit latency p50 / p99 / max before and
// during (and the slowest submissions, with when they came), the flood's
// answers by status, and the resident memory (VmRSS, and its peak VmHWM)
// of the api and of its child processes (its page renderers). Figures
// only; nothing is asserted.
//
// Usage: go run ./scripts/benchpages [-submits 200] [-during n] [-pace 100ms] [-threads 8] [-bombs 1] [-control] [-api-bin path]
//
// Without -api-bin it builds ./cmd/api of this tree; -api-bin measures
// another build (say, one before a change). Without -redis-url it starts
// redis-server on a free loopback port. The api runs with its defaults
// otherwise (-env adds settings, e.g. -env RELAYOPS_PAGE_RENDER_INSTANCES=2).
package main

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relayops/relayops/scripts/benchredis"

	"github.com/relayops/relayops/internal/pdfbuild"
)

const (
	floodToken = "flood-token-0123456789"
	quietToken = "quiet-token-0123456789"
)

type options struct {
	submits, during  int
	threads, bombs   int
	control          bool
	apiBin, redisURL string
	env              stringList
	timeout, pace    time.Duration
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var o options
	flag.IntVar(&o.submits, "submits", 200, "PDF submissions of the quiet tenant before the flood")
	flag.IntVar(&o.during, "during", 0, "PDF submissions of the quiet tenant during the flood (default: -submits; fewer for a build where each takes minutes)")
	flag.IntVar(&o.threads, "threads", 8, "goroutines of the flood tenant asking for the bomb's page 1")
	flag.BoolVar(&o.control, "control", false, "the flood asks for the bombs' job records (GET /v1/jobs/{jobId}) instead of their page images: the cost of the flood's requests alone, for comparison")
	flag.IntVar(&o.bombs, "bombs", 1, "bombs the flood tenant submits; the threads ask for their page 1 in turn (more than one keeps a renderer busy past the page cache)")
	flag.StringVar(&o.apiBin, "api-bin", "", "the api binary to measure (default: go build ./cmd/api of this tree)")
	flag.StringVar(&o.redisURL, "redis-url", "", "use this Redis (it is FLUSHALLed!) instead of starting redis-server")
	flag.Var(&o.env, "env", "NAME=value added to the api's environment (repeatable)")
	flag.DurationVar(&o.pace, "pace", 100*time.Millisecond, "pause between two submissions of the quiet tenant (so that the flood runs for submissions × pace)")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "client timeout of one request (a submission that times out counts with this latency)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchpages:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	redisURL, stopRedis, err := benchredis.Use(o.redisURL)
	if err != nil {
		return err
	}
	defer stopRedis()
	bin := o.apiBin
	if bin == "" {
		dir, err := os.MkdirTemp("", "benchpages-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "api")
		fmt.Println("building ./cmd/api …")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/api").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/api (run from the repository root): %w\n%s", err, out)
		}
	}
	api, err := startAPI(bin, redisURL, o.env)
	if err != nil {
		return err
	}
	defer api.stop()
	c := &client{base: api.url, http: &http.Client{Timeout: o.timeout}, pace: o.pace}

	bomb := renderBomb(20)
	for i := range o.bombs {
		// Each bomb differs by a comment, so each is a document of its own.
		b := append(bytes.Clone(bomb), fmt.Sprintf("%% bomb %d\n", i)...)
		if status, body, err := c.submit(floodToken, fmt.Sprintf("bomb-%d", i), b); err != nil || status != http.StatusAccepted {
			return fmt.Errorf("submitting bomb %d: %d %s %v", i, status, body, err)
		}
	}
	quiet := onePagePDF()
	fmt.Printf("api %s (pid %d); bomb %d bytes, quiet PDF %d bytes\n", bin, api.cmd.Process.Pid, len(bomb), len(quiet))

	before, err := c.submitMany("before", quiet, o.submits, nil)
	if err != nil {
		return err
	}
	rssBefore := memory(api.cmd.Process.Pid)

	f := &flood{bombs: o.bombs, path: "/document/pages/1"}
	if o.control {
		f.path = ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range o.threads {
		wg.Go(func() { f.run(ctx, c) })
	}
	// Let the flood reach the renderer before measuring.
	time.Sleep(time.Second)
	if o.during == 0 {
		o.during = o.submits
	}
	during, err := c.submitMany("during", quiet, o.during, f)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	rssAfter := memory(api.cmd.Process.Pid)

	fmt.Println()
	fmt.Printf("| quiet tenant's PDF submit | n | p50 | p99 | max |\n|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"before the flood", before}, {fmt.Sprintf("during the flood (%d threads)", o.threads), during}} {
		slices.Sort(r.d)
		fmt.Printf("| %s | %d | %s | %s | %s |\n", r.name, len(r.d), ms(benchredis.Percentile(r.d, 50)),
			ms(benchredis.Percentile(r.d, 99)), ms(r.d[len(r.d)-1]))
	}
	fmt.Printf("\nflood answers during the run: %s; page 1 answer time p50 %s, max %s\n", f.summary(),
		ms(f.percentile(50)), ms(f.percentile(100)))
	fmt.Printf("memory before the flood: %s\nmemory after it: %s\n", rssBefore, rssAfter)
	return nil
}

// client calls the api.
type client struct {
	base string
	http *http.Client
	pace time.Duration // between two quiet submissions
}

// submit posts data as a PDF of document doc of the token's tenant.
func (c *client) submit(token, doc string, data []byte) (int, string, error) {
	body, _ := json.Marshal(map[string]any{"documentId": doc, "operationVersion": 1,
		"file": map[string]any{"mediaType": "application/pdf", "data": data}})
	req, _ := http.NewRequest(http.MethodPost, c.base+"/v1/jobs", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// submitMany submits n PDFs of the quiet tenant one after another and
// returns each one's latency, printing progress every second.
func (c *client) submitMany(phase string, pdf []byte, n int, f *flood) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	last, begin := time.Now(), time.Now()
	failed := 0
	type slow struct{ at, took time.Duration }
	var slowest []slow
	defer func() {
		slices.SortFunc(slowest, func(a, b slow) int { return int(b.took - a.took) })
		var parts []string
		for _, x := range slowest[:min(5, len(slowest))] {
			parts = append(parts, fmt.Sprintf("%s at +%.1fs", ms(x.took), x.at.Seconds()))
		}
		fmt.Printf("[%s] slowest: %s\n", phase, strings.Join(parts, ", "))
	}()
	for i := range n {
		start := time.Now()
		status, body, err := c.submit(quietToken, fmt.Sprintf("quiet-%s-%d", phase, i), pdf)
		// A submission that failed (a client timeout) counts with the time
		// it took: a lower bound of its latency.
		out = append(out, time.Since(start))
		slowest = append(slowest, slow{at: start.Sub(begin), took: out[len(out)-1]})
		switch {
		case err != nil:
			failed++
			fmt.Printf("[%s] submit %d failed after %s: %v\n", phase, i, ms(out[len(out)-1]), err)
		case status != http.StatusAccepted:
			return nil, fmt.Errorf("%s: submit %d: %d %s", phase, i, status, body)
		}
		if time.Since(last) >= time.Second || i == n-1 {
			last = time.Now()
			line := fmt.Sprintf("[%s] %d/%d quiet submits (%d failed), last %s", phase, i+1, n, failed, ms(out[len(out)-1]))
			if f != nil {
				line += "; flood answers " + f.summary()
			}
			fmt.Println(line)
		}
		time.Sleep(c.pace)
	}
	return out, nil
}

// flood asks for the bomb's page 1 as the flood tenant, again and again.
type flood struct {
	bombs    int
	path     string // after the job's URL
	next     atomic.Int64
	mu       sync.Mutex
	statuses map[int]int
	errors   int
	times    []time.Duration
}

func (f *flood) run(ctx context.Context, c *client) {
	for ctx.Err() == nil {
		start := time.Now()
		job := fmt.Sprintf("flood:bomb-%d:v1", f.next.Add(1)%int64(f.bombs))
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/jobs/"+job+f.path, nil)
		req.Header.Set("Authorization", "Bearer "+floodToken)
		resp, err := c.http.Do(req)
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		if f.statuses == nil {
			f.statuses = map[int]int{}
		}
		if err != nil {
			f.errors++
		} else {
			f.statuses[resp.StatusCode]++
			f.times = append(f.times, time.Since(start))
		}
		f.mu.Unlock()
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				// A well-behaved client would wait Retry-After; a flood
				// asks again at once, as the attack did.
				continue
			}
		}
	}
}

func (f *flood) summary() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(f.statuses)) {
		parts = append(parts, fmt.Sprintf("%d: %d", s, f.statuses[s]))
	}
	if f.errors > 0 {
		parts = append(parts, fmt.Sprintf("errors: %d", f.errors))
	}
	if len(parts) == 0 {
		return "none yet"
	}
	return strings.Join(parts, ", ")
}

func (f *flood) percentile(p float64) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.times) == 0 {
		return 0
	}
	d := slices.Clone(f.times)
	slices.Sort(d)
	return benchredis.Percentile(d, p)
}

// apiProcess is the api binary running.
type apiProcess struct {
	cmd *exec.Cmd
	url string
}

func startAPI(bin, redisURL string, extra []string) (*apiProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RELAYOPS_REDIS_URL=" + redisURL, "RELAYOPS_HTTP_ADDR=" + addr,
		"RELAYOPS_TENANT_TOKENS=flood:" + floodToken + ",quiet:" + quietToken,
		"RELAYOPS_LOG_LEVEL=warn",
	}, extra...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &apiProcess{cmd: cmd, url: "http://" + addr}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(p.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.stop()
	return nil, errors.New("the api did not answer /healthz within 60s")
}

func (p *apiProcess) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// memory reads the resident memory and its peak of a process and of its
// children (the api's page renderer processes) from /proc.
func memory(pid int) string {
	out := "api " + memoryOf(pid)
	for _, child := range children(pid) {
		out += fmt.Sprintf("; its child %d %s", child, memoryOf(child))
	}
	return out
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		child, err1 := strconv.Atoi(d.Name())
		ppid, err2 := strconv.Atoi(fields[1])
		if err1 == nil && err2 == nil && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// memoryOf reads a process's resident memory and its peak from /proc.
func memoryOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown (no /proc)"
	}
	var rss, hwm string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rss = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm = strings.TrimSpace(v)
		}
	}
	return fmt.Sprintf("VmRSS %s (peak VmHWM %s)", rss, hwm)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// onePagePDF is a one-page invoice PDF with a text layer.
func onePagePDF() []byte {
	content := "BT /F1 12 Tf 72 770 Td (INVOICE 2026-0042) Tj ET\n" +
		"BT /F1 10 Tf 72 740 Td (Acme Supplies GmbH, Hauptstrasse 1, Berlin) Tj ET\n" +
		"BT /F1 10 Tf 72 700 Td (Total due: EUR 1,190.00) Tj ET\n"
	var b pdfbuild.Builder
	cat, pages := b.Reserve(), b.Reserve()
	font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	c := b.Stream("", []byte(content))
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, c))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(cat, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	return b.Bytes(cat)
}

// renderBomb is a one-page PDF whose page draws mib MiB of path operators,
// deflated (20 MiB: about 51 KB): counting its pages is instant, rendering
// its page takes PDFium longer than 30 s.
func renderBomb(mib int) []byte {
	const op = "0 0 m 595 842 l 595 0 l h f\n"
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = w.Write([]byte(strings.Repeat(op, mib<<20/len(op))))
	_ = w.Close()
	var b pdfbuild.Builder
	cat, pages := b.Reserve(), b.Reserve()
	c := b.Stream("/Filter /FlateDecode", z.Bytes())
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R >>", pages, c))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(cat, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	return b.Bytes(cat)
}
