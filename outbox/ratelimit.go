package outbox

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/ratelimit.lua
var rateLimitLua string

var rateLimitScript = redis.NewScript(rateLimitLua)

// Rate is a token bucket: Count tokens at most, one regained every Per/Count.
type Rate struct {
	Count int
	Per   time.Duration
}

// rateKey is a tenant's bucket of one kind; its own hash tag (it is the only
// key of its script).
func rateKey(tenant, kind string) string { return "ro:{rl:" + tenant + "}:" + kind }

// TakeReprocessToken takes one token from the tenant's reprocess bucket, kept
// in Redis so every API process shares it. It returns 0, or how long until a
// token is available (nothing taken).
func (s *Store) TakeReprocessToken(ctx context.Context, tenant string, r Rate) (time.Duration, error) {
	return s.rateLimit(ctx, tenant, r, "take")
}

// ReturnReprocessToken gives back a token taken for a call that created
// nothing.
func (s *Store) ReturnReprocessToken(ctx context.Context, tenant string, r Rate) error {
	_, err := s.rateLimit(ctx, tenant, r, "give")
	return err
}

func (s *Store) rateLimit(ctx context.Context, tenant string, r Rate, op string) (time.Duration, error) {
	if !tenantRe.MatchString(tenant) || r.Count < 1 || r.Per < time.Millisecond {
		return 0, fmt.Errorf("outbox: rate limit: bad tenant or rate")
	}
	interval := max(r.Per.Milliseconds()/int64(r.Count), 1)
	wait, err := rateLimitScript.Run(ctx, s.rdb, []string{rateKey(tenant, "reprocess")}, s.nowMs(), interval, r.Count, op).Int64()
	if err != nil {
		return 0, fmt.Errorf("outbox: rate limit %s: %w", tenant, err)
	}
	return time.Duration(wait) * time.Millisecond, nil
}
