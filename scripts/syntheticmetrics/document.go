package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/jobs"
)

// document is one synthetic invoice and what the run observes of it.
type document struct {
	index       int
	key         jobs.Key
	content     string
	inference   time.Duration // SYNTHETIC: added to the extract stage
	reviewDelay time.Duration // SYNTHETIC: the reviewer's delay after the review appears

	submitted, extracted, reviewSeen, decided atomic.Bool

	mu      sync.Mutex
	extract time.Duration // MEASURED: wall time of the (last) extract stage
}

func (d *document) setExtractTook(t time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.extract = t
}

func (d *document) extractTook() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.extract
}

// syntheticDocuments builds the run's invoices: valid for the real
// rules extractor, each with its own number, vendor and total, under
// document IDs prefix-01 … prefix-12.
func syntheticDocuments(prefix string) []*document {
	docs := make([]*document, len(inferenceDelays))
	for i := range docs {
		n := i + 1
		qty := 2 + (n*5)%9
		cents := qty*1250 + 10000 // qty × 12.50 + 100.00
		content := fmt.Sprintf("INVOICE\nInvoice Number: SYN-%04d\nVendor: Synthetic Vendor %02d Ltd\n"+
			"Issue Date: 2024-07-%02d\nCurrency: EUR\n\nItems:\nSynthetic widget  %d x 12.50\n"+
			"Synthetic service  1 x 100.00\n\nTotal: %d.%02d\n", n, n, n, qty, cents/100, cents%100)
		k, err := jobs.BuildKey(tenant, fmt.Sprintf("%s-%02d", prefix, n), 1)
		if err != nil {
			panic(err) // the prefix is ours: a bad key is a bug here
		}
		docs[i] = &document{index: i, key: k, content: content, inference: inferenceDelays[i], reviewDelay: reviewDelays[i]}
	}
	return docs
}

// syntheticExtractor is the real rules extractor whose Extract stage first
// waits the document's SYNTHETIC inference delay, where a model call would
// be, and measures the whole stage. Classify and Validate are the real ones.
// Like a model's, its extract stage is checkpointed.
type syntheticExtractor struct {
	rules.Rules
	delays map[string]*document // by content; filled before the worker starts
}

// Checkpointed: the extract stage stands for a model call.
func (x *syntheticExtractor) Checkpointed(stage string) bool { return stage == extract.StageExtract }

func newSyntheticExtractor() *syntheticExtractor {
	return &syntheticExtractor{delays: map[string]*document{}}
}

// Extract implements extract.Extractor.
func (x *syntheticExtractor) Extract(ctx context.Context, content string, classification []byte) ([]byte, error) {
	start := time.Now()
	d := x.delays[content]
	if d != nil {
		t := time.NewTimer(d.inference)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	out, err := x.Rules.Extract(ctx, content, classification)
	if d != nil {
		d.setExtractTook(time.Since(start))
		d.extracted.Store(err == nil)
	}
	return out, err
}
