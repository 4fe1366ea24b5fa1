package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLayout_ShardsMapOntoQueuesModuloTheirNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layout Layout
		shards []int
		want   []string
	}{
		{"zero layout is the single extract queue", Layout{}, []int{0, 1, 15}, []string{"extract", "extract", "extract"}},
		{"one queue", Layout{Queues: 1}, []int{0, 7}, []string{"extract", "extract"}},
		{"one queue per shard", Layout{Queues: 16}, []int{0, 1, 9, 15}, []string{"extract", "extract-1", "extract-9", "extract-15"}},
		{"fewer queues than shards wrap", Layout{Queues: 4}, []int{3, 4, 5, 15}, []string{"extract-3", "extract", "extract-1", "extract-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, s := range tt.shards {
				require.Equal(t, tt.want[i], tt.layout.Queue(s), "shard %d", s)
			}
		})
	}
}

func TestLayout_NamesListsEveryQueueOnceExtractFirst(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"extract"}, Layout{}.Names())
	names := Layout{Queues: ClusterQueues}.Names()
	require.Len(t, names, ClusterQueues)
	require.Equal(t, QueueExtract, names[0])
	seen := map[string]bool{}
	for s := range 64 {
		q := Layout{Queues: ClusterQueues}.Queue(s)
		require.Contains(t, names, q)
		seen[q] = true
	}
	require.Len(t, seen, ClusterQueues, "every queue receives some shard")
}

func TestNewLayout_DefaultsToSixteenQueuesOnAClusterOneOtherwiseNeverMoreThanShards(t *testing.T) {
	t.Parallel()
	require.Equal(t, Layout{Queues: ClusterQueues}, NewLayout(0, 16, true))
	require.Equal(t, Layout{Queues: ClusterQueues}, NewLayout(0, 64, true))
	require.Equal(t, Layout{Queues: 4}, NewLayout(0, 4, true), "default capped at the shards")
	require.Equal(t, Layout{Queues: 1}, NewLayout(0, 16, false), "one Redis: one queue")
	require.Equal(t, Layout{Queues: 3}, NewLayout(3, 16, false))
	require.Equal(t, Layout{Queues: 8}, NewLayout(32, 8, true))
}
