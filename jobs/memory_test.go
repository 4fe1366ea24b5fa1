package jobs_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// float64(memJobs) is the sample size of the memory benchmark (issue: INFO memory
// used_memory delta over 10,000 jobs divided by 10,000).
const memJobs = 10000

// BenchmarkMemoryPerJob reports the Redis bytes a finished job costs while
// its data lives (job record, 1 KiB input, result, three checkpoints, review,
// ledger entry, index entries, audit entry; outbox rows trimmed as the relay
// does) and what is left per job once input, result and record expired: the
// ledger entry, the document's version counter and the applied-event marker.
// It always runs memJobs jobs; run it with -benchtime 1x.
func BenchmarkMemoryPerJob(b *testing.B) {
	random := make([]byte, 768)
	_, _ = rand.Read(random)
	// A typical supplier PDF: a real 85 KB Factur-X invoice (PDF streams are
	// compressed already, so its stored input barely deflates). Fewer jobs:
	// 10,000 of them would hold a gigabyte.
	pdf, err := os.ReadFile(filepath.Join("..", "document", "pdf", "testdata", "horstoeko-zugferd", "pdf_zf_en16931_1.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name, content string
		n             int
	}{
		{"invoice-text", invoiceText(1024), memJobs},
		// Worst case: 1 KiB that does not compress (base64 of random bytes).
		{"incompressible", base64.StdEncoding.EncodeToString(random), memJobs},
		{"pdf-85KB", jobs.FileContent("application/pdf", "invoice.pdf", pdf), 500},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) { memoryPerJob(b, in.content, in.n) })
	}
}

// invoiceText returns a plain-text invoice of exactly n bytes, with varied
// line items, as the extractor receives them.
func invoiceText(n int) string {
	items := []string{"Hex bolts M8 (box of 100)", "Safety gloves, pair", "Cordless drill 18V", "Copy paper A4, 500 sheets",
		"Toner cartridge black", "Cable ties 200mm", "Work lamp LED", "Measuring tape 5m"}
	var sb strings.Builder
	sb.WriteString("INVOICE\nInvoice No.: 2026/04711\nSeller: Acme Industrial Supply Inc.\nInvoice Date: 2026-11-02\nCurrency: EUR\n\nLine items:\n")
	for i := 0; sb.Len() < n-40; i++ {
		fmt.Fprintf(&sb, "%s  %d x %d.%02d\n", items[i%len(items)], i%7+1, 3+i*37%400, i*13%100)
	}
	sb.WriteString("Total: 9999.99\n")
	for sb.Len() < n {
		sb.WriteString(" ")
	}
	return sb.String()[:n]
}

func memoryPerJob(b *testing.B, input string, memJobs int) {
	srv := redistest.Start(b, nil)
	c, err := jobs.NewRedisClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// Input and result retention: long enough that no job's data expires
	// before the "while data lives" reading, short enough to wait for.
	short := 30 * time.Second
	ret := jobs.Retention{Input: short, Result: short, Outbox: time.Millisecond, Audit: time.Hour, Ledger: time.Hour}
	s, err := jobs.NewStore(jobs.Config{Redis: c, Retention: ret})
	if err != nil {
		b.Fatal(err)
	}
	relay, err := outbox.NewRelay(outbox.RelayConfig{Store: s, Publisher: nopPublisher{}, TrimInterval: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	// Warm up structures that exist once per shard (streams, groups, indexes).
	finishJob(b, s, relay, "warm", "warm")
	before := redistest.UsedMemory(b, c)
	start := time.Now()
	for i := range memJobs {
		finishJob(b, s, relay, input, "invoice-"+strconv.Itoa(i))
		if (i+1)%500 == 0 {
			if _, err := relay.Drain(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if (i+1)%2500 == 0 {
			fmt.Printf("memory: %d/%d jobs finished\n", i+1, memJobs)
		}
	}
	if time.Since(start) >= short {
		b.Fatalf("finishing %d jobs took %s, longer than the %s retention: the live reading would be wrong", memJobs, time.Since(start), short)
	}
	if _, err := relay.Drain(ctx); err != nil {
		b.Fatal(err)
	}
	live := redistest.UsedMemory(b, c)
	breakdown(b, c, "while data lives", memJobs)
	// Wait for the short TTLs to pass: poll until the last job's record is
	// gone, then touch every key so Redis drops the expired ones now rather
	// than in its background cycle.
	fmt.Printf("memory: waiting up to %s for the input and result retention to pass\n", short)
	last, _ := jobs.BuildKey("acme", "invoice-"+strconv.Itoa(memJobs-1), 1)
	for deadline := time.Now().Add(2 * short); c.Exists(ctx, s.JobRecordKey(last)).Val() == 1; {
		if time.Now().After(deadline) {
			b.Fatalf("the last job's record outlived twice its %s retention", short)
		}
		<-time.After(250 * time.Millisecond)
	}
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
	}
	// Indexes are trimmed by score when written, a succeeded index on the
	// first and every 16th commit into it per store: one
	// write per shard through a fresh store (a restarted process), as steady
	// traffic would make, trims the expired jobs' entries.
	steady, err := jobs.NewStore(jobs.Config{Redis: c, Retention: ret})
	if err != nil {
		b.Fatal(err)
	}
	seen := map[int]bool{}
	for i := 0; len(seen) < s.Shards(); i++ {
		doc := "steady-" + strconv.Itoa(i)
		if sh := jobs.Shard("acme", doc, s.Shards()); !seen[sh] {
			seen[sh] = true
			finishJob(b, steady, relay, "steady", doc)
		}
	}
	_, _ = relay.Drain(ctx) // trims acked outbox rows past their retention
	expired := redistest.UsedMemory(b, c)
	left := breakdown(b, c, "after expiry", memJobs)
	ledger := float64(left["led"]+left["doc"]) / float64(memJobs)
	b.ReportMetric(float64(live-before)/float64(memJobs), "bytes/finished-job")
	b.ReportMetric(float64(expired-before)/float64(memJobs), "bytes/job-after-expiry")
	b.ReportMetric(ledger, "bytes/ledger-entry")
	fmt.Printf("memory: %s: %d jobs, a %d-byte input: %.0f B/finished job while data lives (target for a 1 KiB text: <= 2560); "+
		"after expiry %.0f B/job in all, of which the ledger entry and the document's version counter %.0f B (target <= 300), "+
		"the submission's audit entry %.0f B (kept for the audit retention), the rest Redis's own hash tables (sized for the peak, shrunk later) and allocator slack\n",
		b.Name(), memJobs, len(input), float64(live-before)/float64(memJobs), float64(expired-before)/float64(memJobs), ledger, float64(left["audit"])/float64(memJobs))
}

type nopPublisher struct{}

func (nopPublisher) Publish(context.Context, jobs.Event) error { return nil }

func finishJob(b *testing.B, s *jobs.Store, relay *outbox.Relay, input, doc string) {
	ctx := context.Background()
	k, _ := jobs.BuildKey("acme", doc, 1)
	if _, err := s.Submit(ctx, jobs.SubmitRequest{Key: k, Content: input}); err != nil {
		b.Fatal(err)
	}
	cl, err := s.Claim(ctx, k, "t")
	if err != nil {
		b.Fatal(err)
	}
	for _, stage := range []string{"classify", "extract", "validate"} {
		if err := s.Checkpoint(ctx, k, cl.Fence, stage, []byte(`{"stage":"`+stage+`","ok":true}`)); err != nil {
			b.Fatal(err)
		}
	}
	result := []byte(`{"invoiceNumber":"INV-2026-0001","vendor":"Acme Supplies GmbH","issueDate":"2026-11-02","currency":"EUR","total":"1190.00","lineItems":[{"description":"Paper","quantity":10,"unitPrice":"100.00"}]}`)
	if _, err := s.Commit(ctx, k, cl.Fence, cl.PayloadHash, result); err != nil {
		b.Fatal(err)
	}
}

// breakdown prints MEMORY USAGE summed by key class (the part after the
// hash tag), per job, so a regression points at its key.
func breakdown(b *testing.B, c *redis.Client, when string, memJobs int) map[string]int64 {
	ctx := context.Background()
	sums := map[string]int64{}
	iter := c.Scan(ctx, 0, "ro:*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		class := k
		if parts := strings.SplitN(k, ":", 4); len(parts) >= 3 {
			class = parts[2]
		}
		n, err := c.MemoryUsage(ctx, k, 0).Result()
		if err != nil {
			b.Fatal(err)
		}
		sums[class] += n
	}
	var parts []string
	for _, class := range slices.Sorted(maps.Keys(sums)) {
		parts = append(parts, fmt.Sprintf("%s=%.0f", class, float64(sums[class])/float64(memJobs)))
	}
	fmt.Printf("memory by key class, bytes per job, %s: %s\n", when, strings.Join(parts, " "))
	return sums
}
