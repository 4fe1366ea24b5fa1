package api

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

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
	return c.JSON(http.StatusOK, newReviewView(r, principal(c).role))
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
	if ok && (utf8.RuneCountInString(note) > MaxNoteLength || hasControl(note)) {
		o.fail("note", fmt.Sprintf("must be at most %d characters without control characters other than tab and newline", MaxNoteLength))
	}
	if err := o.done(nil); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	d, err := s.store.Decide(ctx, key, principal(c).name, status, note)
	if err != nil {
		return fmt.Errorf("api: decide %s: %w", key, err)
	}
	if d.Decided { // a repeat is answered alike but observed once
		s.metrics.decided(key.Tenant, d.Review)
	}
	return c.JSON(http.StatusOK, newReviewView(d.Review, roleOperator))
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
