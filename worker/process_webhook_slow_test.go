//go:build linux && slow

package worker

import (
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
)

// webhookEnv lets worker processes reach an httptest receiver on 127.0.0.1.
var webhookEnv = []string{
	"RELAYOPS_WEBHOOK_ALLOW_INSECURE=1", "RELAYOPS_WEBHOOK_ALLOW_PRIVATE=1", "RELAYOPS_WEBHOOK_CACHE_TTL=10ms",
	"RELAYOPS_WEBHOOK_RETRY_BASE=200ms", "RELAYOPS_WEBHOOK_RETRY_MAX=1s",
}

// Crash after the effect: worker A is SIGKILLed in a delivery after the
// receiver got the request and before the attempt was recorded. Asynq hands
// the delivery to worker B once A's lease is recoverable: the receiver sees
// the same webhook-id again (and drops it), the attempt is recorded, and an
// event committed meanwhile is delivered by B without waiting for it.
func TestProcess_SIGKILL_AfterWebhookSent_RedeliveredWithTheSameWebhookID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg, err := webhook.NewRegistry(webhook.RegistryConfig{Redis: e.rdb,
		Policy: webhook.TargetPolicy{AllowInsecure: true, AllowPrivate: true}})
	require.NoError(t, err)
	r := newHookReceiver(t, 0)
	ep, secret, err := reg.Create(e.ctx, webhook.Registration{Tenant: "acme", URL: r.srv.URL, Events: []string{webhook.EventJobSucceeded}})
	require.NoError(t, err)
	r.mu.Lock()
	r.secret = secret
	r.mu.Unlock()

	first := mustKey(t, "acme", "hook-crash", 1)
	a := e.startWorker("A", procOpts{faults: PointWebhookAfterSend + "=kill#1", env: webhookEnv})
	e.submit(first, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a.Wait(30*time.Second)))
	reqs, _, _ := r.snapshot()
	require.Len(t, reqs, 1, "the receiver got the request before the kill")
	j := e.job(first)
	id := webhook.MessageID(j.EventID, ep.ID)
	require.Equal(t, id, reqs[0])
	as, err := reg.Attempts(e.ctx, ep.ID, 10)
	require.NoError(t, err)
	require.Empty(t, as, "the attempt was never recorded")
	info, err := e.insp.GetTaskInfo(task.QueueWebhooks, id)
	require.NoError(t, err)
	require.Equal(t, asynq.TaskStateActive, info.State, "Asynq still thinks the delivery is running")

	redistest.Eventually(t, 2*time.Minute, func() bool {
		score, err := e.rdb.ZScore(e.ctx, "asynq:{"+task.QueueWebhooks+"}:lease", id).Result()
		return err == nil && time.Now().Unix() > int64(score)+31
	}, "the lease of the delivery to be recoverable")
	e.startWorker("B", procOpts{env: webhookEnv})
	second := mustKey(t, "acme", "hook-after-crash", 1)
	e.submit(second, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)

	redistest.Eventually(t, time.Minute, func() bool {
		reqs, ev, _ := r.snapshot()
		return len(reqs) >= 3 && len(ev) == 2
	}, "the redelivery and the second event")
	reqs, events, invalid := r.snapshot()
	require.Zero(t, invalid)
	seen := 0
	for _, got := range reqs {
		if got == id {
			seen++
		}
	}
	require.Equal(t, 2, seen, "the receiver saw the crashed delivery's webhook-id again, and can drop it")
	require.Len(t, events, 2, "nothing lost: both events, each under its own webhook-id")
	redistest.Eventually(t, 30*time.Second, func() bool {
		info, err := e.insp.GetTaskInfo(task.QueueWebhooks, id)
		return err == nil && info.State == asynq.TaskStateCompleted
	}, "the recovered delivery to complete")
	as, err = reg.Attempts(e.ctx, ep.ID, 10)
	require.NoError(t, err)
	delivered := map[string]bool{}
	for _, a := range as {
		if a.Status == webhook.StatusDelivered {
			delivered[a.WebhookID] = true
		}
	}
	require.True(t, delivered[id], "B recorded the redelivery")
}
