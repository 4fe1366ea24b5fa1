package app

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// checkRedis connects to url as the binaries do and runs their start check.
func checkRedis(t *testing.T, url string) error {
	t.Helper()
	c := load(t, map[string]string{"RELAYOPS_REDIS_URL": url})
	rdb, err := StoreRedis(c)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return CheckRedis(ctx, c)
}

func TestStoreRedis_ClusterURL_IsAClusterClientWithoutRetries(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_REDIS_URL": "redis-cluster://relay:pw@127.0.0.1:7000,127.0.0.1:7001/"})
	rdb, err := StoreRedis(c)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	cc, ok := rdb.(*redis.ClusterClient)
	require.True(t, ok, "%T", rdb)
	o := cc.Options()
	require.Equal(t, []string{"127.0.0.1:7000", "127.0.0.1:7001"}, o.Addrs)
	require.Equal(t, "relay", o.Username)
	require.Equal(t, "pw", o.Password)
	require.Equal(t, -1, o.MaxRetries, "a store script is never sent twice")
	require.Zero(t, o.MaxRedirects, "nor retried inside the redirect loop (go-redis keeps -1 as 0)")

	ardb, err := AsynqRedis(c)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ardb.Close() })
	ac, ok := ardb.(*redis.ClusterClient)
	require.True(t, ok, "%T", ardb)
	require.Equal(t, "pw", ac.Options().Password)
	require.Positive(t, ac.Options().MaxRedirects, "Asynq follows MOVED after a failover")

	d, err := Dashboard(c, nil)
	require.NoError(t, err)
	require.Empty(t, d.RedisURL)
	require.Equal(t, o.Addrs, d.RedisCluster.Addrs)
}

func TestStoreRedis_SingleURL_IsOneClientAndNotChecked(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_REDIS_URL": "redis://" + closedAddr(t) + "/0"})
	rdb, err := StoreRedis(c)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	require.IsType(t, &redis.Client{}, rdb)
	require.NoError(t, CheckRedis(context.Background(), c), "one Redis may come up after the process")
	d, err := Dashboard(c, nil)
	require.NoError(t, err)
	require.Equal(t, c.RedisURL, d.RedisURL)
	require.Nil(t, d.RedisCluster)
}

func TestCheckRedis_UnreachableNodes_FailsNamingTheSetting(t *testing.T) {
	t.Parallel()
	err := checkRedis(t, "redis-cluster://:topsecret@"+closedAddr(t)+","+closedAddr(t)+"/")
	require.ErrorContains(t, err, "RELAYOPS_REDIS_URL: Redis Cluster unreachable through 2 seed address(es)")
	require.NotContains(t, err.Error(), "topsecret")
	require.NotContains(t, err.Error(), "\n", "one line")
}

func TestCheckRedis_NodeServingNoSlot_FailsNamingTheSetting(t *testing.T) {
	t.Parallel()
	node := redistest.Start(t, &redistest.Options{ClusterNode: true})
	err := checkRedis(t, "redis-cluster://"+node.Addr+"/")
	require.EqualError(t, err, "RELAYOPS_REDIS_URL: the Redis Cluster does not serve every slot (cluster_state:fail, cluster_slots_ok:0 of 16384)")
}

func TestCheckRedis_HealthyCluster_Passes(t *testing.T) {
	t.Parallel()
	cluster := redistest.Cluster(t)
	require.NoError(t, checkRedis(t, "redis-cluster://"+strings.Join(cluster.Addrs[:2], ",")+"/"))
}

func TestClusterServes_PartOfTheSlots_Fails(t *testing.T) {
	t.Parallel()
	info := "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:10923\r\ncluster_slots_pfail:5461\r\n"
	require.EqualError(t, clusterServes(info), "RELAYOPS_REDIS_URL: the Redis Cluster does not serve every slot (cluster_state:ok, cluster_slots_ok:10923 of 16384)")
	require.NoError(t, clusterServes("cluster_state:ok\r\ncluster_slots_ok:16384\r\n"))
}
