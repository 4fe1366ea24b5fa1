package main

import (
	"context"
	"testing"

	"github.com/relayops/relayops/internal/corpus"
)

// BenchmarkPipeline runs every registered extractor over the evaluation
// corpus, one document per iteration, and reports documents per second.
func BenchmarkPipeline(b *testing.B) {
	docs, err := corpus.Generate(1, 500)
	if err != nil {
		b.Fatal(err)
	}
	hand, err := corpus.Load(handDir)
	if err != nil {
		b.Fatal(err)
	}
	docs = append(docs, hand...)
	ctx := context.Background()
	for _, name := range extractors.Names() {
		b.Run(name, func(b *testing.B) {
			ex, stop, err := extractors[name](ctx)
			if err != nil {
				b.Fatal(err)
			}
			if stop != nil {
				b.Cleanup(stop)
			}
			i := 0
			for b.Loop() {
				process(ctx, ex, docs[i%len(docs)])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
