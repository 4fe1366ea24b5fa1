package jobs

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The scripts. Those acting on one job share lib.lua's prelude (the common
// KEYS/ARGV layout and the single state-change path), prepended here.
var (
	//go:embed lua/lib.lua
	libLua string
	//go:embed lua/submit.lua
	submitLua string
	//go:embed lua/claim.lua
	claimLua string
	//go:embed lua/checkpoint.lua
	checkpointLua string
	//go:embed lua/commit.lua
	commitLua string
	//go:embed lua/fail.lua
	failLua string
	//go:embed lua/reprocess.lua
	reprocessLua string
	//go:embed lua/apply.lua
	applyLua string
	//go:embed lua/decide.lua
	decideLua string
	//go:embed lua/republish.lua
	republishLua string
)

var (
	submitScript     = redis.NewScript(libLua + submitLua)
	claimScript      = redis.NewScript(libLua + claimLua)
	checkpointScript = redis.NewScript(checkpointLua)
	commitScript     = redis.NewScript(libLua + commitLua)
	failScript       = redis.NewScript(libLua + failLua)
	reprocessScript  = redis.NewScript(libLua + reprocessLua)
	applyScript      = redis.NewScript(applyLua)
	decideScript     = redis.NewScript(decideLua)
	republishScript  = redis.NewScript(republishLua)
)

// run runs a script with EVALSHA, loading it on NOSCRIPT. The store's client
// does not retry, so a script runs at most once per call.
func (s *Store) run(ctx context.Context, sc *redis.Script, keys []string, args ...any) (any, error) {
	return sc.Run(ctx, s.rdb, keys, args...).Result()
}

// reply is a script's array answer: a status word and its fields.
type reply []any

func asReply(v any, err error) (reply, error) {
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("outbox: unexpected script reply %v", v)
	}
	return reply(arr), nil
}

func (r reply) status() string { return r.str(0) }

func (r reply) str(i int) string {
	if i >= len(r) {
		return ""
	}
	switch v := r[i].(type) {
	case string:
		return v
	case int64:
		return fmt.Sprint(v)
	}
	return ""
}

var errUnexpected = errors.New("outbox: unexpected script status")

func unexpected(script, status string) error {
	return fmt.Errorf("%w %q from %s", errUnexpected, status, script)
}

// errReplyLength reports a script reply whose length does not match its
// status: a script and its Go decoder disagree.
func errReplyLength(script, status string, want, got int) error {
	return fmt.Errorf("%w: %s answered %q with %d fields, want %d", errUnexpected, script, status, got, want)
}
