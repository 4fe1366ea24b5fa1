package redistest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCluster_ThreeMastersWithOneReplicaEach_CoverEverySlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := Cluster(t)
	require.Len(t, c.Addrs, 6)

	masters, replicas := c.Roles(t)
	require.Equal(t, 3, masters)
	require.Equal(t, 3, replicas)

	owners := map[string]bool{}
	for i := range 50 {
		key := fmt.Sprintf("k%d", i)
		require.NoError(t, c.Client.Set(ctx, key, i, 0).Err())
		require.Equal(t, fmt.Sprint(i), c.Client.Get(ctx, key).Val())
		owners[c.MasterOf(t, key)] = true
	}
	require.Len(t, owners, 3, "50 keys spread over every master")
}

func TestCluster_KillMasterOf_PromotesItsReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := Cluster(t)
	const key = "acknowledged"
	require.NoError(t, c.Client.Set(ctx, key, "v", 0).Err())
	// The write must reach the replica before the master dies, or the
	// promoted replica may not have it (Redis replicates asynchronously).
	master, err := c.Client.MasterForKey(ctx, key)
	require.NoError(t, err)
	require.Equal(t, int64(1), master.Do(ctx, "WAIT", 1, 5000).Val())

	begin := time.Now()
	killed := c.KillMasterOf(t, key)
	c.AwaitOK(t, clusterOKTimeout)
	t.Logf("redistest: master %s killed; replica promoted and cluster ok in %s", killed, time.Since(begin).Round(time.Millisecond))

	require.NotEqual(t, killed, c.MasterOf(t, key))
	masters, replicas := c.Roles(t)
	require.Equal(t, 3, masters, "the replica took over")
	require.Equal(t, 2, replicas)
	// The client learns the new slot map from a failed call or a MOVED reply.
	Eventually(t, 10*time.Second, func() bool {
		return c.Client.Get(ctx, key).Val() == "v"
	}, "the promoted replica serves %q", key)
}
