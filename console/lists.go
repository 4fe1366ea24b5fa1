package console

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/relayops/relayops/jobs"
)

// query reads a list page's filters. An empty field is an absent filter (a
// GET form sends every field); a bad value is collected and answered 400
// naming its field.
type query struct {
	vals   url.Values
	fields []jobs.FieldError
}

func newQuery(r *http.Request) *query { return &query{vals: r.URL.Query()} }

func (q *query) get(name string) string { return strings.TrimSpace(q.vals.Get(name)) }

func (q *query) fail(field, problem string) {
	q.fields = append(q.fields, jobs.FieldError{Field: field, Problem: problem})
}

// name reads a tenant or operator name (both follow the tenant rule).
func (q *query) name(field string) string {
	v := q.get(field)
	if v == "" {
		return ""
	}
	if fe := jobs.ValidateTenant(v); fe != nil {
		q.fail(field, fe.Problem)
		return ""
	}
	return v
}

// oneOf reads a value from a fixed set; def when empty.
func (q *query) oneOf(field, def string, allowed ...string) string {
	v := q.get(field)
	if v == "" {
		return def
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	q.fail(field, "must be one of "+strings.Join(allowed, ", "))
	return def
}

func (q *query) cursor() string {
	v := q.get("cursor")
	if len(v) > 512 {
		q.fail("cursor", "is not a cursor of this list; start again from the first page")
		return ""
	}
	return v
}

// next is the link to the following page: the same filters, the new
// cursor; "" on the last page.
func (c *Console) next(path string, filters url.Values, cursor string) string {
	if cursor == "" {
		return ""
	}
	v := url.Values{}
	for k, vs := range filters {
		if len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	v.Set("cursor", cursor)
	return c.cfg.RootPath + path + "?" + v.Encode()
}

// reviewRow is one line of the review list.
type reviewRow struct {
	JobID, Tenant, DocumentID string
	Version                   int64
	Status, Age               string
	Created                   time.Time
	Operator                  string
	DecidedAt                 time.Time
	// Duplicate is "strong" or "weak" for a possible duplicate.
	Duplicate string
	summary
}

type reviewsBody struct {
	Tenant, Status string
	Statuses       []string
	Rows           []reviewRow
	Next           string
}

// reviewStatuses are the review list's status filter values.
var reviewStatuses = []string{jobs.ReviewPending, jobs.ReviewApproved, jobs.ReviewRejected, "all"}

// reviews is the landing page: the pending reviews of every tenant, oldest
// first; other statuses newest first.
func (c *Console) reviews(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	tenant := q.name("tenant")
	status := q.oneOf("status", jobs.ReviewPending, reviewStatuses...)
	cursor := q.cursor()
	if q.fields != nil {
		c.invalid(w, r, q.fields...)
		return
	}
	opts := jobs.ReviewOptions{Tenant: tenant, Status: status, Cursor: cursor, Limit: PageSize,
		Oldest: status == jobs.ReviewPending}
	if status == "all" {
		opts.Status = ""
	}
	pg, err := c.ops.ListReviews(r.Context(), opts)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	now := c.cfg.Clock.Now()
	body := reviewsBody{Tenant: tenant, Status: status, Statuses: reviewStatuses,
		Next: c.next("/reviews", url.Values{"tenant": {tenant}, "status": {status}}, pg.NextCursor)}
	for _, rv := range pg.Reviews {
		row := reviewRow{
			JobID: rv.Key.String(), Tenant: rv.Key.Tenant, DocumentID: rv.Key.DocumentID, Version: rv.Key.Version,
			Status: rv.Status, Age: age(now.Sub(rv.CreatedAt)), Created: rv.CreatedAt,
			Operator: rv.Operator, DecidedAt: rv.DecidedAt, summary: c.reviewSummary(r, rv.Key),
		}
		if m := rv.Match; m != nil && m.Of.Tenant == rv.Key.Tenant {
			row.Duplicate = m.Strength
		}
		body.Rows = append(body.Rows, row)
	}
	c.render(w, r, http.StatusOK, "reviews", &page{Title: "Reviews", Nav: "reviews", Body: body})
}

// deadRow is one line of the dead-letter list.
type deadRow struct {
	JobID, Tenant, DocumentID string
	Version                   int64
	Code, Reason              string // errorReason when the document was rejected, else errorCode
	Attempts, MaxAttempts     int
	Age                       string
	ReprocessedAs             string
	summary
}

type dlqBody struct {
	Tenant      string
	Reprocessed bool
	Rows        []deadRow
	Next        string
}

// dlq lists dead-lettered jobs, newest first, not yet reprocessed unless
// asked.
func (c *Console) dlq(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	tenant := q.name("tenant")
	include := q.oneOf("include", "", "reprocessed")
	cursor := q.cursor()
	if q.fields != nil {
		c.invalid(w, r, q.fields...)
		return
	}
	pg, err := c.ops.ListDLQ(r.Context(), jobs.DLQOptions{Tenant: tenant, IncludeReprocessed: include != "",
		Cursor: cursor, Limit: PageSize})
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	now := c.cfg.Clock.Now()
	body := dlqBody{Tenant: tenant, Reprocessed: include != "",
		Next: c.next("/dlq", url.Values{"tenant": {tenant}, "include": {include}}, pg.NextCursor)}
	for _, j := range pg.Jobs {
		code := j.ErrorReason
		if code == "" {
			code = j.ErrorCode
		}
		body.Rows = append(body.Rows, deadRow{
			JobID: j.Key.String(), Tenant: j.Key.Tenant, DocumentID: j.Key.DocumentID, Version: j.Key.Version,
			Code: code, Reason: describe(code), Attempts: j.Attempt, MaxAttempts: j.MaxAttempts,
			Age: age(now.Sub(finished(j))), ReprocessedAs: j.ReprocessedAs, summary: c.deadSummary(r, j),
		})
	}
	c.render(w, r, http.StatusOK, "dlq", &page{Title: "Dead letters", Nav: "dlq", Body: body})
}

// finished is when a job ended, or its last change when unknown.
func finished(j *jobs.Job) time.Time {
	if !j.FinishedAt.IsZero() {
		return j.FinishedAt
	}
	return j.UpdatedAt
}

// auditActions are the actions the audit filter offers.
var auditActions = []string{jobs.AuditSubmitted, jobs.AuditReprocessed, jobs.AuditReviewDecided}

type auditBody struct {
	Tenant, JobID, Action, Operator string
	Actions                         []string
	Entries                         []*jobs.AuditEntry
	Next                            string
}

// audit is the audit trail, newest first, with its filters.
func (c *Console) audit(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	body := auditBody{Tenant: q.name("tenant"), Operator: q.name("operator"), JobID: q.get("jobId"),
		Action: q.oneOf("action", "", auditActions...), Actions: auditActions}
	if body.JobID != "" {
		if _, err := jobs.ParseKey(body.JobID); err != nil {
			q.fail("jobId", "must be <tenant>:<documentId>:v<version>")
		}
	}
	cursor := q.cursor()
	if q.fields != nil {
		c.invalid(w, r, q.fields...)
		return
	}
	pg, err := c.ops.ListAudit(r.Context(), jobs.AuditOptions{Tenant: body.Tenant, JobKey: body.JobID,
		Action: body.Action, Operator: body.Operator, Cursor: cursor, Limit: PageSize})
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	body.Entries = pg.Entries
	body.Next = c.next("/audit", url.Values{"tenant": {body.Tenant}, "jobId": {body.JobID},
		"action": {body.Action}, "operator": {body.Operator}}, pg.NextCursor)
	c.render(w, r, http.StatusOK, "audit", &page{Title: "Audit", Nav: "audit", Body: body})
}
