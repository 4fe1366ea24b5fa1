package quota

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/relayops/relayops/jobs"
)

// The recount. A reservation counts a new input against the stored-bytes
// cap, so an input stored while no process counted (before the cap was
// turned on, by a process without it during a rollout, while it was off)
// would never be counted, and a tenant with 144 MB stored could add 45 MB
// more under a 50 MiB cap. A recount walks the tenant's job indexes and
// counts every stored input the count lacks ("adopt" in quota.lua), at its
// stored size and with its expiry (the input's own, or for an open job the
// bound a reservation gives it).
//
// A pass walks the open jobs, then the ended ones (a job that ends during
// the pass moves from the first to the second, so none is missed), from
// the previous pass's start less recountOverlap (clock skew between
// processes, submissions in flight): the first pass walks every job the
// indexes hold, later ones only those created since. Its state lives in
// Redis, in the tenant's own slot, so the processes share one pass; a lease
// lets one process step it at a time. A step looks at RecountBatch jobs at
// most; a process runs one before a reservation while a pass is under way
// (the tenant's first reservations after the cap is turned on complete
// it), and starts the next pass RecountEvery after the last one ended.
// Adopting is idempotent (an input counted already is skipped), so a step
// repeated after a crash, or run twice, counts nothing twice.

// recountOverlap is how far before the previous pass's start a pass walks.
const recountOverlap = time.Minute

// recountLease bounds how long one process holds a tenant's recount.
const recountLease = 30 * time.Second

// Fields of the recount's state, the hash ro:{q:<tenant>}:stored:recount.
const (
	rcWatermark = "w"  // ms: the start of the last finished pass
	rcPassStart = "ps" // ms: the start of the pass under way (absent: none)
	rcPhase     = "ph" // phaseOpen or phaseEnded: which indexes the pass walks
	rcCursor    = "c"  // the walk's cursor in that phase
	rcDone      = "d"  // ms: when the last pass finished
)

const (
	phaseOpen  = "open"
	phaseEnded = "ended"
)

// recountKeys are the recount's state hash and its lease, in the tenant's
// quota slot.
func recountKeys(tenant string) (state, lease string) {
	tag := "ro:{q:" + tenant + "}:"
	return tag + "stored:recount", tag + "stored:recount:lease"
}

// RecountStep is what one step of a tenant's recount did.
type RecountStep struct {
	Checked      int   // jobs looked at
	Adopted      int   // stored inputs newly counted
	AdoptedBytes int64 // their stored bytes
	// PassDone: no pass is under way after this step (it finished one, or
	// none was due).
	PassDone bool
	// Busy: another process holds the recount; nothing was done.
	Busy bool
	// Next is when a next step is due.
	Next time.Time
}

// Recount runs one step of tenant's recount of its stored inputs: it
// starts a pass when one is due, looks at up to RecountBatch jobs of the
// pass, and counts the stored inputs the count lacks. Without
// MaxStoredBytes it does nothing. It is safe to call from any number of
// processes at once.
func (l *Limiter) Recount(ctx context.Context, tenant string) (RecountStep, error) {
	now := l.cfg.Clock.Now()
	st := RecountStep{PassDone: true, Next: now.Add(l.cfg.RecountEvery)}
	if l.cfg.MaxStoredBytes == 0 {
		return st, nil
	}
	stateKey, leaseKey := recountKeys(tenant)
	began := time.Now()
	ok, err := l.rdb.SetNX(ctx, leaseKey, "1", recountLease).Result()
	if err != nil {
		return st, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	if !ok {
		return RecountStep{Busy: true, Next: now.Add(l.cfg.PruneEvery)}, nil
	}
	defer func() {
		// Released only well within the lease: a step that ran past it
		// may no longer hold it (another process's lease then expires).
		if time.Since(began) < recountLease/2 {
			_ = l.rdb.Del(context.WithoutCancel(ctx), leaseKey).Err()
		}
	}()
	state, err := l.rdb.HGetAll(ctx, stateKey).Result()
	if err != nil {
		return st, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	if state[rcPassStart] == "" {
		if done := msOf(state[rcDone]); done > 0 && now.UnixMilli() < done+l.cfg.RecountEvery.Milliseconds() {
			st.Next = time.UnixMilli(done).Add(l.cfg.RecountEvery)
			return st, nil
		}
		w, hasW := state[rcWatermark]
		state = map[string]string{rcPassStart: strconv.FormatInt(now.UnixMilli(), 10), rcPhase: phaseOpen}
		if hasW {
			state[rcWatermark] = w
		}
	}
	st, err = l.walk(ctx, tenant, state)
	if err != nil {
		return st, err
	}
	if !st.PassDone {
		st.Next = now
		return st, l.rdb.HSet(ctx, stateKey, state).Err()
	}
	st.Next = now.Add(l.cfg.RecountEvery)
	pipe := l.rdb.TxPipeline()
	pipe.HDel(ctx, stateKey, rcPassStart, rcPhase, rcCursor)
	pipe.HSet(ctx, stateKey, rcWatermark, state[rcPassStart], rcDone, now.UnixMilli())
	if _, err := pipe.Exec(ctx); err != nil {
		return st, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	return st, nil
}

// walk advances the pass whose state is state by up to RecountBatch jobs,
// counting the stored inputs the count lacks, and leaves the pass's new
// position in state.
func (l *Limiter) walk(ctx context.Context, tenant string, state map[string]string) (RecountStep, error) {
	var st RecountStep
	var since time.Time
	if w := msOf(state[rcWatermark]); w > 0 {
		since = time.UnixMilli(w).Add(-recountOverlap)
	}
	for budget := l.cfg.RecountBatch; budget > 0; {
		open := state[rcPhase] == phaseOpen
		keys, next, err := l.store.TenantJobs(ctx, jobs.TenantJobsOptions{
			Tenant: tenant, Open: open, Since: since, Cursor: state[rcCursor], Limit: min(budget, jobs.MaxLimit)})
		if err != nil {
			return st, fmt.Errorf("quota: recount %s: %w", tenant, err)
		}
		n, bytes, err := l.adopt(ctx, tenant, keys)
		if err != nil {
			return st, err
		}
		st.Checked, st.Adopted, st.AdoptedBytes = st.Checked+len(keys), st.Adopted+n, st.AdoptedBytes+bytes
		budget -= len(keys)
		state[rcCursor] = next
		switch {
		case next != "":
		case open:
			state[rcPhase] = phaseEnded
		default:
			st.PassDone = true
			return st, nil
		}
	}
	return st, nil
}

// adopt counts the stored inputs of jobKeys that the count lacks and returns
// how many it counted and their bytes.
func (l *Limiter) adopt(ctx context.Context, tenant string, jobKeys []jobs.Key) (int, int64, error) {
	if len(jobKeys) == 0 {
		return 0, 0, nil
	}
	members := make([]string, len(jobKeys))
	for i, k := range jobKeys {
		members[i] = k.String()
	}
	scores, err := l.rdb.ZMScore(ctx, keys(tenant)[4], members...).Result()
	if err != nil {
		return 0, 0, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	var lacking []jobs.Key
	for i, k := range jobKeys {
		if i >= len(scores) || scores[i] == 0 { // an expiry is never 0: not counted
			lacking = append(lacking, k)
		}
	}
	inputs, err := l.store.PeekInputSizes(ctx, lacking)
	if err != nil {
		return 0, 0, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	var open []jobs.Key
	for i, in := range inputs {
		if in.Stored && in.TTL == 0 {
			open = append(open, lacking[i])
		}
	}
	peeks, err := l.store.PeekJobs(ctx, open)
	if err != nil {
		return 0, 0, fmt.Errorf("quota: recount %s: %w", tenant, err)
	}
	now := l.cfg.Clock.Now()
	args := []any{now.UnixMilli(), "adopt"}
	for i, in := range inputs {
		switch {
		case !in.Stored:
		case in.TTL > 0:
			args = append(args, lacking[i].String(), in.Bytes, now.Add(in.TTL).UnixMilli(), "0")
		default:
			// An open job: its input is kept until it ends, then for the
			// retention; counted until the bound a reservation would give.
			deadline := now.Add(jobs.DefaultLimits.Deadline)
			if p := peeks[0]; !p.DeadlineAt.IsZero() {
				deadline = p.DeadlineAt
			}
			peeks = peeks[1:]
			args = append(args, lacking[i].String(), in.Bytes, deadline.Add(l.cfg.EndSlack+l.cfg.InputRetention).UnixMilli(), "1")
		}
	}
	if len(args) == 2 {
		return 0, 0, nil
	}
	res, err := l.run(ctx, tenant, args...)
	if err != nil {
		return 0, 0, err
	}
	if len(res) != 3 || res[0] != "adopted" {
		return 0, 0, fmt.Errorf("quota: unexpected reply %v", res)
	}
	n, _ := res[1].(int64)
	bytes, _ := res[2].(int64)
	return int(n), bytes, nil
}

// recountIfDue runs a step of tenant's recount when this process's last
// step said one is due. A recount that fails is logged and tried again
// after PruneEvery: the reservation goes on with the count as it is.
func (l *Limiter) recountIfDue(ctx context.Context, tenant string) {
	if l.cfg.MaxStoredBytes == 0 {
		return
	}
	now := l.cfg.Clock.Now()
	l.mu.Lock()
	due := !now.Before(l.recount[tenant])
	l.mu.Unlock()
	if !due {
		return
	}
	st, err := l.Recount(ctx, tenant)
	if err != nil {
		l.cfg.Logger.Warn("stored-bytes recount failed; it is tried again", "tenant", tenant, "error", err.Error())
		st.Next = now.Add(l.cfg.PruneEvery)
	} else if st.Adopted > 0 {
		l.cfg.Logger.Info("stored-bytes recount counted inputs the count lacked", "tenant", tenant,
			"inputs", st.Adopted, "bytes", st.AdoptedBytes)
	}
	l.mu.Lock()
	l.recount[tenant] = st.Next
	l.mu.Unlock()
}

// msOf parses a millisecond time field, 0 when absent.
func msOf(v string) int64 {
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}
