package benchredis

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestPercentile_NearestRank(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	require.Equal(t, time.Duration(50), Percentile(d, 50))
	require.Equal(t, time.Duration(99), Percentile(d, 99))
	require.Equal(t, time.Duration(100), Percentile(d, 100))
	require.Equal(t, time.Duration(7), Percentile([]time.Duration{7}, 99))
}

func TestCommandsSince_CountsCommandsButNotInfo(t *testing.T) {
	t.Parallel()
	rdb := redistest.Start(t, nil).Client(t)
	ctx := context.Background()
	before, _, err := CommandStats(ctx, rdb)
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, rdb.Set(ctx, "k", "v", 0).Err())
	}
	n, err := CommandsSince(ctx, rdb, before)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
}
