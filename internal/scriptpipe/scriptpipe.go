// Package scriptpipe runs one Lua script many times in one pipelined round
// trip. A script run in a pipeline goes as EVALSHA and cannot fall back to
// EVAL by itself when Redis has not cached it (first use, a restart, a
// promoted replica): Retry loads it (on every master of a cluster) and
// runs the refused calls again, in one more pipeline.
package scriptpipe

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Call is one run of the script: its KEYS and ARGV.
type Call struct {
	Keys []string
	Args []any
}

// Queue queues each call on pipe as EVALSHA and returns their commands, in
// the order of calls, to read after pipe.Exec (and Retry).
func Queue(ctx context.Context, pipe redis.Pipeliner, sc *redis.Script, calls []Call) []*redis.Cmd {
	cmds := make([]*redis.Cmd, len(calls))
	for i, c := range calls {
		cmds[i] = sc.EvalSha(ctx, pipe, c.Keys, c.Args...)
	}
	return cmds
}

// Retry runs again the calls whose command Redis refused with NOSCRIPT,
// after loading the script, in one pipeline on rdb, and replaces their
// commands in cmds. Should the load fail, they go as EVAL, which caches the
// script. Without a refusal it sends nothing.
func Retry(ctx context.Context, rdb redis.UniversalClient, sc *redis.Script, calls []Call, cmds []*redis.Cmd) {
	var again redis.Pipeliner
	loaded := false
	for i, cmd := range cmds {
		if !redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			continue
		}
		if again == nil {
			again = rdb.Pipeline()
			loaded = sc.Load(ctx, rdb).Err() == nil
		}
		if loaded {
			cmds[i] = sc.EvalSha(ctx, again, calls[i].Keys, calls[i].Args...)
		} else {
			cmds[i] = sc.Eval(ctx, again, calls[i].Keys, calls[i].Args...)
		}
	}
	if again != nil {
		_, _ = again.Exec(ctx) // each command's error is read by the caller
	}
}
