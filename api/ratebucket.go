package api

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
)

//go:embed lua/ratelimit.lua
var rateLimitLua string

// rateLimitScript stands alone: its keys carry their own hash tag and no
// job script reads them, so the budget needs no atomicity with the store.
var rateLimitScript = redis.NewScript(rateLimitLua)

// reprocessHold is how long a token taken for the reprocess of one job is
// held by that job: far longer than a request lives, so every concurrent
// call for the job shares it.
const reprocessHold = time.Minute

// rateKey is a tenant's bucket of one kind; its own hash tag (it is the only
// key of its script besides the holds, which share the tag).
func rateKey(tenant, kind string) string { return "ro:{rl:" + tenant + "}:" + kind }

// holdKey is the hold of a job on a token of its tenant's bucket, in the
// bucket's slot.
func holdKey(k jobs.Key, kind string) string { return rateKey(k.Tenant, kind) + ":" + k.String() }

// tokenGrant is the answer of tokenBucket.take.
type tokenGrant struct {
	// taken: a token was taken for the job now, and the caller holds it.
	// When its call creates nothing, it gives it back (tokenBucket.give).
	taken bool
	// wait, when positive, is how long until a token is available: the call
	// is refused and nothing was taken. Zero with taken false: another call
	// for the same job holds a token, which admits this one too.
	wait time.Duration
}

// tokenBucket is a per-tenant token bucket of one kind, kept in Redis so
// every API process shares it: rate.Count tokens at most, one regained
// every rate.Per/rate.Count. A token is taken for one job and held by it
// for reprocessHold: the calls for that job meanwhile (concurrent repeats)
// are admitted without taking another, so repeats are never refused and
// cost nothing.
type tokenBucket struct {
	rdb   redis.UniversalClient
	clock clock.Clock
	rate  Rate
	kind  string
}

var errBucketReply = errors.New("api: unexpected rate limit reply")

func (b *tokenBucket) take(ctx context.Context, k jobs.Key) (tokenGrant, error) {
	res, err := b.run(ctx, k, "take")
	if err != nil {
		return tokenGrant{}, err
	}
	switch {
	case res[0] == "taken" && len(res) == 1:
		return tokenGrant{taken: true}, nil
	case res[0] == "held" && len(res) == 1:
		return tokenGrant{}, nil
	case res[0] == "wait" && len(res) == 2:
		ms, err := strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
		if err != nil || ms < 1 {
			return tokenGrant{}, fmt.Errorf("%w: bad wait %v", errBucketReply, res)
		}
		return tokenGrant{wait: time.Duration(ms) * time.Millisecond}, nil
	}
	return tokenGrant{}, fmt.Errorf("%w: %v", errBucketReply, res)
}

// give gives back the token held for job k, for a call that created
// nothing. Only one return per taken token has an effect.
func (b *tokenBucket) give(ctx context.Context, k jobs.Key) error {
	res, err := b.run(ctx, k, "give")
	if err != nil {
		return err
	}
	if len(res) != 1 || (res[0] != "given" && res[0] != "none") {
		return fmt.Errorf("%w: %v", errBucketReply, res)
	}
	return nil
}

func (b *tokenBucket) run(ctx context.Context, k jobs.Key, op string) ([]any, error) {
	if b.rate.Count < 1 || b.rate.Per < time.Millisecond {
		return nil, fmt.Errorf("api: rate limit: bad rate %s", b.rate)
	}
	interval := max(b.rate.Per.Milliseconds()/int64(b.rate.Count), 1)
	keys := []string{rateKey(k.Tenant, b.kind), holdKey(k, b.kind)}
	v, err := rateLimitScript.Run(ctx, b.rdb, keys, b.clock.Now().UnixMilli(), interval, b.rate.Count, op, reprocessHold.Milliseconds()).Result()
	if err != nil {
		return nil, fmt.Errorf("api: rate limit %s: %w", k.Tenant, err)
	}
	res, ok := v.([]any)
	if !ok || len(res) == 0 {
		return nil, fmt.Errorf("%w: %v", errBucketReply, v)
	}
	return res, nil
}
