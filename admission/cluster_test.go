package admission

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// On a real 3-master Redis Cluster, through the store's cluster client (no
// redirects followed), every admission call works with tenants spread over
// the masters: each script touches its tenant's slot only, and the
// cross-slot reads and writes are pipelines of single-key commands.
func TestAdmitter_OnRedisCluster_AdmitsSweepsPrunesAndForgets(t *testing.T) {
	t.Parallel()
	c := redistest.Cluster(t)
	rdb, err := jobs.NewRedisClusterClient(c.Addrs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	clk := clock.NewStub(time.Now().UTC().Truncate(time.Millisecond))
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk})
	require.NoError(t, err)
	pub := &recorder{}
	adm, err := New(Config{Store: store, Publisher: pub, MaxInFlight: 2, Clock: clk, ForgetAfter: time.Minute})
	require.NoError(t, err)
	x := &bundle{ctx: context.Background(), store: store, clock: clk, pub: pub, adm: adm}

	tenants := []string{"acme", "globex", "initech", "umbrella", "hooli", "stark"}
	masters := map[string]bool{}
	for _, tn := range tenants {
		masters[c.MasterOf(t, inFlightKey(tn))] = true
		for i := range 3 {
			x.submit(t, tn, i, jobs.DefaultLimits)
		}
	}
	require.Greater(t, len(masters), 1, "the tenants' slots are on more than one master")
	late := x.submit(t, "acme", 9, jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Second})

	rep, err := adm.Step(x.ctx)
	require.NoError(t, err)
	require.Equal(t, 2*len(tenants), rep.Admitted)
	published := pub.take()
	// One slot's worth of work ends without a release (its worker died).
	x.finish(t, published[0])
	for _, k := range published[1:] {
		x.finish(t, k)
		require.NoError(t, adm.Release(x.ctx, k))
	}
	var total StepReport
	for range 4 { // the prune is due one interval after a tenant is first seen in flight
		clk.Advance(3 * time.Second)
		rep, err = adm.Step(x.ctx)
		require.NoError(t, err)
		total.Cancelled += rep.Cancelled
		total.Released += rep.Released
		for _, k := range pub.take() {
			x.finish(t, k)
			require.NoError(t, adm.Release(x.ctx, k))
		}
	}
	require.Equal(t, 1, total.Cancelled, "the late job is cancelled by the sweep")
	require.Equal(t, 1, total.Released, "the unreleased slot is pruned")
	j, err := store.Get(x.ctx, late)
	require.NoError(t, err)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Zero(t, j.Attempt)

	ts, err := Tenants(x.ctx, rdb)
	require.NoError(t, err)
	require.Len(t, ts, len(tenants))
	for _, tn := range ts {
		require.Equal(t, Tenant{Tenant: tn.Tenant}, tn, "every job ended and was released")
	}
	clk.Advance(2 * time.Minute)
	_, err = adm.Step(x.ctx)
	require.NoError(t, err)
	ts, err = Tenants(x.ctx, rdb)
	require.NoError(t, err)
	require.Empty(t, ts, fmt.Sprint(ts))
}
