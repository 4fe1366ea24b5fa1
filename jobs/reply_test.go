package jobs

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReply_WrongLengthOrUnknownStatus_IsUnexpected(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		sc   *script
		v    any
		ok   bool
	}{
		{"claim running, complete", claimScript, []any{"running", "1", "1", "0", "0", "ph", "1", "1", "1", false, false}, true},
		{"claim running, with checkpoints", claimScript, []any{"running", "1", "1", "0", "0", "ph", "1", "1", "1", "in", false, "classify", "{}"}, true},
		{"claim running, truncated", claimScript, []any{"running", "1", "1"}, false},
		{"claim running, odd checkpoints", claimScript, []any{"running", "1", "1", "0", "0", "ph", "1", "1", "1", "in", false, "classify"}, false},
		{"claim terminal, short", claimScript, []any{"terminal", "succeeded"}, false},
		{"claim, unknown status", claimScript, []any{"paused"}, false},
		{"submit created, new", submitScript, []any{"created"}, true},
		{"submit created, replay", submitScript, []any{"created", int64(1), int64(0), "st", "queued"}, true},
		{"submit created, two entries", submitScript, []any{"created", int64(1)}, false},
		{"fail, bare string", failScript, "retrying", true},
		{"fail, not a state", failScript, "queued", false},
		{"decide, fields missing", decideScript, []any{"decided", "approved"}, false},
		{"empty", commitScript, []any{}, false},
		{"not a reply", commitScript, int64(1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.sc.check(c.v)
			if c.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, errUnexpected)
		})
	}
}

// Every status word a script's source answers with is declared in
// replyShapes, and every declared one is answered somewhere: the Go
// decoder and the Lua file agree.
func TestReplyShapes_MatchTheStatusesOfEveryScript(t *testing.T) {
	t.Parallel()
	sources := map[*script]string{
		submitScript: submitLua, claimScript: claimLua, checkpointScript: checkpointLua, commitScript: commitLua,
		failScript: failLua, reprocessScript: reprocessLua, applyScript: applyLua, decideScript: decideLua,
	}
	status := regexp.MustCompile(`(?:return \{ ?|return |answer\(|with_job\(|local out = \{ )'(\w+)'`)
	for sc, src := range sources {
		var found []string
		for _, m := range status.FindAllStringSubmatch(src, -1) {
			if !slices.Contains(found, m[1]) {
				found = append(found, m[1])
			}
		}
		var declared []string
		for st := range replyShapes[sc] {
			declared = append(declared, st)
		}
		require.ElementsMatch(t, declared, found, sc.name)
	}
}
