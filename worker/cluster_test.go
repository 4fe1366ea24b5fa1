package worker

import (
	"errors"
	"net"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// The errors a store on a Redis Cluster meets while slots move or a master
// fails — MOVED (the slot is served elsewhere), CLUSTERDOWN (the slot is
// served by no one) and a refused connection (the master is dead) — are
// transient: the handler asks Asynq to retry without counting a failure,
// and the job is never dead-lettered for them.
func TestHandler_ClusterErrors_RetriedUncountedNeverDeadLettered(t *testing.T) {
	t.Parallel()
	k := mustKey(t, "acme", "inv-1", 1)
	cluster := redistest.Cluster(t)
	lone := redistest.Start(t, &redistest.Options{ClusterNode: true})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	require.NoError(t, l.Close())

	// A key of shard 0 lives in the slot of {00}; any node but its master
	// answers MOVED.
	owner := cluster.MasterOf(t, "ro:{00}:x")
	other := cluster.Addrs[0]
	if other == owner {
		other = cluster.Addrs[1]
	}
	tests := []struct {
		name, addr, wantPrefix string
	}{
		{"moved", other, "MOVED"},
		{"clusterdown", lone.Addr, "CLUSTERDOWN"},
		{"connection refused", dead, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb, err := jobs.NewRedisClient("redis://" + tt.addr + "/0")
			require.NoError(t, err)
			t.Cleanup(func() { _ = rdb.Close() })
			store, err := jobs.NewStore(jobs.Config{Redis: rdb, Shards: 1})
			require.NoError(t, err)

			_, storeErr := store.Claim(t.Context(), k, "token")
			require.Error(t, storeErr)
			var rerr redis.Error
			if tt.wantPrefix != "" {
				require.ErrorAs(t, storeErr, &rerr)
				require.Contains(t, storeErr.Error(), tt.wantPrefix)
			}
			require.Equal(t, KindTransient, Classify(storeErr))

			h, err := NewHandler(HandlerConfig{Store: store, Extractor: rules.Rules{}})
			require.NoError(t, err)
			err = h.ProcessTask(t.Context(), asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: k.String()}.Marshal()))
			var ce *CodeError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, CodeError{Code: CodeUnavailable, Retry: true}, *ce)
			require.False(t, errors.Is(err, asynq.SkipRetry), "never archived")
			require.False(t, IsFailure(err), "a retry that counts no failure")
		})
	}
}

// A commit that no replica confirmed in time (RELAYOPS_REDIS_WAIT_REPLICAS;
// miniredis's WAIT answers 0) is not acknowledged to Asynq: the handler asks
// for a retry that counts no failure. The commit itself ran, so the
// redelivery finds the job succeeded and acks it.
func TestHandler_CommitNotReplicated_RetriedUncountedThenAcked(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := mustKey(t, "acme", "inv-1", 1)
	b.submit(t, k, readSample(t, "valid-basic-eur.txt"), 0)
	waiting, err := jobs.NewStore(jobs.Config{Redis: b.rdb, Clock: b.clock, Shards: testShards, WaitReplicas: 1})
	require.NoError(t, err)
	h, err := NewHandler(HandlerConfig{Store: waiting, Extractor: rules.Rules{}, Clock: b.clock})
	require.NoError(t, err)
	deliver := func() error {
		return h.ProcessTask(b.ctx, asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: k.String()}.Marshal()))
	}

	err = deliver()
	var ce *CodeError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, CodeError{Code: CodeUnavailable, Retry: true}, *ce)
	require.False(t, IsFailure(err))
	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State, "the unconfirmed commit ran on the master")

	require.NoError(t, deliver(), "the redelivery acks the succeeded job")
	require.Equal(t, 1, b.job(t, k).Attempt)
}
