//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
)

// Scenario 1: a valid invoice goes all the way to an operator's decision,
// which the audit trail records.
func TestE2E_ValidInvoice_SucceedsReviewedApprovedAndAudited(t *testing.T) {
	t.Parallel()
	validInvoiceSucceedsReviewedApprovedAndAudited(t, setup(t, options{}))
}

func validInvoiceSucceedsReviewedApprovedAndAudited(t *testing.T, s *system) {
	submitted := s.submitNew(t, tokA, "inv-basic", sample(t, "valid-basic-eur.txt"))
	id := submitted.JobID
	if id != "acme:inv-basic:v1" || submitted.Deduped == nil || *submitted.Deduped {
		t.Fatalf("want a new job acme:inv-basic:v1 with deduped:false, got: %v", submitted)
	}

	j := s.waitState(t, tokA, id, stateSucceeded)
	if j.Attempt != 1 || len(j.Result) == 0 || string(j.Result) == "null" || j.Links.Review != "/v1/reviews/"+id {
		t.Fatalf("want attempt 1, a result and the link /v1/reviews/%s, got: %v", id, j)
	}
	if !strings.Contains(string(j.Result), "INV-2024-0001") {
		t.Errorf("want the result to hold the invoice number INV-2024-0001, got: %v", j)
	}

	rv := s.waitReview(t, tokA, id)
	if rv.Status != "pending" || rv.EventID == "" {
		t.Fatalf("want a pending review with an eventId, got: %v", rv)
	}
	listed := items[review](t, s, tokA, "/v1/reviews")
	if len(listed) != 1 || listed[0].JobID != id {
		t.Fatalf("want acme's review list to be exactly [%s], got: %v", id, listed)
	}

	decision := map[string]string{"decision": "approve", "note": "amounts checked"}
	decided := decode[review](t, s.do(t, http.MethodPost, "/v1/reviews/"+id+"/decision", tokC, decision).expect(t, http.StatusOK))
	if decided.Status != "approved" || decided.Operator != operator || decided.DecidedAt == "" || decided.Note != "amounts checked" {
		t.Fatalf("want the review approved by %s with its note and decision time, got: %v", operator, decided)
	}
	// Idempotent: the same decision again answers the recorded review; a
	// different one is a conflict.
	again := decode[review](t, s.do(t, http.MethodPost, "/v1/reviews/"+id+"/decision", tokC, decision).expect(t, http.StatusOK))
	if again.DecidedAt != decided.DecidedAt {
		t.Errorf("want a repeated decision to answer the recorded one (decidedAt %s), got: %v", decided.DecidedAt, again)
	}
	s.do(t, http.MethodPost, "/v1/reviews/"+id+"/decision", tokC, map[string]string{"decision": "reject"}).
		expectError(t, http.StatusConflict, "idempotency_conflict")
	if seen := decode[review](t, s.do(t, http.MethodGet, "/v1/reviews/"+id, tokA, nil).expect(t, http.StatusOK)); seen.Status != "approved" {
		t.Fatalf("want the tenant to see the review approved, got: %v", seen)
	}

	trail := items[auditEntry](t, s, tokC, "/v1/audit?jobId="+id)
	var decisions []auditEntry
	for _, e := range trail {
		if e.Action == "review_decided" {
			decisions = append(decisions, e)
		}
	}
	if len(decisions) != 1 || decisions[0].Operator != operator || decisions[0].JobID != id || decisions[0].Tenant != "acme" {
		t.Fatalf("want one review_decided entry for %s by %s, got the trail %+v", id, operator, trail)
	}
	if !hasAction(trail, "submitted") {
		t.Errorf("want the trail of %s to record its submission, got: %v", id, trail)
	}
}

// Scenario 2: an invalid invoice is dead-lettered, and an operator's
// reprocess with corrected content succeeds as the next version, once.
func TestE2E_InvalidInvoice_DeadLettered_ReprocessedWithCorrectedContent(t *testing.T) {
	t.Parallel()
	invalidInvoiceDeadLetteredReprocessedWithCorrectedContent(t, setup(t, options{}))
}

func invalidInvoiceDeadLetteredReprocessedWithCorrectedContent(t *testing.T, s *system) {
	old := s.submitNew(t, tokA, "inv-77", sample(t, "invalid-total-mismatch.txt")).JobID

	dead := s.waitState(t, tokA, old, stateDeadLettered)
	if dead.ErrorCode != "permanent_error" || dead.Attempt != 1 {
		t.Fatalf("want errorCode permanent_error on attempt 1, got: %v", dead)
	}
	dlq := s.do(t, http.MethodGet, "/v1/dlq", tokC, nil).expect(t, http.StatusOK)
	if l := decode[list[job]](t, dlq); len(l.Items) != 1 || l.Items[0].JobID != old || l.Items[0].ErrorCode != "permanent_error" {
		t.Fatalf("want /v1/dlq to list exactly %s with permanent_error, got: %s", old, dlq)
	}
	requireNoContent(t, dlq, "Fabrikam") // reason codes only, never the document

	const reason = "vendor sent a corrected total (ticket OPS-12)"
	corrected := sample(t, "corrected-total-mismatch.txt")
	created := s.reprocess(t, old, reprocessRequest{Reason: reason, Content: &corrected}).expect(t, http.StatusCreated)
	v2 := decode[job](t, created)
	if v2.JobID != "acme:inv-77:v2" || v2.ReprocessedFrom != old || created.header.Get("Location") != "/v1/jobs/"+v2.JobID {
		t.Fatalf("want new job acme:inv-77:v2 reprocessed from %s with its Location, got: %s (Location %q)",
			old, created, created.header.Get("Location"))
	}

	done := s.waitState(t, tokA, v2.JobID, stateSucceeded)
	if done.Attempt != 1 || done.ReprocessedFrom != old {
		t.Fatalf("want v2 to succeed on attempt 1, linked from %s, got: %v", old, done)
	}
	s.waitReview(t, tokA, v2.JobID)
	if o := s.job(t, tokA, old); o.State != stateDeadLettered || o.ReprocessedAs != v2.JobID {
		t.Fatalf("want the old job to stay dead_lettered with reprocessedAs %s, got: %v", v2.JobID, o)
	}

	trail := items[auditEntry](t, s, tokC, "/v1/audit?jobId="+old)
	e, ok := findAction(trail, "reprocessed")
	if !ok || e.Operator != operator || e.Reason != reason || e.NewJobID != v2.JobID ||
		e.OldPayloadHash == "" || e.NewPayloadHash == "" || e.OldPayloadHash == e.NewPayloadHash {
		t.Fatalf("want a reprocessed entry by %s with the reason %q, new job %s and two different payload hashes, got the trail %+v",
			operator, reason, v2.JobID, trail)
	}

	repeat := s.reprocess(t, old, reprocessRequest{Reason: reason, Content: &corrected}).expect(t, http.StatusOK)
	if r := decode[job](t, repeat); r.JobID != v2.JobID {
		t.Fatalf("want the repeated reprocess to answer the same new job %s, got: %s", v2.JobID, repeat)
	}
	other := corrected + "\nNote: resent"
	s.reprocess(t, old, reprocessRequest{Reason: reason, Content: &other}).expectError(t, http.StatusConflict, "idempotency_conflict")
	if n := len(items[auditEntry](t, s, tokC, "/v1/audit?jobId="+old)); n != len(trail) {
		t.Errorf("want repeats to add nothing to the audit trail of %s (%d entries), got %d entries", old, len(trail), n)
	}

	if ids := jobIDs(items[job](t, s, tokC, "/v1/dlq")); slices.Contains(ids, old) {
		t.Fatalf("want /v1/dlq to no longer list the reprocessed %s, got %v", old, ids)
	}
	if ids := jobIDs(items[job](t, s, tokC, "/v1/dlq?include=reprocessed")); !slices.Contains(ids, old) {
		t.Fatalf("want /v1/dlq?include=reprocessed to list %s, got %v", old, ids)
	}
}

// Scenario 3: transient failures on every attempt dead-letter a job after
// exactly maxAttempts attempts; once the fault is gone, reprocessing the
// same input succeeds.
func TestE2E_ExhaustedTransientFaults_DeadLettered_ReprocessedWithoutContentSucceeds(t *testing.T) {
	t.Parallel()
	s := setup(t, options{faults: "extract=transient"})
	old := s.submitNew(t, tokA, "inv-flaky", sample(t, "valid-tax-usd.txt")).JobID

	dead := s.waitState(t, tokA, old, stateDeadLettered)
	if dead.ErrorCode != "max_attempts_exceeded" || dead.Attempt != maxAttempts {
		t.Fatalf("want errorCode max_attempts_exceeded after exactly %d attempts, got: %v", maxAttempts, dead)
	}
	fired := s.worker.Metric("relayops_worker_faults_fired_total", map[string]string{"point": "extract", "action": "transient"})
	if fired != maxAttempts {
		t.Errorf("want the extract fault to have fired %d times, got %v", maxAttempts, fired)
	}
	s.worker.Stop()
	if t.Failed() {
		t.FailNow()
	}
	healthy := s.startWorker("worker-fixed", "")

	const reason = "extractor outage over"
	v2 := decode[job](t, s.reprocess(t, old, reprocessRequest{Reason: reason}).expect(t, http.StatusCreated))
	if v2.JobID != "acme:inv-flaky:v2" || v2.ReprocessedFrom != old {
		t.Fatalf("want new job acme:inv-flaky:v2 reprocessed from %s, got: %v", old, v2)
	}
	if done := s.waitState(t, tokA, v2.JobID, stateSucceeded); done.Attempt != 1 {
		t.Fatalf("want v2 to succeed on its first attempt, got: %v", done)
	}
	s.waitReview(t, tokA, v2.JobID)
	if n := healthy.Metric("relayops_worker_faults_fired_total", nil); n != 0 {
		t.Errorf("want no fault in the worker started without RELAYOPS_FAULTS, got %v", n)
	}

	e, ok := findAction(items[auditEntry](t, s, tokC, "/v1/audit?jobId="+old), "reprocessed")
	if !ok || e.Operator != operator || e.Reason != reason || e.OldPayloadHash == "" || e.OldPayloadHash != e.NewPayloadHash {
		t.Fatalf("want a reprocessed entry by %s with reason %q and the same payload hash twice (same input), got %+v", operator, reason, e)
	}
}

// Scenario 4: a job whose deadline passed before any worker picked it up is
// cancelled, and a cancelled or a succeeded job cannot be reprocessed.
func TestE2E_Reprocess_CancelledOrSucceededJob_Conflicts(t *testing.T) {
	t.Parallel()
	s := setup(t, options{noWorker: true})
	late := s.submit(t, tokA, submitRequest{DocumentID: "inv-late", OperationVersion: 1,
		Content: sample(t, "valid-basic-eur.txt"), DeadlineSeconds: 1}).expect(t, http.StatusAccepted)
	id := decode[job](t, late).JobID

	// Waiting for the clock, not for the system: the deadline must pass
	// while no worker runs.
	var deadline time.Time
	redistest.Eventually(t, 10*time.Second, func() bool {
		j := s.job(t, tokA, id)
		if j.State != "queued" {
			t.Fatalf("want %s to stay queued while no worker runs, got: %v", id, j)
		}
		deadline = parseTime(t, "deadlineAt", j.DeadlineAt)
		return time.Now().After(deadline.Add(time.Millisecond)) // deadlineAt is in whole milliseconds
	}, "the deadline of %s to pass", id)

	s.worker = s.startWorker("worker", "")
	cancelled := s.waitState(t, tokA, id, stateCancelled)
	if cancelled.ErrorCode != "deadline_exceeded" {
		t.Fatalf("want errorCode deadline_exceeded, got: %v", cancelled)
	}
	if ids := jobIDs(items[job](t, s, tokC, "/v1/dlq?include=reprocessed")); slices.Contains(ids, id) {
		t.Fatalf("want the cancelled %s kept out of the DLQ, got %v", id, ids)
	}
	s.reprocess(t, id, reprocessRequest{Reason: "retry late job"}).expectError(t, http.StatusConflict, "job_cancelled")

	ok := s.submitNew(t, tokA, "inv-fine", sample(t, "valid-jpy-no-decimals.txt")).JobID
	s.waitState(t, tokA, ok, stateSucceeded)
	s.reprocess(t, ok, reprocessRequest{Reason: "run it again"}).expectError(t, http.StatusConflict, "not_dead_lettered")

	for _, v2 := range []string{"acme:inv-late:v2", "acme:inv-fine:v2"} {
		s.do(t, http.MethodGet, "/v1/jobs/"+v2, tokA, nil).expectError(t, http.StatusNotFound, "not_found")
	}
}

// Scenario 5: the per-tenant reprocess budget answers 429 with Retry-After
// once spent; repeats neither use it nor are refused by it.
func TestE2E_Reprocess_RateLimited_RepeatsFree(t *testing.T) {
	t.Parallel()
	s := setup(t, options{reprocessRate: "2/1h"})
	invalid := sample(t, "invalid-total-mismatch.txt")
	var dead []string
	for _, doc := range []string{"inv-a", "inv-b", "inv-c"} {
		dead = append(dead, s.submitNew(t, tokA, doc, invalid).JobID)
	}
	globex := s.submitNew(t, tokB, "inv-g", invalid).JobID
	for _, id := range append([]string{globex}, dead...) {
		s.waitState(t, tokC, id, stateDeadLettered)
	}

	req := reprocessRequest{Reason: "vendor resent"}
	first := decode[job](t, s.reprocess(t, dead[0], req).expect(t, http.StatusCreated))
	repeat := decode[job](t, s.reprocess(t, dead[0], req).expect(t, http.StatusOK))
	if repeat.JobID != first.JobID {
		t.Fatalf("want the repeat to answer %s, got: %v", first.JobID, repeat)
	}
	s.reprocess(t, dead[1], req).expect(t, http.StatusCreated) // the repeat took nothing: budget 2

	limited := s.reprocess(t, dead[2], req)
	limited.expectError(t, http.StatusTooManyRequests, "rate_limited")
	if secs, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || secs < 1 {
		t.Fatalf("want a Retry-After of at least 1 second, got %q: %s", limited.header.Get("Retry-After"), limited)
	}
	if j := s.job(t, tokA, dead[2]); j.ReprocessedAs != "" {
		t.Fatalf("want the refused reprocess to create nothing, got: %v", j)
	}
	s.do(t, http.MethodGet, "/v1/jobs/acme:inv-c:v2", tokA, nil).expectError(t, http.StatusNotFound, "not_found")

	again := decode[job](t, s.reprocess(t, dead[0], req).expect(t, http.StatusOK)) // spent budget, still answered
	if again.JobID != first.JobID {
		t.Fatalf("want the repeat to answer %s, got: %v", first.JobID, again)
	}
	s.reprocess(t, globex, req).expect(t, http.StatusCreated) // another tenant's budget
}

// Scenario 6: one tenant never sees another's jobs or reviews.
func TestE2E_TenantIsolation(t *testing.T) {
	t.Parallel()
	tenantIsolation(t, setup(t, options{}))
}

func tenantIsolation(t *testing.T, s *system) {
	acme := s.submitNew(t, tokA, "inv-shared-id", sample(t, "valid-basic-eur.txt")).JobID
	// The same documentId is another document under another tenant: no
	// conflict, however different the content.
	globex := s.submitNew(t, tokB, "inv-shared-id", sample(t, "valid-tax-usd.txt")).JobID
	for token, id := range map[string]string{tokA: acme, tokB: globex} {
		s.waitState(t, token, id, stateSucceeded)
		s.waitReview(t, token, id)
	}

	missing := s.do(t, http.MethodGet, "/v1/jobs/acme:no-such-doc:v1", tokB, nil)
	missing.expectError(t, http.StatusNotFound, "not_found")
	for _, path := range []string{"/v1/jobs/" + acme, "/v1/reviews/" + acme} {
		r := s.do(t, http.MethodGet, path, tokB, nil)
		r.expectError(t, http.StatusNotFound, "not_found")
		if got, want := decode[apiError](t, r).Error.Message, decode[apiError](t, missing).Error.Message; got != want {
			t.Errorf("want another tenant's resource to answer like a missing one (%q), got %q", want, got)
		}
		requireNoContent(t, r, "Northwind")
	}
	s.do(t, http.MethodGet, "/v1/jobs?tenant=acme", tokB, nil).expectError(t, http.StatusForbidden, "forbidden")
	s.do(t, http.MethodPost, "/v1/reviews/"+acme+"/decision", tokB, map[string]string{"decision": "reject"}).
		expectError(t, http.StatusForbidden, "forbidden")

	jobs := items[job](t, s, tokB, "/v1/jobs")
	if ids := jobIDs(jobs); len(ids) != 1 || ids[0] != globex {
		t.Fatalf("want globex's job list to be exactly [%s], got %v", globex, ids)
	}
	reviews := items[review](t, s, tokB, "/v1/reviews")
	if len(reviews) != 1 || reviews[0].JobID != globex || reviews[0].Tenant != "globex" {
		t.Fatalf("want globex's review list to be exactly [%s], got: %v", globex, reviews)
	}
}

// Scenario 7: duplicate submissions dedupe, conflicting ones are refused,
// and the extraction runs once.
func TestE2E_DuplicateAndConflictingSubmissions_ExtractOnce(t *testing.T) {
	t.Parallel()
	duplicateAndConflictingSubmissionsExtractOnce(t, setup(t, options{}))
}

func duplicateAndConflictingSubmissionsExtractOnce(t *testing.T, s *system) {
	req := submitRequest{DocumentID: "inv-dup", OperationVersion: 1, Content: sample(t, "valid-bhd-three-decimals.txt")}

	first := decode[job](t, s.submit(t, tokA, req).expect(t, http.StatusAccepted))
	second := s.submit(t, tokA, req).expect(t, http.StatusOK)
	if j := decode[job](t, second); j.JobID != first.JobID || j.Deduped == nil || !*j.Deduped {
		t.Fatalf("want the repeat to answer %s with deduped:true, got: %s", first.JobID, second)
	}
	// deadlineSeconds is an execution option, not part of the payload.
	withDeadline := req
	withDeadline.DeadlineSeconds = 3600
	s.submit(t, tokA, withDeadline).expect(t, http.StatusOK)
	changed := req
	changed.Content += "\nNote: amended"
	s.submit(t, tokA, changed).expectError(t, http.StatusConflict, "idempotency_conflict")

	s.waitState(t, tokA, first.JobID, stateSucceeded)
	s.waitReview(t, tokA, first.JobID)
	after := s.submit(t, tokA, req).expect(t, http.StatusOK)
	if j := decode[job](t, after); j.State != stateSucceeded || j.Deduped == nil || !*j.Deduped {
		t.Fatalf("want a late repeat to dedupe to the succeeded job, got: %s", after)
	}
	s.submit(t, tokA, changed).expectError(t, http.StatusConflict, "idempotency_conflict")

	// The handler counts its outcome after the commit: wait for it, then
	// check nothing else ran.
	succeeded := map[string]string{"outcome": "succeeded"}
	redistest.Eventually(t, jobTimeout, func() bool {
		return s.workersMetric("relayops_worker_jobs_total", succeeded) >= 1
	}, "the worker to count the succeeded job")
	if n := s.workersMetric("relayops_worker_jobs_total", nil); n != 1 {
		t.Errorf("want exactly one handler invocation in relayops_worker_jobs_total, got %v", n)
	}
	if n := s.workersMetric("relayops_worker_stage_runs_total", map[string]string{"stage": "extract"}); n != 1 {
		t.Errorf("want the extract stage to have run once, got %v", n)
	}
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != 1 || rs[0].JobID != first.JobID {
		t.Errorf("want exactly one review, of %s, got: %v", first.JobID, rs)
	}
	if ids := jobIDs(items[job](t, s, tokA, "/v1/jobs")); len(ids) != 1 {
		t.Errorf("want exactly one job, got %v", ids)
	}
}

// Redis is SIGKILLed and restarted from its append-only file while the api
// and the worker run: both reconnect on their own, nothing submitted before
// is lost or run twice, and the keys still dedupe afterwards.
func TestE2E_RedisRestarted_NothingLostNothingTwice(t *testing.T) {
	t.Parallel()
	s := setup(t, options{aof: true})
	valid := []string{"valid-basic-eur.txt", "valid-tax-usd.txt", "valid-jpy-no-decimals.txt", "valid-bhd-three-decimals.txt"}
	var before []job
	for i, f := range valid {
		before = append(before, s.submitNew(t, tokA, fmt.Sprintf("before-%d", i), sample(t, f)))
	}
	for _, j := range before {
		s.waitState(t, tokA, j.JobID, stateSucceeded)
		s.waitReview(t, tokA, j.JobID)
	}

	s.redis.Restart(t)
	redistest.Eventually(t, jobTimeout, func() bool {
		r, err := s.client.Get(s.api.URL("/readyz"))
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	}, "the api to find Redis again")

	again := s.submit(t, tokA, submitRequest{DocumentID: "before-0", OperationVersion: 1, Content: sample(t, valid[0])}).expect(t, http.StatusOK)
	if j := decode[job](t, again); j.State != stateSucceeded {
		t.Fatalf("want the restarted Redis to still dedupe to the succeeded job, got: %s", again)
	}
	var after []job
	for i, f := range valid {
		after = append(after, s.submitNew(t, tokA, fmt.Sprintf("after-%d", i), sample(t, f)))
	}
	for _, j := range after {
		s.waitState(t, tokA, j.JobID, stateSucceeded)
		s.waitReview(t, tokA, j.JobID)
	}
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != len(before)+len(after) {
		t.Errorf("want one review per job (%d), got %d: %v", len(before)+len(after), len(rs), rs)
	}
	if n := s.worker.Metric("relayops_worker_stage_runs_total", map[string]string{"stage": "extract"}); n != float64(len(before)+len(after)) {
		t.Errorf("want the extract stage to have run once per job (%d), got %v", len(before)+len(after), n)
	}
}

func findAction(trail []auditEntry, action string) (auditEntry, bool) {
	for _, e := range trail {
		if e.Action == action {
			return e, true
		}
	}
	return auditEntry{}, false
}

func hasAction(trail []auditEntry, action string) bool {
	_, ok := findAction(trail, action)
	return ok
}

// requireNoContent fails t when r's body quotes the document (secret is a
// string only the document holds).
func requireNoContent(t *testing.T, r *response, secret string) {
	t.Helper()
	if strings.Contains(string(r.body), secret) {
		t.Fatalf("want no document content in the answer, found %q in: %s", secret, r)
	}
}

// Redis is SIGKILLed and restarted EMPTY (no append-only file: every key,
// stream and consumer group is gone, as after a failover to a replica that
// had none of them) under a running api and worker. The jobs acknowledged
// before are gone with it. The worker is not ready while Redis is down, and
// without being restarted it re-creates what it needs: every job submitted
// afterwards succeeds and is reviewed once.
func TestE2E_RedisRestartedEmpty_WorkerHealsWithoutRestart(t *testing.T) {
	t.Parallel()
	s := setup(t, options{})
	valid := []string{"valid-basic-eur.txt", "valid-tax-usd.txt", "valid-jpy-no-decimals.txt", "valid-bhd-three-decimals.txt"}
	lost := s.submitNew(t, tokA, "before-restart", sample(t, valid[0])).JobID
	s.waitState(t, tokA, lost, stateSucceeded)
	s.waitReview(t, tokA, lost)
	s.waitReady(t, s.worker, http.StatusOK)

	s.redis.Kill(t)
	s.waitReady(t, s.worker, http.StatusServiceUnavailable)
	s.redis.Restart(t) // the server was down: this starts it again, empty
	s.waitReady(t, s.api, http.StatusOK)

	s.do(t, http.MethodGet, "/v1/jobs/"+lost, tokA, nil).expectError(t, http.StatusNotFound, "not_found")
	var after []string
	for i := range 12 {
		after = append(after, s.submitNew(t, tokA, fmt.Sprintf("after-%d", i), sample(t, valid[i%len(valid)])).JobID)
	}
	for _, id := range after {
		s.waitState(t, tokA, id, stateSucceeded)
		s.waitReview(t, tokA, id)
	}
	reviewed := map[string]int{}
	for _, r := range items[review](t, s, tokA, "/v1/reviews") {
		reviewed[r.JobID]++
	}
	for _, id := range after {
		if reviewed[id] != 1 {
			t.Errorf("want exactly one review of %s, got %d (all: %v)", id, reviewed[id], reviewed)
		}
	}
	if len(reviewed) != len(after) {
		t.Errorf("want only the %d jobs submitted after the restart to be reviewed, got %v", len(after), reviewed)
	}
	if n := s.worker.Metric("relayops_worker_stage_runs_total", map[string]string{"stage": "extract"}); n != float64(1+len(after)) {
		t.Errorf("want the extract stage to have run once per job (%d), got %v", 1+len(after), n)
	}
	if n := s.worker.Metric("relayops_relay_errors_total", map[string]string{"kind": "no_group"}); n < 1 {
		t.Errorf("want the relay to have counted the vanished consumer group (relayops_relay_errors_total{kind=\"no_group\"} >= 1), got %v", n)
	}
	s.waitReady(t, s.worker, http.StatusOK)
}

// A worker whose metrics port is taken stops at once with an error that
// names the variable to change.
func TestE2E_Worker_MetricsPortInUse_NamesTheVariable(t *testing.T) {
	t.Parallel()
	skipShort(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cmd := exec.Command(proctest.Binary(t, "cmd/worker"))
	cmd.Env = proctest.Env("RELAYOPS_METRICS_ADDR="+busy.Addr().String(), "RELAYOPS_REDIS_URL=redis://127.0.0.1:1/0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("want the worker to fail, it exited 0: %s", out)
	}
	if want := "listen on RELAYOPS_METRICS_ADDR " + busy.Addr().String(); !strings.Contains(string(out), want) {
		t.Fatalf("want the error to contain %q, got: %s", want, out)
	}
}

// A worker that cannot reach Redis logs JSON only (no plain-text line from
// go-redis beside it) and says so a few times, not on every retry: here
// thousands of failed relay reads make a few dozen lines.
func TestE2E_Worker_RedisUnreachable_FewJSONLines(t *testing.T) {
	t.Parallel()
	skipShort(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close() // nothing listens there now
	w := proctest.Start(t, proctest.Options{
		Name: "worker", Bin: proctest.Binary(t, "cmd/worker"),
		Env: proctest.Env("RELAYOPS_REDIS_URL=redis://"+deadAddr+"/0", "RELAYOPS_LOG_LEVEL=info"),
		// /healthz needs Redis; /metrics answers without it.
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"}, ReadyPath: "/metrics", StopAtCleanup: true,
	})
	redistest.Eventually(t, jobTimeout, func() bool {
		return w.Exited() || w.MetricOrZero("relayops_relay_errors_total", map[string]string{"kind": "redis"}) >= 3000
	}, "the worker's relays to fail 3,000 reads")
	w.Stop()

	lines := strings.Split(strings.TrimSpace(w.Logs()), "\n")
	// Each Asynq server (two for extraction and one for webhooks, by
	// default) logs its own starting and stopping at info level; what the
	// outage itself logs is the rest, and it must be a few lines.
	var outage []string
	for _, line := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("want only JSON log lines, got: %q", line)
			continue
		}
		if v["component"] == "asynq" && v["level"] == "INFO" {
			continue
		}
		outage = append(outage, line)
	}
	if len(outage) > 30 {
		t.Errorf("want a few lines for a Redis outage, got %d besides Asynq's start and stop; the first ones:\n%s", len(outage), strings.Join(outage[:30], "\n"))
	}
}
