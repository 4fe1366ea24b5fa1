package api

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// MaxNoteLength bounds a review decision's note, in characters.
const MaxNoteLength = 2000

// decisions maps the API's decisions to review statuses.
var decisions = map[string]string{
	"approve": jobs.ReviewApproved,
	"reject":  jobs.ReviewRejected,
}

// listReviews is GET /v1/reviews: one tenant's reviews, newest first,
// filtered by status. Tenants see that an operator decided, not who. A tenant token lists its own; an operator names any
// tenant with tenant= (the store indexes reviews per tenant).
func (s *Server) listReviews(c echo.Context) error {
	q := parseQuery(c, "tenant", "status", "cursor", "limit")
	tenant, err := scopeTenant(principal(c), q, true)
	if err != nil {
		return err
	}
	opts := jobs.ReviewOptions{Tenant: tenant, Limit: q.limit()}
	if q.has("status") {
		opts.Status = q.get("status")
		switch opts.Status {
		case jobs.ReviewPending, jobs.ReviewApproved, jobs.ReviewRejected:
		default:
			q.fail("status", "must be one of pending, approved, rejected")
		}
	}
	return respondList(s, c, q, &opts.Cursor, "reviews", func(ctx context.Context) (*jobs.ReviewPage, error) {
		return s.store.ListReviews(ctx, opts)
	}, reviewList(principal(c).role))
}

// getReview is GET /v1/reviews/{jobId}: the review of one succeeded job
// version, the target of a job's links.review.
func (s *Server) getReview(c echo.Context) error {
	key, err := s.jobKey(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	r, err := s.store.GetReview(ctx, key)
	if err != nil {
		return fmt.Errorf("api: get review %s: %w", key, err)
	}
	v := newReviewView(r, principal(c).role)
	if err := s.addReviewCorrections(ctx, r, &v); err != nil {
		return fmt.Errorf("api: get review %s: %w", key, err)
	}
	return c.JSON(http.StatusOK, v)
}

// decide is POST /v1/reviews/{jobId}/decision by an operator. Repeating the
// same decision answers the recorded one; a different decision after one was
// made is 409 idempotency_conflict. The decision time is kept.
func (s *Server) decide(c echo.Context) error {
	key, err := s.jobKey(c)
	if err != nil {
		return err
	}
	o, err := s.readObject(c)
	if err != nil {
		return err
	}
	decision, ok := o.str("decision", true)
	status := decisions[decision]
	if ok && status == "" {
		o.fail("decision", `must be "approve" or "reject"`)
	}
	note, ok := o.str("note", false)
	if problem := noteProblem(note); ok && problem != "" {
		o.fail("note", problem)
	}
	corr := takeCorrections(o)
	if corr != nil && status == jobs.ReviewRejected {
		o.fail("corrections", "only an approval may correct fields")
	}
	notDup, hasNotDup := o.str("notDuplicateOf", false)
	if hasNotDup {
		if _, err := jobs.ParseKey(notDup); err != nil {
			o.fail("notDuplicateOf", "must be the jobId of the first document this one is not a duplicate of")
		} else if status == jobs.ReviewRejected {
			o.fail("notDuplicateOf", "only an approval names the first document")
		}
	}
	if err := o.done(nil); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	r, err := s.decideReview(ctx, key, principal(c).name, status, note, corr, notDup)
	if err != nil {
		return fmt.Errorf("api: decide %s: %w", key, err)
	}
	v := newReviewView(r, roleOperator)
	if err := s.addReviewCorrections(ctx, r, &v); err != nil {
		return fmt.Errorf("api: decide %s: %w", key, err)
	}
	return c.JSON(http.StatusOK, v)
}

// decideReview is the one decision path of both doors, the JSON route and
// the operator console: status is ReviewApproved or ReviewRejected.
//
// corr, when not nil, corrects fields of the result while approving: they
// are judged over the committed result by the validator every extraction
// passes (a *jobs.ValidationError when they do not add up), and the audit
// records each field's change.
//
// notDuplicateOf, when not "", is the first job a possible duplicate is
// approved as not being a duplicate of: a review marked as a strong
// duplicate is approved only with it (409 possible_duplicate otherwise).
func (s *Server) decideReview(ctx context.Context, key jobs.Key, operator, status, note string, corr *extract.Corrections, notDuplicateOf string) (*jobs.Review, error) {
	opts, err := s.decisionCorrections(ctx, key, corr)
	if err != nil {
		return nil, err
	}
	if notDuplicateOf != "" {
		if opts == nil {
			opts = &jobs.DecideOpts{}
		}
		opts.NotDuplicateOf = notDuplicateOf
	}
	d, err := s.store.DecideWith(ctx, key, operator, status, note, opts)
	if err != nil {
		return nil, err
	}
	if d.Decided { // a repeat is answered alike but observed once
		s.metrics.decided(key.Tenant, d.Review)
	}
	return d.Review, nil
}

// noteProblem is what is wrong with a decision note, "" if nothing.
func noteProblem(note string) string {
	if utf8.RuneCountInString(note) > MaxNoteLength || hasControl(note) {
		return fmt.Sprintf("must be at most %d characters without control characters other than tab and newline", MaxNoteLength)
	}
	return ""
}

// hasControl reports a control character other than tab, newline and
// carriage return: free text must print safely in consoles and logs.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}
