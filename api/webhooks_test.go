package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
)

const hookURL = "https://93.184.216.34/hooks/relayops" // a public literal address: no DNS

func (b *bundle) createWebhook(t *testing.T, tenant, url string, events ...string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"tenant": tenant, "url": url, "events": events})
	r := b.do(t, call{method: "POST", path: "/v1/webhooks", token: tokAlice, body: string(body)})
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	return r.json(t)
}

func TestWebhooks_RegisterListGetRotateDelete(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	created := b.createWebhook(t, "acme", hookURL, webhook.EventJobSucceeded, webhook.EventReviewDecided)
	id := created["id"].(string)
	require.Regexp(t, `^whsec_`, created["secret"], "the secret is shown once, at creation")
	require.Nil(t, created["disabled"])
	b.createWebhook(t, "globex", hookURL, webhook.EventJobDeadLettered)

	got := b.do(t, call{method: "GET", path: "/v1/webhooks/" + id, token: tokAcme}).json(t)
	require.Equal(t, id, got["id"])
	require.NotContains(t, got, "secret")
	require.Equal(t, []any{webhook.EventJobSucceeded, webhook.EventReviewDecided}, got["events"])

	own := b.do(t, call{method: "GET", path: "/v1/webhooks", token: tokAcme}).json(t)["items"].([]any)
	require.Len(t, own, 1, "a tenant lists its own endpoints only")
	require.NotContains(t, own[0], "secret")
	all := b.do(t, call{method: "GET", path: "/v1/webhooks", token: tokAlice}).json(t)["items"].([]any)
	require.Len(t, all, 2)
	globex := b.do(t, call{method: "GET", path: "/v1/webhooks?tenant=globex", token: tokAlice}).json(t)["items"].([]any)
	require.Len(t, globex, 1)
	b.do(t, call{method: "GET", path: "/v1/webhooks?tenant=acme", token: tokGlobex}).requireError(t, http.StatusForbidden, CodeForbidden)

	// Another tenant's endpoint is not found, on every route.
	b.do(t, call{method: "GET", path: "/v1/webhooks/" + id, token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries", token: tokGlobex}).requireError(t, http.StatusNotFound, CodeNotFound)
	// Tenants do not manage endpoints.
	b.do(t, call{method: "DELETE", path: "/v1/webhooks/" + id, token: tokAcme}).requireError(t, http.StatusForbidden, CodeForbidden)
	b.do(t, call{method: "POST", path: "/v1/webhooks", token: tokAcme, body: `{}`}).requireError(t, http.StatusForbidden, CodeForbidden)

	rot := b.do(t, call{method: "POST", path: "/v1/webhooks/" + id + "/rotate", token: tokAlice})
	require.Equal(t, http.StatusOK, rot.Status, "body: %s", rot.Body)
	require.NotEqual(t, created["secret"], rot.json(t)["secret"])

	require.Equal(t, http.StatusNoContent, b.do(t, call{method: "DELETE", path: "/v1/webhooks/" + id, token: tokAlice}).Status)
	b.do(t, call{method: "GET", path: "/v1/webhooks/" + id, token: tokAlice}).requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "DELETE", path: "/v1/webhooks/" + id, token: tokAlice}).requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "GET", path: "/v1/webhooks/not-an-id", token: tokAlice}).requireError(t, http.StatusNotFound, CodeNotFound)
}

func TestWebhooks_BadRegistrations_400NamingTheFieldAndNothingChanged(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	before := b.dbsize(t)
	for _, tt := range []struct {
		name, body string
		fields     []string
	}{
		{"plain http", `{"tenant":"acme","url":"http://93.184.216.34/h","events":["job.succeeded"]}`, []string{"url"}},
		{"loopback literal", `{"tenant":"acme","url":"https://127.0.0.1/h","events":["job.succeeded"]}`, []string{"url"}},
		{"name resolving to loopback", `{"tenant":"acme","url":"https://localhost/h","events":["job.succeeded"]}`, []string{"url"}},
		{"metadata", `{"tenant":"acme","url":"https://169.254.169.254/latest/meta-data","events":["job.succeeded"]}`, []string{"url"}},
		{"unknown event", `{"tenant":"acme","url":"` + hookURL + `","events":["job.succeeded","job.exploded"]}`, []string{"events[1]"}},
		{"no events", `{"tenant":"acme","url":"` + hookURL + `","events":[]}`, []string{"events"}},
		{"events not an array", `{"tenant":"acme","url":"` + hookURL + `","events":"job.succeeded"}`, []string{"events"}},
		{"bad tenant", `{"tenant":"ACME","url":"` + hookURL + `","events":["job.succeeded"]}`, []string{"tenant"}},
		{"missing", `{}`, []string{"tenant", "url", "events"}},
		{"unknown member", `{"tenant":"acme","url":"` + hookURL + `","events":["job.succeeded"],"secret":"x"}`, []string{"secret"}},
	} {
		r := b.do(t, call{method: "POST", path: "/v1/webhooks", token: tokAlice, body: tt.body})
		e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
		require.Equal(t, tt.fields, fieldNames(e), tt.name)
	}
	require.Equal(t, before, b.dbsize(t), "nothing registered")
}

// captureEnqueuer hands delivery tasks to the test instead of Asynq.
type captureEnqueuer struct{ tasks []*asynq.Task }

func (c *captureEnqueuer) EnqueueContext(_ context.Context, t *asynq.Task, _ ...asynq.Option) (*asynq.TaskInfo, error) {
	c.tasks = append(c.tasks, t)
	return &asynq.TaskInfo{}, nil
}

func TestWebhooks_Deliveries_ShowRecentAttemptsWithoutBodies(t *testing.T) {
	t.Parallel()
	var reg *webhook.Registry
	b := setup(t, &setupOpts{modify: func(c *Config) {
		var err error
		reg, err = webhook.NewRegistry(webhook.RegistryConfig{Redis: c.Store.Redis(), Clock: c.Clock,
			Policy: webhook.TargetPolicy{AllowInsecure: true, AllowPrivate: true}})
		require.NoError(t, err)
		c.Webhooks = reg
	}})
	statuses := []int{http.StatusInternalServerError, http.StatusOK}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(statuses[0])
		statuses = statuses[1:]
		_, _ = w.Write([]byte("secret-looking body"))
	}))
	t.Cleanup(rcv.Close)
	id := b.createWebhook(t, "acme", rcv.URL, webhook.EventJobDeadLettered)["id"].(string)

	enq := &captureEnqueuer{}
	n, err := webhook.NewNotifier(webhook.NotifierConfig{Registry: reg, Enqueuer: enq, Clock: b.clock})
	require.NoError(t, err)
	d, err := webhook.NewDeliverer(webhook.DelivererConfig{Registry: reg})
	require.NoError(t, err)
	k := mustKey(t, b.submit(t, tokAcme, "inv-1", 1, "Invoice"))
	require.NoError(t, n.Notify(context.Background(), jobs.Event{Type: jobs.EventJobDeadLettered, Key: k, Code: jobs.CodePermanent, At: t0}))
	require.Len(t, enq.tasks, 1)
	del, err := webhook.ParseDelivery(enq.tasks[0].Payload())
	require.NoError(t, err)
	require.Error(t, d.Deliver(context.Background(), del, 1))
	require.NoError(t, d.Deliver(context.Background(), del, 2))

	r := b.do(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries", token: tokAcme})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.NotContains(t, string(r.Body), "secret-looking")
	items := r.json(t)["items"].([]any)
	require.Len(t, items, 2)
	last, first := items[0].(map[string]any), items[1].(map[string]any)
	require.Equal(t, "delivered", last["status"])
	require.Equal(t, "retrying", first["status"])
	require.Equal(t, "http_500", first["error"])
	require.NotNil(t, first["nextAttemptAt"])
	require.Equal(t, k.String(), last["jobId"])
	require.Equal(t, first["webhookId"], last["webhookId"])
	require.Equal(t, webhook.EventJobDeadLettered, last["eventType"])

	one := b.do(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries?limit=1", token: tokAlice}).json(t)["items"].([]any)
	require.Len(t, one, 1)
}
