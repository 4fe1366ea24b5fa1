package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/scripts/realcorpus"
)

// item is one document of the inbox, in replay order.
type item struct {
	doc        realcorpus.Document
	documentID string // its documentId at submission
	supplier   string // the truth's supplier key; "" for none
	// later: a booked document of a supplier that sent one before it;
	// next: one that a booked document of the same supplier follows (what
	// a person does with it can teach the supplier's profile for that).
	later, next bool
}

// Kinds of document, each counted in columns of its own.
const (
	kindBooked   = "booked"   // an invoice, credit note or corrective invoice to book
	kindExpected = "expected" // booked, but its truth expects a rejection
	kindOther    = "other"    // no invoice: a receipt, a statement, an order …
)

func (it item) kind() string {
	switch {
	case !realcorpus.Booked(it.doc.Truth.DocumentType):
		return kindOther
	case it.doc.Truth.Expect == realcorpus.ExpectRejection:
		return kindExpected
	}
	return kindBooked
}

// Duplicate outcomes of a review.
const (
	dupCaught     = "caught"      // a true duplicate, marked: rejected
	dupMissed     = "missed"      // a true duplicate, not marked
	dupFalseAlarm = "false alarm" // marked, but no duplicate: approved naming the first
)

// outcome is what became of one document.
type outcome struct {
	item
	jobID  string // the first version's job
	state  string // the first version's final state
	reason string // its rejection's reason code
	// touchless: a booked document whose first version succeeded with
	// every field the truth vouches for right.
	touchless bool

	// A correction through POST /v1/jobs/{id}/reprocess.
	corrected bool
	sent      map[string]any // the corrections last sent
	removed   []string       // details cleared because the API refused them (removals)
	cleared   []fieldError   // the refusal that made the clerk clear them
	refused   []fieldError   // the final refusal (400): the document could not be finished
	newJobID  string         // the new version
	failed    string         // the accepted correction's version did not succeed: its state and reason

	// The committed version's review.
	wrong           []realcorpus.Wrong // the committed fields that differ from the truth (a false success)
	wrongVersion    string             // the job whose result they are
	approvalFixes   map[string]any     // corrections sent with the approval
	approvalRefused []fieldError       // the approval's corrections refused (400)
	dup             string             // dupCaught, dupMissed, dupFalseAlarm or ""
	dupOf           string             // the first job the review named
	dupStrength     string             // strong or weak
	decided         string             // approved or rejected
	profileRead     bool               // the committed result cites a supplier profile (evidence source "profile")
	learned, waited bool               // the approval taught a profile; the replay waited to see
	rateLimited     int                // 429 answers met
	problems        []string           // answers that must never happen (5xx, unexpected 4xx, timeouts)
}

// clerk works one system's inbox, one document at a time.
type clerk struct {
	api *client
	// learning: wait after each approval until the supplier's profile has
	// learned from it (a clerk is slower than the worker), so the next
	// document of the supplier meets what the last one taught.
	learning  bool
	learnWait time.Duration
	timeout   time.Duration // a job submitted → ended; a review awaited
}

const correctionReason = "inbox replay: the fields as the supplier's PDF prints them"

// work replays one document.
func (c *clerk) work(ctx context.Context, it item) outcome {
	o := outcome{item: it}
	before := c.api.rateLimited
	defer func() { o.rateLimited = c.api.rateLimited - before }()
	j, err := c.api.submit(ctx, it.documentID, it.doc.Path)
	if err != nil {
		o.problem("submit", err)
		return o
	}
	o.jobID = j.JobID
	if j, err = c.api.waitEnd(ctx, j.JobID, c.timeout); err != nil {
		o.problem("wait", err)
		return o
	}
	o.state, o.reason = j.State, j.ErrorReason
	switch {
	case j.State == stateSucceeded:
		c.review(ctx, &o, j)
		o.touchless = it.kind() == kindBooked && len(o.wrong) == 0 && len(o.problems) == 0
	case j.State != stateDeadLettered:
		o.problem("wait", fmt.Errorf("job %s ended %s (%s)", j.JobID, j.State, j.ErrorCode))
	case it.kind() == kindBooked:
		c.correct(ctx, &o, j)
	}
	// A rejection of a document that is no invoice, or whose truth expects
	// one, is right: nothing to correct.
	return o
}

// correct sends the truth's fields as the correction of a rejected
// document; a refusal that names machine-read details the clerk did not
// type clears them and sends again.
func (c *clerk) correct(ctx context.Context, o *outcome, dead *jobView) {
	o.corrected = true
	o.sent = truthCorrections(o.doc.Truth)
	for {
		j, err := c.api.reprocess(ctx, dead.JobID, correctionReason, o.sent)
		if status(err) == http.StatusBadRequest {
			var e *apiError
			errors.As(err, &e)
			fields := e.Fields
			if len(fields) == 0 {
				fields = []fieldError{{Field: "", Problem: e.Message}}
			}
			clear := removalsFor(e.Fields, o.sent)
			if len(clear) == 0 {
				o.refused = fields
				return
			}
			if o.cleared == nil {
				o.cleared = fields
			}
			for _, f := range clear {
				o.sent[f] = removals[f]
			}
			o.removed = append(o.removed, clear...)
			continue
		}
		if err != nil {
			o.problem("reprocess", err)
			return
		}
		o.newJobID = j.JobID
		if j, err = c.api.waitEnd(ctx, j.JobID, c.timeout); err != nil {
			o.problem("wait", err)
			return
		}
		if j.State != stateSucceeded {
			o.failed = strings.TrimSpace(j.State + " " + j.ErrorReason)
			return
		}
		c.review(ctx, o, j)
		return
	}
}

// review judges a committed version against the truth and decides its
// review as the clerk would: a possible duplicate of a true duplicate is
// rejected, a false alarm approved naming the first job, a document that
// is no invoice rejected, any other approved, with the fields that differ
// from the page corrected.
func (c *clerk) review(ctx context.Context, o *outcome, j *jobView) {
	var inv extract.Invoice
	if err := json.Unmarshal(j.Result, &inv); err != nil {
		o.problem("result", fmt.Errorf("job %s: the result is not an invoice: %w", j.JobID, err))
		return
	}
	t := truthOf(o.doc, inv)
	if ws := realcorpus.WrongFields(t, &inv); len(ws) > 0 {
		o.wrong, o.wrongVersion = ws, j.JobID
	}
	o.profileRead = citesProfile(inv)
	r, err := c.api.waitReview(ctx, j.JobID, c.timeout)
	if err != nil {
		o.problem("review", err)
		return
	}
	d := decision{Decision: "approve"}
	switch {
	case !realcorpus.Booked(t.DocumentType):
		d = decision{Decision: "reject", Note: "not an invoice: " + t.DocumentType}
	case r.Duplicate != nil && t.DuplicateOf != "":
		o.dup, o.dupOf, o.dupStrength = dupCaught, r.Duplicate.Of, r.Duplicate.Strength
		d = decision{Decision: "reject", Note: "a duplicate of " + r.Duplicate.Of}
	case r.Duplicate != nil:
		o.dup, o.dupOf, o.dupStrength = dupFalseAlarm, r.Duplicate.Of, r.Duplicate.Strength
		d.NotDuplicateOf = r.Duplicate.Of
	case t.DuplicateOf != "":
		o.dup = dupMissed
	}
	if d.Decision == "approve" && len(o.wrong) > 0 {
		o.approvalFixes = approvalCorrections(t, o.wrong)
		d.Corrections, d.Note = o.approvalFixes, "fields corrected from the supplier's PDF"
	}
	c.decide(ctx, o, j.JobID, d)
}

// decide posts the decision; an approval whose corrections are refused is
// recorded and approved as committed, so the replay goes on.
func (c *clerk) decide(ctx context.Context, o *outcome, jobID string, d decision) {
	var before []profileView
	if c.learning && d.Decision == "approve" && o.next {
		var err error
		if before, err = c.api.profiles(ctx); err != nil {
			o.problem("profiles", err)
		}
	}
	err := c.api.decide(ctx, jobID, d)
	if status(err) == http.StatusBadRequest && d.Corrections != nil {
		var e *apiError
		errors.As(err, &e)
		o.approvalRefused = e.Fields
		d.Corrections, d.Note = nil, ""
		err = c.api.decide(ctx, jobID, d)
	}
	if err != nil {
		o.problem("decide", err)
		return
	}
	o.decided = decided[d.Decision]
	if c.learning && d.Decision == "approve" && o.next {
		o.waited = true
		o.learned = c.awaitLearning(ctx, o, before, jobID)
	}
}

// awaitLearning waits, for at most learnWait, until a supplier profile's
// history names jobID: the approval's learning runs in the worker after
// the decision. Nothing else runs meanwhile, so a profile whose version
// moved past before is the one to look at. A corrected version taught
// its profile in its own attempt, before it committed (a job teaches
// once): a profile in before names it then.
func (c *clerk) awaitLearning(ctx context.Context, o *outcome, before []profileView, jobID string) bool {
	seen := map[string]int{}
	for _, p := range before {
		seen[p.SupplierID] = p.Version
	}
	if jobID == o.newJobID {
		for _, p := range before { // the most recently learned first
			whole, err := c.api.profile(ctx, p.SupplierID)
			if err != nil {
				o.problem("profiles", err)
				return false
			}
			if slices.ContainsFunc(whole.History, func(h profileEvent) bool { return h.JobID == jobID }) {
				return true
			}
		}
	}
	err := poll(ctx, c.learnWait, func() (bool, error) {
		now, err := c.api.profiles(ctx)
		if err != nil {
			return false, err
		}
		for _, p := range now {
			if p.Version == seen[p.SupplierID] {
				continue
			}
			whole, err := c.api.profile(ctx, p.SupplierID)
			if err != nil {
				return false, err
			}
			if slices.ContainsFunc(whole.History, func(h profileEvent) bool { return h.JobID == jobID }) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil && !errors.Is(err, errTimeout) {
		o.problem("profiles", err)
	}
	return err == nil
}

// decided is a decision as the outcome names it.
var decided = map[string]string{"approve": "approved", "reject": "rejected"}

// truthOf is what a committed result is judged against: the truth of the
// embedded XML for a hybrid PDF read from its XML whose page states other
// values (realcorpus.Document.XML), the page's truth otherwise.
func truthOf(d realcorpus.Document, inv extract.Invoice) realcorpus.Truth {
	if d.XML != nil && inv.Evidence["total"].Source == extract.EvidenceEInvoice {
		return *d.XML
	}
	return d.Truth
}

// citesProfile: a committed field's evidence names a supplier profile.
func citesProfile(inv extract.Invoice) bool {
	for _, e := range inv.Evidence {
		if e.Source == extract.EvidenceProfile || e.Profile != "" {
			return true
		}
	}
	return false
}

func (o *outcome) problem(step string, err error) {
	o.problems = append(o.problems, step+": "+err.Error())
}
