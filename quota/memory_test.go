package quota

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// memInputs is the sample size of the stored-bytes memory benchmark.
const memInputs = 10000

// BenchmarkStoredBookkeepingMemory reports what the stored-bytes cap costs
// Redis per counted input, beside the input itself: the entries of the
// tenant's stored set, sizes hash and pending set (and the backlog's open
// reservation, which every quota keeps), as INFO used_memory over
// memInputs reservations divided by memInputs, on a real redis-server. Run
// it with -benchtime 1x.
func BenchmarkStoredBookkeepingMemory(b *testing.B) {
	for _, stored := range []int64{0, 1 << 40} {
		b.Run(fmt.Sprintf("storedCap=%v", stored > 0), func(b *testing.B) {
			srv := redistest.Start(b, nil)
			rdb := srv.Client(b)
			store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clock.Real{}})
			if err != nil {
				b.Fatal(err)
			}
			lim, err := New(Config{Store: store, MaxJobs: 100_000_000, MaxStoredBytes: stored})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				before := redistest.UsedMemory(b, rdb)
				for i := range memInputs {
					k, _ := jobs.BuildKey("acme", fmt.Sprintf("invoice-%06d", i), 1)
					if _, err := lim.Reserve(ctx, k, 1024, 24*time.Hour); err != nil {
						b.Fatal(err)
					}
				}
				after := redistest.UsedMemory(b, rdb)
				b.ReportMetric(float64(after-before)/memInputs, "bytes/input")
				b.StopTimer()
				if err := rdb.FlushAll(ctx).Err(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkReserve is one submission's reservation on a real redis-server,
// without and with the stored-bytes cap (each op reserves a new job).
func BenchmarkReserve(b *testing.B) {
	for _, stored := range []int64{0, 1 << 40} {
		b.Run(fmt.Sprintf("storedCap=%v", stored > 0), func(b *testing.B) {
			srv := redistest.Start(b, nil)
			rdb := srv.Client(b)
			store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clock.Real{}})
			if err != nil {
				b.Fatal(err)
			}
			lim, err := New(Config{Store: store, MaxJobs: 100_000_000, MaxStoredBytes: stored})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				k, _ := jobs.BuildKey("acme", fmt.Sprintf("invoice-%08d", i), 1)
				if _, err := lim.Reserve(ctx, k, 1024, 24*time.Hour); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(scriptUsecPerCall(b, rdb), "redis-µs/reserve")
		})
	}
}

// scriptUsecPerCall is Redis's own time per EVALSHA (INFO commandstats).
func scriptUsecPerCall(b *testing.B, c *redis.Client) float64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_evalsha:"); ok {
			for _, kv := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(kv, "usec_per_call="); ok {
					f, _ := strconv.ParseFloat(v, 64)
					return f
				}
			}
		}
	}
	return 0
}
