package jobs

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"
)

// Rate is a token bucket: Count tokens at most, one regained every Per/Count.
type Rate struct {
	Count int
	Per   time.Duration
}

// reprocessHold is how long a token taken for the reprocess of one job is
// held by that job: far longer than a request lives, so every concurrent
// call for the job shares it.
const reprocessHold = time.Minute

// rateKey is a tenant's bucket of one kind; its own hash tag (it is the only
// key of its script).
func rateKey(tenant, kind string) string { return "ro:{rl:" + tenant + "}:" + kind }

// holdKey is the hold of a job on a token of its tenant's bucket, in the
// bucket's slot.
func holdKey(k Key, kind string) string { return rateKey(k.Tenant, kind) + ":" + k.String() }

// TokenGrant is the answer of TakeReprocessToken.
type TokenGrant struct {
	// Taken: a token was taken for the job now, and the caller holds it.
	// When its call creates nothing, it gives it back
	// (ReturnReprocessToken).
	Taken bool
	// Wait, when positive, is how long until a token is available: the call
	// is refused and nothing was taken. Zero with Taken false: another call
	// for the same job holds a token, which admits this one too.
	Wait time.Duration
}

// TakeReprocessToken takes a token from the tenant's reprocess bucket, kept
// in Redis so every API process shares it, for the reprocess of job k. The
// token is held by k for a minute: the calls for k meanwhile (concurrent
// repeats of one reprocess) are admitted without taking another, so
// repeats are never refused and cost nothing.
func (s *Store) TakeReprocessToken(ctx context.Context, k Key, r Rate) (TokenGrant, error) {
	res, err := s.rateLimit(ctx, k, r, "take")
	if err != nil {
		return TokenGrant{}, err
	}
	switch res.status() {
	case "taken":
		return TokenGrant{Taken: true}, nil
	case "held":
		return TokenGrant{}, nil
	case "wait":
		ms, err := strconv.ParseInt(res.str(1), 10, 64)
		if err != nil || ms < 1 {
			return TokenGrant{}, fmt.Errorf("outbox: rate limit %s: bad wait %v", k.Tenant, res)
		}
		return TokenGrant{Wait: time.Duration(ms) * time.Millisecond}, nil
	}
	return TokenGrant{}, unexpected("ratelimit", res.status())
}

// ReturnReprocessToken gives back the token held for job k, for a call that
// created nothing. Only one return per taken token has an effect.
func (s *Store) ReturnReprocessToken(ctx context.Context, k Key, r Rate) error {
	_, err := s.rateLimit(ctx, k, r, "give")
	return err
}

func (s *Store) rateLimit(ctx context.Context, k Key, r Rate, op string) (reply, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	if r.Count < 1 || r.Per < time.Millisecond {
		return nil, fmt.Errorf("outbox: rate limit: bad rate %d/%s", r.Count, r.Per)
	}
	interval := max(r.Per.Milliseconds()/int64(r.Count), 1)
	keys := []string{rateKey(k.Tenant, "reprocess"), holdKey(k, "reprocess")}
	res, err := s.call(ctx, rateLimitScript, keys, s.nowMs(), interval, r.Count, op, reprocessHold.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("outbox: rate limit %s: %w", k.Tenant, err)
	}
	return res, nil
}
