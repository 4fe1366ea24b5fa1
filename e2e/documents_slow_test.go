//go:build linux && slow

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// fiftyPages makes a 50-page hybrid PDF from a real one with qpdf: page 1
// fifty times, the document's catalog (and so its embedded XML) kept.
func fiftyPages(t *testing.T) []byte {
	t.Helper()
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		if os.Getenv("RELAYOPS_REQUIRE_QPDF") == "1" {
			t.Fatal("qpdf is required (RELAYOPS_REQUIRE_QPDF=1): apt-get install qpdf")
		}
		t.Skip("SKIP: qpdf not installed (apt-get install qpdf); it builds the 50-page PDF of this test")
	}
	src := filepath.Join("..", "document", "pdf", "testdata", "mustangproject", "EN16931_Einfach.pdf")
	out := filepath.Join(t.TempDir(), "fifty.pdf")
	args := []string{src, "--pages"}
	for range 50 {
		args = append(args, ".", "1")
	}
	args = append(args, "--", out)
	if b, err := exec.Command(qpdf, args...).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v: %s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestE2E_WorkerKilledReadingA50PagePDF_AnotherFinishesIt_OneReview(t *testing.T) {
	t.Parallel()
	s := setup(t, options{noWorker: true})
	doomed := proctest.Start(t, proctest.Options{
		Name: "worker-doomed", Bin: proctest.Binary(t, "cmd/worker"),
		Env:      s.env("RELAYOPS_FAULTS=after_read=kill#1", "RELAYOPS_CONCURRENCY=4"),
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"},
	})
	id := s.submitFile(t, tokA, "fifty-1", "application/pdf", fiftyPages(t)).JobID
	if sig := proctest.KilledBy(doomed.Wait(jobTimeout)); sig != syscall.SIGKILL {
		t.Fatalf("want the worker killed after it read the PDF, got %v", sig)
	}
	if j := s.job(t, tokA, id); j.State != "running" {
		t.Fatalf("want the killed worker to leave the job running, got: %v", j)
	}
	k, _ := jobs.ParseKey(id)
	lease := "asynq:{" + task.NewLayout(0, shards, false).Queue(jobs.Shard(k.Tenant, k.DocumentID, shards)) + "}:lease"
	rdb := s.redis.Client(t)
	redistest.Eventually(t, 2*time.Minute, func() bool {
		score, err := rdb.ZScore(context.Background(), lease, id).Result()
		return err == nil && time.Now().Unix() > int64(score)+31
	}, "the lease of %s to be recoverable", id)
	s.workers = []*proctest.Process{s.startWorker("worker-2", "")}
	j := s.waitState(t, tokA, id, stateSucceeded)
	if j.Attempt != 1 {
		t.Fatalf("want attempt 1 (a crash is no failed attempt), got: %v", j)
	}
	s.waitReview(t, tokA, id)
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != 1 {
		t.Fatalf("want exactly one review, got: %v", rs)
	}
	t.Log("the 50-page PDF was read again by worker-2 and reviewed once")
}

func TestE2E_WorkerKilledAfterOCR_AnotherResumesWithoutOCRAgain(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("RELAYOPS_REQUIRE_OCR") == "1" {
			t.Fatal("RELAYOPS_REQUIRE_OCR=1 but tesseract is not installed")
		}
		t.Skip("SKIP: tesseract not installed (apt-get install tesseract-ocr); this test OCRs a scan")
	}
	s := setup(t, options{noWorker: true, env: []string{"RELAYOPS_OCR_LANGUAGES=deu+eng"}})
	doomed := proctest.Start(t, proctest.Options{
		Name: "worker-doomed", Bin: proctest.Binary(t, "cmd/worker"),
		Env:      s.env("RELAYOPS_FAULTS=after_read=kill#1", "RELAYOPS_CONCURRENCY=4"),
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"},
	})
	scan := realFile(t, "document", "pdf", "testdata", "generated", "scan.pdf")
	id := s.submitFile(t, tokA, "scan-1", "application/pdf", scan).JobID
	if sig := proctest.KilledBy(doomed.Wait(2 * jobTimeout)); sig != syscall.SIGKILL {
		t.Fatalf("want the worker killed after OCR, got %v", sig)
	}
	k, _ := jobs.ParseKey(id)
	lease := "asynq:{" + task.NewLayout(0, shards, false).Queue(jobs.Shard(k.Tenant, k.DocumentID, shards)) + "}:lease"
	rdb := s.redis.Client(t)
	redistest.Eventually(t, 2*time.Minute, func() bool {
		score, err := rdb.ZScore(context.Background(), lease, id).Result()
		return err == nil && time.Now().Unix() > int64(score)+31
	}, "the lease of %s to be recoverable", id)
	w := s.startWorker("worker-2", "")
	s.workers = []*proctest.Process{w}
	j := s.waitFinished(t, tokA, id)
	// The scan is a real invoice read by OCR: whatever the rules made of it
	// (a success or a rejection with its reason), the second worker never
	// ran OCR again: it resumed from the read stage's checkpoint.
	if got := w.MetricOrZero("relayops_worker_stage_runs_total", map[string]string{"stage": "read"}); got != 0 {
		t.Fatalf("want worker-2 to resume from the OCR checkpoint (0 reads), got %v reads; job: %v", got, j)
	}
	if got := w.MetricOrZero("relayops_worker_stage_runs_total", map[string]string{"stage": "classify"}); got == 0 {
		t.Fatalf("want worker-2 to have run the stages after the read, got none; job: %v", j)
	}
	t.Logf("job after resuming from the OCR checkpoint: %s %s %s", j.State, j.ErrorCode, j.ErrorReason)
}
