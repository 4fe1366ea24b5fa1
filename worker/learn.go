package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/outbox"
)

// Memory is the supplier memory (package supplier's Memory): it reads a
// document with the profile of its supplier, and learns a supplier's
// profile from the values a person confirmed. A profile proposes; the
// validator judges what it read like anything else.
type Memory interface {
	// Read puts what the profile of x's supplier reads on the pages over
	// x (the rules' extraction): x unchanged when the supplier has none.
	Read(ctx context.Context, tenant string, pages []string, x extract.Extraction) (extract.Extraction, error)
	// Learn refines (or starts) the profile of inv's supplier from the
	// pages and inv's values, which a person confirmed: kind "correction"
	// or "approval", by operator, in job.
	Learn(ctx context.Context, tenant string, pages []string, inv *extract.Invoice, job, kind, operator string) error
	// Count counts one document read with the profile ref names (an
	// Evidence.Profile): read, and missed when it was then rejected or a
	// field the profile read was corrected.
	Count(ctx context.Context, tenant, ref string, read, missed bool) error
}

// Kinds of learning.
const (
	LearnCorrection = "correction"
	LearnApproval   = "approval"
)

// pageTexts are a document's pages as text.
func pageTexts(doc *document.Document) []string {
	out := make([]string, len(doc.Pages))
	for i, p := range doc.Pages {
		out[i] = p.Text
	}
	return out
}

// withProfile puts what the supplier's profile reads over the extract
// stage's output; the output unchanged without a memory, a profile, or a
// read (a failure to read the profile is logged: the rules' extraction
// stands).
func (a *attempt) withProfile(ctx context.Context, doc *document.Document, ext []byte) []byte {
	if a.h.memory == nil || len(doc.Pages) == 0 {
		return ext
	}
	x, err := extract.DecodeExtraction(ext)
	if err != nil || !extract.IsBooked(x.DocumentType) {
		return ext
	}
	if len(x.Seller) == 0 {
		x.Seller = identify(doc, x.Vendor, x.Evidence["vendor"])
	}
	y, err := a.h.memory.Read(ctx, a.key.Tenant, pageTexts(doc), x)
	if err != nil {
		a.log.Warn("supplier profile not read; the rules' extraction stands", "code", CodeUnavailable)
		a.log.Debug("supplier profile not read", "error", err.Error())
		return ext
	}
	out, err := json.Marshal(y)
	if err != nil {
		return ext
	}
	return out
}

// profileRef is the profile that read fields of x's evidence, "" when
// none did.
func profileRef(ev map[string]extract.Evidence) string {
	for _, e := range ev {
		if e.Source == extract.EvidenceProfile && e.Profile != "" {
			return e.Profile
		}
	}
	return ""
}

// countRead counts a document the supplier's profile read (ext, the
// extract stage's output with the profile over it): missed when the
// validator rejected it (err a rejection). Any other error (an outage, a
// stale worker) says nothing of the profile and counts nothing.
func (a *attempt) countRead(ctx context.Context, ext []byte, err error) {
	var r *extract.Rejection
	if a.h.memory == nil || err != nil && !errors.As(err, &r) {
		return
	}
	x, derr := extract.DecodeExtraction(ext)
	if derr != nil {
		return
	}
	ref := profileRef(x.Evidence)
	if ref == "" {
		return
	}
	if cerr := a.h.memory.Count(context.WithoutCancel(ctx), a.key.Tenant, ref, true, err != nil); cerr != nil {
		a.log.Debug("supplier profile read not counted", "error", cerr.Error())
	}
}

// learnCorrection teaches the supplier's profile the values of a
// corrected version, from its document's pages. It is best effort: the
// version commits whatever the learning does (a document that cannot be
// read again, a profile at its tenant's budget).
func (a *attempt) learnCorrection(ctx context.Context, inv *extract.Invoice) {
	if a.h.memory == nil {
		return
	}
	doc, err := a.read(ctx)
	if err == nil && len(doc.Pages) > 0 {
		err = a.h.memory.Learn(ctx, a.key.Tenant, pageTexts(doc), inv, a.key.String(), LearnCorrection, a.claim.CorrectedBy)
	}
	if err != nil {
		a.log.Warn("supplier profile not learned from the correction", "code", learnCode(err))
		a.log.Debug("supplier profile not learned", "error", err.Error())
	}
}

// learnCode is the log code of a learning that failed.
func learnCode(err error) string {
	var r *extract.Rejection
	if errors.As(err, &r) {
		return r.Reason
	}
	return CodeUnavailable
}

// learner enqueues the learning of an approved review (a TypeLearn task,
// one per job version: its TaskID absorbs a republished row) before the
// relay's other notifier hears of it.
type learner struct {
	next   outbox.Notifier // nil: none
	client *asynq.Client
	layout task.Layout
	shards int
}

func (l *learner) Notify(ctx context.Context, ev jobs.Event) error {
	if ev.Type == jobs.EventReviewDecided && ev.Decision == jobs.ReviewApproved {
		t := asynq.NewTask(task.TypeLearn, task.ExtractPayload{JobKey: ev.Key.String()}.Marshal())
		_, err := l.client.EnqueueContext(ctx, t, asynq.TaskID(task.LearnTaskID(ev.Key.String())),
			asynq.Queue(l.layout.Queue(jobs.Shard(ev.Key.Tenant, ev.Key.DocumentID, l.shards))), asynq.MaxRetry(3),
			asynq.Retention(time.Hour))
		if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
			return err
		}
	}
	if l.next == nil {
		return nil
	}
	return l.next.Notify(ctx, ev)
}

// LearnHandler handles TypeLearn tasks: it reads an approved job's
// document again and teaches its supplier's profile the approved values
// (the committed result with the approval's corrections).
type LearnHandler struct {
	store  *jobs.Store
	reader DocumentReader
	memory Memory
	policy extract.Policy
	log    *slog.Logger
}

// ProcessTask learns from one approved job; a job that is gone, not
// approved or no booked document is done with (nil).
func (h *LearnHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := task.ParseExtractPayload(t.Payload())
	if err != nil {
		return deadLetter(CodeInvalidTask)
	}
	k, err := jobs.ParseKey(p.JobKey)
	if err != nil {
		return deadLetter(CodeInvalidTask)
	}
	inv, read, operator, err := h.approved(ctx, k)
	if err != nil || inv == nil {
		return err
	}
	content, err := h.store.Input(ctx, k)
	if errors.Is(err, jobs.ErrInputExpired) || errors.Is(err, jobs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return retryLater(CodeUnavailable)
	}
	in := jobs.DecodeInput(content)
	doc, err := h.reader.Read(ctx, in.MediaType, in.Data, nil)
	if err != nil || len(doc.Pages) == 0 {
		return nil // nothing to learn a layout from
	}
	if ref := profileRef(read); ref != "" && correctedRead(inv.Evidence, read) {
		// The profile read a field the person corrected at the approval.
		if err := h.memory.Count(ctx, k.Tenant, ref, false, true); err != nil {
			h.log.Debug("supplier profile miss not counted", "job_key", k.String(), "error", err.Error())
		}
	}
	if err := h.memory.Learn(ctx, k.Tenant, pageTexts(doc), inv, k.String(), LearnApproval, operator); err != nil {
		h.log.Warn("supplier profile not learned from the approval", "job_key", k.String(), "code", learnCode(err))
		h.log.Debug("supplier profile not learned", "error", err.Error())
	}
	return nil
}

// approved is what an approved review of k confirmed: the committed
// result with the approval's corrections, the evidence of the committed
// result (before them), and who approved; nil when k is not an approved
// booked document.
func (h *LearnHandler) approved(ctx context.Context, k jobs.Key) (*extract.Invoice, map[string]extract.Evidence, string, error) {
	r, err := h.store.GetReview(ctx, k)
	if errors.Is(err, jobs.ErrReviewNotFound) || errors.Is(err, jobs.ErrNotFound) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", retryLater(CodeUnavailable)
	}
	if r.Status != jobs.ReviewApproved {
		return nil, nil, "", nil
	}
	res, err := h.store.Result(ctx, k)
	if err != nil {
		return nil, nil, "", nil // expired: nothing to learn
	}
	var inv extract.Invoice
	if json.Unmarshal(res, &inv) != nil || !extract.IsBooked(inv.DocumentType) {
		return nil, nil, "", nil
	}
	read := inv.Evidence
	raw, err := h.store.ReviewCorrections(ctx, k)
	if err != nil {
		return nil, nil, "", retryLater(CodeUnavailable)
	}
	if raw != nil {
		var c extract.Corrections
		if json.Unmarshal(raw, &c) == nil {
			x := extract.ExtractionOf(inv)
			if v, err := extract.JudgeCorrections(&x, c, h.policy); err == nil {
				inv = *v.Invoice
			}
		}
	}
	return &inv, read, r.Operator, nil
}

// correctedRead reports whether a field the profile read (evidence read,
// as committed) was corrected (evidence after, with the approval's
// corrections).
func correctedRead(after, read map[string]extract.Evidence) bool {
	for f, e := range read {
		if e.Source == extract.EvidenceProfile && after[f].Source == extract.EvidenceCorrection {
			return true
		}
	}
	return false
}
