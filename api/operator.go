package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

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
	req, err := s.decodeReprocess(c, key)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	job, err := s.store.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("api: reprocess %s: %w", key, err)
	}
	var token *reservation
	if job.State == jobs.StateDeadLettered && job.ReprocessedAs == "" {
		if token, err = s.limiter.reserve(ctx, key); err != nil {
			return err
		}
	}
	res, err := s.store.Reprocess(ctx, req)
	if token != nil {
		token.release(ctx, err)
	}
	if errors.Is(err, jobs.ErrIdempotencyConflict) {
		s.metrics.reprocessed(key.Tenant, reprocessConflict)
	}
	if err != nil {
		return fmt.Errorf("api: reprocess %s: %w", key, err)
	}
	v := newJobView(res.Job)
	if res.Repeat {
		s.metrics.reprocessed(key.Tenant, reprocessRepeat)
		return c.JSON(http.StatusOK, v)
	}
	s.metrics.reprocessed(key.Tenant, reprocessCreated)
	c.Response().Header().Set(echo.HeaderLocation, v.Links.Self)
	return c.JSON(http.StatusCreated, v)
}

func (s *Server) decodeReprocess(c echo.Context, key jobs.Key) (jobs.ReprocessRequest, error) {
	o, err := s.readObject(c)
	if err != nil {
		return jobs.ReprocessRequest{}, err
	}
	reason, ok := o.str("reason", true)
	if ok && (strings.TrimSpace(reason) == "" || utf8.RuneCountInString(reason) > MaxReasonLength || hasControl(reason)) {
		o.fail("reason", fmt.Sprintf("must be 1 to %d characters, not blank, without control characters other than tab and newline", MaxReasonLength))
	}
	req := jobs.ReprocessRequest{Key: key, Operator: principal(c).name, Reason: reason}
	if content, ok := o.str("content", false); ok {
		if content == "" {
			o.fail("content", "must be a non-empty string when given")
		}
		req.Content = &content
	}
	if err := o.done(reprocessHints); err != nil {
		return jobs.ReprocessRequest{}, err
	}
	return req, nil
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
// tenant, jobId and operator.
func (s *Server) listAudit(c echo.Context) error {
	q := parseQuery(c, "tenant", "jobId", "operator", "cursor", "limit")
	opts := jobs.AuditOptions{Limit: q.limit()}
	if q.has("tenant") {
		opts.Tenant = q.tenant("tenant")
	}
	if q.has("operator") {
		opts.Operator = q.tenant("operator") // operator names follow the tenant name rule
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
