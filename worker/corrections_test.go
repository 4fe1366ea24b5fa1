package worker

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/jobs"
)

// A document rejected for its content keeps what was read; a reprocess
// with corrections runs the rules again with the corrected fields over
// their extraction, and commits.
func TestHandler_RejectedKeepsExtraction_CorrectedVersionCommits(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{extractor: rules.Rules{}})
	k := mustKey(t, "acme", "inv-77", 1)
	b.submit(t, k, readSample(t, "invalid-total-mismatch.txt"), 0)

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)
	require.Equal(t, extract.ReasonTotalMismatch, b.job(t, k).ErrorReason)
	raw, err := b.store.Rejection(b.ctx, k)
	require.NoError(t, err)
	var kept extract.Kept
	require.NoError(t, json.Unmarshal(raw, &kept))
	require.Equal(t, "INV-2024-0077", kept.Fields.InvoiceNumber)
	require.Equal(t, "420.00", kept.Fields.Total)
	require.Contains(t, kept.Failed, extract.FailedCheck{Field: "total", Check: extract.ReasonTotalMismatch})
	require.NotContains(t, b.logs.String(), "Fabrikam", "what was read never reaches the log")

	total := "407.50"
	corr, err := json.Marshal(extract.Corrections{Total: &total})
	require.NoError(t, err)
	r, err := b.store.Reprocess(b.ctx, jobs.ReprocessRequest{Key: k, Operator: "alice", Reason: "total misread", Corrections: corr})
	require.NoError(t, err)

	require.NoError(t, b.deliver(r.Job.Key))
	require.Equal(t, jobs.StateSucceeded, b.job(t, r.Job.Key).State)
	res, err := b.store.Result(b.ctx, r.Job.Key)
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, "407.50", inv.Total)
	require.Equal(t, extract.EvidenceCorrection, inv.Evidence["total"].Source)
}
