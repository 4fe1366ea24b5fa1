package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
)

// clusterBundle is a store on a real 3-master Redis Cluster, through the
// cluster client the store is meant to be given.
type clusterBundle struct {
	ctx     context.Context
	store   *Store
	clock   *clock.Stub
	cluster *redistest.RedisCluster
}

func setupCluster(t *testing.T, mod ...func(*Config)) *clusterBundle {
	t.Helper()
	c := redistest.Cluster(t)
	rdb, err := NewRedisClusterClient(c.Addrs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(t0)
	cfg := Config{Redis: rdb, Clock: clk} // 16 shards, as deployed
	for _, m := range mod {
		m(&cfg)
	}
	s, err := NewStore(cfg)
	require.NoError(t, err)
	return &clusterBundle{ctx: context.Background(), store: s, clock: clk, cluster: c}
}

func TestNewRedisClusterClient_RefusesBadAddresses(t *testing.T) {
	t.Parallel()
	_, err := NewRedisClusterClient(nil)
	require.ErrorContains(t, err, "none given")
	_, err = NewRedisClusterClient([]string{"127.0.0.1:7000", "no-port"})
	require.ErrorContains(t, err, `"no-port"`)
}

func TestConfig_ClusterClientThatRetries_IsRefused(t *testing.T) {
	t.Parallel()
	rdb, err := NewRedisClusterClient([]string{"127.0.0.1:1"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	_, err = NewStore(Config{Redis: rdb})
	require.NoError(t, err, "NewRedisClusterClient's client is accepted")

	retrying := redisClusterClientDefaults(t)
	_, err = NewStore(Config{Redis: retrying})
	require.ErrorContains(t, err, "Config.Redis, a cluster client, must not retry")
}

// TestStore_OnRedisCluster_RunsTheWholeLifecycle runs every kind of store
// call on a real cluster, with documents spread over all three masters:
// scripts (one slot each) and the cross-shard queries, whose pipelines the
// cluster client splits by node.
func TestStore_OnRedisCluster_RunsTheWholeLifecycle(t *testing.T) {
	t.Parallel()
	x := setupCluster(t)
	ctx, s := x.ctx, x.store
	const docs = 30

	keys := make([]Key, docs)
	masters := map[string]int{}
	for i := range keys {
		keys[i] = mustKey(t, "acme", fmt.Sprintf("inv-%02d", i), 1)
		r, err := s.Submit(ctx, SubmitRequest{Key: keys[i], Content: fmt.Sprintf("invoice %d", i), Limits: DefaultLimits})
		require.NoError(t, err)
		require.Equal(t, StateQueued, r.Job.State)
		masters[x.cluster.MasterOf(t, s.JobRecordKey(keys[i]))]++
		x.clock.Advance(time.Millisecond)
	}
	t.Logf("jobs per master: %v", masters)
	require.Len(t, masters, 3, "the documents' shards spread over every master")

	dup, err := s.Submit(ctx, SubmitRequest{Key: keys[0], Content: "invoice 0", Limits: DefaultLimits})
	require.NoError(t, err)
	require.True(t, dup.Deduped)
	_, err = s.Submit(ctx, SubmitRequest{Key: keys[0], Content: "other", Limits: DefaultLimits})
	require.ErrorIs(t, err, ErrIdempotencyConflict)

	// Even documents succeed and get their review; odd ones fail once, then
	// dead-letter.
	var succeeded, dead []Key
	for i, k := range keys {
		c, err := s.Claim(ctx, k, fmt.Sprintf("tok-%d-1", i))
		require.NoError(t, err)
		require.Equal(t, StateRunning, c.State)
		if i%2 == 0 {
			x.succeed(t, k, c, fmt.Sprintf("invoice %d", i))
			succeeded = append(succeeded, k)
			continue
		}
		st, err := s.Fail(ctx, k, c.Fence, CodeTransient)
		require.NoError(t, err)
		require.Equal(t, StateRetrying, st)
		c, err = s.Claim(ctx, k, fmt.Sprintf("tok-%d-2", i))
		require.NoError(t, err)
		require.Equal(t, 2, c.Attempt)
		require.NoError(t, s.Reject(ctx, k, c.Fence, "total_mismatch", nil))
		dead = append(dead, k)
	}

	for _, k := range succeeded {
		j, err := s.Get(ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateSucceeded, j.State, k.String())
		res, err := s.Result(ctx, k)
		require.NoError(t, err)
		require.Equal(t, "result of "+k.String(), string(res))
	}
	for _, k := range dead {
		j, err := s.Get(ctx, k)
		require.NoError(t, err)
		require.Equal(t, StateDeadLettered, j.State, k.String())
		require.Equal(t, "total_mismatch", j.ErrorReason)
	}

	x.requireListed(t, StateSucceeded, succeeded)
	x.requireListed(t, StateDeadLettered, dead)
	dlq := x.allDLQ(t)
	require.ElementsMatch(t, dead, dlq)
	n, err := s.DLQSize(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(len(dead)), n)

	reviews, err := s.ListReviews(ctx, ReviewOptions{Tenant: "acme", Status: ReviewPending, Limit: 500})
	require.NoError(t, err)
	require.Len(t, reviews.Reviews, len(succeeded))
	d, err := s.Decide(ctx, succeeded[0], "alice", ReviewApproved, "checked")
	require.NoError(t, err)
	require.True(t, d.Decided)

	// An operator reprocesses a dead letter with corrected content: the next
	// version runs to success.
	r, err := s.Reprocess(ctx, ReprocessRequest{Key: dead[0], Operator: "alice", Reason: "totals fixed", Content: strp("fixed")})
	require.NoError(t, err)
	require.Equal(t, int64(2), r.Job.Key.Version)
	again, err := s.Reprocess(ctx, ReprocessRequest{Key: dead[0], Operator: "alice", Reason: "totals fixed", Content: strp("fixed")})
	require.NoError(t, err)
	require.True(t, again.Repeat)
	require.Equal(t, r.Job.Key, again.Job.Key)
	c, err := s.Claim(ctx, r.Job.Key, "tok-v2")
	require.NoError(t, err)
	x.succeed(t, r.Job.Key, c, "fixed")
	require.ElementsMatch(t, dead[1:], x.allDLQ(t), "a reprocessed job leaves the DLQ view")

	audit, err := s.ListAudit(ctx, AuditOptions{Tenant: "acme", Limit: 500})
	require.NoError(t, err)
	actions := map[string]int{}
	for _, e := range audit.Entries {
		actions[e.Action]++
	}
	require.Equal(t, map[string]int{AuditSubmitted: docs, AuditReprocessed: 1, AuditReviewDecided: 1}, actions)

	stale, err := s.StaleJobs(ctx, x.clock.Now().Add(time.Hour), 100)
	require.NoError(t, err)
	require.Empty(t, stale, "every job ended")
	_, ok, err := s.OldestActive(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	backlog, err := s.Backlog(ctx)
	require.NoError(t, err)
	require.Len(t, backlog.Shards, s.Shards())
}

// After the master of a document's shard dies and its replica takes over,
// the store's client finds the new master by itself (its slot map is reloaded
// every second), and the job, whose submission waited for a replica
// (WaitReplicas 1), is there. The promoted master has no replica until the
// dead node comes back: until then a write that must reach a replica fails
// with ErrNotReplicated (it is not acknowledged, though it ran); once the
// old master has rejoined as a replica, writes are confirmed again.
func TestStore_OnRedisCluster_AfterMasterFailover_ServesTheJobAgain(t *testing.T) {
	t.Parallel()
	x := setupCluster(t, func(c *Config) { c.WaitReplicas = 1 })
	ctx, s := x.ctx, x.store
	k := mustKey(t, "acme", "inv-1", 1)
	master, err := s.Redis().(*redis.ClusterClient).MasterForKey(ctx, s.JobRecordKey(k))
	require.NoError(t, err)
	waitsBefore := commandCalls(t, master, "wait")
	_, err = s.Submit(ctx, SubmitRequest{Key: k, Content: "invoice", Limits: DefaultLimits})
	require.NoError(t, err, "one replica confirmed the submission")
	require.Greater(t, commandCalls(t, master, "wait"), waitsBefore, "WAIT ran on the master of the job's slot")

	begin := time.Now()
	killed := x.cluster.KillMasterOf(t, s.JobRecordKey(k))
	x.cluster.AwaitOK(t, 30*time.Second)
	promoted := time.Since(begin)
	var failed int
	redistest.Eventually(t, 10*time.Second, func() bool {
		j, err := s.Get(ctx, k)
		if err != nil {
			failed++
			return false
		}
		require.Equal(t, StateQueued, j.State)
		return true
	}, "the store reads %s from the promoted replica", k)
	t.Logf("master %s killed: replica promoted in %s, store served the job again after %s (%d failed calls)",
		killed, promoted.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond), failed)

	c, err := s.Claim(ctx, k, "tok-after-failover")
	require.NoError(t, err)
	_, err = s.Commit(ctx, k, c.Fence, PayloadHash("invoice"), []byte("result"))
	require.ErrorIs(t, err, ErrNotReplicated, "the promoted master has no replica yet")

	x.cluster.Restart(t, killed)
	x.cluster.AwaitOK(t, 30*time.Second)
	c, err = s.Claim(ctx, k, "tok-after-rejoin")
	require.NoError(t, err)
	require.Equal(t, StateSucceeded, c.State, "the unconfirmed commit ran on the master and was kept")
	_, err = s.Submit(ctx, SubmitRequest{Key: mustKey(t, "acme", "inv-1", 2), Content: "invoice v2", Limits: DefaultLimits})
	require.NoError(t, err, "writes to the slot are confirmed again once the old master replicates")
}

// commandCalls is the number of times node ran cmd (INFO commandstats).
func commandCalls(t *testing.T, node *redis.Client, cmd string) int {
	t.Helper()
	info, err := node.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls="); ok {
			n, err := strconv.Atoi(rest[:strings.Index(rest, ",")])
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

// succeed checkpoints, commits and applies the committed event once, as the
// handler and the review consumer do.
func (x *clusterBundle) succeed(t *testing.T, k Key, c *Claim, content string) {
	t.Helper()
	ctx, s := x.ctx, x.store
	require.NoError(t, s.Checkpoint(ctx, k, c.Fence, "classify", []byte("invoice")))
	ck, err := s.Checkpoints(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "invoice", string(ck["classify"]))
	cr, err := s.Commit(ctx, k, c.Fence, PayloadHash(content), []byte("result of "+k.String()))
	require.NoError(t, err)
	require.False(t, cr.Deduped)
	a, err := s.ApplyCommitted(ctx, k, cr.EventID)
	require.NoError(t, err)
	require.True(t, a.Applied)
	a, err = s.ApplyCommitted(ctx, k, cr.EventID)
	require.NoError(t, err)
	require.False(t, a.Applied, "one review per event")
}

// requireListed pages through the tenant's jobs in state st, 4 at a time, and
// checks they are exactly want.
func (x *clusterBundle) requireListed(t *testing.T, st State, want []Key) {
	t.Helper()
	var got []Key
	cursor := ""
	for {
		p, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: st, Cursor: cursor, Limit: 4})
		require.NoError(t, err)
		for _, j := range p.Jobs {
			require.Equal(t, st, j.State)
			got = append(got, j.Key)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	require.ElementsMatch(t, want, got)
}

func (x *clusterBundle) allDLQ(t *testing.T) []Key {
	t.Helper()
	p, err := x.store.ListDLQ(x.ctx, DLQOptions{Tenant: "acme", Limit: 500})
	require.NoError(t, err)
	require.Empty(t, p.NextCursor)
	out := make([]Key, 0, len(p.Jobs))
	for _, j := range p.Jobs {
		out = append(out, j.Key)
	}
	return out
}

// redisClusterClientDefaults is a cluster client with go-redis's defaults,
// which retry a failed command up to 3 times (MaxRedirects).
func redisClusterClientDefaults(t *testing.T) *redis.ClusterClient {
	t.Helper()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
