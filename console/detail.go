package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/jobs"
)

// material is what a job page and a review page show beside the record:
// the document while its input is retained, the extracted fields while the
// result is.
type material struct {
	Document      string    // the text of a text input; "" for a file
	Original      *original // the input as it arrived (nil once expired)
	File          *fileInfo // a file input (PDF, e-invoice): not shown as text
	InputExpired  bool
	Invoice       *extract.Invoice
	Result        *resultView // Invoice as the page shows it
	ResultExpired bool        // succeeded, but the result is gone
	ResultBad     bool        // a result the console cannot read as an invoice
	// Profiles are the supplier profiles that read fields of the result.
	Profiles []profileRead
}

// load reads the input and, for a succeeded job, the result of j.
func (c *Console) load(r *http.Request, j *jobs.Job) (material, error) {
	var m material
	doc, err := c.ops.Input(r.Context(), j.Key)
	switch {
	case errors.Is(err, jobs.ErrInputExpired), errors.Is(err, jobs.ErrNotFound):
		m.InputExpired = true
	case err != nil:
		return m, err
	default:
		in := jobs.DecodeInput(doc)
		m.Original = c.describeOriginal(r, j.Key, in)
		if in.File {
			m.File = &fileInfo{MediaType: in.MediaType, Filename: in.Filename, Size: len(in.Data)}
		} else {
			m.Document = doc
		}
	}
	if j.State != jobs.StateSucceeded {
		return m, nil
	}
	res, err := c.ops.Result(r.Context(), j.Key)
	switch {
	case errors.Is(err, jobs.ErrResultExpired), errors.Is(err, jobs.ErrNotFound):
		m.ResultExpired = true
	case err != nil:
		return m, err
	default:
		var inv extract.Invoice
		if json.Unmarshal(res, &inv) != nil || !extract.IsBooked(inv.DocumentType) {
			m.ResultBad = true
		} else {
			m.Invoice, m.Result = &inv, newResultView(&inv)
			m.Profiles = profilesRead(j.Key.Tenant, inv.Evidence)
		}
	}
	return m, nil
}

// fileInfo describes a file input.
type fileInfo struct {
	MediaType, Filename string
	Size                int
}

type reviewBody struct {
	Review *jobs.Review
	Job    *jobs.Job
	material
	Note string // the note of a refused form, sent back
	// NotDuplicate is the box that confirms a possible duplicate is not
	// one, as a refused form sent it.
	NotDuplicate bool
	// Correct is the approval's optional correction of fields, pre-filled
	// with the result; Corrected the fields a decided approval corrected.
	Correct   *correctionForm
	Corrected []changedField
	sent      *sentForm
	// Duplicate is the possible duplicate the review was created with;
	// Credits the job of the invoice a credit note refers to.
	Duplicate *duplicateView
	Credits   string
	// Legend explains the marks beside the values.
	Legend []string
}

// review shows one review: the extracted fields beside the document, and
// the decision form or the decision.
func (c *Console) review(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	c.showReview(w, r, http.StatusOK, k, &page{})
}

func (c *Console) showReview(w http.ResponseWriter, r *http.Request, status int, k jobs.Key, pg *page) {
	rv, err := c.ops.GetReview(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	job, err := c.ops.GetJob(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	m, err := c.load(r, job)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	body := reviewBody{Review: rv, Job: job, material: m, Legend: statuses, Duplicate: duplicateOf(rv)}
	if m := rv.Match; m != nil && m.Credits != nil && m.Credits.Tenant == k.Tenant {
		body.Credits = m.Credits.String()
	}
	if b, ok := pg.Body.(reviewBody); ok {
		body.Note, body.sent, body.NotDuplicate = b.Note, b.sent, b.NotDuplicate
	}
	if err := c.reviewCorrections(r, &body, pg.Fields); err != nil {
		c.storeFailed(w, r, err)
		return
	}
	pg.Title, pg.Nav, pg.Body = "Review "+k.String(), "reviews", body
	c.render(w, r, status, "review", pg)
}

// decide records the operator's decision, then shows the review (POST,
// redirect, GET). Deciding a decided review otherwise is refused with the
// recorded decision on the page.
func (c *Console) decide(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	decision, note := r.PostForm.Get("decision"), r.PostForm.Get("note")
	sent := parseSentForm(r)
	keep := &page{Body: reviewBody{Note: note, sent: sent, NotDuplicate: r.PostForm.Get("notDuplicateOf") != ""}}
	if decision != "approve" && decision != "reject" {
		keep.Problem = "Choose Approve or Reject."
		keep.Fields = []jobs.FieldError{{Field: "decision", Problem: `must be "approve" or "reject"`}}
		c.showReview(w, r, http.StatusBadRequest, k, keep)
		return
	}
	corr, err := c.decisionCorrections(r, k, sent)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	d := Decision{Operator: principal(r).Name, Decision: decision, Note: note, Corrections: corr}
	if decision == "approve" { // the box confirms an approval; a rejection needs no confirmation
		d.NotDuplicateOf = r.PostForm.Get("notDuplicateOf")
	}
	_, err = c.ops.Decide(r.Context(), k, d)
	var ve *jobs.ValidationError
	var dup *jobs.DuplicateError
	switch {
	case errors.As(err, &dup):
		keep.Problem = "Not approved: this may be a duplicate of " + dup.Of.String() + ". Compare the two; approve only " +
			"if it is a payable of its own, confirming that with the box that names " + dup.Of.String() + ", or reject it."
		keep.Fields = []jobs.FieldError{{Field: "notDuplicateOf", Problem: "must name " + dup.Of.String() + " to approve a possible duplicate"}}
		c.showReview(w, r, http.StatusConflict, k, keep)
	case errors.As(err, &ve):
		keep.Problem, keep.Fields = "The decision was not recorded.", ve.Fields
		c.showReview(w, r, http.StatusBadRequest, k, keep)
	case errors.Is(err, jobs.ErrReviewDecided):
		keep.Problem = "This review was already decided otherwise; the recorded decision stands."
		c.showReview(w, r, http.StatusConflict, k, keep)
	case err != nil:
		c.storeFailed(w, r, err)
	default:
		http.Redirect(w, r, c.cfg.RootPath+"/reviews/"+k.String(), http.StatusSeeOther)
	}
}

// duplicateView is a possible duplicate as the review page shows it.
type duplicateView struct {
	Of      string // the first job
	Strong  bool   // an approval must name Of
	Matched string // "number, total and date"
}

// duplicateOf is rv's possible duplicate; nil for none.
func duplicateOf(rv *jobs.Review) *duplicateView {
	m := rv.Match
	if m == nil || m.Strength == "" || m.Of.Tenant != rv.Key.Tenant { // never another tenant's job
		return nil
	}
	return &duplicateView{Of: m.Of.String(), Strong: m.Strength == jobs.DuplicateStrong, Matched: matchedWords(m.Matched)}
}

// matchedWords lists what matched: "number, total and date".
func matchedWords(fields []string) string {
	switch n := len(fields); n {
	case 0:
		return ""
	case 1:
		return fields[0]
	default:
		return strings.Join(fields[:n-1], ", ") + " and " + fields[n-1]
	}
}

type jobBody struct {
	Job *jobs.Job
	material
	Reason, Content string // the reprocess form's values
	Reprocessable   bool
	ErrorCode       string
	ErrorReason     string
	// Advice says what the classifier looked for and did not find, for a
	// not_an_invoice rejection; Help what usually went wrong, for the
	// rejections a correction finishes.
	Advice, Help string
	// Read says what a rejection kept: the document type read and its
	// flags in words.
	ReadType  string
	ReadFlags []flagView
	Legend    []string
	Refresh   bool // the job is still running: the page reloads itself
	// Correct is the correction form of a document rejected for its
	// content, pre-filled with what was read; nil for any other job.
	Correct *correctionForm
	sent    *sentForm // the correction form as sent, on a refusal
}

// job shows one job: its state, attempts and error in words, the result or
// the document, and, for a dead letter not yet reprocessed, the Reprocess
// form with the document pre-filled for correction.
func (c *Console) job(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	pg := &page{}
	if r.URL.Query().Get("reprocessed") != "" {
		pg.Notice = "Reprocessed: the next version was created and queued."
	}
	if from := r.URL.Query().Get("corrected"); from != "" {
		pg.Notice = "Corrected: this is the new version, made of the same document with your corrections. " +
			"The page reloads until it ends; then open its review."
	}
	c.showJob(w, r, http.StatusOK, k, pg, nil)
}

func (c *Console) showJob(w http.ResponseWriter, r *http.Request, status int, k jobs.Key, pg *page, form *jobBody) {
	job, err := c.ops.GetJob(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	m, err := c.load(r, job)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	body := jobBody{Job: job, material: m, Content: m.Document, ErrorCode: job.ErrorCode, ErrorReason: job.ErrorReason,
		Reprocessable: job.State == jobs.StateDeadLettered && job.ReprocessedAs == "",
		Refresh:       !job.State.Terminal()}
	body.Help = reasonHelp[job.ErrorReason]
	if m.Result != nil {
		body.Legend = statuses
	}
	if job.ErrorReason == "not_an_invoice" {
		body.Advice = notInvoiceLooksFor
		if m.Document != "" {
			body.Advice = notInvoiceAdvice(rules.ClassifyText(m.Document))
		}
	}
	if form != nil && form.sent == nil { // a refused document form; a refused correction keeps the document
		body.Reason, body.Content = form.Reason, form.Content
	}
	if body.Reprocessable && job.ErrorReason != "" {
		kept, err := c.ops.Kept(r.Context(), job)
		if err != nil {
			c.storeFailed(w, r, err)
			return
		}
		var sent *sentForm
		if form != nil {
			sent = form.sent
		}
		body.Correct = newCorrectionForm(readOf(kept), job.ErrorReason, sent, pg.Fields)
		body.Legend = statuses
		if kept != nil && kept.Fields != nil {
			body.ReadType, body.ReadFlags = typeWord(kept.Fields.DocumentType), flagsOf(kept.Fields.Flags)
		}
	}
	pg.Title, pg.Nav, pg.Body, pg.Refresh = "Job "+k.String(), "dlq", body, body.Refresh && status == http.StatusOK
	if status == http.StatusOK && job.State == jobs.StateSucceeded {
		pg.Nav = "reviews"
	}
	c.render(w, r, status, "job", pg)
}

// reprocess runs a dead-lettered job again as the document's next version,
// through the API's own reprocess path (audit, idempotency, rate limit).
// Content equal to the stored document reuses it; a refusal shows the job
// page again with the form as it was sent.
func (c *Console) reprocess(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	form := &jobBody{Reason: r.PostForm.Get("reason"), Content: r.PostForm.Get("content")}
	orig, err := c.ops.Input(r.Context(), k)
	if err != nil && !errors.Is(err, jobs.ErrInputExpired) && !errors.Is(err, jobs.ErrNotFound) {
		c.storeFailed(w, r, err)
		return
	}
	content := formText(form.Content, orig)
	req := jobs.ReprocessRequest{Key: k, Operator: principal(r).Name, Reason: form.Reason}
	if content != "" && (err != nil || content != orig) {
		req.Content = &content
	}
	_, err = c.ops.Reprocess(r.Context(), req, nil)
	var ve *jobs.ValidationError
	var rl *RateLimitError
	pg := &page{}
	switch {
	case err == nil:
		http.Redirect(w, r, c.cfg.RootPath+"/jobs/"+k.String()+"?reprocessed=1", http.StatusSeeOther)
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", retryAfter(rl.RetryAfter))
		pg.Problem = fmt.Sprintf("The reprocess rate limit of tenant %s is reached; nothing was created. Try again in %s.",
			k.Tenant, age(rl.RetryAfter))
		c.showJob(w, r, http.StatusTooManyRequests, k, pg, form)
	case errors.As(err, &ve):
		pg.Problem, pg.Fields = "Nothing was reprocessed.", ve.Fields
		c.showJob(w, r, http.StatusBadRequest, k, pg, form)
	case errors.Is(err, jobs.ErrNotDeadLettered), errors.Is(err, jobs.ErrJobCancelled),
		errors.Is(err, jobs.ErrInputExpired), errors.Is(err, jobs.ErrIdempotencyConflict):
		pg.Problem = conflictText(err)
		c.showJob(w, r, http.StatusConflict, k, pg, form)
	default:
		c.storeFailed(w, r, err)
	}
}

func conflictText(err error) string {
	switch {
	case errors.Is(err, jobs.ErrNotDeadLettered):
		return "Only dead-lettered jobs can be reprocessed."
	case errors.Is(err, jobs.ErrJobCancelled):
		return "Cancelled jobs cannot be reprocessed."
	case errors.Is(err, jobs.ErrInputExpired):
		return "The stored document has expired: paste the document into the form to reprocess it."
	}
	return "This job was already reprocessed with a different document; the existing new version stands."
}

// formText undoes what a browser does to a textarea: it sends every line
// break as CRLF. A document stored with bare LFs gets them back, so an
// unchanged document compares equal and a corrected one keeps its form.
func formText(sent, orig string) string {
	if strings.Contains(orig, "\r\n") {
		return sent
	}
	return strings.ReplaceAll(sent, "\r\n", "\n")
}
