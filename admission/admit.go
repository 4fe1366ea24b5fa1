package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
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
		limit := a.limit(st.name)
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
// queue, which is first in first out, interleaves the tenants. A
// BatchPublisher (the worker's) gets them all at once, in that order, in
// one round trip. Otherwise up to PublishConcurrency publishes run at once
// (one enqueue is a round trip: one at a time would cap admission far below
// what workers drain); they start in that order. A job whose publish fails
// goes back to waiting.
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
	if bp, ok := a.cfg.Publisher.(outbox.BatchPublisher); ok {
		return a.publishBatch(ctx, bp, order)
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

// publishBatch publishes the admitted jobs with one PublishBatch, in order,
// and puts back to waiting those it could not publish.
func (a *Admitter) publishBatch(ctx context.Context, bp outbox.BatchPublisher, order []admitted) (int, error) {
	if len(order) == 0 {
		return 0, nil
	}
	evs := make([]jobs.Event, len(order))
	for i, j := range order {
		evs[i] = a.event(j.key)
	}
	n := 0
	var errs []error
	for i, err := range bp.PublishBatch(ctx, evs) {
		if err != nil {
			errs = append(errs, a.putBack(ctx, order[i], err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// publishOne publishes one admitted job, or puts it back to waiting.
func (a *Admitter) publishOne(ctx context.Context, j admitted) error {
	if err := a.cfg.Publisher.Publish(ctx, a.event(j.key)); err != nil {
		return a.putBack(ctx, j, err)
	}
	return nil
}

// putBack returns an admitted job whose publish failed (with err) to
// waiting, freeing its slot.
func (a *Admitter) putBack(ctx context.Context, j admitted, err error) error {
	errs := []error{fmt.Errorf("admission: publish %s: %w", j.key, err)}
	keys := []string{waitingKey(j.key.Tenant), inFlightKey(j.key.Tenant)}
	if err := unadmitScript.Run(context.WithoutCancel(ctx), a.rdb, keys, j.key.String(), j.score).Err(); err != nil {
		errs = append(errs, fmt.Errorf("admission: put %s back: %w", j.key, err))
	}
	return errors.Join(errs...)
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
