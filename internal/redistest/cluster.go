package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	clusterMasters     = 3
	clusterNodes       = 2 * clusterMasters // one replica per master
	clusterSlots       = 16384
	clusterNodeTimeout = 2 * time.Second  // failure detection; Redis's default is 15 s
	clusterOKTimeout   = 30 * time.Second // cluster creation, and recovery after a failover
	clusterCreateLimit = 60 * time.Second // redis-cli --cluster create, at most
)

// RedisCluster is a Redis Cluster of 3 masters and 3 replicas owned by one
// test: six redis-server processes on free loopback ports, each with its own
// temporary directory and AOF (appendfsync always), and a cluster-node-timeout
// of 2 s so a killed master's replica is promoted within seconds. Its methods
// are meant to be called from that test's goroutine.
type RedisCluster struct {
	// Addrs are the seed addresses, host:port, of every node.
	Addrs []string
	// Client is a cluster client for the test's own checks, closed in
	// t.Cleanup. It never retries a command after an error (MaxRetries -1,
	// one dial attempt) but follows MOVED and ASK redirects, and it reloads
	// the slot map every second while in use: go-redis does not reload it
	// when a master stops answering, only on a redirect or after
	// ClusterStateReloadInterval (60 s by default), so without this the
	// client would keep dialling a killed master for up to a minute.
	Client *redis.ClusterClient

	nodes []*Server
}

// Cluster starts a 3-master, 3-replica Redis Cluster for t, creates it with
// redis-cli --cluster create, and returns once every node reports
// cluster_state:ok with all 16384 slots covered, agrees on who owns them,
// and every replica is in sync with its master. Every node is stopped in
// t.Cleanup. Without redis-server or redis-cli on PATH the test is skipped,
// or failed under RELAYOPS_REQUIRE_REDIS=1.
func Cluster(t testing.TB) *RedisCluster {
	t.Helper()
	cli := lookupTool(t, "redis-cli", "redis-tools")
	lookup(t)
	begin := time.Now()
	c := &RedisCluster{}
	for range clusterNodes {
		s := startServer(t, true, true)
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
		s.URL = "redis://" + s.Addr + "/0"
		c.nodes = append(c.nodes, s)
		c.Addrs = append(c.Addrs, s.Addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterCreateLimit)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	c.AwaitOK(t, clusterOKTimeout)
	t.Logf("redistest: cluster of %d nodes ok in %s: %s", clusterNodes, time.Since(begin).Round(time.Millisecond), strings.Join(c.Addrs, ","))
	c.Client = redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: c.Addrs, MaxRetries: -1, DialerRetries: 1, ClusterStateReloadInterval: time.Second,
	})
	t.Cleanup(func() { _ = c.Client.Close() })
	return c
}

// AwaitOK polls until the nodes that run report cluster_state:ok with every
// slot assigned and ok, all agree on each slot's master, every such master
// runs, and every replica that runs has its master link up; it fails t when
// timeout passes first, saying what was still wrong.
func (c *RedisCluster) AwaitOK(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(pollInterval * 10)
	defer tick.Stop()
	for {
		err := c.check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: cluster not ok within %s: %v", timeout, err)
		}
		<-tick.C
	}
}

// MasterOf returns the address of the master that serves key's slot, as
// every running node sees it (call AwaitOK first after a change).
func (c *RedisCluster) MasterOf(t testing.TB, key string) string {
	t.Helper()
	ctx := context.Background()
	n := c.running()[0]
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1, DialerRetries: 1})
	defer rdb.Close()
	slot, err := rdb.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatalf("redistest: CLUSTER KEYSLOT %q on %s: %v", key, n.Addr, err)
	}
	owners, err := slotOwners(ctx, n)
	if err != nil {
		t.Fatalf("redistest: CLUSTER SLOTS on %s: %v", n.Addr, err)
	}
	for _, o := range owners {
		if int64(o.start) <= slot && slot <= int64(o.end) {
			return o.master
		}
	}
	t.Fatalf("redistest: slot %d of %q has no master in %s's view", slot, key, n.Addr)
	return ""
}

// KillMasterOf SIGKILLs the master of key's slot (a crash: no shutdown, no
// final fsync beyond what appendfsync always did) and returns its address.
// The node stays down; its replica is promoted after cluster-node-timeout,
// which AwaitOK waits for.
func (c *RedisCluster) KillMasterOf(t testing.TB, key string) string {
	t.Helper()
	addr := c.MasterOf(t, key)
	for _, s := range c.nodes {
		if s.Addr == addr {
			s.Kill(t)
			return addr
		}
	}
	t.Fatalf("redistest: master %s of %q is not a node of this cluster", addr, key)
	return ""
}

// Restart starts the node at addr again (after KillMasterOf), on its port
// and directory: it rejoins the cluster from its nodes.conf, as a replica of
// whichever node took over its slots. AwaitOK waits until it is linked.
func (c *RedisCluster) Restart(t testing.TB, addr string) {
	t.Helper()
	for _, s := range c.nodes {
		if s.Addr == addr {
			s.Restart(t)
			return
		}
	}
	t.Fatalf("redistest: %s is not a node of this cluster", addr)
}

// Roles returns how many running nodes are masters and how many replicas, by
// each node's own INFO replication.
func (c *RedisCluster) Roles(t testing.TB) (masters, replicas int) {
	t.Helper()
	ctx := context.Background()
	for _, s := range c.running() {
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialerRetries: 1})
		info, err := rdb.Info(ctx, "replication").Result()
		_ = rdb.Close()
		if err != nil {
			t.Fatalf("redistest: INFO replication on %s: %v", s.Addr, err)
		}
		switch role := infoFields(info)["role"]; role {
		case "master":
			masters++
		case "slave":
			replicas++
		default:
			t.Fatalf("redistest: %s has role %q", s.Addr, role)
		}
	}
	return masters, replicas
}

// running returns the nodes whose process runs.
func (c *RedisCluster) running() []*Server {
	var out []*Server
	for _, s := range c.nodes {
		s.mu.Lock()
		up := s.proc != nil
		s.mu.Unlock()
		if up {
			out = append(out, s)
		}
	}
	return out
}

// check returns nil when the cluster is whole (see AwaitOK), or what is not.
func (c *RedisCluster) check() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	nodes := c.running()
	live := map[string]bool{}
	for _, s := range nodes {
		live[s.Addr] = true
	}
	var first []slotRange
	for _, s := range nodes {
		if err := nodeOK(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s.Addr, err)
		}
		owners, err := slotOwners(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: CLUSTER SLOTS: %w", s.Addr, err)
		}
		for _, o := range owners {
			if !live[o.master] {
				return fmt.Errorf("%s: slots %d-%d still owned by %s, which is down", s.Addr, o.start, o.end, o.master)
			}
		}
		if first == nil {
			first = owners
		} else if !slices.Equal(first, owners) {
			return fmt.Errorf("%s: slot map %v differs from %s's %v", s.Addr, owners, nodes[0].Addr, first)
		}
	}
	return nil
}

// nodeOK checks one node's CLUSTER INFO and, on a replica, its master link.
func nodeOK(ctx context.Context, s *Server) error {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialerRetries: 1})
	defer rdb.Close()
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLUSTER INFO: %w", err)
	}
	fields := infoFields(info)
	for k, want := range map[string]string{
		"cluster_state":          "ok",
		"cluster_slots_assigned": strconv.Itoa(clusterSlots),
		"cluster_slots_ok":       strconv.Itoa(clusterSlots),
	} {
		if fields[k] != want {
			return fmt.Errorf("%s is %q, want %q", k, fields[k], want)
		}
	}
	repl, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return fmt.Errorf("INFO replication: %w", err)
	}
	r := infoFields(repl)
	if r["role"] == "slave" && r["master_link_status"] != "up" {
		return fmt.Errorf("replica's master_link_status is %q", r["master_link_status"])
	}
	return nil
}

func infoFields(info string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out
}

// slotRange is a range of slots and the address of its master.
type slotRange struct {
	start, end int
	master     string
}

// slotOwners returns s's view of the slot map, ordered by slot.
func slotOwners(ctx context.Context, s *Server) ([]slotRange, error) {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialerRetries: 1})
	defer rdb.Close()
	// CLUSTER SLOTS lists each range with its serving master first, which is
	// all this needs; CLUSTER SHARDS would leave picking the master among a
	// shard's nodes (a failed one included) to this code.
	//lint:ignore SA1019 deprecated in favour of CLUSTER SHARDS, still answered by Redis 7
	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, err
	}
	out := make([]slotRange, 0, len(slots))
	for _, sl := range slots {
		if len(sl.Nodes) == 0 {
			return nil, fmt.Errorf("slots %d-%d have no node", sl.Start, sl.End)
		}
		out = append(out, slotRange{start: int(sl.Start), end: int(sl.End), master: sl.Nodes[0].Addr})
	}
	slices.SortFunc(out, func(a, b slotRange) int { return a.start - b.start })
	return out, nil
}
