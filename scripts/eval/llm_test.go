package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/corpus"
)

func corpusOf(t *testing.T, seed int64, n int, dir string) func() ([]corpus.Document, error) {
	t.Helper()
	return func() ([]corpus.Document, error) {
		docs, err := corpus.Generate(seed, n)
		if err != nil || dir == "" {
			return docs, err
		}
		hand, err := corpus.Load(dir)
		return append(docs, hand...), err
	}
}

// A faithful model behind the model extractor meets every target: the
// request, the strict decoding and the validator lose nothing on the way.
func TestEval_LLMOnTheRecordedEndpoint_MeetsEveryTarget(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{config.ExtractorLLM} {
		reg := Registry{mode: recordedFactory(mode, corpusOf(t, 3, 80, handDir))}
		var out bytes.Buffer
		met, err := run(context.Background(), options{extractor: mode, seed: 3, n: 80, dir: handDir}, reg, &out)
		require.NoError(t, err)
		require.True(t, met, out.String())
		require.Contains(t, out.String(), "Extractor "+mode+" on")
	}
}

// A document the recording does not know is a failed call, counted as an
// error, never a success.
func TestEval_LLMWithoutARecording_CountsErrorsNotSuccesses(t *testing.T) {
	t.Parallel()
	reg := Registry{config.ExtractorLLM: recordedFactory(config.ExtractorLLM, corpusOf(t, 3, 0, ""))}
	var out bytes.Buffer
	met, err := run(context.Background(), options{extractor: config.ExtractorLLM, seed: 3, n: 20}, reg, &out)
	require.NoError(t, err)
	require.False(t, met, out.String())
	require.NotContains(t, out.String(), "[ok  ] number right", "nothing was extracted")
}

func TestEval_RulesLLMMode_IsRegistered(t *testing.T) {
	t.Parallel()
	require.Contains(t, extractors.Names(), config.ExtractorLLM)
	require.Contains(t, extractors.Names(), config.ExtractorRulesLLM)
}
