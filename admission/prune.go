package admission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
)

// The Redis keys of admission. A tenant's two sets share the tenant's own
// hash tag (one slot, so admit.lua touches one slot); the registry of
// tenants has its own.
const registryKey = "ro:{adm}:tenants"

func waitingKey(tenant string) string  { return "ro:{adm:" + tenant + "}:waiting" }
func inFlightKey(tenant string) string { return "ro:{adm:" + tenant + "}:inflight" }

// event is the job.submitted event of k, as the relay would hand it on.
func (a *Admitter) event(k jobs.Key) jobs.Event {
	return jobs.Event{Type: jobs.EventJobSubmitted, Key: k, Shard: jobs.Shard(k.Tenant, k.DocumentID, a.store.Shards())}
}

// maybePrune prunes the tenant's in-flight set when its PruneInterval is
// due in this process.
func (a *Admitter) maybePrune(ctx context.Context, st *tenantState, rep *StepReport) error {
	if st.inFlight == 0 {
		return nil
	}
	now := a.cfg.Clock.Now()
	a.mu.Lock()
	// A tenant first seen is pruned one interval later: its members were
	// just admitted, or are a dead process's, which can wait that long.
	last, seen := a.pruned[st.name]
	due := seen && now.Sub(last) >= a.cfg.PruneInterval
	if due || !seen {
		a.pruned[st.name] = now
	}
	a.mu.Unlock()
	if !due {
		return nil
	}
	return a.prune(ctx, st, rep)
}

// prune is the self-healing pass over one tenant's in-flight set: a member
// whose job ended (or is gone) is removed, since the worker that ended it
// died before releasing it; a member still queued RepublishAfter after its
// admission is published again and its admission time renewed, since the
// admitter that admitted it may have died before publishing it (Asynq
// absorbs the republish of a task that exists by its TaskID).
func (a *Admitter) prune(ctx context.Context, st *tenantState, rep *StepReport) error {
	members, err := a.rdb.ZRangeWithScores(ctx, inFlightKey(st.name), 0, -1).Result()
	if err != nil {
		return fmt.Errorf("admission: read in-flight of %s: %w", st.name, err)
	}
	keys := make([]jobs.Key, 0, len(members))
	var bad []any
	for _, m := range members {
		id, _ := m.Member.(string)
		k, err := jobs.ParseKey(id)
		if err != nil {
			bad = append(bad, id)
			continue
		}
		keys = append(keys, k)
	}
	peeks, err := a.store.PeekJobs(ctx, keys)
	if err != nil {
		return fmt.Errorf("admission: prune %s: %w", st.name, err)
	}
	ended := bad
	var stale []jobs.Key
	now := a.cfg.Clock.Now()
	scores := make(map[string]float64, len(members))
	for _, m := range members {
		scores[fmt.Sprint(m.Member)] = m.Score
	}
	for i, p := range peeks {
		switch {
		case p.Done():
			ended = append(ended, keys[i].String())
		case p.State == jobs.StateQueued && now.UnixMilli()-int64(scores[keys[i].String()]) >= a.cfg.RepublishAfter.Milliseconds():
			stale = append(stale, keys[i])
		}
	}
	if len(ended) > 0 {
		if err := a.rdb.ZRem(ctx, inFlightKey(st.name), ended...).Err(); err != nil {
			return fmt.Errorf("admission: prune %s: %w", st.name, err)
		}
		rep.Released += len(ended)
		st.inFlight -= int64(len(ended))
	}
	return a.republish(ctx, st.name, stale, rep)
}

func (a *Admitter) republish(ctx context.Context, tenant string, stale []jobs.Key, rep *StepReport) error {
	var errs []error
	for _, k := range stale {
		if err := a.cfg.Publisher.Publish(ctx, a.event(k)); err != nil {
			errs = append(errs, fmt.Errorf("admission: republish %s: %w", k, err))
			continue
		}
		// Renew the admission time only of a member still there (XX).
		z := redis.Z{Score: float64(a.cfg.Clock.Now().UnixMilli()), Member: k.String()}
		if err := a.rdb.ZAddXX(ctx, inFlightKey(tenant), z).Err(); err != nil {
			errs = append(errs, fmt.Errorf("admission: renew %s: %w", k, err))
			continue
		}
		rep.Republished++
	}
	return errors.Join(errs...)
}

// admitted is one job admitted in a step.
type admitted struct {
	key   jobs.Key
	score string // its score while waiting, to put it back
}

// admit runs admit.lua for each tenant with work waiting and room under its
// cap, and returns the jobs admitted, per tenant, in the step's order.
func (a *Admitter) admit(ctx context.Context, states []*tenantState) ([][]admitted, error) {
	out := make([][]admitted, len(states))
	now := a.cfg.Clock.Now().UnixMilli()
	var errs []error
	for i, st := range states {
		limit := a.Cap(st.name)
		if st.waiting <= 0 || (limit > 0 && st.inFlight >= int64(limit)) {
			continue
		}
		keys := []string{waitingKey(st.name), inFlightKey(st.name)}
		v, err := admitScript.Run(ctx, a.rdb, keys, now, limit, a.cfg.Batch).StringSlice()
		if err != nil {
			errs = append(errs, fmt.Errorf("admission: admit %s: %w", st.name, err))
			continue
		}
		for j := 0; j+1 < len(v); j += 2 {
			k, err := jobs.ParseKey(v[j])
			if err != nil {
				a.log.Error("dropping a malformed member of a waiting set", "tenant", st.name)
				a.rdb.ZRem(ctx, inFlightKey(st.name), v[j])
				continue
			}
			out[i] = append(out[i], admitted{key: k, score: v[j+1]})
		}
		st.waiting -= int64(len(out[i]))
		st.inFlight += int64(len(out[i]))
	}
	return out, errors.Join(errs...)
}

// publishRoundRobin publishes the admitted jobs in round-robin order (the
// first of each tenant, then the second of each, ...), so that Asynq's
// queue, which is first in first out, interleaves the tenants. Up to
// PublishConcurrency publishes run at once (one enqueue is a round trip:
// one at a time would cap admission far below what workers drain); they
// start in that order. A job whose publish fails goes back to waiting.
func (a *Admitter) publishRoundRobin(ctx context.Context, per [][]admitted) (int, error) {
	var order []admitted
	for round := 0; ; round++ {
		more := false
		for _, js := range per {
			if round < len(js) {
				order = append(order, js[round])
				more = true
			}
		}
		if !more {
			break
		}
	}
	var (
		mu   sync.Mutex
		n    int
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan admitted)
	for range min(a.cfg.PublishConcurrency, len(order)) {
		wg.Go(func() {
			for j := range next {
				err := a.publishOne(ctx, j)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					n++
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range order {
		next <- j
	}
	close(next)
	wg.Wait()
	return n, errors.Join(errs...)
}

// publishOne publishes one admitted job, or puts it back to waiting.
func (a *Admitter) publishOne(ctx context.Context, j admitted) error {
	err := a.cfg.Publisher.Publish(ctx, a.event(j.key))
	if err == nil {
		return nil
	}
	errs := []error{fmt.Errorf("admission: publish %s: %w", j.key, err)}
	keys := []string{waitingKey(j.key.Tenant), inFlightKey(j.key.Tenant)}
	if err := unadmitScript.Run(context.WithoutCancel(ctx), a.rdb, keys, j.key.String(), j.score).Err(); err != nil {
		errs = append(errs, fmt.Errorf("admission: put %s back: %w", j.key, err))
	}
	return errors.Join(errs...)
}

// forget drops from the registry tenants with nothing waiting or in flight
// whose last submission is older than ForgetAfter. Every submission stamps
// the registry in the round trip that queues its job, so a tenant
// submitting within ForgetAfter is never dropped, and one that submits
// again is registered again.
func (a *Admitter) forget(ctx context.Context, states []*tenantState) error {
	var idle []any
	for _, st := range states {
		if st.waiting <= 0 && st.inFlight <= 0 {
			idle = append(idle, st.name)
		}
	}
	if len(idle) == 0 {
		return nil
	}
	scores, err := a.rdb.ZMScore(ctx, registryKey, toStrings(idle)...).Result()
	if err != nil {
		return fmt.Errorf("admission: read tenant stamps: %w", err)
	}
	cutoff := float64(a.cfg.Clock.Now().Add(-a.cfg.ForgetAfter).UnixMilli())
	var gone []any
	for i, s := range scores {
		if s != 0 && s < cutoff {
			gone = append(gone, idle[i])
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if err := a.rdb.ZRem(ctx, registryKey, gone...).Err(); err != nil {
		return fmt.Errorf("admission: forget tenants: %w", err)
	}
	return nil
}

func toStrings(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = x.(string)
	}
	return out
}

// Tenant is one tenant's admission state.
type Tenant struct {
	Tenant   string
	Waiting  int64 // jobs waiting for admission
	InFlight int64 // jobs admitted and not yet released
}

// Tenants reads every registered tenant's admission state from rdb (for the
// operator endpoint, which has no Admitter), sorted by tenant.
func Tenants(ctx context.Context, rdb redis.UniversalClient) ([]Tenant, error) {
	names, err := rdb.ZRange(ctx, registryKey, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("admission: read tenants: %w", err)
	}
	pipe := rdb.Pipeline()
	w := make([]*redis.IntCmd, len(names))
	f := make([]*redis.IntCmd, len(names))
	for i, t := range names {
		w[i], f[i] = pipe.ZCard(ctx, waitingKey(t)), pipe.ZCard(ctx, inFlightKey(t))
	}
	if len(names) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("admission: read tenant counts: %w", err)
		}
	}
	out := make([]Tenant, len(names))
	for i, t := range names {
		out[i] = Tenant{Tenant: t, Waiting: w[i].Val(), InFlight: f[i].Val()}
	}
	sortTenants(out)
	return out, nil
}

func sortTenants(ts []Tenant) {
	slices.SortFunc(ts, func(a, b Tenant) int { return strings.Compare(a.Tenant, b.Tenant) })
}

// maybeSweep checks the next window of the tenant's waiting jobs against
// their records when its SweepInterval is due in this process: ended jobs
// leave the waiting set, jobs past their deadline are cancelled. The window
// moves on each sweep and wraps around, so a waiting job past its deadline
// is cancelled within about waiting/SweepBatch sweeps, and at the latest
// when it is admitted (screen).
func (a *Admitter) maybeSweep(ctx context.Context, st *tenantState, rep *StepReport) error {
	if st.waiting <= 0 {
		return nil
	}
	now := a.cfg.Clock.Now()
	a.mu.Lock()
	w := a.sweeps[st.name]
	due := now.Sub(w.at) >= a.cfg.SweepInterval
	if due {
		w.at = now
	}
	off := w.offset
	a.mu.Unlock()
	if !due {
		return nil
	}
	ids, err := a.rdb.ZRange(ctx, waitingKey(st.name), off, off+int64(a.cfg.SweepBatch)-1).Result()
	if err != nil {
		return fmt.Errorf("admission: sweep %s: %w", st.name, err)
	}
	next := off + int64(len(ids))
	if len(ids) < a.cfg.SweepBatch {
		next = 0
	}
	removed, err := a.sweep(ctx, st.name, ids, rep)
	a.mu.Lock()
	a.sweeps[st.name] = sweepState{at: now, offset: max(next-removed, 0)}
	a.mu.Unlock()
	st.waiting -= removed
	return err
}

// sweep handles one window of waiting job keys and returns how many left
// the waiting set.
func (a *Admitter) sweep(ctx context.Context, tenant string, ids []string, rep *StepReport) (int64, error) {
	keys := make([]jobs.Key, 0, len(ids))
	var drop []any
	for _, id := range ids {
		k, err := jobs.ParseKey(id)
		if err != nil {
			drop = append(drop, id)
			continue
		}
		keys = append(keys, k)
	}
	peeks, err := a.store.PeekJobs(ctx, keys)
	if err != nil {
		return 0, fmt.Errorf("admission: sweep %s: %w", tenant, err)
	}
	now := a.cfg.Clock.Now()
	var errs []error
	for i, p := range peeks {
		k := keys[i]
		switch {
		case p.Done():
			drop = append(drop, k.String())
		case !p.DeadlineAt.IsZero() && !now.Before(p.DeadlineAt):
			done, err := a.retire(ctx, k, rep)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if done {
				drop = append(drop, k.String())
				continue
			}
			if err := a.moveInFlight(ctx, k); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := a.cfg.Publisher.Publish(ctx, a.event(k)); err != nil {
				errs = append(errs, fmt.Errorf("admission: publish %s: %w", k, err))
			}
		}
	}
	if len(drop) > 0 {
		if err := a.rdb.ZRem(ctx, waitingKey(tenant), drop...).Err(); err != nil {
			errs = append(errs, fmt.Errorf("admission: sweep %s: %w", tenant, err))
			return 0, errors.Join(errs...)
		}
	}
	return int64(len(drop)), errors.Join(errs...)
}

// screen checks the jobs just admitted against their records, in one
// pipeline: an ended job (cancelled by an operator, a republish of a job
// that finished) leaves the in-flight set unpublished, a job past its
// deadline is cancelled there and then. It returns the jobs to publish.
func (a *Admitter) screen(ctx context.Context, per [][]admitted, rep *StepReport) ([][]admitted, error) {
	var keys []jobs.Key
	for _, js := range per {
		for _, j := range js {
			keys = append(keys, j.key)
		}
	}
	if len(keys) == 0 {
		return per, nil
	}
	peeks, err := a.store.PeekJobs(ctx, keys)
	if err != nil {
		// Publish them all: the handler's claim judges each job anyway.
		return per, fmt.Errorf("admission: screen: %w", err)
	}
	now := a.cfg.Clock.Now()
	var errs []error
	out := make([][]admitted, len(per))
	n := 0
	for i, js := range per {
		for _, j := range js {
			p := peeks[n]
			n++
			done := p.Done()
			if !done && !p.DeadlineAt.IsZero() && !now.Before(p.DeadlineAt) {
				var err error
				if done, err = a.retire(ctx, j.key, rep); err != nil {
					errs = append(errs, err)
					continue // stays in flight; the prune retries it
				}
			}
			if !done {
				out[i] = append(out[i], j)
				continue
			}
			if err := a.rdb.ZRem(ctx, inFlightKey(j.key.Tenant), j.key.String()).Err(); err != nil {
				errs = append(errs, fmt.Errorf("admission: release %s: %w", j.key, err))
			}
		}
	}
	return out, errors.Join(errs...)
}

// moveInFlight moves k from waiting to in flight (one slot, one MULTI).
func (a *Admitter) moveInFlight(ctx context.Context, k jobs.Key) error {
	_, err := a.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, waitingKey(k.Tenant), k.String())
		p.ZAdd(ctx, inFlightKey(k.Tenant), redis.Z{Score: float64(a.cfg.Clock.Now().UnixMilli()), Member: k.String()})
		return nil
	})
	if err != nil {
		return fmt.Errorf("admission: move %s in flight: %w", k, err)
	}
	return nil
}

// Waiting reports whether job k waits for admission: it has no Asynq task
// by design, and the reconciler must not take it for one whose task was
// lost.
func (a *Admitter) Waiting(ctx context.Context, k jobs.Key) (bool, error) {
	err := a.rdb.ZScore(ctx, waitingKey(k.Tenant), k.String()).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("admission: waiting %s: %w", k, err)
	}
	return true, nil
}
