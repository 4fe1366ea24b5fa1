package jobs

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// A runtime error in a script is reported at the script's own file and
// line, not at the line of the concatenation (schema.lua + lib.lua + the
// script) Redis ran.
func TestScriptError_ReportsTheScriptsOwnFileAndLine(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		t.Parallel()
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		for _, prelude := range []int{preludeLib, preludeSchema, preludeNone} {
			broken := newScript("broken.lua", "local a = 1\nlocal b = nil\nreturn a + b\n", prelude)
			_, err := x.store.run(x.ctx, broken, x.store.familyKeys(k), x.store.familyArgs(k)...)
			var se *ScriptError
			require.ErrorAs(t, err, &se)
			require.Contains(t, se.Error(), "broken.lua:3", "the line of the failing statement in its own file")
			require.NotContains(t, se.Error(), "user_script")
			var rerr redis.Error
			require.True(t, errors.As(err, &rerr), "Redis's error stays reachable")
		}
	})
}

func TestScript_Where_MapsEveryPart(t *testing.T) {
	t.Parallel()
	sc := newScript("claim.lua", claimLua, preludeLib)
	schema, lib := lineCount(schemaLua), lineCount(libLua)
	require.Equal(t, "schema.lua:1", sc.where(1))
	require.Equal(t, "lib.lua:1", sc.where(schema+1))
	require.Equal(t, "lib.lua:7", sc.where(schema+7))
	require.Equal(t, "claim.lua:1", sc.where(schema+lib+1))
	require.Equal(t, "claim.lua:12", sc.where(schema+lib+12))
}

// set_state refuses a transition schema.go does not declare, before it
// writes anything: a succeeded job never runs again.
func TestSetState_UndeclaredTransition_IsRefused_AndChangesNothing(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		t.Parallel()
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		x.succeed(t, k)
		before := x.snapshot(t)
		probe := newScript("probe.lua", "set_state(J, STATE.running, { from = STATE.succeeded, code = '' })\nreturn 'moved'\n", preludeLib)
		_, err := x.store.run(x.ctx, probe, x.store.familyKeys(k), x.store.familyArgs(k)...)
		require.Error(t, err)
		require.Contains(t, err.Error(), "transition succeeded -> running is not declared")
		require.Contains(t, err.Error(), "lib.lua:", "raised in set_state, reported at its own line")
		require.Equal(t, before, x.snapshot(t))
	})
}

// Every transition the scripts make is one schema.go declares: a job run
// through each path ends in the state the declarations allow.
func TestSetState_DeclaredTransitions_AreThePathsTheScriptsTake(t *testing.T) {
	for from, tos := range transitions {
		for _, to := range tos {
			require.NotEqual(t, from, to)
		}
	}
	require.ElementsMatch(t, []State{StateRunning, StateCancelled}, transitions[StateQueued])
	require.ElementsMatch(t, []State{StateRunning, StateCancelled}, transitions[StateRetrying])
	require.NotContains(t, transitions, StateSucceeded)
}
