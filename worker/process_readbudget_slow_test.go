//go:build linux && slow

package worker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/readbomb"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// procReadBudget is the worker's read memory budget in this test: the default.
const procReadBudget = 1 << 30

// ocrCommand is the OCR command the worker runs: tesseract when it is
// installed, else a stand-in that finds no text on any page (the worker's
// own memory, which this test measures, is the same either way: OCR runs
// in processes of its own).
func ocrCommand(t *testing.T) (string, string) {
	t.Helper()
	if path, err := exec.LookPath("tesseract"); err == nil {
		return path, "tesseract"
	}
	script := filepath.Join(t.TempDir(), "tesseract")
	body := "#!/bin/sh\n" +
		"case \"$1\" in --list-langs) printf 'List of available languages (1):\\neng\\n'; exit 0;; esac\n" +
		"printf 'level\\tpage_num\\tblock_num\\tpar_num\\tline_num\\tword_num\\tleft\\ttop\\twidth\\theight\\tconf\\ttext\\n' > \"$2.tsv\"\n"
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	return script, "a stand-in finding no text (tesseract is not installed)"
}

// The crafted files of issue 31, submitted 20 at a time to one worker with
// 20 slots and the default read budget: every job ends with a reason code
// within seconds, and the worker's peak resident memory stays under its
// idle baseline plus the budget. The figures are printed.
func TestProcess_CraftedFiles20AtATime_EndWithAReasonWithinTheReadBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd, which := ocrCommand(t)
	w := e.startWorker("A", procOpts{logLevel: "info", env: []string{
		"RELAYOPS_CONCURRENCY=20", "RELAYOPS_OCR_COMMAND=" + cmd, "RELAYOPS_OCR_LANGUAGES=eng",
		fmt.Sprintf("RELAYOPS_READ_MEMORY=%d", procReadBudget),
	}})
	_, baseline, err := w.Memory()
	require.NoError(t, err)
	t.Logf("worker idle: %d MiB resident; OCR: %s", baseline>>20, which)

	for _, c := range []struct {
		name, media, reason string
		data                []byte
	}{
		{"jpeg-144b", "image/jpeg", extract.ReasonUnreadableDocument, readbomb.ProgressiveJPEG()},
		{"png-2kb", "image/png", extract.ReasonUnreadableDocument, readbomb.TruncatedPNG()},
		{"tiff-311kb", "image/tiff", extract.ReasonNoTextLayer, readbomb.DeflateTIFF()},
		{"tiff-50-pages", "image/tiff", extract.ReasonTooManyPages, readbomb.SharedStripTIFF(50)},
		{"pdf-50-pages", "application/pdf", extract.ReasonTooManyPages, readbomb.ScanPDF(50)},
	} {
		keys := make([]jobs.Key, 20)
		start := time.Now()
		for i := range keys {
			keys[i] = mustKey(t, "acme", fmt.Sprintf("%s-%02d", c.name, i), 1)
			e.submit(keys[i], jobs.FileContent(c.media, c.name, c.data), jobs.DefaultLimits)
		}
		for _, k := range keys {
			e.waitState(k, jobs.StateDeadLettered, 3*time.Minute)
		}
		took := time.Since(start)
		for _, k := range keys {
			j := e.job(k)
			require.Equal(t, c.reason, j.ErrorReason, "%s: %s", c.name, k)
			require.Equal(t, 1, j.Attempt, "%s: one attempt", k)
		}
		peak, now, err := w.Memory()
		require.NoError(t, err)
		t.Logf("20 × %-14s (%7d bytes): all %s after %5.1fs; worker peak %4d MiB, now %4d MiB",
			c.name, len(c.data), c.reason, took.Seconds(), peak>>20, now>>20)
	}
	peak, _, err := w.Memory()
	require.NoError(t, err)
	t.Logf("worker peak (VmHWM) %d MiB against idle %d MiB + read budget %d MiB", peak>>20, baseline>>20, procReadBudget>>20)
	require.Less(t, peak, baseline+procReadBudget, "the read budget bounds what 20 slots hold at once")
	require.Equal(t, float64(procReadBudget), w.Metric("relayops_worker_read_memory_bytes", nil))
	require.Zero(t, w.Metric("relayops_worker_read_memory_reserved_bytes", nil), "every reservation was given back")
	redistest.Eventually(t, 10*time.Second, func() bool {
		return w.MetricOrZero(metricJobs, outcome(OutcomeDeadLettered)) == 100
	}, "the worker counted 100 rejections")
}
