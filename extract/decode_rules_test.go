package extract_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/corpus"
)

// rulesDocs are the hand-written sample invoices and a generated corpus.
func rulesDocs(t *testing.T) []string {
	t.Helper()
	var docs []string
	for _, dir := range []string{"../testdata/invoices", "../testdata/corpus"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			docs = append(docs, string(b))
		}
	}
	gen, err := corpus.Generate(7, 200)
	require.NoError(t, err)
	for _, d := range gen {
		docs = append(docs, d.Text)
	}
	return docs
}

func TestDecode_ReadsWhatJSONUnmarshalReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var r rules.Rules
	read := 0
	for _, text := range rulesDocs(t) {
		cls, err := r.Classify(ctx, text)
		require.NoError(t, err)
		for _, b := range extract.ExtractionVariants(cls) {
			extract.CheckDecodeClassification(t, b)
		}
		ext, err := r.Extract(ctx, text, cls)
		require.NoError(t, err)
		if extract.ReadsStrictly(t, ext) {
			read++
		}
		for _, b := range extract.ExtractionVariants(ext) {
			extract.CheckDecode(t, b)
		}
	}
	require.Positive(t, read, "the strict reader reads the rules' own output")
}
