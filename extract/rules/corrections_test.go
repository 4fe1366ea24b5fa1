package rules_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
)

func ptr(s string) *string { return &s }

func TestWithCorrections_RulesExtractor_CorrectionWinsAndNotAnInvoiceIsOverruled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	receipt := "CORNER SHOP\nRECEIPT\nTea 2.50\nTOTAL 2.50\nChange due 0.50\n"
	x := extract.WithCorrections(rules.Rules{}, extract.Corrections{
		InvoiceNumber: ptr("R-1"), Vendor: ptr("Corner Shop"), IssueDate: ptr("2026-03-03"),
		Currency: ptr("GBP"), Total: ptr("2.50"),
	})
	cls, err := x.Classify(ctx, receipt)
	require.NoError(t, err)
	ext, err := x.Extract(ctx, receipt, cls)
	require.NoError(t, err)
	res, err := x.Validate(ctx, ext)
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, "R-1", inv.InvoiceNumber)
	require.Equal(t, "2.50", inv.Total)

	_, err = rules.Rules{}.Validate(ctx, mustExtract(t, rules.Rules{}, receipt))
	var rej *extract.Rejection
	require.ErrorAs(t, err, &rej, "without corrections the receipt is rejected")
}

func mustExtract(t *testing.T, x extract.Extractor, content string) []byte {
	t.Helper()
	cls, err := x.Classify(context.Background(), content)
	require.NoError(t, err)
	ext, err := x.Extract(context.Background(), content, cls)
	require.NoError(t, err)
	return ext
}
