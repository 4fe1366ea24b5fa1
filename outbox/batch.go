package outbox

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
)

// A batch is what one read of a shard returned. Its entries go to their
// consumers one by one (consume), except the extraction.committed ones,
// which the review consumer applies together, and the job.submitted ones,
// which a BatchPublisher publishes together; what the batch then owes (its
// acks and its reviews) is settled in one round trip.

// deliverAll consumes a shard's entries and acks those delivered.
func (r *Relay) deliverAll(ctx context.Context, shard int, msgs []redis.XMessage) (int, error) {
	o, err := r.deliverBatch(ctx, shard, msgs)
	return len(msgs), errors.Join(err, r.applyAndAck(ctx, shard, o.committed, o.acks))
}

// deliverBatch hands a shard's entries to their consumers. Each entry goes
// to its consumer through consume, one by one, except the
// extraction.committed ones: the review consumer applies those together, in
// one script call that also acks every entry delivered. What it returns is
// owed: the acks of the entries delivered and the reviews to apply, for the
// caller to settle (applyAndAck, or the next read's round trip).
func (r *Relay) deliverBatch(ctx context.Context, shard int, msgs []redis.XMessage) (owed, error) {
	if len(msgs) == 0 {
		return owed{}, nil
	}
	acks := make([]string, 0, len(msgs))
	var committed, submitted []jobs.Event
	var submittedIDs []string
	bp, batching := r.cfg.Publisher.(BatchPublisher)
	var errs []error
	evs, perr := r.parseAndClaim(ctx, shard, msgs)
	for i, m := range msgs {
		ev, err := evs[i], perr[i]
		switch {
		case errors.Is(err, errUnclaimed):
			r.cfg.OnEvent(ev, "error")
			errs = append(errs, r.failHeld(ctx, RelayErrorConsume, err))
			continue
		case err != nil:
			// It can never succeed: logged, and acked.
			r.log.Error("dropping malformed outbox entry", "shard", shard, "stream_id", m.ID, "error", err)
		case ev.Type == jobs.EventExtractionCommitted:
			// The job succeeded: its webhooks are enqueued before the
			// review is applied and the entry acked, so a failed notify
			// leaves the entry pending and both are retried.
			if err := r.notify(ctx, ev); err != nil {
				r.cfg.OnEvent(ev, "error")
				errs = append(errs, err)
				continue
			}
			committed = append(committed, ev)
			continue
		case ev.Type == jobs.EventJobSubmitted && batching:
			submitted, submittedIDs = append(submitted, ev), append(submittedIDs, m.ID)
			continue
		default:
			if err := r.consume(ctx, ev); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		acks = append(acks, m.ID)
	}
	if len(submitted) > 0 {
		for i, err := range bp.PublishBatch(ctx, submitted) {
			ev := submitted[i]
			if err != nil {
				r.cfg.OnEvent(ev, "error")
				r.log.Debug("outbox entry not delivered; it stays pending", "event", ev.Type, "job_key", ev.Key.String(), "error", err)
				errs = append(errs, r.failHeld(ctx, RelayErrorPublish, err))
				continue
			}
			r.cfg.OnEvent(ev, "published")
			acks = append(acks, submittedIDs[i])
		}
	}
	return owed{acks: acks, committed: committed}, errors.Join(errs...)
}

// errUnclaimed marks an extraction.committed entry whose fingerprint
// could not be claimed: it stays pending, unnotified and unapplied.
var errUnclaimed = errors.New("outbox: fingerprint not claimed")

// parseAndClaim parses a shard's entries and claims the fingerprints of
// the extraction.committed ones (one call for the batch), so their
// webhooks and reviews carry what the claim found. An entry that does not
// parse has its error; when the claim fails, every committed entry has
// errUnclaimed.
func (r *Relay) parseAndClaim(ctx context.Context, shard int, msgs []redis.XMessage) ([]jobs.Event, []error) {
	evs, errs := make([]jobs.Event, len(msgs)), make([]error, len(msgs))
	var committed []int
	for i, m := range msgs {
		evs[i], errs[i] = jobs.ParseEvent(shard, m)
		if errs[i] == nil && evs[i].Type == jobs.EventExtractionCommitted && evs[i].Fingerprint != "" {
			committed = append(committed, i)
		}
	}
	if r.cfg.Claimer == nil || len(committed) == 0 {
		return evs, errs
	}
	batch := make([]jobs.Event, len(committed))
	for j, i := range committed {
		batch[j] = evs[i]
	}
	err := r.cfg.Claimer.ClaimEvents(ctx, batch)
	for j, i := range committed {
		if err != nil {
			r.log.Debug("fingerprints not claimed; the entries stay pending", "shard", shard, "error", err)
			errs[i] = errUnclaimed
			continue
		}
		evs[i] = batch[j]
	}
	return evs, errs
}

// applyAndAck applies the shard's extraction.committed events and acks them
// with the entries in acks, all in one script call (a plain XACK when there
// is nothing to apply). On failure nothing is acked: the entries stay
// pending and are delivered again after ReclaimIdle, which the review
// consumer's eventId dedupe and the publisher's TaskID absorb.
func (r *Relay) applyAndAck(ctx context.Context, shard int, committed []jobs.Event, acks []string) error {
	if len(committed) == 0 {
		if len(acks) == 0 {
			return nil
		}
		if err := r.store.Redis().XAck(ctx, r.store.OutboxStream(shard), jobs.RelayGroup, acks...).Err(); err != nil {
			return r.failHeld(ctx, RelayErrorRedis, err)
		}
		r.countAcked(shard, len(acks))
		return nil
	}
	acks = withCommitted(acks, committed)
	res, err := r.store.ApplyCommittedBatch(ctx, shard, committed, acks)
	return r.applied(ctx, shard, committed, len(acks), res, err)
}

// withCommitted returns acks followed by the stream IDs of committed.
func withCommitted(acks []string, committed []jobs.Event) []string {
	out := make([]string, 0, len(acks)+len(committed))
	out = append(out, acks...)
	for _, ev := range committed {
		out = append(out, ev.StreamID)
	}
	return out
}

// applied reports the outcome of the review script for committed, which
// acked acked entries when it succeeded.
func (r *Relay) applied(ctx context.Context, shard int, committed []jobs.Event, acked int, res []jobs.ApplyResult, err error) error {
	if err != nil {
		for _, ev := range committed {
			r.cfg.OnEvent(ev, "error")
		}
		// The pass reports the failure (once per incident).
		r.log.Debug("extraction.committed entries not applied; they stay pending", "shard", shard, "entries", len(committed), "error", err)
		return r.failHeld(ctx, RelayErrorConsume, err)
	}
	r.countAcked(shard, acked)
	for i, ev := range committed {
		outcome := "applied"
		if !res[i].Applied {
			outcome = res[i].Reason
		}
		r.cfg.OnEvent(ev, outcome)
	}
	return nil
}

// countAcked counts n entries of shard acked.
func (r *Relay) countAcked(shard, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked += n
	if r.loops != nil {
		r.loops.acked[shard] += n
	}
}
