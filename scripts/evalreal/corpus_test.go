package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCorpus_NoFalseSuccessAndEveryNonInvoiceRejected runs the real corpus
// as `make eval-real` does and holds its first two targets: no document
// succeeds with a wrong number or total, no non-invoice succeeds. It needs
// pdfdetach (poppler-utils) for the truth of the hybrid PDFs: it skips
// loudly without it, and fails instead when RELAYOPS_REQUIRE_QPDF=1 (CI
// installs poppler-utils with qpdf and sets it).
func TestCorpus_NoFalseSuccessAndEveryNonInvoiceRejected(t *testing.T) {
	if _, err := exec.LookPath("pdfdetach"); err != nil {
		if os.Getenv("RELAYOPS_REQUIRE_QPDF") == "1" {
			t.Fatal("RELAYOPS_REQUIRE_QPDF=1 but pdfdetach is not installed (apt-get install poppler-utils)")
		}
		t.Skip("SKIPPED: pdfdetach is not installed (apt-get install poppler-utils); it reads the hybrid PDFs' truth")
	}
	var report strings.Builder
	falseSuccesses, err := run(context.Background(), options{root: "../..", verbose: true}, &report, io.Discard)
	require.NoError(t, err)
	require.NotContains(t, report.String(), "rejected read:", "every document must be read")
	require.Zero(t, falseSuccesses, report.String())
	require.Contains(t, report.String(), "every non-invoice rejected met", report.String())
	t.Log(report.String())
}
