package jobs

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// realBundle is a store on a real redis-server with a connection pool large
// enough for the goroutines of a race.
func realBundle(t *testing.T) *bundle {
	t.Helper()
	srv := redistest.Start(t, nil)
	c, err := NewRedisClient(srv.URL)
	require.NoError(t, err)
	c.Options().PoolSize = 80
	t.Cleanup(func() { _ = c.Close() })
	return setup(t, &redistest.Backend{Client: c, Real: srv}, nil)
}

func TestConcurrentCommit_SameFence_OneEventOneMarker(t *testing.T) {
	t.Parallel()
	x := realBundle(t)
	k := mustKey(t, "acme", "inv-1", 1)
	x.submit(t, k, "c")
	c := x.claim(t, k)
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed, deduped := 0, 0
	for range 64 {
		wg.Go(func() {
			r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{}`))
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			if r.Deduped {
				deduped++
			} else {
				committed++
			}
		})
	}
	wg.Wait()
	require.Equal(t, 1, committed)
	require.Equal(t, 63, deduped)
	require.Len(t, x.outboxRows(t, k, EventExtractionCommitted), 1)
	require.EqualValues(t, 1, x.rdb.Exists(x.ctx, x.store.keys.ledger(k)).Val())
}

func TestConcurrentCommit_DifferentFences_OnlyTheCurrentWins(t *testing.T) {
	t.Parallel()
	x := realBundle(t)
	k := mustKey(t, "acme", "inv-1", 1)
	x.submit(t, k, "c")
	fences := make([]int64, 64)
	for i := range fences {
		fences[i] = x.claim(t, k).Fence // each claim supersedes the last (crash recoveries)
	}
	_, err := x.store.Submit(x.ctx, SubmitRequest{Key: mustKey(t, "acme", "other", 1), Content: "c", Limits: DefaultLimits})
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, stale := 0, 0
	for _, f := range fences {
		wg.Go(func() {
			_, err := x.store.Commit(x.ctx, k, f, PayloadHash("c"), []byte(fmt.Sprintf(`{"fence":%d}`, f)))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrStaleFence):
				stale++
			default:
				t.Errorf("unexpected: %v", err)
			}
		})
	}
	wg.Wait()
	// MaxRecoveries 5 dead-letters the job at the 7th claim, so every fence
	// is stale: the race shows that none of them gets through.
	j, err := x.store.Get(x.ctx, k)
	require.NoError(t, err)
	if j.State == StateDeadLettered {
		require.Equal(t, 0, ok)
		require.Equal(t, 64, stale)
		require.Empty(t, x.outboxRows(t, k, EventExtractionCommitted))
		return
	}
	require.Equal(t, 1, ok)
	require.Len(t, x.outboxRows(t, k, EventExtractionCommitted), 1)
}

func TestConcurrentCommit_DifferentFences_WithinRecoveryCap_OneWins(t *testing.T) {
	t.Parallel()
	x := realBundle(t)
	k := mustKey(t, "acme", "inv-1", 1)
	_, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: "c", Limits: Limits{MaxAttempts: 3, MaxRecoveries: 100, Deadline: 3600e9}})
	require.NoError(t, err)
	fences := make([]int64, 64)
	for i := range fences {
		fences[i] = x.claim(t, k).Fence
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var winners []int64
	for _, f := range fences {
		wg.Go(func() {
			_, err := x.store.Commit(x.ctx, k, f, PayloadHash("c"), []byte(`{}`))
			if err == nil {
				mu.Lock()
				winners = append(winners, f)
				mu.Unlock()
			} else if !errors.Is(err, ErrStaleFence) {
				t.Errorf("unexpected: %v", err)
			}
		})
	}
	wg.Wait()
	require.Equal(t, []int64{fences[63]}, winners, "only the current fence commits")
	require.Len(t, x.outboxRows(t, k, EventExtractionCommitted), 1)
	require.EqualValues(t, 1, x.rdb.Exists(x.ctx, x.store.keys.ledger(k)).Val())
}

func TestConcurrentSubmit_TwoPayloads_OneJob(t *testing.T) {
	t.Parallel()
	x := realBundle(t)
	k := mustKey(t, "acme", "inv-1", 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	created, deduped, conflicts := 0, 0, 0
	var winner string
	for i := range 64 {
		content := []string{"payload-A", "payload-B"}[i%2]
		wg.Go(func() {
			r, err := x.store.Submit(x.ctx, SubmitRequest{Key: k, Content: content, Limits: DefaultLimits})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, ErrIdempotencyConflict):
				conflicts++
			case err != nil:
				t.Errorf("unexpected: %v", err)
			case r.Deduped:
				deduped++
			default:
				created++
				winner = content
			}
		})
	}
	wg.Wait()
	require.Equal(t, 1, created)
	require.Equal(t, 31, deduped, "the winner's 31 siblings dedupe")
	require.Equal(t, 32, conflicts, "the other payload's 32 submissions conflict")
	in, err := x.store.Input(x.ctx, k)
	require.NoError(t, err)
	require.Equal(t, winner, in)
	require.Len(t, x.outboxRows(t, k, EventJobSubmitted), 1)
}
