package admission

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

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
