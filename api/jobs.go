package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// MaxDeadlineSeconds bounds a submission's deadlineSeconds (365 days).
const MaxDeadlineSeconds = 365 * 24 * 60 * 60

// submitHints explain the unknown members a client is most likely to send.
var submitHints = map[string]string{
	"tenant": "is not accepted: the tenant is the bearer token's",
	"jobId":  "is not accepted: the job ID is built from tenant, documentId and operationVersion",
}

// submit is POST /v1/jobs: 202 for a new job, 200 with deduped:true for an
// identical resubmission, 409 idempotency_conflict for a different payload
// under the same key.
func (s *Server) submit(c echo.Context) error {
	tenant := principal(c).name
	req, err := s.decodeSubmit(c, tenant)
	if err != nil {
		s.metrics.submitted(tenant, outcomeInvalid)
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	held, err := s.reserveQuota(ctx, req)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusTooManyRequests {
		s.metrics.submitted(tenant, outcomeOverQuota)
	}
	if err != nil {
		return err
	}
	res, err := s.store.Submit(ctx, req)
	s.settleQuota(ctx, held, res, err)
	switch {
	case errors.Is(err, jobs.ErrIdempotencyConflict):
		s.metrics.submitted(tenant, outcomeConflict)
		return err
	case err != nil:
		return fmt.Errorf("api: submit %s: %w", req.Key, err)
	}
	v := newJobView(res.Job)
	v.Deduped = &res.Deduped
	if res.Deduped {
		s.metrics.submitted(tenant, outcomeDeduped)
		return c.JSON(http.StatusOK, v)
	}
	s.metrics.submitted(tenant, outcomeCreated)
	c.Response().Header().Set(echo.HeaderLocation, v.Links.Self)
	return c.JSON(http.StatusAccepted, v)
}

// decodeSubmit reads and validates a submission for tenant. The payload the
// store hashes is the content alone: deadlineSeconds is an execution option.
//
// The body is JSON with `content` (text) or `file` (a base64 file), or
// multipart/form-data with a `file` part (api/intake.go).
func (s *Server) decodeSubmit(c echo.Context, tenant string) (jobs.SubmitRequest, error) {
	var (
		o    *object
		file *submittedFile
		err  error
	)
	if isMultipart(c.Request()) {
		o, file, err = s.readMultipart(c)
	} else {
		o, err = s.readObjectLimit(c, s.submitBodyLimit())
	}
	if err != nil {
		return jobs.SubmitRequest{}, err
	}
	// Only a client's own request ID is worth remembering: the store answers
	// a replay of it as it answered the original (202 again, not a dedupe).
	// A generated one is never replayed and would only cost a Redis key.
	return s.submitRequest(c.Request().Context(), o, file, tenant, clientRequestID(c))
}

// submitRequest checks a submission's members. file is the multipart file
// part, nil for a JSON body (whose file, if any, is the member `file`).
func (s *Server) submitRequest(ctx context.Context, o *object, file *submittedFile, tenant, reqID string) (jobs.SubmitRequest, error) {
	doc, ok := o.str("documentId", true)
	if ok {
		checkDocumentID(o, doc)
	}
	version, _ := o.integer("operationVersion", true, 1, jobs.MaxVersion)
	content, hasContent := "", false
	if file == nil {
		content, hasContent = s.textContent(o)
		var hasFile bool
		if file, hasFile = s.fileMember(o); hasFile && hasContent {
			o.fail("file", "must not be sent with content: send the document as text (content) or as a file, not both")
		} else if !hasFile && !hasContent {
			o.fail("content", "is required: the document as text (content) or as a file (file)")
		}
	}
	deadline, hasDeadline := o.integer("deadlineSeconds", false, 1, MaxDeadlineSeconds)
	if err := o.done(submitHints); err != nil {
		return jobs.SubmitRequest{}, err
	}
	if hasContent && o.size > s.cfg.BodyLimit {
		e := tooLarge(s.cfg.BodyLimit)
		e.Message += " for text content; send a larger document as a file (up to " + byteSize(s.cfg.MaxFileBytes) + ")"
		return jobs.SubmitRequest{}, e
	}
	if file != nil {
		var err error
		if content, err = s.checkFile(ctx, pageCaller(roleTenant, tenant), file); err != nil {
			return jobs.SubmitRequest{}, err
		}
	}
	key, err := jobs.BuildKey(tenant, doc, version)
	if err != nil {
		return jobs.SubmitRequest{}, err
	}
	limits := s.cfg.Limits
	if hasDeadline {
		limits.Deadline = time.Duration(deadline) * time.Second
	}
	return jobs.SubmitRequest{Key: key, Content: content, Limits: limits, RequestID: reqID}, nil
}

// textContent takes the optional member content: text, non-empty.
// present reports whether the member was sent at all, even with a wrong type.
func (s *Server) textContent(o *object) (content string, present bool) {
	_, present = o.members["content"]
	content, ok := o.str("content", false)
	if ok && content == "" {
		o.fail("content", "must be a non-empty string")
	}
	return content, present
}

// checkDocumentID reports the key's problem with doc, if any.
func checkDocumentID(o *object, doc string) {
	if f := jobs.ValidateDocumentID(doc); f != nil {
		o.fail(f.Field, f.Problem)
	}
}

// jobKey parses the :jobId path parameter. A malformed ID, and another
// tenant's ID under a tenant token, answer exactly like a missing job.
func (s *Server) jobKey(c echo.Context) (jobs.Key, error) {
	raw, err := url.PathUnescape(c.Param("jobId"))
	if err != nil {
		return jobs.Key{}, jobNotFound()
	}
	key, err := jobs.ParseKey(raw)
	if err != nil {
		return jobs.Key{}, jobNotFound()
	}
	if p := principal(c); p.role == roleTenant && key.Tenant != p.name {
		return jobs.Key{}, jobNotFound()
	}
	return key, nil
}

// getJob is GET /v1/jobs/{jobId}: the durable status record, with the result
// once succeeded (resultExpired when it no longer exists).
func (s *Server) getJob(c echo.Context) error {
	key, err := s.jobKey(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	job, err := s.store.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("api: get %s: %w", key, err)
	}
	v := newJobView(job)
	if job.State == jobs.StateSucceeded && !job.ResultExpired {
		res, err := s.store.Result(ctx, key)
		switch {
		case errors.Is(err, jobs.ErrResultExpired), errors.Is(err, jobs.ErrNotFound):
			v.ResultExpired = true
		case err != nil:
			return fmt.Errorf("api: result %s: %w", key, err)
		case !json.Valid(res):
			return fmt.Errorf("api: result %s: stored result is not JSON", key)
		default:
			v.Result = res
		}
	}
	if err := s.addKept(ctx, job, &v); err != nil {
		return fmt.Errorf("api: get %s: %w", key, err)
	}
	return c.JSON(http.StatusOK, v)
}

// listJobs is GET /v1/jobs: one tenant's jobs, newest first, filtered by
// state and documentId. A tenant token lists its own tenant; an operator
// names one with tenant=.
func (s *Server) listJobs(c echo.Context) error {
	q := parseQuery(c, "tenant", "state", "documentId", "cursor", "limit")
	tenant, err := scopeTenant(principal(c), q, true)
	if err != nil {
		return err
	}
	opts := jobs.ListOptions{Tenant: tenant, Limit: q.limit()}
	if q.has("state") {
		opts.State = jobs.State(q.get("state"))
		if !opts.State.Valid() {
			q.fail("state", "must be one of queued, running, retrying, succeeded, dead_lettered, cancelled")
		}
	}
	if q.has("documentId") {
		opts.DocumentID = q.get("documentId")
		if f := jobs.ValidateDocumentID(opts.DocumentID); f != nil {
			q.fail(f.Field, f.Problem)
		}
	}
	return respondList(s, c, q, &opts.Cursor, "jobs", func(ctx context.Context) (*jobs.JobPage, error) {
		return s.store.ListJobs(ctx, opts)
	}, newJobList)
}

// scopeTenant decides whose items a list shows. A tenant token sees its own
// tenant only; naming another one is forbidden. An operator names a tenant
// with tenant=, which some lists require.
func scopeTenant(p caller, q *query, required bool) (string, error) {
	if p.role == roleTenant {
		if q.has("tenant") && q.get("tenant") != p.name {
			return "", forbidden("a tenant token sees only its own tenant")
		}
		return p.name, nil
	}
	if !q.has("tenant") {
		if required {
			q.fail("tenant", "is required with an operator token")
		}
		return "", nil
	}
	return q.tenant("tenant"), nil
}
