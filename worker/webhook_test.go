package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/webhook"
)

// hookReceiver is a webhook receiver as a tenant would write one: it
// verifies every request with the Standard Webhooks library and keeps the
// deliveries by webhook-id (its idempotency key). It fails the first
// failFirst requests with 503.
type hookReceiver struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	secret    string
	failFirst int
	requests  []string                 // webhook-id of every request, in order
	events    map[string]webhook.Event // by webhook-id, first seen
	invalid   int                      // requests whose signature did not verify
}

func newHookReceiver(t *testing.T, failFirst int) *hookReceiver {
	t.Helper()
	r := &hookReceiver{t: t, failFirst: failFirst, events: map[string]webhook.Event{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	id := req.Header.Get(standardwebhooks.HeaderWebhookID)
	r.requests = append(r.requests, id)
	if len(r.requests) <= r.failFirst {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	wh, err := standardwebhooks.NewWebhook(r.secret)
	if err != nil || wh.Verify(body, req.Header) != nil {
		r.invalid++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if _, dup := r.events[id]; !dup {
		var e webhook.Event
		if json.Unmarshal(body, &e) == nil {
			r.events[id] = e
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *hookReceiver) snapshot() ([]string, map[string]webhook.Event, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := make(map[string]webhook.Event, len(r.events))
	for k, v := range r.events {
		ev[k] = v
	}
	return append([]string(nil), r.requests...), ev, r.invalid
}

// hookWorld is a worker with webhooks on, in-process, on a real Redis.
type hookWorld struct {
	ctx   context.Context
	store *jobs.Store
	reg   *webhook.Registry
}

func startHookWorld(t *testing.T) *hookWorld {
	t.Helper()
	srv := redistest.Start(t, nil)
	rdb, err := jobs.NewRedisClient(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rdb.Close() })
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Shards: testShards})
	require.NoError(t, err)
	reg, err := webhook.NewRegistry(webhook.RegistryConfig{Redis: rdb,
		Policy: webhook.TargetPolicy{AllowInsecure: true, AllowPrivate: true}})
	require.NoError(t, err)
	asynqRedis := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = asynqRedis.Close() })
	w, err := New(Config{
		Store: store, Redis: asynqRedis, Concurrency: 4,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Webhooks: &WebhookConfig{Registry: reg, RetryBase: 100 * time.Millisecond, RetryMax: 500 * time.Millisecond,
			AttemptTimeout: 2 * time.Second, CacheTTL: time.Millisecond},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &hookWorld{ctx: context.Background(), store: store, reg: reg}
}

func (h *hookWorld) register(t *testing.T, r *hookReceiver, events ...string) *webhook.Endpoint {
	t.Helper()
	ep, secret, err := h.reg.Create(h.ctx, webhook.Registration{Tenant: "acme", URL: r.srv.URL, Events: events})
	require.NoError(t, err)
	r.mu.Lock()
	r.secret = secret
	r.mu.Unlock()
	return ep
}

// TestWorker_Webhooks_EachEventOncePerEndpoint_Verified runs jobs to
// success, to the dead-letter queue and through a review decision: each
// endpoint gets each event it subscribed to once, signed.
func TestWorker_Webhooks_EachEventOncePerEndpoint_Verified(t *testing.T) {
	t.Parallel()
	h := startHookWorld(t)
	all, succ := newHookReceiver(t, 0), newHookReceiver(t, 0)
	h.register(t, all, webhook.EventTypes...)
	h.register(t, succ, webhook.EventJobSucceeded)

	const n = 6
	keys := make([]jobs.Key, n)
	for i := range keys {
		keys[i] = mustKey(t, "acme", fmt.Sprintf("hook-%d", i), 1)
		content := readSample(t, "valid-basic-eur.txt")
		if i == 0 {
			content = readSample(t, "invalid-total-mismatch.txt")
		}
		_, err := h.store.Submit(h.ctx, jobs.SubmitRequest{Key: keys[i], Content: content, Limits: jobs.DefaultLimits})
		require.NoError(t, err)
	}
	redistest.Eventually(t, 30*time.Second, func() bool {
		_, err := h.store.GetReview(h.ctx, keys[1])
		return err == nil
	}, "review of %s", keys[1])
	_, err := h.store.Decide(h.ctx, keys[1], "alice", jobs.ReviewApproved, "")
	require.NoError(t, err)

	// all: 5 job.succeeded + 1 job.dead_lettered + 1 review.decided.
	redistest.Eventually(t, 30*time.Second, func() bool {
		_, ev, _ := all.snapshot()
		_, evs, _ := succ.snapshot()
		return len(ev) == n+1 && len(evs) == n-1
	}, "every event at both receivers")
	reqs, events, invalid := all.snapshot()
	require.Zero(t, invalid)
	require.Len(t, reqs, n+1, "each event once: no duplicate request")
	count := map[string]int{}
	for _, e := range events {
		count[e.Type]++
		require.Equal(t, "acme", e.Data.Tenant)
		if e.Type == webhook.EventJobDeadLettered {
			require.Equal(t, keys[0].String(), e.Data.JobID)
			require.Equal(t, jobs.CodePermanent, e.Data.ErrorCode)
		}
		if e.Type == webhook.EventReviewDecided {
			require.Equal(t, keys[1].String(), e.Data.JobID)
			require.Equal(t, jobs.ReviewApproved, e.Data.Decision)
		}
	}
	require.Equal(t, map[string]int{webhook.EventJobSucceeded: n - 1, webhook.EventJobDeadLettered: 1, webhook.EventReviewDecided: 1}, count)
	reqs, events, invalid = succ.snapshot()
	require.Zero(t, invalid)
	require.Len(t, reqs, n-1)
	for _, e := range events {
		require.Equal(t, webhook.EventJobSucceeded, e.Type)
	}
}

// TestWorker_Webhooks_FailsThreeTimesThenSucceeds_SameWebhookID: Asynq
// retries the delivery with backoff; the receiver sees one webhook-id.
func TestWorker_Webhooks_FailsThreeTimesThenSucceeds_SameWebhookID(t *testing.T) {
	t.Parallel()
	h := startHookWorld(t)
	r := newHookReceiver(t, 3)
	ep := h.register(t, r, webhook.EventJobSucceeded)
	k := mustKey(t, "acme", "flaky-receiver", 1)
	_, err := h.store.Submit(h.ctx, jobs.SubmitRequest{Key: k, Content: readSample(t, "valid-basic-eur.txt"), Limits: jobs.DefaultLimits})
	require.NoError(t, err)

	redistest.Eventually(t, 30*time.Second, func() bool {
		_, ev, _ := r.snapshot()
		return len(ev) == 1
	}, "the delivery to succeed")
	reqs, _, invalid := r.snapshot()
	require.Zero(t, invalid)
	require.Len(t, reqs, 4)
	for _, id := range reqs {
		require.Equal(t, reqs[0], id, "the same webhook-id on every attempt")
	}
	j, err := h.store.Get(h.ctx, k)
	require.NoError(t, err)
	require.Equal(t, webhook.MessageID(j.EventID, ep.ID), reqs[0])
	redistest.Eventually(t, 10*time.Second, func() bool {
		as, err := h.reg.Attempts(h.ctx, ep.ID, 10)
		return err == nil && len(as) == 4 && as[0].Status == webhook.StatusDelivered
	}, "four attempts recorded")
	as, err := h.reg.Attempts(h.ctx, ep.ID, 10)
	require.NoError(t, err)
	for _, a := range as[1:] {
		require.Equal(t, webhook.StatusRetrying, a.Status)
		require.Equal(t, http.StatusServiceUnavailable, a.StatusCode)
	}
}
