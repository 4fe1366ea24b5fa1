package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// notifyOne notifies ev and returns the one delivery it enqueued.
func (b *bundle) notifyOne(t *testing.T, ev jobs.Event) Delivery {
	t.Helper()
	require.NoError(t, b.notifier.Notify(b.ctx, ev))
	ds := b.deliveries(t)
	require.Len(t, ds, 1)
	return ds[0]
}

func verify(t *testing.T, secret string, r received) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	return wh.Verify(r.body, r.header)
}

func TestDeliver_Success_SignedPerStandardWebhooksAndRecorded(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rcv := newReceiver(t)
	ep, secret := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-1"))

	require.NoError(t, b.del.Deliver(b.ctx, d, 1))

	got := rcv.got()
	require.Len(t, got, 1)
	require.NoError(t, verify(t, secret, got[0]), "the library's verifier accepts the delivery")
	require.Equal(t, MessageID("0123456789abcdef0123456789abcdef", ep.ID), got[0].header.Get("webhook-id"))
	var e Event
	require.NoError(t, json.Unmarshal(got[0].body, &e))
	require.Equal(t, EventJobSucceeded, e.Type)
	require.Equal(t, "acme:inv-1:v1", e.Data.JobID)
	require.Equal(t, "succeeded", e.Data.State)
	require.Equal(t, "/v1/jobs/acme:inv-1:v1", e.Data.Links.Job)

	as, err := b.reg.Attempts(b.ctx, ep.ID, 10)
	require.NoError(t, err)
	require.Len(t, as, 1)
	require.Equal(t, StatusDelivered, as[0].Status)
	require.Equal(t, http.StatusOK, as[0].StatusCode)
	require.Equal(t, d.WebhookID, as[0].WebhookID)
}

func TestDeliver_FailsThreeTimesThenSucceeds_SameWebhookIDEachTime(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rcv := newReceiver(t, 500, 502, 504, 200)
	ep, secret := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-2"))

	for n := 1; n <= 3; n++ {
		ae := attemptError(t, b.del.Deliver(b.ctx, d, n))
		require.False(t, ae.Final)
		require.Positive(t, ae.Delay)
		require.True(t, strings.HasPrefix(ae.Code, "http_5"), ae.Code)
	}
	require.NoError(t, b.del.Deliver(b.ctx, d, 4))

	got := rcv.got()
	require.Len(t, got, 4)
	for _, r := range got {
		require.Equal(t, d.WebhookID, r.header.Get("webhook-id"))
		require.NoError(t, verify(t, secret, r))
		require.Equal(t, string(got[0].body), string(r.body), "every attempt sends the same bytes")
	}
	as, err := b.reg.Attempts(b.ctx, ep.ID, 10)
	require.NoError(t, err)
	require.Equal(t, []string{StatusDelivered, StatusRetrying, StatusRetrying, StatusRetrying},
		[]string{as[0].Status, as[1].Status, as[2].Status, as[3].Status})
	require.NotNil(t, as[1].NextAttemptAt)
	e, err := b.reg.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Zero(t, e.ConsecutiveFailures, "a success resets the failure count")
}

func TestDeliver_Backoff_GrowsExponentiallyWithJitter(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{RetryBase: time.Second, RetryMax: time.Minute}})
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 10: time.Minute} {
		d := b.del.backoff(n)
		require.LessOrEqual(t, d, want, "attempt %d", n)
		require.GreaterOrEqual(t, d, want*4/5, "attempt %d: at most 20%% jitter", n)
	}
}

func TestDeliver_RetryAfterOn429_IsTheFloorOfTheDelay(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rcv := newReceiver(t, http.StatusTooManyRequests)
	rcv.header.Set("Retry-After", "120")
	b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-3"))

	ae := attemptError(t, b.del.Deliver(b.ctx, d, 1))
	require.Equal(t, "http_429", ae.Code)
	require.GreaterOrEqual(t, ae.Delay, 120*time.Second)
	delay, ok := RetryDelay(ae)
	require.True(t, ok)
	require.Equal(t, ae.Delay, delay, "Asynq's retry delay is the one the attempt chose")
}

func TestDeliver_Gone_DisablesEndpointAndStops(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rcv := newReceiver(t, http.StatusGone)
	ep, _ := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-4"))

	ae := attemptError(t, b.del.Deliver(b.ctx, d, 1))
	require.True(t, ae.Final)
	require.ErrorIs(t, ae, asynq.SkipRetry)
	e, err := b.reg.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.NotNil(t, e.Disabled)
	require.Equal(t, DisabledGone, e.Disabled.Reason)

	// A later delivery to the disabled endpoint sends nothing.
	ae = attemptError(t, b.del.Deliver(b.ctx, d, 2))
	require.Equal(t, "endpoint_disabled", ae.Code)
	require.Len(t, rcv.got(), 1)
	// And the notifier stops enqueuing for it once its cache expires.
	b.clock.Advance(time.Minute)
	require.NoError(t, b.notifier.Notify(b.ctx, committed(t, "inv-5")))
	require.Len(t, b.deliveries(t), 1)
}

func TestDeliver_ConsecutiveFailures_DisableEndpointWithReason(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{DisableAfter: 3}})
	rcv := newReceiver(t, 500, 500, 500, 500)
	ep, _ := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-6"))
	for n := 1; n <= 3; n++ {
		_ = b.del.Deliver(b.ctx, d, n)
	}
	e, err := b.reg.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.NotNil(t, e.Disabled)
	require.Equal(t, DisabledConsecutiveFailures, e.Disabled.Reason)
	require.Equal(t, 3, e.ConsecutiveFailures)
}

func TestDeliver_PastRetryWindow_IsDead(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Window: time.Hour}})
	rcv := newReceiver(t, 500)
	ep, _ := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-7"))
	d.FirstAt = b.clock.Now().Add(-time.Hour).UnixMilli()

	ae := attemptError(t, b.del.Deliver(b.ctx, d, 9))
	require.True(t, ae.Final, "no retry past the window: Asynq archives the task")
	as, err := b.reg.Attempts(b.ctx, ep.ID, 1)
	require.NoError(t, err)
	require.Equal(t, StatusDead, as[0].Status)
	require.Nil(t, as[0].NextAttemptAt)
}

func TestDeliver_DeletedEndpoint_EndsWithoutRequest(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rcv := newReceiver(t)
	ep, _ := b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-8"))
	require.NoError(t, b.reg.Delete(b.ctx, ep.ID))

	require.NoError(t, b.del.Deliver(b.ctx, d, 1))
	require.Empty(t, rcv.got())
}

func TestRotate_BothSecretsSignDuringGrace_OnlyTheNewAfter(t *testing.T) {
	t.Parallel()
	b := setup(t, nil) // RotationGrace: 1m
	rcv := newReceiver(t)
	ep, old := b.register(t, rcv.srv.URL)
	rot, err := b.reg.Rotate(b.ctx, ep.ID)
	require.NoError(t, err)
	require.NotEqual(t, old, rot.Secret)
	require.True(t, strings.HasPrefix(rot.Secret, "whsec_"))

	d := b.notifyOne(t, committed(t, "inv-9"))
	require.NoError(t, b.del.Deliver(b.ctx, d, 1))
	during := rcv.got()[0]
	require.Len(t, strings.Fields(during.header.Get("webhook-signature")), 2, "two v1 signatures during the grace period")
	require.NoError(t, verify(t, old, during))
	require.NoError(t, verify(t, rot.Secret, during))

	b.clock.Advance(2 * time.Minute) // past the grace, within the verifier's 5 min tolerance
	require.NoError(t, b.del.Deliver(b.ctx, d, 2))
	after := rcv.got()[1]
	require.Len(t, strings.Fields(after.header.Get("webhook-signature")), 1)
	require.NoError(t, verify(t, rot.Secret, after))
	require.ErrorIs(t, verify(t, old, after), standardwebhooks.ErrNoMatchingSignature)
}

func TestDeliver_LoopbackTarget_RefusedAtConnectTime(t *testing.T) {
	t.Parallel()
	// The registry allowed the URL (as if it had resolved elsewhere); the
	// deliveries' client does not allow private targets.
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Client: TargetPolicy{AllowInsecure: true}.NewClient(ClientTimeouts{Connect: time.Second, Header: time.Second, Total: time.Second})}})
	rcv := newReceiver(t)
	for _, u := range []string{rcv.srv.URL, strings.Replace(rcv.srv.URL, "127.0.0.1", "localhost", 1)} {
		ep, _ := b.register(t, u)
		ev := committed(t, "inv-10")
		d := Delivery{Endpoint: ep.ID, Tenant: "acme", WebhookID: MessageID(ev.EventID, ep.ID), EventID: ev.EventID,
			EventType: EventJobSucceeded, JobID: ev.Key.String(), Body: `{}`, FirstAt: b.clock.Now().UnixMilli(), CommittedAt: 1}
		ae := attemptError(t, b.del.Deliver(b.ctx, d, 1))
		require.Equal(t, "forbidden_address", ae.Code, u)
	}
	require.Empty(t, rcv.got(), "no request reached the loopback receiver")
}

func TestDeliver_RedirectToLoopback_NotFollowed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	target := newReceiver(t)
	redirect := httptest.NewServer(http.RedirectHandler(target.srv.URL, http.StatusFound))
	t.Cleanup(redirect.Close)
	b.register(t, redirect.URL)
	d := b.notifyOne(t, committed(t, "inv-11"))

	ae := attemptError(t, b.del.Deliver(b.ctx, d, 1))
	require.Equal(t, "redirect_refused", ae.Code)
	require.False(t, ae.Final, "retried: the endpoint may be fixed")
	require.Empty(t, target.got())
}

func TestDeliver_LargeResponse_ReadOnlyUpToTheLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 10<<20)))
	}))
	t.Cleanup(big.Close)
	ep, _ := b.register(t, big.URL)
	d := b.notifyOne(t, committed(t, "inv-12"))
	require.NoError(t, b.del.Deliver(b.ctx, d, 1))
	as, err := b.reg.Attempts(b.ctx, ep.ID, 1)
	require.NoError(t, err)
	raw, err := json.Marshal(as[0])
	require.NoError(t, err)
	require.NotContains(t, string(raw), "xxxx", "no response body is stored")
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "30": 30 * time.Second, "junk": 0, "-5": 0, "999999": maxRetryAfter,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
	} {
		require.Equal(t, want, parseRetryAfter(v, now), v)
	}
}

func TestDeliver_Metrics_CountOutcomesAndObserveLatency(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	b := setup(t, &setupOpts{deliverer: DelivererConfig{Metrics: NewMetrics(reg)}})
	rcv := newReceiver(t, 500, 200)
	b.register(t, rcv.srv.URL)
	d := b.notifyOne(t, committed(t, "inv-13"))
	_ = b.del.Deliver(b.ctx, d, 1)
	require.NoError(t, b.del.Deliver(b.ctx, d, 2))

	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				got[key] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	require.Equal(t, 1.0, got["relayops_webhook_attempts_total,delivered"])
	require.Equal(t, 1.0, got["relayops_webhook_attempts_total,retrying"])
	require.Equal(t, 0.0, got["relayops_webhook_attempts_total,dead"])
	require.Equal(t, 1.0, got["relayops_webhook_attempt_seconds,delivered"])
	require.Equal(t, 1.0, got["relayops_webhook_attempt_seconds,retrying"])
	require.Equal(t, 1.0, got["relayops_webhook_delivery_lag_seconds"])
}
