package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// Asynq keeps each queue in the slot of its hash tag {<queue>}; the default
// layout's queues land on every master of a 3-master cluster (CLUSTER
// KEYSLOT, as the cluster assigns slots), and no master takes most of them.
func TestLayout_OnRedisCluster_QueuesSpreadOverEveryMaster(t *testing.T) {
	t.Parallel()
	cluster := redistest.Cluster(t)
	for _, tt := range []struct {
		layout  Layout
		atLeast int // queues on the least loaded master
	}{
		{NewLayout(0, 16, true), 5},
		{NewLayout(4, 16, true), 1},
	} {
		perMaster := map[string]int{}
		for _, q := range tt.layout.Names() {
			master := cluster.MasterOf(t, "asynq:{"+q+"}:pending")
			require.Equal(t, master, cluster.MasterOf(t, "asynq:{"+q+"}:active"), "one queue, one slot")
			perMaster[master]++
		}
		t.Logf("%d queues over the masters: %v", tt.layout.Queues, perMaster)
		require.Len(t, perMaster, 3, "%d queues reach every master", tt.layout.Queues)
		for m, n := range perMaster {
			require.GreaterOrEqual(t, n, tt.atLeast, "master %s", m)
		}
	}
}
