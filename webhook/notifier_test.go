package webhook

import (
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

func TestNotify_OneDeliveryPerSubscribedEndpoint_RepublishAbsorbed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	a, _ := b.register(t, "https://93.184.216.34/a", EventJobSucceeded)
	c, _ := b.register(t, "https://93.184.216.34/c", EventJobSucceeded, EventJobDeadLettered)
	b.register(t, "https://93.184.216.34/d", EventJobDeadLettered)
	ev := committed(t, "inv-1")

	require.NoError(t, b.notifier.Notify(b.ctx, ev))
	require.NoError(t, b.notifier.Notify(b.ctx, ev), "a republished outbox row")

	ds := b.deliveries(t)
	require.Len(t, ds, 2)
	ids := map[string]string{}
	for _, d := range ds {
		ids[d.Endpoint] = d.WebhookID
		require.Equal(t, EventJobSucceeded, d.EventType)
	}
	require.Equal(t, map[string]string{a.ID: MessageID(ev.EventID, a.ID), c.ID: MessageID(ev.EventID, c.ID)}, ids)
	for _, opts := range b.enq.opts {
		var queue string
		for _, o := range opts {
			if o.Type() == asynq.QueueOpt {
				queue = o.Value().(string)
			}
		}
		require.Equal(t, task.QueueWebhooks, queue)
	}
}

func TestNotify_TerminalAndReviewEvents_CarryCodesNotContent(t *testing.T) {
	t.Parallel()
	k, err := jobs.BuildKey("acme", "inv-9", 2)
	require.NoError(t, err)
	dead, ok := FromOutbox(jobs.Event{Type: jobs.EventJobDeadLettered, Key: k, Code: "permanent_error", ErrorReason: "missing_field:total", At: time.Now()})
	require.True(t, ok)
	require.Equal(t, EventJobDeadLettered, dead.Type)
	require.Equal(t, "dead_lettered", dead.Data.State)
	require.Equal(t, "permanent_error", dead.Data.ErrorCode)
	require.Equal(t, "missing_field:total", dead.Data.ErrorReason)
	require.Regexp(t, `^[0-9a-f]{32}$`, dead.Data.EventID)
	again, _ := FromOutbox(jobs.Event{Type: jobs.EventJobDeadLettered, Key: k, Code: "permanent_error", At: time.Now()})
	require.Equal(t, dead.Data.EventID, again.Data.EventID, "a job version ends once: its event ID is stable")

	rev, ok := FromOutbox(jobs.Event{Type: jobs.EventReviewDecided, Key: k, Decision: jobs.ReviewRejected, At: time.Now()})
	require.True(t, ok)
	require.Equal(t, "rejected", rev.Data.Decision)
	require.NotEqual(t, dead.Data.EventID, rev.Data.EventID)

	_, ok = FromOutbox(jobs.Event{Type: jobs.EventJobSubmitted, Key: k})
	require.False(t, ok, "job.submitted is no webhook event")
}

func TestFromOutbox_ApprovalThatCorrected_SaysWhichFieldsByName(t *testing.T) {
	t.Parallel()
	k, err := jobs.BuildKey("acme", "inv-9", 2)
	require.NoError(t, err)
	ev, ok := FromOutbox(jobs.Event{Type: jobs.EventReviewDecided, Key: k, Decision: jobs.ReviewApproved,
		CorrectedFields: []string{"invoiceNumber", "issueDate"}, At: time.Now()})
	require.True(t, ok)
	require.Equal(t, []string{"invoiceNumber", "issueDate"}, ev.Data.CorrectedFields)
	require.Contains(t, string(ev.Body()), `"correctedFields":["invoiceNumber","issueDate"]`)
	plain, _ := FromOutbox(jobs.Event{Type: jobs.EventReviewDecided, Key: k, Decision: jobs.ReviewApproved, At: time.Now()})
	require.NotContains(t, string(plain.Body()), "correctedFields", "an approval that corrected nothing says nothing")
}

func TestNotify_TenantWithoutEndpoints_NoRedisCommandWithinCacheTTL(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	require.NoError(t, b.notifier.Notify(b.ctx, committed(t, "inv-1")))
	before := b.mini.CommandCount()
	for i := range 100 {
		require.NoError(t, b.notifier.Notify(b.ctx, committed(t, "inv-"+string(rune('a'+i%26)))))
	}
	require.Equal(t, before, b.mini.CommandCount(), "events of a tenant without endpoints cost no Redis command")
	b.clock.Advance(6 * time.Second)
	require.NoError(t, b.notifier.Notify(b.ctx, committed(t, "inv-1")))
	require.Greater(t, b.mini.CommandCount(), before, "the list is read again after the TTL")
	require.Empty(t, b.deliveries(t))
}

func TestNotify_EnqueueFailure_IsReturnedSoTheRowStaysPending(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.register(t, "https://93.184.216.34/a", EventJobSucceeded)
	b.enq.fail = errors.New("asynq down")
	require.Error(t, b.notifier.Notify(b.ctx, committed(t, "inv-1")))
	b.enq.fail = nil
	require.NoError(t, b.notifier.Notify(b.ctx, committed(t, "inv-1")))
	require.Len(t, b.deliveries(t), 1)
}
