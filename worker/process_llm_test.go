//go:build linux && slow

package worker

import (
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/llmtest"
	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

// llmEnv configures a worker process with the model extractor on srv.
func llmEnv(srv *llmtest.Server) []string {
	return []string{
		"RELAYOPS_EXTRACTOR=llm", "RELAYOPS_LLM_BASE_URL=" + srv.URL,
		"RELAYOPS_LLM_MODEL=" + modelName, "RELAYOPS_LLM_API_KEY=" + modelAPIKey, "RELAYOPS_LLM_TIMEOUT=10s",
	}
}

// llmDoc is one document of the run with the answer the fake model gives
// for it and the tokens it reports.
type llmDoc struct {
	key                      jobs.Key
	content, answer          string
	prompt, completion       int64
	wantTotal, wantInvoiceNo string
}

// llmDocs builds n distinct invoices, each with a conforming answer that
// adds up.
func llmDocs(t *testing.T, n int) []llmDoc {
	docs := make([]llmDoc, n)
	for i := range docs {
		qty := 2 + i%5
		net := qty * 1250 // qty × 12.50, in cents
		tax := net / 5    // 20%
		no := fmt.Sprintf("LLM-%04d", 100+i)
		docs[i] = llmDoc{
			key: mustKey(t, "acme", fmt.Sprintf("llm-run-%02d", i+1), 1),
			content: fmt.Sprintf("Northwind Traders GmbH\nINVOICE No. %s\nDate: March %d, 2026\n%d x Widget @ 12.50 = %s\n"+
				"Net total %s\nVAT 20%% %s\nAmount Due: €%s\n", no, i+1, qty, cents(net), cents(net), cents(tax), cents(net+tax)),
			answer: fmt.Sprintf(`{"documentType":"invoice","invoiceNumber":%q,"vendor":"Northwind Traders GmbH",`+
				`"issueDate":"2026-03-%02d","currency":"EUR","lineItems":[{"description":"Widget","quantity":"%d",`+
				`"unitPrice":"12.50","amount":%q}],"subtotal":%q,"charges":[],"tax":%q,"taxIncluded":false,"total":%q}`,
				no, i+1, qty, cents(net), cents(net), cents(tax), cents(net+tax)),
			prompt: int64(700 + 10*i), completion: int64(120 + i),
			wantTotal: cents(net + tax), wantInvoiceNo: no,
		}
	}
	return docs
}

func cents(c int) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// countingModel answers each document with its answer and counts the
// calls per document.
type countingModel struct {
	mu    sync.Mutex
	docs  map[string]llmDoc
	calls map[string]int
}

func (m *countingModel) answer(r llmtest.Request) llmtest.Reply {
	doc, ok := r.Document()
	m.mu.Lock()
	defer m.mu.Unlock()
	d, known := m.docs[doc]
	if !ok || !known {
		return llmtest.Error(400, "unknown_document", "the fake knows no such document")
	}
	m.calls[doc]++
	return llmtest.Completion(d.answer, d.prompt, d.completion)
}

func (m *countingModel) callsOf(content string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[content]
}

// The measured run of the model extractor through real processes. Worker
// A (one task at a time, the model extractor on a fake endpoint that
// counts its calls) is SIGKILLed right after the model answered its fifth
// document and that extraction was checkpointed. Worker B takes over: it
// runs the documents A never started at once, and the killed one after
// Asynq's lease recovery, resuming it from the checkpoint. Every document
// succeeds once, with one review, and the model is called exactly once per
// document: never again after a crash that followed its answer.
func TestProcess_LLM_KilledAfterTheModelAnswered_NeverCallsItAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	docs := llmDocs(t, 12)
	fake := &countingModel{docs: map[string]llmDoc{}, calls: map[string]int{}}
	for _, d := range docs {
		fake.docs[d.content] = d
	}
	srv := llmtest.New(t, fake.answer)

	a := e.startWorker("LLM-A", procOpts{faults: "after_extract=kill#5", env: append(llmEnv(srv), "RELAYOPS_CONCURRENCY=1")})
	for _, d := range docs {
		e.submit(d.key, d.content, jobs.DefaultLimits)
	}
	require.Equal(t, syscall.SIGKILL, proctest.KilledBy(a.Wait(60*time.Second)))
	killed := llmDoc{}
	for _, d := range docs {
		if e.job(d.key).State == jobs.StateRunning {
			require.Empty(t, killed.content, "one job was running when A died")
			killed = d
		}
	}
	require.NotEmpty(t, killed.content, "A died inside a job")
	require.Equal(t, 5, srv.Calls(), "A's model calls: four committed jobs and the killed one")
	ckpts, err := e.store.Checkpoints(e.ctx, killed.key)
	require.NoError(t, err)
	require.Contains(t, ckpts, extract.StageExtract, "the model's extraction is checkpointed")
	require.NotContains(t, ckpts, extract.StageClassify, "classify defers: recomputed, not stored")

	recoveryStart := time.Now()
	b := e.startWorker("LLM-B", procOpts{env: llmEnv(srv)})
	// B runs what A never started at once; A's task comes back once its
	// lease has expired and a recoverer pass sees it: B's own (every
	// minute), or a worker started then, whose start-up pass recovers it.
	redistest.Eventually(t, 3*time.Minute, func() bool {
		return e.job(killed.key).State == jobs.StateSucceeded || e.leaseRecoverable(killed.key.String())
	}, "%s to be recovered or recoverable", killed.key)
	workers := []*proctest.Process{b}
	if e.job(killed.key).State != jobs.StateSucceeded {
		workers = append(workers, e.startWorker("LLM-B2", procOpts{env: llmEnv(srv)}))
	}
	for _, d := range docs {
		e.waitReview(d.key, time.Minute)
	}
	recovered := time.Since(recoveryStart)

	var prompt, completion int64
	for _, d := range docs {
		j := e.requireExactlyOnce(d.key)
		require.Equal(t, 1, j.Attempt, d.key.String())
		require.Equal(t, 1, fake.callsOf(d.content), "one model call for %s", d.key)
		res, err := e.store.Result(e.ctx, d.key)
		require.NoError(t, err)
		var inv extract.Invoice
		require.NoError(t, json.Unmarshal(res, &inv))
		require.Equal(t, extract.Source{Extractor: "llm", Model: modelName, PromptTokens: d.prompt, CompletionTokens: d.completion}, inv.Source)
		require.Equal(t, d.wantInvoiceNo, inv.InvoiceNumber)
		require.Equal(t, d.wantTotal, inv.Total)
		prompt, completion = prompt+inv.Source.PromptTokens, completion+inv.Source.CompletionTokens
	}
	require.Equal(t, len(docs), srv.Calls(), "exactly one model call per document, crash included")
	kj := e.job(killed.key)
	require.Equal(t, 1, kj.Recoveries)
	// The B workers committed the documents A did not, and ran the extract
	// stage for each of them but the killed one, which resumed from its
	// checkpoint.
	var committed, extracted float64
	for _, p := range workers {
		committed += p.Metric(metricJobs, outcome(OutcomeSucceeded))
		extracted += p.Metric(metricStages, stage(StageExtract))
	}
	require.Equal(t, float64(len(docs)-4), committed, "A committed four documents, the B workers the rest")
	require.Equal(t, committed-1, extracted, "the recovery resumed extract from the checkpoint")
	for _, p := range append(workers, a) {
		require.NotContains(t, p.Logs(), "SECRET-99", "the API key is never logged")
	}

	t.Logf("model extractor run: %d documents, %d model calls (%.2f per document), tokens prompt=%d completion=%d",
		len(docs), srv.Calls(), float64(srv.Calls())/float64(len(docs)), prompt, completion)
	t.Logf("crash: worker A SIGKILLed after_extract of %s (5th model answer, checkpointed); A made %d calls",
		killed.key, 5)
	t.Logf("recovery: %s succeeded by another worker with attempt=%d recoveries=%d, model calls for it=%d, extract resumed from checkpoint; all %d reviews after %s (Asynq's lease recovery)",
		killed.key, kj.Attempt, kj.Recoveries, fake.callsOf(killed.content), len(docs), recovered.Round(time.Second))
}
