package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract/rules"
)

func TestSyntheticDocuments_AreTwelveValidInvoicesWithTheirConstants(t *testing.T) {
	t.Parallel()
	docs := syntheticDocuments("syn-test")
	require.Len(t, docs, 12)
	require.Len(t, reviewDelays, len(inferenceDelays))
	x := rules.Rules{}
	ctx := context.Background()
	seen := map[string]bool{}
	for _, d := range docs {
		require.False(t, seen[d.content], "each document is distinct, so the extractor finds its delay")
		seen[d.content] = true
		require.GreaterOrEqual(t, d.inference, 200*time.Millisecond)
		require.LessOrEqual(t, d.inference, 800*time.Millisecond)
		cls, err := x.Classify(ctx, d.content)
		require.NoError(t, err, d.key.String())
		ext, err := x.Extract(ctx, d.content, cls)
		require.NoError(t, err, d.key.String())
		_, err = x.Validate(ctx, ext)
		require.NoError(t, err, "%s must succeed, or the run would wait for a review that never comes", d.key)
	}
}

func TestSyntheticExtractor_WaitsTheDocumentsDelayAndMeasuresTheStage(t *testing.T) {
	t.Parallel()
	d := syntheticDocuments("syn-test")[0]
	d.inference = 20 * time.Millisecond
	x := newSyntheticExtractor()
	x.delays[d.content] = d
	cls, err := x.Classify(context.Background(), d.content)
	require.NoError(t, err)
	_, err = x.Extract(context.Background(), d.content, cls)
	require.NoError(t, err)
	require.GreaterOrEqual(t, d.extractTook(), d.inference)
	require.True(t, d.extracted.Load())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = x.Extract(ctx, d.content, cls)
	require.ErrorIs(t, err, context.Canceled, "a cancelled attempt stops waiting")
}
