package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/redistest"
)

// Benchmarks run on a real redis-server (they skip without one) and report,
// besides ns/op, the Redis round trips per operation counted by a client hook
// and the Redis commands per operation from INFO commandstats.

func benchStore(b *testing.B) (*Store, *redistest.Trips, *redis.Client) {
	srv := redistest.Start(b, nil)
	c, err := NewRedisClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	rt := &redistest.Trips{}
	c.AddHook(rt)
	s, err := NewStore(Config{Redis: c})
	if err != nil {
		b.Fatal(err)
	}
	return s, rt, c
}

// commands sums INFO commandstats calls.
func commands(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		if _, rest, ok := strings.Cut(line, ":calls="); ok {
			n, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
			total += n
		}
	}
	return total
}

func report(b *testing.B, rt *redistest.Trips, c *redis.Client, cmds0 int64) {
	b.ReportMetric(float64(rt.N())/float64(b.N), "roundtrips/op")
	// Every command counts, including the info call itself; subtract it.
	b.ReportMetric(float64(commands(b, c)-cmds0-1)/float64(b.N), "rediscmds/op")
}

func benchKeys(b *testing.B) []Key {
	keys := make([]Key, b.N)
	for i := range keys {
		keys[i], _ = BuildKey("acme", fmt.Sprintf("doc-%d", i), 1)
	}
	return keys
}

func BenchmarkSubmit(b *testing.B) {
	s, rt, c := benchStore(b)
	ctx, keys := context.Background(), benchKeys(b)
	content := strings.Repeat("x", 1024)
	rt.Reset()
	cmds0 := commands(b, c)
	b.ResetTimer()
	for i := range keys {
		if _, err := s.Submit(ctx, SubmitRequest{Key: keys[i], Content: content}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, rt, c, cmds0)
}

func BenchmarkClaim(b *testing.B) {
	s, rt, c := benchStore(b)
	ctx, keys := context.Background(), benchKeys(b)
	for _, k := range keys {
		if _, err := s.Submit(ctx, SubmitRequest{Key: k, Content: "c"}); err != nil {
			b.Fatal(err)
		}
	}
	rt.Reset()
	cmds0 := commands(b, c)
	b.ResetTimer()
	for i, k := range keys {
		if _, err := s.Claim(ctx, k, strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, rt, c, cmds0)
}

func BenchmarkCommit(b *testing.B) {
	s, rt, c := benchStore(b)
	ctx, keys := context.Background(), benchKeys(b)
	claims := make([]*Claim, len(keys))
	for i, k := range keys {
		if _, err := s.Submit(ctx, SubmitRequest{Key: k, Content: "c"}); err != nil {
			b.Fatal(err)
		}
		claims[i], _ = s.Claim(ctx, k, "t")
	}
	result := []byte(`{"invoiceNumber":"INV-1","total":"100.00","currency":"EUR"}`)
	rt.Reset()
	cmds0 := commands(b, c)
	b.ResetTimer()
	for i, k := range keys {
		if _, err := s.Commit(ctx, k, claims[i].Fence, claims[i].PayloadHash, result); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, rt, c, cmds0)
}

// BenchmarkScriptServerTime runs b.N job lifecycles (submit, claim,
// checkpoints, commit, apply) and reports each script's Redis-side time per
// call, from SLOWLOG with a zero threshold (which itself adds a little time
// to every command, so compare these figures with each other), and the
// Redis commands per job. "drain" checkpoints nothing, as the rules
// extractor's cheap stages (the benchmark pipeline's path); "checkpointed"
// checkpoints two stages, as an expensive extractor does.
func BenchmarkScriptServerTime(b *testing.B) {
	b.Run("drain", func(b *testing.B) { scriptServerTime(b, nil) })
	b.Run("checkpointed", func(b *testing.B) { scriptServerTime(b, []string{"classify", "extract"}) })
}

func scriptServerTime(b *testing.B, stages []string) {
	s, rt, c := benchStore(b)
	ctx := context.Background()
	c.ConfigSet(ctx, "slowlog-log-slower-than", "0")
	c.ConfigSet(ctx, "slowlog-max-len", strconv.Itoa(64*b.N+1024))
	defer c.ConfigSet(ctx, "slowlog-log-slower-than", "10000")
	names := map[string]string{}
	for name, sc := range map[string]*script{"submit": submitScript, "claim": claimScript,
		"checkpoint": checkpointScript, "commit": commitScript, "apply": applyScript} {
		names[sc.Hash()] = name
	}
	content := strings.Repeat("Line item: paper 10 x 4.50\n", 8)
	result := []byte(`{"invoiceNumber":"INV-1","vendor":"Acme","total":"10.00","currency":"EUR"}`)
	keys := benchKeys(b)
	c.SlowLogReset(ctx)
	rt.Reset()
	cmds0 := commands(b, c)
	b.ResetTimer()
	for i, k := range keys {
		if _, err := s.Submit(ctx, SubmitRequest{Key: k, Content: content}); err != nil {
			b.Fatal(err)
		}
		cl, err := s.Claim(ctx, k, strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		for _, stage := range stages {
			if err := s.Checkpoint(ctx, k, cl.Fence, stage, result); err != nil {
				b.Fatal(err)
			}
		}
		r, err := s.Commit(ctx, k, cl.Fence, cl.PayloadHash, result)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.ApplyCommitted(ctx, k, r.EventID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, rt, c, cmds0)
	logs, err := c.SlowLogGet(ctx, -1).Result()
	if err != nil {
		b.Fatal(err)
	}
	total := map[string]time.Duration{}
	for _, l := range logs {
		if len(l.Args) > 1 && strings.EqualFold(fmt.Sprint(l.Args[0]), "evalsha") {
			total[names[fmt.Sprint(l.Args[1])]] += l.Duration
		}
	}
	for name, d := range total {
		if name != "" {
			b.ReportMetric(float64(d.Microseconds())/float64(b.N), "µs-"+name)
		}
	}
}
