package app

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/jobs"
)

func load(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	c, err := config.FromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	return c
}

// The environment's documented defaults and the store's are one set of
// limits: a deployment that sets nothing stamps jobs.DefaultLimits.
func TestLimits_UnsetEnvironment_IsJobsDefaultLimits(t *testing.T) {
	t.Parallel()
	require.Equal(t, jobs.DefaultLimits, Limits(load(t, nil)))
}

func TestLimits_ZeroRecoveries_StaysZero(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_MAX_RECOVERIES": "0", "RELAYOPS_DEFAULT_DEADLINE": "90s"})
	want := jobs.Limits{MaxAttempts: jobs.DefaultLimits.MaxAttempts, MaxRecoveries: 0, Deadline: 90 * time.Second}
	require.Equal(t, want, Limits(c))
	require.Equal(t, want, Limits(c).WithDefaults(), "a set zero is not defaulted again")
	w, err := Worker(c, nil, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, want, w.Limits)
	require.Equal(t, want, API(c, nil, nil, nil, nil).Limits)
}

func TestJobs_ZeroLedgerRetention_KeepsTheLedgerForever(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_RETENTION_LEDGER": "0"})
	require.True(t, Jobs(c, nil).LedgerForever)
	require.False(t, Jobs(load(t, nil), nil).LedgerForever)
}
