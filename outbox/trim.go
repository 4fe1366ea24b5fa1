package outbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/jobs"
)

// trim removes acked outbox entries older than the outbox retention. XTRIM
// ignores the consumer group, so the bound is the lowest of: the oldest
// pending entry, the group's last-delivered ID (entries after it were never
// delivered), and now minus the retention. A stream without the relay's
// group (Redis lost it, and no relay has re-created it yet) has no entry
// known to be delivered: nothing is trimmed.
func (r *Relay) trim(ctx context.Context, shard int) error {
	rdb, stream := r.store.Redis(), r.store.OutboxStream(shard)
	bound := strconv.FormatInt(r.cfg.Clock.Now().Add(-r.store.OutboxRetention()).UnixMilli(), 10) + "-0"
	groups, err := rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		if strings.Contains(err.Error(), "no such key") {
			return nil
		}
		return err
	}
	i := slices.IndexFunc(groups, func(g redis.XInfoGroup) bool { return g.Name == jobs.RelayGroup })
	if i < 0 {
		return nil
	}
	g := groups[i]
	bound = minID(bound, g.LastDeliveredID)
	if g.Pending > 0 {
		p, err := rdb.XPending(ctx, stream, jobs.RelayGroup).Result()
		switch {
		case noGroup(err):
			return nil // the group vanished since XINFO
		case err != nil && !errors.Is(err, redis.Nil):
			return err
		}
		if p != nil && p.Lower != "" {
			bound = minID(bound, p.Lower)
		}
	}
	n, err := rdb.XTrimMinID(ctx, stream, bound).Result()
	if err != nil {
		return fmt.Errorf("xtrim: %w", err)
	}
	if n > 0 {
		r.log.Info("trimmed acked outbox entries", "shard", shard, "trimmed", n, "below", bound)
	}
	r.cfg.OnTrim(shard, n)
	return nil
}

// minID returns the lower of two stream IDs.
func minID(a, b string) string {
	if jobs.StreamIDLess(b, a) {
		return b
	}
	return a
}
