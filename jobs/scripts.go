package jobs

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The scripts. Each is one file of lua/, loaded with the schema's names
// inlined and after the prelude it needs: the generated lua/schema.lua
// (the schema's run-time tables) and lib.lua (the common KEYS/ARGV layout
// and set_state, the one path that changes a job's state).
var (
	//go:embed lua/schema.lua
	schemaLua string
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
	submitScript     = newScript("submit.lua", submitLua, preludeLib)
	claimScript      = newScript("claim.lua", claimLua, preludeLib)
	checkpointScript = newScript("checkpoint.lua", checkpointLua, preludeNone)
	commitScript     = newScript("commit.lua", commitLua, preludeLib)
	failScript       = newScript("fail.lua", failLua, preludeLib)
	reprocessScript  = newScript("reprocess.lua", reprocessLua, preludeLib)
	applyScript      = newScript("apply.lua", applyLua, preludeNone)
	decideScript     = newScript("decide.lua", decideLua, preludeNone)
	republishScript  = newScript("republish.lua", republishLua, preludeSchema)
)

// What a script is loaded after: nothing (the light scripts that run
// several times per job, whose schema names are all inlined), the schema's
// run-time tables, or those and lib.lua's prelude (every script that acts
// on one job's lifecycle).
const (
	preludeNone = iota
	preludeSchema
	preludeLib
)

// script is one Lua file with the prelude it is loaded after. Redis numbers
// the lines of the whole concatenation; the parts map them back to files.
type script struct {
	*redis.Script
	name  string // the script's file
	parts []scriptPart
}

type scriptPart struct {
	file  string
	lines int
}

// constants are the names the loader inlines (schema.go, luaConstants).
var constants = luaConstants()

// constantRef matches a reference to an inlined name.
var constantRef = regexp.MustCompile(`\b(?:(?:F|EV|AU|STATE|KEY|ARG)\.[a-z_]+|NKEYS|NARGS)\b`)

// inline replaces every schema name in src with its value; an undeclared
// name is a programming error, reported at package initialisation.
func inline(file, src string) string {
	return constantRef.ReplaceAllStringFunc(src, func(ref string) string {
		v, ok := constants[ref]
		if !ok {
			line := 1 + strings.Count(src[:strings.Index(src, ref)], "\n")
			panic(fmt.Sprintf("jobs: %s:%d: %s is not declared in schema.go", file, line, ref))
		}
		return v
	})
}

func newScript(file, body string, prelude int) *script {
	var parts []scriptPart
	var src strings.Builder
	add := func(name, text string) {
		parts = append(parts, scriptPart{name, lineCount(text)})
		src.WriteString(inline(name, text))
	}
	if prelude >= preludeSchema {
		add("schema.lua", schemaLua)
	}
	if prelude >= preludeLib {
		add("lib.lua", libLua)
	}
	add(file, body)
	return &script{Script: redis.NewScript(src.String()), name: file, parts: parts}
}

// lineCount is the number of lines of a part that ends with a newline.
func lineCount(s string) int { return strings.Count(s, "\n") }

// scriptLine matches a position in a script error: user_script:NN (Redis
// 7), f_<sha>:NN (Redis 6), or " :NN:" (miniredis, whose chunk has no name).
var scriptLine = regexp.MustCompile(`(user_script|f_[0-9a-f]{40}|<string>|\s):(\d+)\b`)

// where maps a line of the concatenated source to its file and line.
func (sc *script) where(line int) string {
	for _, p := range sc.parts {
		if line <= p.lines {
			return fmt.Sprintf("%s:%d", p.file, line)
		}
		line -= p.lines
	}
	return fmt.Sprintf("%s:%d(past the end)", sc.parts[len(sc.parts)-1].file, line)
}

// ScriptError is an error Redis reported while running a script, with the
// positions rewritten to the script's own file and line (for example
// claim.lua:12 rather than user_script:190).
type ScriptError struct {
	Message string // Redis's message, positions rewritten
	Err     error  // Redis's error
}

func (e *ScriptError) Error() string { return e.Message }
func (e *ScriptError) Unwrap() error { return e.Err }

func (sc *script) locate(err error) error {
	var rerr redis.Error
	if !errors.As(err, &rerr) || !scriptLine.MatchString(err.Error()) {
		return err
	}
	msg := scriptLine.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := scriptLine.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[2])
		if strings.TrimSpace(sub[1]) == "" {
			return sub[1] + sc.where(n)
		}
		return sc.where(n)
	})
	return &ScriptError{Message: msg, Err: err}
}

// run runs a script with EVALSHA, loading it on NOSCRIPT. The store's client
// does not retry, so a script runs at most once per call.
func (s *Store) run(ctx context.Context, sc *script, keys []string, args ...any) (any, error) {
	v, err := sc.Run(ctx, s.rdb, keys, args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, sc.locate(err)
	}
	return v, err
}

// reply is a script's array answer: a status word and its fields.
type reply []any

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

var errUnexpected = errors.New("jobs: unexpected script status")

func unexpected(script, status string) error {
	return fmt.Errorf("%w %q from %s", errUnexpected, status, script)
}
