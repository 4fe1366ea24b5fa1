package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
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
		{"tenant not configured", `{"tenant":"nosuch","url":"` + hookURL + `","events":["job.succeeded"]}`, []string{"tenant"}},
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

func TestWebhooks_Resend_OnlyADeadDeliveryAudited(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, nil)
	rdb, err := jobs.NewRedisClient(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	asynqRedis := srv.Client(t)
	client := asynq.NewClientFromRedisClient(asynqRedis)
	insp := asynq.NewInspectorFromRedisClient(asynqRedis)
	var reg *webhook.Registry
	b := setup(t, &setupOpts{rdb: rdb, modify: func(c *Config) {
		reg, err = webhook.NewRegistry(webhook.RegistryConfig{Redis: c.Store.Redis(), Clock: c.Clock,
			Policy: webhook.TargetPolicy{AllowInsecure: true, AllowPrivate: true}})
		require.NoError(t, err)
		c.Webhooks = reg
		c.WebhookResender, err = webhook.NewResender(webhook.ResenderConfig{Registry: reg, Inspector: insp, Enqueuer: client, Clock: c.Clock})
		require.NoError(t, err)
	}})
	id := b.createWebhook(t, "acme", "http://127.0.0.1:9/hook", webhook.EventJobCancelled)["id"].(string)
	other := b.createWebhook(t, "acme", "http://127.0.0.1:9/other", webhook.EventJobCancelled)["id"].(string)
	n, err := webhook.NewNotifier(webhook.NotifierConfig{Registry: reg, Enqueuer: client, Clock: b.clock})
	require.NoError(t, err)
	k := mustKey(t, b.submit(t, tokAcme, "inv-1", 1, "Invoice"))
	ev := jobs.Event{Type: jobs.EventJobCancelled, Key: k, Code: jobs.CodeDeadlineExceeded, At: t0}
	require.NoError(t, n.Notify(context.Background(), ev))
	e, _ := webhook.FromOutbox(ev)
	msg := webhook.MessageID(e.Data.EventID, id)
	path := "/v1/webhooks/" + id + "/deliveries/" + msg + "/resend"
	body := `{"reason":"receiver fixed"}`

	b.do(t, call{method: "POST", path: path, token: tokAlice, body: body}).requireError(t, http.StatusConflict, CodeDeliveryNotDead)
	require.NoError(t, insp.ArchiveTask("webhooks", msg)) // as Asynq does when the retry window ends
	b.do(t, call{method: "POST", path: path, token: tokAlice, body: `{}`}).requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	b.do(t, call{method: "POST", path: path, token: tokAcme, body: body}).requireError(t, http.StatusForbidden, CodeForbidden)
	b.do(t, call{method: "POST", path: "/v1/webhooks/" + other + "/deliveries/" + msg + "/resend", token: tokAlice, body: body}).
		requireError(t, http.StatusNotFound, CodeNotFound)
	b.do(t, call{method: "POST", path: "/v1/webhooks/" + id + "/deliveries/msg_nope/resend", token: tokAlice, body: body}).
		requireError(t, http.StatusNotFound, CodeNotFound)

	r := b.do(t, call{method: "POST", path: path, token: tokAlice, body: body})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	require.Equal(t, "alice", r.json(t)["resentBy"])
	pending, err := insp.ListPendingTasks("webhooks")
	require.NoError(t, err)
	var resent []*asynq.TaskInfo
	for _, p := range pending {
		if strings.HasPrefix(p.ID, msg+":resend:") {
			resent = append(resent, p)
		}
	}
	require.Len(t, resent, 1)
	d, err := webhook.ParseDelivery(resent[0].Payload)
	require.NoError(t, err)
	require.Equal(t, msg, d.WebhookID, "sent again under the same webhook-id")
	require.Equal(t, "alice", d.ResentBy)

	items := b.do(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries", token: tokAlice}).json(t)["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, "resent", items[0].(map[string]any)["status"])
	require.Equal(t, "receiver fixed", items[0].(map[string]any)["reason"])
	audit, err := reg.Audit(context.Background(), "acme", 10)
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, webhook.AuditEntry{Action: "webhook_resent", Endpoint: id, WebhookID: msg, JobID: k.String(),
		Operator: "alice", Reason: "receiver fixed", At: audit[0].At}, audit[0])
}
