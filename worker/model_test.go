package worker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/llmtest"
	"github.com/relayops/relayops/jobs"
)

const (
	modelName   = "fake-extractor-1"
	modelAPIKey = "sk-worker-test-SECRET-99"
)

// modelDocument and modelAnswer are an invoice and a conforming answer
// that adds up.
const modelDocument = "Northwind Traders GmbH\nINVOICE No. 4471\nDate: March 3, 2026\n" +
	"2 x Widget @ 10.00 = 20.00\nSubtotal 20.00\nVAT 20% 4.00\nAmount Due: €24.00\n"

const modelAnswer = `{"documentType":"invoice","invoiceNumber":"4471","vendor":"Northwind Traders GmbH",` +
	`"issueDate":"2026-03-03","currency":"EUR","lineItems":[{"description":"Widget","quantity":"2",` +
	`"unitPrice":"10.00","amount":"20.00"}],"subtotal":"20.00","charges":[],"tax":"4.00","taxIncluded":false,"total":"24.00"}`

// fakeEndpoint answers what the test sets, and can be changed mid-test.
type fakeEndpoint struct {
	mu    sync.Mutex
	reply llmtest.Reply
}

func (f *fakeEndpoint) set(r llmtest.Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = r
}

func (f *fakeEndpoint) answer(llmtest.Request) llmtest.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reply
}

// modelSetup is a handler bundle whose extractor is the real model
// extractor on a fake endpoint, its calls counted in the bundle's metrics
// and its cool-down on the bundle's clock.
func modelSetup(t *testing.T, first llmtest.Reply, level slog.Level) (*bundle, *llmtest.Server, *fakeEndpoint) {
	t.Helper()
	ep := &fakeEndpoint{reply: first}
	srv := llmtest.New(t, ep.answer)
	metrics := NewMetrics(false)
	var b *bundle
	model, err := extract.NewModel(extract.ModelConfig{
		BaseURL: srv.URL, Model: modelName, APIKey: modelAPIKey, Timeout: 5 * time.Second,
		Observe: metrics.ObserveModelCall, Now: func() time.Time { return b.clock.Now() },
	})
	require.NoError(t, err)
	b = setup(t, &setupOpts{extractor: model, logLevel: level, metrics: metrics})
	return b, srv, ep
}

func TestHandler_ModelExtractor_CostInTheResultAndTheMetrics(t *testing.T) {
	t.Parallel()
	b, srv, _ := modelSetup(t, llmtest.Completion(modelAnswer, 812, 143), slog.LevelInfo)
	k := mustKey(t, "acme", "model-1", 1)
	b.submit(t, k, modelDocument, 0)

	require.NoError(t, b.deliver(k))

	require.Equal(t, jobs.StateSucceeded, b.job(t, k).State)
	res, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	require.Equal(t, extract.Source{Extractor: "llm", Model: modelName, PromptTokens: 812, CompletionTokens: 143}, inv.Source)
	require.Equal(t, 1, srv.Calls())
	m := scrape(t, b.metrics)
	require.Equal(t, 1.0, m[`relayops_model_calls_total{model="fake-extractor-1",outcome="ok"}`])
	require.Equal(t, 812.0, m[`relayops_model_tokens_total{kind="prompt",model="fake-extractor-1"}`])
	require.Equal(t, 143.0, m[`relayops_model_tokens_total{kind="completion",model="fake-extractor-1"}`])
	require.Equal(t, 1.0, m[`relayops_inference_seconds_count{outcome="ok"}`], "the inference histogram covers the model call")
}

// A wrong key must not empty the backlog into the DLQ: the attempt is
// released uncounted, retried after the cool-down for as long as it takes,
// and the job succeeds once the key works.
func TestHandler_ModelSettingsRefused_JobWaitsUncountedUntilFixed(t *testing.T) {
	t.Parallel()
	b, srv, ep := modelSetup(t, llmtest.Error(401, "invalid_api_key", "Incorrect API key provided: "+modelAPIKey), slog.LevelInfo)
	k := mustKey(t, "acme", "wrong-key", 1)
	b.submit(t, k, modelDocument, 0)

	deliveries := 2 * jobs.DefaultLimits.MaxAttempts
	var retryAfter time.Duration
	for i := range deliveries {
		err := b.deliver(k)
		requireCode(t, err, extract.CodeModelUnauthorized, true)
		require.False(t, IsFailure(err), "Asynq does not count it either")
		var ce *CodeError
		require.ErrorAs(t, err, &ce)
		retryAfter = ce.RetryAfter
		require.Positive(t, retryAfter, "retried after the cool-down")
		j := b.job(t, k)
		require.Equal(t, jobs.StateRetrying, j.State, "delivery %d", i)
		require.Zero(t, j.Attempt, "the attempt was taken back")
		require.Equal(t, extract.CodeModelUnauthorized, j.ErrorCode)
	}
	require.Equal(t, 1, srv.Calls(), "within the cool-down the endpoint is not called again")
	require.Equal(t, float64(deliveries), b.outcomes(OutcomeHeld))
	require.Zero(t, b.outcomes(OutcomeDeadLettered))
	require.Len(t, b.logLines(t, map[string]string{"level": "ERROR"}), 1, "one ERROR line per minute, not one per job")
	require.ErrorIs(t, b.metrics.ModelReady(), ErrModelSettingsRefused)
	require.Equal(t, 1.0, scrape(t, b.metrics)["relayops_model_settings_refused"])

	b.clock.Advance(retryAfter)
	requireCode(t, b.deliver(k), extract.CodeModelUnauthorized, true)
	require.Equal(t, 2, srv.Calls(), "one probe once the cool-down has passed")

	ep.set(llmtest.Completion(modelAnswer, 10, 10)) // the operator fixed the key
	b.clock.Advance(time.Hour)
	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	require.Equal(t, 1, j.Attempt, "the only counted attempt is the one that worked")
	require.NoError(t, b.metrics.ModelReady())
	require.Zero(t, scrape(t, b.metrics)["relayops_model_settings_refused"])
}

// While the endpoint refuses the settings a job's own deadline still ends
// it: cancelled, not dead-lettered.
func TestHandler_ModelSettingsRefused_DeadlineStillCancels(t *testing.T) {
	t.Parallel()
	b, _, _ := modelSetup(t, llmtest.Error(403, "", "forbidden"), slog.LevelInfo)
	k := mustKey(t, "acme", "wrong-key-late", 1)
	b.submit(t, k, modelDocument, time.Minute)
	requireCode(t, b.deliver(k), extract.CodeModelUnauthorized, true)

	b.clock.Advance(2 * time.Minute)
	require.NoError(t, b.deliver(k))

	j := b.job(t, k)
	require.Equal(t, jobs.StateCancelled, j.State)
	require.Equal(t, jobs.CodeDeadlineExceeded, j.ErrorCode)
}

func TestHandler_ModelRateLimited_RetryAfterReachesAsynqsDelay(t *testing.T) {
	t.Parallel()
	rep := llmtest.Error(429, "rate_limit_exceeded", "slow down")
	rep.Header = http.Header{"Retry-After": {"30"}}
	b, _, _ := modelSetup(t, rep, slog.LevelInfo)
	k := mustKey(t, "acme", "busy", 1)
	b.submit(t, k, modelDocument, 0)

	err := b.deliver(k)

	requireCode(t, err, extract.CodeModelRateLimited, true)
	require.True(t, IsFailure(err), "a rate-limited attempt counts")
	j := b.job(t, k)
	require.Equal(t, jobs.StateRetrying, j.State)
	require.Equal(t, 1, j.Attempt)
	require.Equal(t, extract.CodeModelRateLimited, j.ErrorCode)
	require.GreaterOrEqual(t, RetryDelay(time.Second, 5*time.Minute)(0, err, nil), 30*time.Second)
}

func TestHandler_ModelBadRequest_DeadLettersWithoutReason(t *testing.T) {
	t.Parallel()
	b, _, _ := modelSetup(t, llmtest.Error(400, "context_length_exceeded", "too long"), slog.LevelInfo)
	k := mustKey(t, "acme", "huge", 1)
	b.submit(t, k, modelDocument, 0)

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Empty(t, j.ErrorReason, "the endpoint refused the request; the document was not judged")
	require.Len(t, b.logLines(t, map[string]string{
		"msg": "attempt failed", "model_code": "model_bad_request", "provider_code": "context_length_exceeded",
	}), 1)
}

func TestHandler_ModelOutputInvalid_DeadLettersWithTheReason(t *testing.T) {
	t.Parallel()
	b, srv, _ := modelSetup(t, llmtest.Completion(`{"total": 24}`, 50, 5), slog.LevelInfo)
	k := mustKey(t, "acme", "garbled", 1)
	b.submit(t, k, modelDocument, 0)

	requireCode(t, b.deliver(k), jobs.CodePermanent, false)

	j := b.job(t, k)
	require.Equal(t, extract.ReasonModelOutputInvalid, j.ErrorReason)
	require.Equal(t, 3, srv.Calls(), "the first answer and two re-asks, within the attempt")
	require.Equal(t, 3.0, scrape(t, b.metrics)[`relayops_model_calls_total{model="fake-extractor-1",outcome="invalid_output"}`])
}

// The API key reaches the endpoint and nothing else: not the record, not
// what Asynq stores, not the logs even at debug, even when the endpoint
// echoes it back.
func TestHandler_ModelAPIKey_NeverInRecordsErrorsOrLogs(t *testing.T) {
	t.Parallel()
	for i, rep := range []llmtest.Reply{
		llmtest.Error(401, "invalid_api_key", "Incorrect API key provided: "+modelAPIKey),
		llmtest.Error(400, "bad", "key "+modelAPIKey+" may not use this model"),
		{Status: 500, Body: "upstream said Authorization: Bearer " + modelAPIKey},
		llmtest.Completion("I will not. "+modelAPIKey, 1, 1),
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			b, srv, _ := modelSetup(t, rep, slog.LevelDebug)
			k := mustKey(t, "acme", "key-leak", 1)
			b.submit(t, k, modelDocument, 0)

			err := b.deliver(k)

			require.Error(t, err)
			require.Equal(t, "Bearer "+modelAPIKey, srv.Requests()[0].Authorization)
			require.NotContains(t, err.Error(), modelAPIKey)
			require.NotContains(t, b.logs.String(), "SECRET-99", "not even at debug level")
			for field, v := range b.jobHash(t, k) {
				require.NotContains(t, v, "SECRET-99", "job record field %s", field)
			}
			require.NotContains(t, fmt.Sprint(scrape(t, b.metrics)), "SECRET-99")
		})
	}
}

func TestReadyz_RefusedModelSettings_NotReadyButAlive(t *testing.T) {
	t.Parallel()
	b := setupReady(t)
	m := b.w.Metrics()

	code, body := b.get(t, "/readyz")
	require.Equal(t, 200, code)
	require.Equal(t, map[string]string{"status": "ready"}, body)

	m.ObserveModelCall(extract.ModelCall{Model: modelName, Outcome: extract.CallUnauthorized})
	code, body = b.get(t, "/readyz")
	require.Equal(t, 503, code)
	require.Equal(t, map[string]string{"status": "unavailable", "reason": "model_settings_refused"}, body)
	code, _ = b.get(t, "/healthz")
	require.Equal(t, 200, code, "alive: a restart would not fix a wrong key")

	m.ObserveModelCall(extract.ModelCall{Model: modelName, Outcome: extract.CallTimeout})
	code, _ = b.get(t, "/readyz")
	require.Equal(t, 503, code, "no answer says nothing about the settings")
	m.ObserveModelCall(extract.ModelCall{Model: modelName, Outcome: extract.CallRateLimited})
	code, _ = b.get(t, "/readyz")
	require.Equal(t, 200, code, "any other answer means the settings work")

	m.ObserveModelCall(extract.ModelCall{Model: modelName, Outcome: extract.CallNotFound})
	b.stop()
	code, body = b.get(t, "/readyz")
	require.Equal(t, 503, code)
	require.Equal(t, "redis_unavailable", body["reason"], "the store is checked first")
}
