package rules

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relayops/relayops/internal/corpus"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// The golden file pins every output of the rules extractor on a large,
// varied set of documents: any change of behaviour, however small, fails
// TestRules_OutputsMatchTheGoldenFile. A change that is meant to alter
// results regenerates it, and its diff is part of the review:
//
//	go test ./extract -run TestRules_OutputsMatchTheGoldenFile -update-golden
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/rules.jsonl.gz from the current rules extractor")

const goldenPath = "testdata/golden/rules.jsonl.gz"

// goldenSeed and goldenCount fix the generated part of the golden corpus.
const (
	goldenSeed  = 16
	goldenCount = 3000
)

// goldenDoc is one input of the golden corpus.
type goldenDoc struct {
	id   string
	text string
}

// goldenRecord is one line of the golden file: the input's hash and every
// output of the three stages, byte for byte.
type goldenRecord struct {
	ID        string          `json:"id"`
	Input     string          `json:"input"` // sha256 of the document, hex
	Classify  json.RawMessage `json:"classify"`
	Extract   json.RawMessage `json:"extract"`
	Validate  json.RawMessage `json:"validate,omitempty"`
	Rejection string          `json:"rejection,omitempty"` // the reason code
	Error     string          `json:"error,omitempty"`     // any other error
}

// goldenDocs returns the hand-written documents of testdata (samples,
// evaluation corpus, fuzz seeds), the generated evaluation corpus, and
// variants of both (case, line endings, truncation, tabs) that walk the
// case-folding and layout paths a scanner may get wrong.
func goldenDocs(t *testing.T) []goldenDoc {
	t.Helper()
	var hand []goldenDoc
	for _, dir := range []string{"../../testdata/invoices", "../../testdata/corpus"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			hand = append(hand, goldenDoc{id: filepath.Base(dir) + "/" + filepath.Base(f), text: string(b)})
		}
	}
	hand = append(hand, fuzzSeeds(t)...)
	gen, err := corpus.Generate(goldenSeed, goldenCount)
	require.NoError(t, err)
	docs := make([]goldenDoc, 0, 2*len(hand)*len(variants)+2*len(gen))
	for _, d := range hand {
		docs = append(docs, d)
		for _, v := range variants {
			docs = append(docs, goldenDoc{id: d.id + "/" + v.name, text: v.apply(d.text)})
		}
	}
	for i, g := range gen {
		docs = append(docs, goldenDoc{id: g.ID, text: g.Text})
		v := variants[i%len(variants)]
		docs = append(docs, goldenDoc{id: g.ID + "/" + v.name, text: v.apply(g.Text)})
	}
	return docs
}

// variants rewrite a document in ways its writer might have.
var variants = []struct {
	name  string
	apply func(string) string
}{
	{"upper", strings.ToUpper},
	{"lower", strings.ToLower},
	{"crlf", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	{"half", func(s string) string { return s[:len(s)/2] }},
	{"tabs", func(s string) string { return strings.ReplaceAll(s, "  ", "\t") }},
	{"nbsp", func(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }},
}

// fuzzSeeds reads the committed fuzz corpus of FuzzRules.
func fuzzSeeds(t *testing.T) []goldenDoc {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzRules", "*"))
	require.NoError(t, err)
	var out []goldenDoc
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		require.Len(t, lines, 2, f)
		lit, ok := strings.CutPrefix(lines[1], "string(")
		require.True(t, ok, f)
		text, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		require.NoError(t, err, f)
		out = append(out, goldenDoc{id: "fuzz/" + filepath.Base(f), text: text})
	}
	return out
}

// goldenRun runs the three stages of the rules extractor over d.
func goldenRun(t *testing.T, d goldenDoc) goldenRecord {
	t.Helper()
	ctx := context.Background()
	sum := sha256.Sum256([]byte(d.text))
	rec := goldenRecord{ID: d.id, Input: hex.EncodeToString(sum[:])}
	var r Rules
	cls, err := r.Classify(ctx, d.text)
	require.NoError(t, err, d.id)
	rec.Classify = cls
	ext, err := r.Extract(ctx, d.text, cls)
	require.NoError(t, err, d.id)
	rec.Extract = ext
	inv, err := r.Validate(ctx, ext)
	var rej *extract.Rejection
	switch {
	case errors.As(err, &rej):
		rec.Rejection = rej.Reason
	case err != nil:
		rec.Error = err.Error()
	default:
		rec.Validate = inv
	}
	return rec
}

func TestRules_OutputsMatchTheGoldenFile(t *testing.T) {
	t.Parallel()
	docs := goldenDocs(t)
	got := make([]goldenRecord, len(docs))
	for i, d := range docs {
		got[i] = goldenRun(t, d)
	}
	if *updateGolden {
		writeGolden(t, got)
		return
	}
	want := readGolden(t)
	require.Equal(t, len(want), len(got), "documents in the golden file; regenerate it with -update-golden if the corpus changed on purpose")
	var diffs []string
	for i := range got {
		if d := diffRecord(want[i], got[i]); d != "" {
			diffs = append(diffs, d)
		}
	}
	require.Empty(t, diffs, "%d of %d documents differ from the golden file", len(diffs), len(got))
}

// diffRecord describes how got differs from want, or returns "".
func diffRecord(want, got goldenRecord) string {
	if want.ID != got.ID || want.Input != got.Input {
		return fmt.Sprintf("%s: the input changed (golden %s %s): regenerate with -update-golden if on purpose", got.ID, want.ID, want.Input[:12])
	}
	var out []string
	for _, f := range []struct {
		name      string
		want, got []byte
	}{
		{"classify", want.Classify, got.Classify},
		{"extract", want.Extract, got.Extract},
		{"validate", want.Validate, got.Validate},
		{"rejection", []byte(want.Rejection), []byte(got.Rejection)},
		{"error", []byte(want.Error), []byte(got.Error)},
	} {
		if !bytes.Equal(f.want, f.got) {
			out = append(out, fmt.Sprintf("%s %s:\n  want %s\n  got  %s", got.ID, f.name, f.want, f.got))
		}
	}
	return strings.Join(out, "\n")
}

func readGolden(t *testing.T) []goldenRecord {
	t.Helper()
	f, err := os.Open(goldenPath)
	require.NoError(t, err, "regenerate with -update-golden")
	t.Cleanup(func() { _ = f.Close() })
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var out []goldenRecord
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec goldenRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		out = append(out, rec)
	}
	require.NoError(t, sc.Err())
	return out
}

func writeGolden(t *testing.T, recs []goldenRecord) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, rec := range recs {
		require.NoError(t, enc.Encode(rec))
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
	require.NoError(t, os.WriteFile(goldenPath, buf.Bytes(), 0o644))
	t.Logf("wrote %s: %d documents, %d bytes", goldenPath, len(recs), buf.Len())
}
