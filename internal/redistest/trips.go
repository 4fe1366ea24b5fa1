package redistest

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Trips is a go-redis hook that counts the round trips a client makes: a
// command or a pipeline is one. Add it with client.AddHook after the
// client's connections are open if their handshakes must not count.
type Trips struct{ n atomic.Int64 }

// N returns the round trips counted so far.
func (c *Trips) N() int64 { return c.n.Load() }

// Reset starts the count again from zero.
func (c *Trips) Reset() { c.n.Store(0) }

func (c *Trips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *Trips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}

func (c *Trips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}
