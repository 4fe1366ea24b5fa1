package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/corpus"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/worker"
)

// The API's check of a correction and the worker's commit of it are one
// function on the same inputs (extract.JudgeCorrections over the base the
// API judged, stored with the version). These tests drive partial
// extractions and corrections through both, in one process: the real API
// handler for the reprocess, the real extract handler for the new version.
// Whatever the API accepts, the new version commits.

// inproc is the API and the extract handler on one miniredis.
type inproc struct {
	store   *jobs.Store
	api     http.Handler
	handler interface {
		ProcessTask(context.Context, *asynq.Task) error
	}
}

const propOperator = "prop-operator-token-0123456789"

func newInproc(t *testing.T, reader *document.Readers) *inproc {
	t.Helper()
	_, rdb := redistest.Mini(t)
	clk := clock.NewStub(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4})
	require.NoError(t, err)
	srv, err := api.New(api.Config{Store: store, Clock: clk,
		Operators: []credential.Credential{{Name: "alice", Token: propOperator}},
		// a property test makes many corrections a minute
		CorrectionRate: api.Rate{Count: 1_000_000, Per: time.Minute}})
	require.NoError(t, err)
	h, err := workerHandler(store, reader, clk)
	require.NoError(t, err)
	return &inproc{store: store, api: srv.Handler(), handler: h}
}

// submit stores content as version 1 of doc and runs its extraction.
func (p *inproc) submit(t *testing.T, doc, content string) *jobs.Job {
	t.Helper()
	k, err := jobs.BuildKey("acme", doc, 1)
	require.NoError(t, err)
	_, err = p.store.Submit(context.Background(), jobs.SubmitRequest{Key: k, Content: content})
	require.NoError(t, err)
	return p.run(t, k)
}

// run delivers k's extraction task and returns the job as it ended.
func (p *inproc) run(t *testing.T, k jobs.Key) *jobs.Job {
	t.Helper()
	_ = p.handler.ProcessTask(context.Background(), asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: k.String()}.Marshal()))
	j, err := p.store.Get(context.Background(), k)
	require.NoError(t, err)
	return j
}

// correct posts corrections to the real reprocess route; it returns the
// status and, when a version was made, its key.
func (p *inproc) correct(t *testing.T, k jobs.Key, corrections any) (int, jobs.Key, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"reason": "property", "corrections": corrections})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/v1/jobs/"+k.String()+"/reprocess", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+propOperator)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.api.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
		return rec.Code, jobs.Key{}, rec.Body.String()
	}
	var v struct {
		JobID string `json:"jobId"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	nk, err := jobs.ParseKey(v.JobID)
	require.NoError(t, err)
	return rec.Code, nk, ""
}

// kept is what a rejected job kept.
func (p *inproc) kept(t *testing.T, k jobs.Key) *extract.Extraction {
	t.Helper()
	raw, err := p.store.Rejection(context.Background(), k)
	if err != nil {
		return nil
	}
	var kp extract.Kept
	require.NoError(t, json.Unmarshal(raw, &kp))
	return kp.Fields
}

// randomCorrections draws corrections a person might send over what was
// read: some of its fields retyped, changed, removed, lists emptied or
// replaced, amounts negated, other types of document; many do not add up.
func randomCorrections(r *rand.Rand, x *extract.Extraction, truth map[string]string) map[string]any {
	c := map[string]any{}
	pick := func(f string, vals ...string) {
		if len(vals) > 0 && r.IntN(3) > 0 {
			c[f] = vals[r.IntN(len(vals))]
		}
	}
	amount := func() string { return fmt.Sprintf("%d.%02d", r.IntN(5000), r.IntN(100)) }
	whole := r.IntN(2) == 0 // the whole truth, or some of it
	fallback := map[string]string{"invoiceNumber": "INV-9", "vendor": "Fabrikam Ltd", "issueDate": "2026-01-05",
		"currency": "EUR", "total": amount()}
	for f, v := range fallback {
		if truth[f] == "" && whole {
			c[f] = v // a document read as no invoice: the person gives every field
		}
	}
	for f, v := range truth {
		if v != "" && (whole || r.IntN(2) == 0) {
			c[f] = v
		}
	}
	if whole && r.IntN(2) == 0 {
		return c
	}
	if x != nil {
		pick("total", x.Total, x.Subtotal, amount(), "-"+amount(), "")
		pick("subtotal", x.Subtotal, amount(), "")
		pick("tax", x.Tax, "0.00", amount())
	}
	pick("invoiceNumber", "FV 1/2021", "#A_17", "INV-9", "\u202eX", "")
	pick("documentType", "invoice", "creditNote", "correctiveInvoice")
	switch r.IntN(5) {
	case 0:
		c["charges"] = []any{}
	case 1:
		c["charges"] = []any{map[string]string{"kind": "discount", "amount": amount(), "reason": "Rabatt"}}
	case 2:
		c["lineItems"] = []any{}
	}
	if r.IntN(4) == 0 {
		c["taxBreakdown"] = []any{map[string]string{"rate": "19", "taxAmount": amount()}}
	}
	if r.IntN(5) == 0 {
		c["paidAmount"] = amount()
	}
	if len(c) == 0 {
		c["invoiceNumber"] = "INV-1"
	}
	return c
}

// TestCorrections_AcceptedByTheAPI_TheVersionSucceeds_Generated: for
// every rejected document of the generated corpus, random corrections
// through the API; each accepted one's version commits.
func TestCorrections_AcceptedByTheAPI_TheVersionSucceeds_Generated(t *testing.T) {
	t.Parallel()
	p := newInproc(t, nil)
	docs, err := corpus.Generate(29, 400)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(29, 30))
	accepted, refused := 0, 0
	for i, d := range docs {
		if d.Truth.MustSucceed() {
			continue
		}
		j := p.submit(t, fmt.Sprintf("gen-%d", i), d.Text)
		if j.State != jobs.StateDeadLettered {
			continue
		}
		truth := map[string]string{"invoiceNumber": d.Truth.InvoiceNumber, "vendor": d.Truth.Vendor,
			"issueDate": d.Truth.IssueDate, "currency": d.Truth.Currency, "total": d.Truth.Total}
		for range 3 {
			status, nk, body := p.correct(t, j.Key, randomCorrections(r, p.kept(t, j.Key), truth))
			if status == http.StatusBadRequest {
				refused++
				continue
			}
			require.Contains(t, []int{http.StatusCreated, http.StatusOK, http.StatusConflict}, status, body)
			if status == http.StatusConflict {
				continue // another correction of this dead letter made its version: idempotency_conflict
			}
			accepted++
			nj := p.run(t, nk)
			require.Equal(t, jobs.StateSucceeded, nj.State, "accepted at the API, %s must commit (reason %s)", nk, nj.ErrorReason)
		}
	}
	t.Logf("generated corpus: %d corrections accepted and committed, %d refused at the API", accepted, refused)
	require.Positive(t, accepted)
	require.Positive(t, refused, "the draw makes corrections that do not add up too")
}

// TestCorrections_RealRejectedInvoices_ACleckFinishesEveryOne: every real
// invoice the rules reject is corrected with its truth through the API (a
// clerk types what the page says), and its version commits those values.
// A document whose own figures do not add up, or that names no issuer
// (expect: rejection), and non-invoices are not corrected.
func TestCorrections_RealRejectedInvoices_AClerkFinishesEveryOne(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reads every real PDF with PDFium: skipped with -short")
	}
	r, err := pdf.New(context.Background(), pdf.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	p := newInproc(t, document.New(document.Config{PDF: r}))
	pdfs, err := filepath.Glob(filepath.Join("..", "testdata", "real", "*", "*.pdf"))
	require.NoError(t, err)
	rnd := rand.New(rand.NewPCG(1, 2))
	var finished, refusedAll int
	for i, path := range pdfs {
		truth, ok := realTruth(t, path)
		if !ok {
			continue
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		j := p.submit(t, fmt.Sprintf("real-%d", i), jobs.FileContent("application/pdf", filepath.Base(path), data))
		if j.State != jobs.StateDeadLettered {
			continue
		}
		// Random corrections on one copy: whatever is accepted commits.
		for range 2 {
			status, nk, _ := p.correct(t, j.Key, randomCorrections(rnd, p.kept(t, j.Key), nil))
			if status == http.StatusCreated {
				require.Equal(t, jobs.StateSucceeded, p.run(t, nk).State, "accepted at the API, %s must commit (%s)", nk, path)
			}
		}
		// The clerk's on another: the truth, which must be accepted and commit.
		c := p.submit(t, fmt.Sprintf("real-clerk-%d", i), jobs.FileContent("application/pdf", filepath.Base(path), data))
		status, nk, body := p.correct(t, c.Key, truth.corrections())
		if !assertStatus(t, status, body, path) {
			refusedAll++
			continue
		}
		nj := p.run(t, nk)
		require.Equal(t, jobs.StateSucceeded, nj.State, "%s: the accepted correction must commit", path)
		finished++
	}
	t.Logf("real corpus: %d rejected invoices finished with their truth, %d refused", finished, refusedAll)
	require.Zero(t, refusedAll, "a clerk can finish every rejected real invoice")
	require.Positive(t, finished)
}

func assertStatus(t *testing.T, status int, body, path string) bool {
	t.Helper()
	if status != http.StatusCreated && status != http.StatusOK {
		t.Errorf("%s: the truth's correction was refused (%d): %s", path, status, body)
		return false
	}
	return true
}

// realDoc is what a real document's truth file says a clerk would type.
type realDoc struct {
	DocumentType  string   `json:"documentType"`
	InvoiceNumber string   `json:"invoiceNumber"`
	IssueDate     string   `json:"issueDate"`
	BookingDate   string   `json:"bookingDate"` // no issue date printed: the date a clerk books it under
	DueDate       string   `json:"dueDate"`
	Currency      string   `json:"currency"`
	Vendor        string   `json:"vendor"`
	Subtotal      string   `json:"subtotal"`
	Tax           string   `json:"tax"`
	Total         string   `json:"total"`
	Expect        string   `json:"expect"`
	Fields        []string `json:"fields"`
	Charges       []any    `json:"charges"`
}

// realTruth reads path's truth file: a booked document a clerk corrects
// (not expect: rejection, with the fields a correction needs).
func realTruth(t *testing.T, path string) (realDoc, bool) {
	t.Helper()
	b, err := os.ReadFile(strings.TrimSuffix(path, ".pdf") + ".json")
	if err != nil {
		return realDoc{}, false
	}
	var d realDoc
	if json.Unmarshal(b, &d) != nil || !extract.IsBooked(d.DocumentType) || d.Expect == "rejection" ||
		d.InvoiceNumber == "" || d.Vendor == "" || d.Currency == "" || d.Total == "" {
		return realDoc{}, false
	}
	if d.IssueDate == "" {
		d.IssueDate = d.BookingDate
	}
	return d, d.IssueDate != ""
}

// corrections are the values a clerk types: the fields the page states
// and its charges and allowances, when it has any (the machine's details
// that contradict the clerk's totals are removed by the judge itself:
// nothing else is sent).
func (d realDoc) corrections() map[string]any {
	c := map[string]any{"documentType": d.DocumentType, "invoiceNumber": d.InvoiceNumber, "vendor": d.Vendor,
		"issueDate": d.IssueDate, "currency": d.Currency, "total": d.Total}
	for f, v := range map[string]string{"subtotal": d.Subtotal, "tax": d.Tax, "dueDate": d.DueDate} {
		if v != "" {
			c[f] = v
		}
	}
	if len(d.Charges) > 0 {
		c["charges"] = d.Charges
	}
	return c
}

// workerHandler is the extract handler of the rules, reading text (and
// PDFs when reader is set).
func workerHandler(store *jobs.Store, reader *document.Readers, clk clock.Clock) (*worker.Handler, error) {
	cfg := worker.HandlerConfig{Store: store, Extractor: rules.Rules{}, Clock: clk}
	if reader != nil {
		cfg.Reader = reader
	}
	return worker.NewHandler(cfg)
}
