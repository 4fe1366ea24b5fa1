// Command benchpdf measures the PDF reader (document/pdf) on real files and
// prints the figures beside pdftotext -layout's on the same files:
//
//   - start-up: New with an empty compilation cache (wazero compiles PDFium)
//     and again with the cache filled, each in a fresh process (this command
//     re-runs itself with -startup) so no in-memory cache helps;
//   - read: ms per page of Read over every file, one at a time, against
//     pdftotext -layout with its process start, per file;
//   - load: 20 documents in flight on one Reader (Config.Instances
//     instances): wall time, peak RSS and Go heap after it.
//
// With -dump it prints each file's layout text instead.
//
// Usage: go run ./scripts/benchpdf [-dir document/pdf/testdata] [-rounds 3] [-inflight 20] [-dump]
// Figures only; nothing is asserted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/relayops/relayops/document/pdf"
)

func main() {
	dir := flag.String("dir", "document/pdf/testdata", "directory searched for *.pdf")
	rounds := flag.Int("rounds", 3, "reads of every file")
	inflight := flag.Int("inflight", 20, "documents in flight for the load figure")
	instances := flag.Int("instances", 2, "PDFium instances")
	dump := flag.Bool("dump", false, "print each file's layout text and exit")
	startup := flag.String("startup", "", "internal: time one New with this cache dir and exit")
	flag.Parse()
	if err := run(*dir, *rounds, *inflight, *instances, *dump, *startup); err != nil {
		fmt.Fprintln(os.Stderr, "benchpdf:", err)
		os.Exit(1)
	}
}

func run(dir string, rounds, inflight, instances int, dump bool, startup string) error {
	ctx := context.Background()
	if startup != "" {
		return timeStartup(ctx, startup)
	}
	files, err := pdfFiles(dir)
	if err != nil {
		return err
	}
	if dump {
		return dumpFiles(ctx, files)
	}
	if err := printStartup(); err != nil {
		return err
	}
	r, err := pdf.New(ctx, pdf.Config{Instances: instances})
	if err != nil {
		return err
	}
	defer r.Close()
	if err := printReads(ctx, r, files, rounds); err != nil {
		return err
	}
	return printLoad(ctx, r, files, inflight, instances)
}

func pdfFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(strings.ToLower(path), ".pdf") {
			files = append(files, path)
		}
		return err
	})
	slices.Sort(files)
	return files, err
}

func dumpFiles(ctx context.Context, files []string) error {
	r, err := pdf.New(ctx, pdf.Config{})
	if err != nil {
		return err
	}
	defer r.Close()
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := r.Read(ctx, data)
		if err != nil {
			fmt.Printf("=== %s: %v\n", path, err)
			continue
		}
		for i, p := range f.Pages {
			fmt.Printf("=== %s page %d\n%s", path, i+1, p)
		}
		for _, a := range f.Attachments {
			fmt.Printf("=== %s attachment %s (%d bytes)\n", path, a.Name, len(a.Data))
		}
	}
	return nil
}

func timeStartup(ctx context.Context, cacheDir string) error {
	start := time.Now()
	r, err := pdf.New(ctx, pdf.Config{CacheDir: cacheDir, Instances: 1})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Printf("%.0f\n", float64(elapsed.Microseconds())/1000)
	return r.Close()
}

// printStartup runs this command twice with -startup on one new cache
// directory: the first run compiles, the second loads the compiled code.
func printStartup() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp("", "benchpdf-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	var ms [2]string
	for i := range ms {
		out, err := exec.Command(self, "-startup", cache).Output()
		if err != nil {
			return fmt.Errorf("startup run: %w", err)
		}
		ms[i] = strings.TrimSpace(string(out))
	}
	fmt.Printf("start-up (New, one instance): without compilation cache %s ms, with cache %s ms\n", ms[0], ms[1])
	return nil
}

func printReads(ctx context.Context, r *pdf.Reader, files []string, rounds int) error {
	fmt.Printf("%-60s %5s %12s %12s\n", "file", "pages", "pdfium ms/p", "pdftotext ms/p")
	var totalPages int
	var totalOurs, totalTheirs time.Duration
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var pages int
		start := time.Now()
		for range rounds {
			f, err := r.Read(ctx, data)
			if err != nil {
				pages = 0
				break
			}
			pages = len(f.Pages)
		}
		if pages == 0 {
			continue // a bad file of the test set
		}
		ours := time.Since(start) / time.Duration(rounds)
		theirs := timePdftotext(path, rounds)
		totalPages += pages
		totalOurs += ours
		totalTheirs += theirs
		fmt.Printf("%-60s %5d %12.1f %12s\n", trim(path, 60), pages, perPage(ours, pages), msOrNone(theirs, pages))
	}
	fmt.Printf("%-60s %5d %12.1f %12s\n", "all", totalPages, perPage(totalOurs, totalPages), msOrNone(totalTheirs, totalPages))
	return nil
}

// timePdftotext runs pdftotext -layout rounds times, process start
// included; 0 when it is not installed.
func timePdftotext(path string, rounds int) time.Duration {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		return 0
	}
	start := time.Now()
	for range rounds {
		if exec.Command("pdftotext", "-layout", path, os.DevNull).Run() != nil {
			return 0
		}
	}
	return time.Since(start) / time.Duration(rounds)
}

func printLoad(ctx context.Context, r *pdf.Reader, files []string, inflight, instances int) error {
	var docs [][]byte
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, err := r.Read(ctx, data); err == nil {
			docs = append(docs, data)
		}
	}
	if len(docs) == 0 {
		return fmt.Errorf("no readable PDF in the set")
	}
	stop := make(chan struct{})
	peak := samplePeakRSS(stop)
	start := time.Now()
	var wg sync.WaitGroup
	var pages int
	var mu sync.Mutex
	for i := range inflight {
		wg.Go(func() {
			f, err := r.Read(ctx, docs[i%len(docs)])
			if err == nil {
				mu.Lock()
				pages += len(f.Pages)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("load: %d documents in flight (%d pages) on %d instances: %.0f ms wall, %.1f ms/page; peak RSS %d MiB, Go heap in use %d MiB (wasm memory is outside the Go heap), Go sys %d MiB\n",
		inflight, pages, instances, ms2(elapsed), perPage(elapsed, pages), <-peak>>20, ms.HeapInuse>>20, ms.Sys>>20)
	return nil
}

// samplePeakRSS reads /proc/self/status's VmHWM (peak RSS) when stop closes.
func samplePeakRSS(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		<-stop
		out <- vmHWM()
	}()
	return out
}

func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb uint64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

func perPage(d time.Duration, pages int) float64 {
	if pages == 0 {
		return 0
	}
	return ms2(d) / float64(pages)
}

func ms2(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msOrNone(d time.Duration, pages int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", perPage(d, pages))
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}
