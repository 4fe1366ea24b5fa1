package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchDocs are the sample invoices of testdata/invoices that succeed.
func benchDocs(b *testing.B) []string {
	b.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "invoices", "*.txt"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no samples: %v", err)
	}
	var docs []string
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasPrefix(base, "valid-") && !strings.HasPrefix(base, "real-") {
			continue
		}
		content, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, string(content))
	}
	return docs
}

// BenchmarkRules runs classify → extract → validate over the sample
// invoices and reports documents per second and nanoseconds per document.
func BenchmarkRules(b *testing.B) {
	benchmarkRules(b, benchDocs(b))
}

// BenchmarkRulesBasicInvoice runs the three stages on the 1 KiB invoice the
// pipeline benchmark submits.
func BenchmarkRulesBasicInvoice(b *testing.B) {
	content, err := os.ReadFile(filepath.Join("..", "..", "testdata", "invoices", "valid-basic-eur.txt"))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRules(b, []string{string(content)})
}

func benchmarkRules(b *testing.B, docs []string) {
	ctx := context.Background()
	r := Rules{}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		doc := docs[n%len(docs)]
		n++
		cls, err := r.Classify(ctx, doc)
		if err != nil {
			b.Fatal(err)
		}
		ext, err := r.Extract(ctx, doc, cls)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Validate(ctx, ext); err != nil {
			b.Fatal(err)
		}
	}
	perDoc := float64(b.Elapsed().Nanoseconds()) / float64(n)
	b.ReportMetric(perDoc, "ns/doc")
	b.ReportMetric(1e9/perDoc, "docs/s")
}
