package worker

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseFaults_Grammar(t *testing.T) {
	t.Parallel()
	valid := []string{
		"after_commit_before_ack=kill#1",
		"extract=transient@0.2",
		"after_commit_before_ack=kill#1,extract=transient@0.2",
		" after_claim = pause:250ms #2 , validate=permanent ",
		"before_claim=transient@1",
		"relay_after_enqueue_before_ack=kill#3",
		"after_classify=pause:1m",
	}
	for _, spec := range valid {
		f, err := ParseFaults(spec)
		require.NoError(t, err, spec)
		require.True(t, f.Enabled(), spec)
		require.Equal(t, strings.TrimSpace(spec), f.String(), spec)
	}
	none, err := ParseFaults("  ")
	require.NoError(t, err)
	require.Nil(t, none)
	require.False(t, none.Enabled())

	invalid := []struct{ spec, wantInError string }{
		{"extract", `entry 1 "extract": must be point=action`},
		{"=kill", `entry 1 "=kill": must be point=action`},
		{"after_claim=kill,nowhere=kill", `entry 2 "nowhere=kill": unknown point "nowhere"`},
		{"extract=explode", `unknown action "explode"`},
		{"extract=pause", "pause needs a duration"},
		{"extract=pause:soon", `pause needs a positive duration, got "soon"`},
		{"extract=pause:-1s", "pause needs a positive duration"},
		{"extract=kill:now", `action "kill" takes no argument`},
		{"extract=transient@0", "probability must be a number in (0,1]"},
		{"extract=transient@1.5", "probability must be a number in (0,1]"},
		{"extract=transient@x", "probability"},
		{"extract=kill#0", "#n needs a positive integer"},
		{"extract=kill#two", "#n needs a positive integer"},
		{"extract=kill,,", `entry 2 "": must be point=action`},
	}
	for _, tt := range invalid {
		_, err := ParseFaults(tt.spec)
		require.ErrorContains(t, err, tt.wantInError, tt.spec)
		require.ErrorContains(t, err, "RELAYOPS_FAULTS", tt.spec)
	}
}

func TestFaults_NthHitFiresOnce(t *testing.T) {
	t.Parallel()
	f, err := ParseFaults("after_extract=transient#2")
	require.NoError(t, err)
	require.NoError(t, f.Hit(PointAfterExtract))
	require.ErrorIs(t, f.Hit(PointAfterExtract), ErrTransient)
	require.NoError(t, f.Hit(PointAfterExtract))
	require.NoError(t, f.Hit(PointAfterClaim), "other points are unaffected")
}

func TestFaults_Actions(t *testing.T) {
	t.Parallel()
	f, err := ParseFaults("after_claim=kill@1,classify=pause:3s,validate=permanent,extract=transient@0.5")
	require.NoError(t, err)
	var killed atomic.Int32
	var paused time.Duration
	var fired []string
	f.kill = func() { killed.Add(1) }
	f.pause = func(d time.Duration) { paused = d }
	f.OnFire(func(point, action string) { fired = append(fired, point+"="+action) })

	require.NoError(t, f.Hit(PointAfterClaim))
	require.EqualValues(t, 1, killed.Load())
	require.NoError(t, f.Hit(PointClassify), "a pause stalls, then lets the step go on")
	require.Equal(t, 3*time.Second, paused)
	err = f.Hit(PointValidate)
	require.ErrorIs(t, err, ErrPermanent)
	require.Equal(t, KindPermanent, Classify(err))

	transient := 0
	for range 400 {
		if err := f.Hit(PointExtract); err != nil {
			require.Equal(t, KindTransient, Classify(err))
			transient++
		}
	}
	require.Greater(t, transient, 100, "@0.5 fires about half the time")
	require.Less(t, transient, 300)
	require.Equal(t, []string{"after_claim=kill", "classify=pause", "validate=permanent"}, fired[:3])
}

func TestFaults_NilInjectsNothing(t *testing.T) {
	t.Parallel()
	var f *Faults
	for _, p := range Points {
		require.NoError(t, f.Hit(p))
	}
}
