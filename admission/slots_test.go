package admission

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

func TestCapacity_TheLiveSlotsAndWhatTheyEndInTheQueueTime_AtLeastAQuarter(t *testing.T) {
	t.Parallel()
	for live, want := range map[int]int{0: 0, 1: 2, 4: 5, 8: 10, 20: 25, 100: 125} {
		require.Equal(t, want, capacity(fleet{slots: live}, 200*time.Millisecond), "slow jobs, live %d", live)
	}
	require.Equal(t, 25, capacity(fleet{slots: 20, rate: 10}, 200*time.Millisecond), "10 jobs/s end 2 in 200ms: the quarter")
	require.Equal(t, 20+150, capacity(fleet{slots: 20, rate: 750}, 200*time.Millisecond), "750 jobs/s end 150 in 200ms")
	require.Equal(t, 0, capacity(fleet{rate: 750}, 200*time.Millisecond), "no slots registered")
}

func TestShareSlots_MaxMinFairUnderTheConfiguredCaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		capacity    int
		loads       []load
		want        map[string]int
		wantArrival int
	}{
		{name: "no slots registered: no shares", capacity: 0,
			loads: []load{{"acme", 100, 500}}, want: map[string]int{}},
		{name: "a lone tenant takes every slot and the queued quarter", capacity: 25,
			loads: []load{{"acme", 100, 500}}, want: map[string]int{"acme": 25}, wantArrival: 12},
		{name: "two floods split evenly", capacity: 25,
			loads: []load{{"acme", 100, 500}, {"globex", 100, 500}}, want: map[string]int{"acme": 12, "globex": 13}, wantArrival: 8},
		{name: "a small tenant keeps its work, the flood takes the rest, the small one may grow to an equal share", capacity: 25,
			loads: []load{{"acme", 100, 500}, {"globex", 100, 2}}, want: map[string]int{"acme": 23, "globex": 12}, wantArrival: 8},
		{name: "a configured cap below the share leaves the rest to the others", capacity: 25,
			loads: []load{{"acme", 100, 500}, {"globex", 3, 500}}, want: map[string]int{"acme": 22, "globex": 12}, wantArrival: 8},
		{name: "an idle tenant takes nothing", capacity: 25,
			loads: []load{{"acme", 100, 500}, {"globex", 100, 0}}, want: map[string]int{"acme": 25}, wantArrival: 12},
		{name: "a tenant without a cap is not held, and its jobs in flight use the slots", capacity: 25,
			loads: []load{{"acme", 100, 500}, {"free", 0, 10}}, want: map[string]int{"acme": 15}, wantArrival: 7},
		{name: "more tenants than slots: one each", capacity: 2,
			loads: []load{{"a1", 100, 5}, {"a2", 100, 5}, {"a3", 100, 5}, {"a4", 100, 5}}, want: map[string]int{"a1": 1, "a2": 1, "a3": 1, "a4": 1}, wantArrival: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sh := shareSlots(tt.capacity, tt.loads)
			require.Equal(t, tt.capacity, sh.capacity)
			require.Equal(t, tt.want, sh.caps)
			require.Equal(t, tt.wantArrival, sh.arrival)
		})
	}
}

// withSlots configures the admitter with a cap of 100 and n worker slots
// of its own.
func withSlots(n int) func(*Config) {
	return func(c *Config) { c.MaxInFlight = 100; c.Slots = n }
}

func TestPublish_LoneFlood_HeldToTheLiveSlotsAndAQuarter(t *testing.T) {
	t.Parallel()
	x := setup(t, withSlots(8))
	for i := range 30 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	require.Len(t, x.pub.take(), 10, "8 slots and 2 queued published at once, not the configured 100")
	require.Len(t, x.waiting(t, "acme"), 20)
	rep := x.step(t)
	require.Equal(t, 8, rep.Slots)
	require.Empty(t, x.pub.take())
	require.Equal(t, int64(10), x.inFlight(t, "acme"))
}

// A flood holds every slot and the queued quarter; another tenant arrives.
// The newcomer is published at once (up to an equal share), and from the
// next step on the flood is held to what the newcomer leaves: its freed
// slots are not refilled beyond that while the newcomer has work, and are
// again once the newcomer's work is done.
func TestStep_SecondTenantArrives_FloodHeldToItsShareUntilTheNewcomerIsDone(t *testing.T) {
	t.Parallel()
	x := setup(t, withSlots(8))
	for i := range 30 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	flood := x.pub.take()
	require.Len(t, flood, 10)

	var quiet []jobs.Key
	for i := range 3 {
		quiet = append(quiet, x.submit(t, "globex", i, jobs.DefaultLimits))
	}
	require.Equal(t, quiet, x.pub.take(), "the newcomer is under an equal share (5): published at once")
	x.step(t)
	// capacity 10: globex keeps its 3, acme's share is 7.
	x.endAll(t, flood[:6])
	x.step(t)
	require.Len(t, x.pub.take(), 3, "acme refilled to its share of 7 (4 in flight + 3), not to 10")
	require.Equal(t, int64(7), x.inFlight(t, "acme"))

	x.endAll(t, quiet)
	x.step(t) // writes the releases: globex has no work left
	x.step(t)
	require.Len(t, x.pub.take(), 3, "globex done: acme takes the capacity again")
	require.Equal(t, int64(10), x.inFlight(t, "acme"))
}

// Every admitter registers its process's slots; the shares divide the sum.
// A process that stops renewing (killed) is forgotten after five
// intervals; one whose Run ends deregisters at once.
func TestSlots_SumOverLiveProcesses_KilledExpiresStoppedLeavesAtOnce(t *testing.T) {
	t.Parallel()
	x := setup(t, withSlots(8))
	newAdmitter := func(slots int) *Admitter {
		a, err := New(Config{Store: x.store, Publisher: x.pub, MaxInFlight: 100, Slots: slots, Clock: x.clock})
		require.NoError(t, err)
		return a
	}
	killed, stopped := newAdmitter(4), newAdmitter(12)
	for _, a := range []*Admitter{killed, stopped} {
		_, err := a.Step(x.ctx)
		require.NoError(t, err)
	}
	require.Equal(t, 24, x.step(t).Slots)

	// stopped runs, then stops: it deregisters.
	ctx, cancel := context.WithCancel(x.ctx)
	done := make(chan error, 1)
	go func() { done <- stopped.Run(ctx) }()
	cancel()
	require.NoError(t, <-done)
	x.clock.Advance(time.Second)
	require.Equal(t, 12, x.step(t).Slots, "stopped left at once; killed is still counted")

	// killed never renews; x does, every second.
	for range 4 {
		x.clock.Advance(time.Second)
		x.step(t)
	}
	x.clock.Advance(1100 * time.Millisecond)
	require.Equal(t, 8, x.step(t).Slots, "killed forgotten five intervals after its last renewal")
}

// The live slots are read once per SlotsInterval, not on every step.
func TestStep_SlotsReadOncePerInterval(t *testing.T) {
	t.Parallel()
	x := setup(t, withSlots(8))
	require.Equal(t, 8, x.step(t).Slots)
	other, err := New(Config{Store: x.store, Publisher: x.pub, MaxInFlight: 100, Slots: 4, Clock: x.clock})
	require.NoError(t, err)
	_, err = other.Step(x.ctx)
	require.NoError(t, err)
	require.Equal(t, 8, x.step(t).Slots, "within the interval: the last total")
	x.clock.Advance(time.Second)
	require.Equal(t, 12, x.step(t).Slots)
}

// Jobs that end fast may queue deeper: what the workers end in QueueTime.
// The rate is this process's releases per second, averaged with the
// interval before and scaled by the live slots over its own.
func TestStep_ShortJobs_QueueWhatTheWorkersEndInTheQueueTime(t *testing.T) {
	t.Parallel()
	x := setup(t, func(c *Config) { c.MaxInFlight = 100; c.Slots = 4; c.QueueTime = 200 * time.Millisecond })
	other, err := New(Config{Store: x.store, Publisher: x.pub, MaxInFlight: 100, Slots: 4, Clock: x.clock})
	require.NoError(t, err)
	_, err = other.Step(x.ctx)
	require.NoError(t, err)
	require.Equal(t, 8, x.step(t).Slots)
	for i := range 100 {
		k, err := jobs.BuildKey("acme", "ended-"+strconv.Itoa(i), 1)
		require.NoError(t, err)
		require.NoError(t, x.adm.Release(x.ctx, k))
	}
	x.clock.Advance(time.Second)
	x.step(t) // 100 ended here in 1s: 200/s over the 8 slots, averaged with 0 before: 100/s
	for i := range 40 {
		x.submit(t, "acme", i, jobs.DefaultLimits)
	}
	require.Len(t, x.pub.take(), 8+20, "8 slots and the 20 jobs they end in 200ms")
}
