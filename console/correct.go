package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// The correction form's handlers: a rejected document's fields beside the
// document (form.go), and an approval's corrections. Both go through the
// API's own operations, so a correction is judged, refused or accepted
// exactly as on the JSON routes.

// correct reprocesses a rejected job with the fields the operator changed
// in the form, through the API's own path (validation before anything is
// created, audit of each field, idempotency, rate limit). A refusal shows
// the form again with every typed value and each error beside its field;
// success goes to the new version, which reloads until it ends.
func (c *Console) correct(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	job, err := c.ops.GetJob(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	kept, err := c.ops.Kept(r.Context(), job)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	sent := parseSentForm(r)
	corr := sent.corrections(readOf(kept))
	pg := &page{}
	if corr.Empty() {
		pg.Problem = "Nothing was reprocessed: change at least one field (or use the document form below)."
		pg.Fields = []jobs.FieldError{{Field: "corrections", Problem: "must correct at least one field"}}
		c.showJob(w, r, http.StatusBadRequest, k, pg, &jobBody{sent: sent})
		return
	}
	req := jobs.ReprocessRequest{Key: k, Operator: principal(r).Name, Reason: sent.reason}
	res, err := c.ops.Reprocess(r.Context(), req, &corr)
	var ve *jobs.ValidationError
	var rl *RateLimitError
	switch {
	case err == nil:
		http.Redirect(w, r, c.cfg.RootPath+"/jobs/"+res.Job.Key.String()+"?corrected="+k.String(), http.StatusSeeOther)
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", retryAfter(rl.RetryAfter))
		pg.Problem = fmt.Sprintf("The reprocess rate limit of tenant %s is reached; nothing was created. Try again in %s.",
			k.Tenant, age(rl.RetryAfter))
		c.showJob(w, r, http.StatusTooManyRequests, k, pg, &jobBody{sent: sent})
	case errors.As(err, &ve):
		pg.Problem, pg.Fields = "Nothing was reprocessed: the corrected fields do not pass the checks.", ve.Fields
		c.showJob(w, r, http.StatusBadRequest, k, pg, &jobBody{sent: sent})
	case errors.Is(err, jobs.ErrNotDeadLettered), errors.Is(err, jobs.ErrJobCancelled),
		errors.Is(err, jobs.ErrInputExpired), errors.Is(err, jobs.ErrIdempotencyConflict):
		pg.Problem = conflictText(err)
		if errors.Is(err, jobs.ErrIdempotencyConflict) {
			pg.Problem = "This job was already reprocessed with other corrections; the existing new version stands."
		}
		c.showJob(w, r, http.StatusConflict, k, pg, &jobBody{sent: sent})
	default:
		c.storeFailed(w, r, err)
	}
}

// reviewCorrections fills the review page's correction part: the form of
// a pending review, pre-filled with the result (or the values sent), or
// what a decided approval corrected.
func (c *Console) reviewCorrections(r *http.Request, b *reviewBody, problems []jobs.FieldError) error {
	if b.Invoice == nil {
		return nil
	}
	if b.Review.Status == jobs.ReviewPending {
		b.Correct = newCorrectionForm(resultRead(b.Invoice), "", b.sent, problems)
		return nil
	}
	corr, err := c.ops.ReviewCorrections(r.Context(), b.Review.Key)
	if err != nil || corr == nil {
		return err
	}
	before := resultRead(b.Invoice).x
	after := corr.Apply(before)
	for _, name := range corr.Fields() {
		b.Corrected = append(b.Corrected, changedField{Name: name, Label: fieldLabel(name),
			Read: valueText(before, name), Value: valueText(after, name)})
	}
	return nil
}

// changedField is one field a decided approval corrected.
type changedField struct{ Name, Label, Read, Value string }

// decisionCorrections are the fields an approval form changed from the
// committed result; nil when none (or the form held no correction part).
func (c *Console) decisionCorrections(r *http.Request, k jobs.Key, sent *sentForm) (*extract.Corrections, error) {
	if r.PostForm.Get("correcting") == "" {
		return nil, nil // a form without the correction part
	}
	res, err := c.ops.Result(r.Context(), k)
	if err != nil {
		return nil, nil // no result to correct: the decision alone is judged
	}
	var inv extract.Invoice
	if json.Unmarshal(res, &inv) != nil {
		return nil, nil
	}
	corr := sent.corrections(resultRead(&inv))
	if corr.Empty() {
		return nil, nil
	}
	return &corr, nil
}
