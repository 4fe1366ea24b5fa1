package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// MaxReasonLength bounds a reprocess reason, in characters.
const MaxReasonLength = 500

// reprocessHints explain the unknown members an operator is most likely to
// send.
var reprocessHints = map[string]string{
	"operator": "is not accepted: the operator is the bearer token's",
}

// reprocess is POST /v1/jobs/{jobId}/reprocess by an operator: 201 with the
// new job, 200 with the same new job for a repeat, 409 for a job that is not
// dead-lettered, is cancelled, or whose input expired (without content), 429
// when the tenant's reprocess budget is spent. Only the creation of a job
// takes from the budget: a repeat, or a call the store refuses, does not,
// and a repeat is never refused (concurrent calls for one job share the
// token the first of them took).
func (s *Server) reprocess(c echo.Context) error {
	key, err := s.jobKey(c)
	if err != nil {
		return err
	}
	req, corr, err := s.decodeReprocess(c, key)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	res, err := s.reprocessJob(ctx, req, corr)
	if err != nil {
		return fmt.Errorf("api: reprocess %s: %w", key, err)
	}
	v := newJobView(res.Job)
	if res.Repeat {
		return c.JSON(http.StatusOK, v)
	}
	c.Response().Header().Set(echo.HeaderLocation, v.Links.Self)
	return c.JSON(http.StatusCreated, v)
}

// reprocessJob is the one reprocess path of both doors, the JSON route and
// the operator console: the corrections' validation (before anything is
// created or counted), the rate limit, the store call and the metrics.
func (s *Server) reprocessJob(ctx context.Context, req jobs.ReprocessRequest, corr *extract.Corrections) (*jobs.ReprocessResult, error) {
	job, err := s.store.Get(ctx, req.Key)
	if err != nil {
		return nil, err
	}
	if err := s.prepareCorrections(ctx, job, &req, corr); err != nil {
		return nil, err
	}
	var token *reservation
	if job.State == jobs.StateDeadLettered && job.ReprocessedAs == "" {
		limiter := s.limiter
		if len(req.Corrections) > 0 {
			limiter = s.corrector // a person's work is not a bulk retry
		}
		if token, err = limiter.reserve(ctx, req.Key); err != nil {
			return nil, err
		}
	}
	res, err := s.store.Reprocess(ctx, req)
	if token != nil {
		token.release(ctx, err)
	}
	switch {
	case errors.Is(err, jobs.ErrIdempotencyConflict):
		s.metrics.reprocessed(req.Key.Tenant, reprocessConflict)
	case err != nil:
	case res.Repeat:
		s.metrics.reprocessed(req.Key.Tenant, reprocessRepeat)
	default:
		s.metrics.reprocessed(req.Key.Tenant, reprocessCreated)
	}
	return res, err
}

// reasonProblem is what is wrong with a reprocess reason, "" if nothing.
func reasonProblem(reason string) string {
	if strings.TrimSpace(reason) == "" || utf8.RuneCountInString(reason) > MaxReasonLength || hasControl(reason) {
		return fmt.Sprintf("must be 1 to %d characters, not blank, without control characters other than tab and newline", MaxReasonLength)
	}
	return ""
}

// A reprocess may carry a corrected document as text (content) or as a
// file (file, as at submission: {mediaType, data, filename?}), so its body
// may be as large as a submission's.
func (s *Server) decodeReprocess(c echo.Context, key jobs.Key) (jobs.ReprocessRequest, *extract.Corrections, error) {
	o, err := s.readObjectLimit(c, s.submitBodyLimit())
	if err != nil {
		return jobs.ReprocessRequest{}, nil, err
	}
	reason, ok := o.str("reason", true)
	if problem := reasonProblem(reason); ok && problem != "" {
		o.fail("reason", problem)
	}
	req := jobs.ReprocessRequest{Key: key, Operator: principal(c).name, Reason: reason}
	if content, ok := o.str("content", false); ok {
		if content == "" {
			o.fail("content", "must be a non-empty string when given")
		}
		req.Content = &content
	}
	file, hasFile := s.fileMember(o)
	if hasFile && req.Content != nil {
		o.fail("file", "must not be sent with content: send the corrected document as text or as a file, not both")
	}
	corr := takeCorrections(o)
	if err := o.done(reprocessHints); err != nil {
		return jobs.ReprocessRequest{}, nil, err
	}
	if req.Content != nil && o.size > s.cfg.BodyLimit {
		e := tooLarge(s.cfg.BodyLimit)
		e.Message += " for text content; send a larger document as a file"
		return jobs.ReprocessRequest{}, nil, e
	}
	if file != nil {
		content, err := s.checkFile(c.Request().Context(), callerOf(c), file)
		if err != nil {
			return jobs.ReprocessRequest{}, nil, err
		}
		req.Content = &content
	}
	return req, corr, nil
}

// listDLQ is GET /v1/dlq: dead-lettered jobs with their reason codes, not yet
// reprocessed unless include=reprocessed; every tenant unless tenant= narrows.
func (s *Server) listDLQ(c echo.Context) error {
	q := parseQuery(c, "tenant", "include", "cursor", "limit")
	opts := jobs.DLQOptions{Limit: q.limit()}
	if q.has("tenant") {
		opts.Tenant = q.tenant("tenant")
	}
	if q.has("include") {
		opts.IncludeReprocessed = q.get("include") == "reprocessed"
		if !opts.IncludeReprocessed {
			q.fail("include", `must be "reprocessed"`)
		}
	}
	return respondList(s, c, q, &opts.Cursor, "dlq", func(ctx context.Context) (*jobs.JobPage, error) {
		return s.store.ListDLQ(ctx, opts)
	}, newJobList)
}

// listAudit is GET /v1/audit: the audit trail, newest first, filtered by
// tenant, jobId, operator and action.
func (s *Server) listAudit(c echo.Context) error {
	q := parseQuery(c, "tenant", "jobId", "operator", "action", "cursor", "limit")
	opts := jobs.AuditOptions{Limit: q.limit()}
	if q.has("tenant") {
		opts.Tenant = q.tenant("tenant")
	}
	if q.has("operator") {
		opts.Operator = q.tenant("operator") // operator names follow the tenant name rule
	}
	if q.has("action") {
		switch opts.Action = q.get("action"); opts.Action {
		case jobs.AuditSubmitted, jobs.AuditReprocessed, jobs.AuditReviewDecided:
		default:
			q.fail("action", "must be one of submitted, reprocessed, review_decided")
		}
	}
	if q.has("jobId") {
		key, err := jobs.ParseKey(q.get("jobId"))
		if err != nil {
			q.fail("jobId", "must be <tenant>:<documentId>:v<version>")
		}
		opts.JobKey = key.String()
	}
	return respondList(s, c, q, &opts.Cursor, "audit", func(ctx context.Context) (*jobs.AuditPage, error) {
		return s.store.ListAudit(ctx, opts)
	}, newAuditList)
}
