package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/quota"
)

func quotaSetup(t *testing.T, q quota.Config) *bundle {
	t.Helper()
	return setup(t, &setupOpts{modify: func(c *Config) { c.Quota = q }})
}

func submitCall(token, doc, content string) call {
	body, _ := json.Marshal(map[string]any{"documentId": doc, "operationVersion": 1, "content": content})
	return call{method: "POST", path: "/v1/jobs", token: token, body: string(body)}
}

// end runs job id to a terminal state, as a worker would.
func (b *bundle) end(t *testing.T, id string) {
	t.Helper()
	k, c := b.claim(t, id)
	require.NoError(t, b.store.DeadLetter(context.Background(), k, c.Fence, jobs.CodePermanent))
}

func (b *bundle) requireNoJob(t *testing.T, doc string) {
	t.Helper()
	k, err := jobs.BuildKey("acme", doc, 1)
	require.NoError(t, err)
	_, err = b.store.Get(context.Background(), k)
	require.ErrorIs(t, err, jobs.ErrNotFound, "nothing stored for %s", doc)
}

func TestSubmit_OverSubmitRate_429NamingTheLimitAndNothingStored(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{Rate: 2, Per: time.Minute})
	b.submit(t, tokAcme, "a", 1, "x")
	b.submit(t, tokAcme, "b", 1, "x")
	r := b.do(t, submitCall(tokAcme, "c", "x"))
	r.requireError(t, http.StatusTooManyRequests, CodeSubmitRateExceeded)
	require.Equal(t, "30", r.Header.Get("Retry-After"))
	b.requireNoJob(t, "c")
	// Another tenant has its own budget.
	b.submit(t, tokGlobex, "c", 1, "x")
	b.clock.Advance(30 * time.Second)
	b.submit(t, tokAcme, "c", 1, "x")
}

func TestSubmit_Resubmissions_NeverCountNorRefused(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{Rate: 2, Per: time.Hour, MaxJobs: 2})
	b.submit(t, tokAcme, "a", 1, "x")
	for range 3 {
		r := b.do(t, submitCall(tokAcme, "a", "x"))
		require.Equal(t, http.StatusOK, r.Status, "a dedupe: body %s", r.Body)
	}
	r := b.do(t, submitCall(tokAcme, "b", "x"))
	require.Equal(t, http.StatusAccepted, r.Status, "the dedupes took nothing: body %s", r.Body)
	b.do(t, submitCall(tokAcme, "c", "x")).requireError(t, http.StatusTooManyRequests, CodeSubmitRateExceeded)
	// Over both limits now, a resubmission is still answered, and a
	// different payload still conflicts.
	require.Equal(t, http.StatusOK, b.do(t, submitCall(tokAcme, "b", "x")).Status)
	b.do(t, submitCall(tokAcme, "b", "other")).requireError(t, http.StatusConflict, CodeIdempotencyConflict)
}

func TestSubmit_BacklogJobsFull_429UntilAJobEnds(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{MaxJobs: 2})
	id := b.submit(t, tokAcme, "a", 1, "x")
	b.submit(t, tokAcme, "b", 1, "x")
	r := b.do(t, submitCall(tokAcme, "c", "x"))
	r.requireError(t, http.StatusTooManyRequests, CodeBacklogJobsExceeded)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	b.requireNoJob(t, "c")
	b.end(t, id)
	b.clock.Advance(time.Second) // the refusal's prune is due again
	require.Equal(t, http.StatusAccepted, b.do(t, submitCall(tokAcme, "c", "x")).Status)
	// An ended job's resubmission is a dedupe, answered though the backlog is full.
	require.Equal(t, http.StatusOK, b.do(t, submitCall(tokAcme, "a", "x")).Status)
}

func TestSubmit_BacklogBytesFull_429AndNothingStored(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{MaxBytes: 10})
	b.submit(t, tokAcme, "a", 1, "123456")
	b.do(t, submitCall(tokAcme, "b", "12345")).requireError(t, http.StatusTooManyRequests, CodeBacklogBytesExceeded)
	b.requireNoJob(t, "b")
	require.Equal(t, http.StatusAccepted, b.do(t, submitCall(tokAcme, "b", "1234")).Status)
}

func TestListTenants_OperatorSeesEachTenantsBacklog(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{MaxJobs: 100})
	id := b.submit(t, tokAcme, "a", 1, "abc")
	b.submit(t, tokAcme, "b", 1, "de")
	b.submit(t, tokGlobex, "a", 1, "f")
	b.end(t, id)
	r := b.do(t, call{method: "GET", path: "/v1/tenants", token: tokAlice})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	var got struct {
		Items []tenantView `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &got))
	one := func(n int64) *int64 { return &n }
	require.Equal(t, []tenantView{
		{Tenant: "acme", OpenJobs: 1, QuotaJobs: one(1), QuotaBytes: one(2)},
		{Tenant: "globex", OpenJobs: 1, QuotaJobs: one(1), QuotaBytes: one(1)},
	}, got.Items)
	b.do(t, call{method: "GET", path: "/v1/tenants", token: tokAcme}).requireError(t, http.StatusForbidden, CodeForbidden)
}

func TestListTenants_WithoutQuotas_NoQuotaFields(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "a", 1, "abc")
	r := b.do(t, call{method: "GET", path: "/v1/tenants", token: tokAlice})
	require.Equal(t, http.StatusOK, r.Status)
	require.JSONEq(t, `{"items":[{"tenant":"acme","openJobs":1,"waiting":0,"inFlight":0},{"tenant":"globex","openJobs":0,"waiting":0,"inFlight":0}],"nextCursor":null}`, string(r.Body))
}

func TestSubmit_OverStoredBytes_429WithItsCodeAndRetryAfterTheOldestInputsExpiry(t *testing.T) {
	t.Parallel()
	b := quotaSetup(t, quota.Config{MaxStoredBytes: 10})
	first := b.submit(t, tokAcme, "a", 1, "123456")
	b.end(t, first) // ended: no longer open, but its input is kept for the retention (7 days)
	r := b.do(t, submitCall(tokAcme, "b", "12345"))
	e := r.requireError(t, http.StatusTooManyRequests, CodeStoredBytesExceeded)
	require.Contains(t, e["message"], "stored-bytes quota")
	require.Equal(t, "604800", r.Header.Get("Retry-After"), "when the first input expires")
	b.requireNoJob(t, "b")
	b.submit(t, tokAcme, "c", 1, "1234") // what fits is admitted
	b.submit(t, tokGlobex, "b", 1, "12345")

	var got struct {
		Items []tenantView `json:"items"`
	}
	require.NoError(t, json.Unmarshal(b.do(t, call{method: "GET", path: "/v1/tenants", token: tokAlice}).Body, &got))
	require.Len(t, got.Items, 2)
	require.Equal(t, int64(10), *got.Items[0].QuotaStoredBytes, "acme: the ended job's input and the open one's")
	require.Nil(t, got.Items[0].QuotaJobs, "no backlog quota, no backlog count")
	require.Equal(t, int64(5), *got.Items[1].QuotaStoredBytes)
}
