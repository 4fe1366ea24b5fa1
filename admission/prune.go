package admission

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
)

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
