package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"sync"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/internal/corpus"
	"github.com/relayops/relayops/internal/llmtest"
)

// The model extractor (llm) and the chain (rules,llm), measured against a
// recorded fake OpenAI-compatible endpoint on loopback. For every document
// of the corpus the recording answers what a faithful model would: the
// document's ground truth in the answer schema (a broken invoice's faulty
// figures included, a non-invoice's kind), with a token count of about four
// characters per token. A document it holds no recording for gets a 500.
// So these modes measure the plumbing — the request, the strict decoding,
// the validator, the chain's fallback, the calls and tokens — not a
// model's accuracy; nothing leaves the machine.
func init() {
	register(extract.ExtractorLLM, recordedFactory(config.ExtractorLLM, commandDocuments))
	register(config.ExtractorRulesLLM, recordedFactory(config.ExtractorRulesLLM, commandDocuments))
}

const recordedModel = "recorded-corpus-model"

// commandDocuments are the documents the command evaluates, read from its
// flags (their defaults when they were not parsed).
func commandDocuments() ([]corpus.Document, error) {
	seed, _ := strconv.ParseInt(flagValue("seed", "1"), 10, 64)
	n, _ := strconv.Atoi(flagValue("n", "500"))
	docs, err := corpus.Generate(seed, max(n, 0))
	if err != nil {
		return nil, err
	}
	if dir := flagValue("dir", "testdata/corpus"); dir != "" {
		hand, err := corpus.Load(dir)
		if err != nil {
			return nil, err
		}
		docs = append(docs, hand...)
	}
	return docs, nil
}

func flagValue(name, def string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return def
}

// recordedFactory builds mode (llm or rules,llm) on a fake endpoint that
// answers the documents docs returns. Its stop closes the endpoint and
// prints the calls and tokens.
func recordedFactory(mode string, docs func() ([]corpus.Document, error)) Factory {
	return func(context.Context) (extract.Extractor, func(), error) {
		d, err := docs()
		if err != nil {
			return nil, nil, err
		}
		rec := newRecording(d)
		srv := httptest.NewServer(rec)
		var cost callCost
		model, err := extract.NewModel(extract.ModelConfig{
			BaseURL: srv.URL + "/v1", Model: recordedModel, Observe: cost.add,
		})
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		stop := func() {
			srv.Close()
			fmt.Fprintf(os.Stderr, "eval: %s on the recorded endpoint: %s\n", mode, cost.String())
		}
		if mode == config.ExtractorRulesLLM {
			return extract.NewChain(rules.Rules{}, model), stop, nil
		}
		return model, stop, nil
	}
}

// callCost adds up the model calls.
type callCost struct {
	mu                 sync.Mutex
	calls              map[string]int
	prompt, completion int64
}

func (c *callCost) add(call extract.ModelCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[call.Outcome]++
	c.prompt += call.PromptTokens
	c.completion += call.CompletionTokens
}

func (c *callCost) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.calls {
		total += n
	}
	return fmt.Sprintf("%d model calls %v, tokens prompt=%d completion=%d", total, c.calls, c.prompt, c.completion)
}

// recording answers a chat completion for each recorded document.
type recording struct {
	answers map[string]string // document text → answer
}

func newRecording(docs []corpus.Document) *recording {
	r := &recording{answers: make(map[string]string, len(docs))}
	for _, d := range docs {
		b, _ := json.Marshal(answerOf(d.Truth))
		r.answers[d.Text] = string(b)
	}
	return r
}

func (r *recording) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Messages []llmtest.Message `json:"messages"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad request","code":"bad_request"}}`, http.StatusBadRequest)
		return
	}
	doc, ok := llmtest.Request{Messages: body.Messages}.Document()
	answer, known := r.answers[doc]
	if !ok || !known {
		http.Error(w, `{"error":{"message":"no recording for this document","code":"not_recorded"}}`, http.StatusInternalServerError)
		return
	}
	prompt := int64(0)
	for _, m := range body.Messages {
		prompt += int64(len(m.Content)+3) / 4
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-recorded", "object": "chat.completion", "created": 1767225600, "model": recordedModel,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": (len(answer) + 3) / 4,
			"total_tokens": prompt + int64(len(answer)+3)/4},
	})
}

// documentTypes maps the corpus's kinds to the schema's document types.
var documentTypes = map[string]string{
	corpus.KindInvoice: extract.DocInvoice, corpus.KindReceipt: extract.DocReceipt,
	corpus.KindCardSlip: extract.DocReceipt, corpus.KindPaymentReceipt: extract.DocReceipt,
	corpus.KindPurchaseOrder: extract.DocPurchaseOrder, corpus.KindOrderConfirmation: extract.DocPurchaseOrder,
	corpus.KindStatement: extract.DocStatement, corpus.KindQuote: extract.DocQuote, corpus.KindEstimate: extract.DocQuote,
	corpus.KindCreditNote: extract.DocCreditNote,
}

var (
	canonical = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	isoDate   = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// amount is s when it is a canonical decimal, else "" (a figure the
// document states unreadably is one a faithful model leaves out).
func amount(s string) string {
	if canonical.MatchString(s) {
		return s
	}
	return ""
}

// answerOf is a faithful model's answer for a document of truth t, in the
// answer schema: every property present.
func answerOf(t corpus.Truth) map[string]any {
	docType, ok := documentTypes[t.Kind]
	if !ok {
		docType = extract.DocOther
	}
	if t.IsInvoice {
		docType = extract.DocInvoice
	}
	lines := []any{}
	for i, l := range t.Lines {
		lines = append(lines, map[string]any{"description": fmt.Sprintf("item %d", i+1),
			"quantity": amount(l.Quantity), "unitPrice": amount(l.UnitPrice), "amount": amount(l.Amount)})
	}
	charges := []any{}
	for _, c := range t.Charges {
		charges = append(charges, map[string]any{"kind": c.Kind, "amount": amount(c.Amount)})
	}
	date := t.IssueDate
	if !isoDate.MatchString(date) {
		date = ""
	}
	return map[string]any{
		"documentType": docType, "invoiceNumber": t.InvoiceNumber, "vendor": t.Vendor, "issueDate": date,
		"currency": t.Currency, "lineItems": lines, "subtotal": amount(t.Subtotal), "charges": charges,
		"tax": amount(t.Tax), "taxIncluded": false, "total": amount(t.Total),
	}
}
