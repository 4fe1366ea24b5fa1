package app

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
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
	w, err := Worker(c, nil, nil, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, want, w.Limits)
	require.Equal(t, want, API(c, nil, nil, nil, nil, nil).Limits)
}

func TestJobs_ZeroLedgerRetention_KeepsTheLedgerForever(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_RETENTION_LEDGER": "0"})
	require.True(t, Jobs(c, nil).LedgerForever)
	require.False(t, Jobs(load(t, nil), nil).LedgerForever)
}

func TestWebhooks_EnvironmentMapsOntoTheWorkerAndTheRegistry(t *testing.T) {
	t.Parallel()
	c := load(t, map[string]string{"RELAYOPS_WEBHOOK_DISABLE_AFTER": "0", "RELAYOPS_WEBHOOK_WINDOW": "2h",
		"RELAYOPS_WEBHOOK_ALLOW_INSECURE": "1"})
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	store, err := jobs.NewStore(jobs.Config{Redis: rdb})
	require.NoError(t, err)
	w := Webhooks(c, store)
	require.Equal(t, -1, w.DisableAfter, "0 means never")
	require.Equal(t, 2*time.Hour, w.Window)
	require.Equal(t, 5*time.Second, w.RetryBase)
	require.Equal(t, webhook.TargetPolicy{AllowInsecure: true}, w.Registry.Policy())
	require.Nil(t, Webhooks(c, nil))
}

// The configuration names the booked types itself (it imports no pipeline
// package); they must be the pipeline's.
func TestPolicy_ConfigNamesThePipelinesBookedTypes(t *testing.T) {
	t.Parallel()
	require.Equal(t, extract.BookedTypes, config.BookedTypes)
	p := Policy(load(t, map[string]string{"RELAYOPS_ACCEPT_DOCUMENTS": "invoice"}))
	require.True(t, p.Accepts(extract.DocInvoice))
	require.False(t, p.Accepts(extract.DocCreditNote))
	require.True(t, Policy(load(t, nil)).Accepts(extract.DocCorrectiveInvoice))
}

// The reconciler's pace is a setting, so a test (or an operator) can make
// it look at lost tasks in seconds; unset, the worker keeps its defaults.
func TestWorker_ReconcileSettings_ReachTheWorker(t *testing.T) {
	t.Parallel()
	w, err := Worker(load(t, map[string]string{"RELAYOPS_RECONCILE_INTERVAL": "1s", "RELAYOPS_RECONCILE_AFTER": "5s"}), nil, nil, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, time.Second, w.ReconcileInterval)
	require.Equal(t, 5*time.Second, w.ReconcileThreshold)

	w, err = Worker(load(t, nil), nil, nil, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, time.Minute, w.ReconcileInterval)
	require.Zero(t, w.ReconcileThreshold, "auto: the worker's own, from its attempt timeout and backoff")
}
