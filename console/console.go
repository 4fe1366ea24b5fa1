// Package console is the operator console: server-rendered pages, mounted
// by the API server under /console/, where an operator works the review
// queue, reads why documents were dead-lettered, corrects the fields that
// were read wrongly or not at all (or, for text, the document itself),
// reprocesses them, reads the audit trail, and reads and forgets the
// supplier profiles learned from those corrections.
//
// The console holds no state and no store of its own. Every read and every
// action goes through Operations, which the API server implements with the
// very calls its JSON handlers make, so the audit trail, idempotency and the
// reprocess rate limit are the same whichever door an operator uses.
//
// Pages are html/template (document text and notes are untrusted and always
// escaped) with an embedded stylesheet: no build step, no script, no request
// to another origin. Operators sign in like on /monitoring/: HTTP Basic with
// the operator name and token, or the token as a bearer token; tenant tokens
// are refused with 403. Every state-changing form is POST-only and carries a
// CSRF token derived from the operator's credential (csrf.go), and every
// answer sends a strict Content-Security-Policy and X-Frame-Options: DENY.
package console

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/supplier"
)

// DefaultRootPath is where the console is mounted.
const DefaultRootPath = "/console"

// PageSize is the number of rows of every list page.
const PageSize = 50

// Principal is an authenticated caller.
type Principal struct {
	Name     string // the operator's name (audit identity), or the tenant's
	Operator bool   // false: a tenant token, which the console refuses
	// Secret keys the operator's CSRF tokens. It must be derived from the
	// operator's credential (never shown, never logged) so that every API
	// replica derives the same one.
	Secret []byte
}

// Counts say where work is waiting; the header of every page shows them.
type Counts struct {
	PendingReviews int
	DeadLetters    int
	// Capped is set when a count stopped at its bound (shown as "N+").
	PendingCapped, DeadCapped bool
}

// Operations is what the console needs of the API server. Implementations
// answer with the store's sentinel errors (jobs.ErrNotFound,
// jobs.ErrReviewDecided, …), *jobs.ValidationError for input the API
// would refuse (naming the field), *RateLimitError for a refused reprocess.
type Operations interface {
	// Authenticate identifies the caller of r from its Authorization
	// header: ErrUnauthorized when there is none or it is unknown.
	Authenticate(r *http.Request) (Principal, error)
	// ListReviews lists reviews; a zero Tenant lists every tenant's.
	ListReviews(ctx context.Context, o jobs.ReviewOptions) (*jobs.ReviewPage, error)
	GetReview(ctx context.Context, k jobs.Key) (*jobs.Review, error)
	GetJob(ctx context.Context, k jobs.Key) (*jobs.Job, error)
	Input(ctx context.Context, k jobs.Key) (string, error)
	// PageCount counts the pages of job k's PDF, RenderPage renders one
	// as a PNG: the original beside the fields, for operator (whose page
	// limits they count against: a *RateLimitError past them). Either
	// fails when the deployment has no PDF reader in this process.
	PageCount(ctx context.Context, operator string, k jobs.Key, pdf []byte) (int, error)
	RenderPage(ctx context.Context, operator string, k jobs.Key, pdf []byte, page int) ([]byte, error)
	Result(ctx context.Context, k jobs.Key) ([]byte, error)
	// Decide records an operator's decision on the review of k, as the
	// JSON route does: jobs.ErrPossibleDuplicate (a *jobs.DuplicateError)
	// for the approval of a strong possible duplicate that does not name
	// its first job.
	Decide(ctx context.Context, k jobs.Key, d Decision) (*jobs.Review, error)
	// ReviewCorrections are the corrections an approval of k made, nil
	// when none.
	ReviewCorrections(ctx context.Context, k jobs.Key) (*extract.Corrections, error)
	ListDLQ(ctx context.Context, o jobs.DLQOptions) (*jobs.JobPage, error)
	// Reprocess creates the next version; corrections, when not nil, are
	// put over what the dead job kept of its extraction and validated
	// before anything is created (a *jobs.ValidationError naming
	// "corrections.<field>" when they do not add up).
	Reprocess(ctx context.Context, req jobs.ReprocessRequest, corrections *extract.Corrections) (*jobs.ReprocessResult, error)
	// Kept is what a job rejected for its content kept of its extraction;
	// nil when it kept nothing (or it expired).
	Kept(ctx context.Context, j *jobs.Job) (*extract.Kept, error)
	ListAudit(ctx context.Context, o jobs.AuditOptions) (*jobs.AuditPage, error)
	Counts(ctx context.Context) (Counts, error)

	// Tenants are the configured tenants, whose supplier profiles the
	// console offers to list.
	Tenants() []string
	// Profiles lists a tenant's supplier profiles, the most recently
	// changed first, as GET /v1/suppliers?tenant= does
	// (supplier.ErrBadCursor for a cursor it did not give);
	// ErrNoSupplierMemory when the deployment keeps none. Profile is one
	// (supplier.ErrProfileNotFound when the tenant has none for that
	// supplier), ProfileAudit the tenant's supplier audit, newest first,
	// and DeleteProfile forgets a profile, audited with the operator, as
	// DELETE /v1/suppliers/{supplierId} does.
	Profiles(ctx context.Context, tenant, cursor string, limit int) (*supplier.ProfilePage, error)
	Profile(ctx context.Context, tenant, supplierID string) (*supplier.StoredProfile, error)
	ProfileAudit(ctx context.Context, tenant string, limit int) ([]supplier.ProfileEvent, error)
	DeleteProfile(ctx context.Context, tenant, supplierID, operator string) error
}

// Decision is an operator's decision on a review.
type Decision struct {
	Operator string
	Decision string // "approve" or "reject"
	Note     string
	// Corrections, when not nil, correct fields of the result while
	// approving, validated as a reprocess's are.
	Corrections *extract.Corrections
	// NotDuplicateOf names the first job of a possible duplicate: the
	// operator confirms this document is not a duplicate of it.
	NotDuplicateOf string
}

// ErrUnauthorized is Authenticate's answer to missing or unknown credentials.
var ErrUnauthorized = errors.New("console: unauthorized")

// ErrNoSupplierMemory is the profile operations' answer when the
// deployment keeps no supplier profiles.
var ErrNoSupplierMemory = errors.New("console: this deployment keeps no supplier profiles")

// RateLimitError refuses an action until RetryAfter has passed.
type RateLimitError struct {
	RetryAfter time.Duration
	Message    string
}

func (e *RateLimitError) Error() string { return "console: rate limited: " + e.Message }

// Config configures a Console.
type Config struct {
	Operations Operations // required
	// RootPath is the mount path; default DefaultRootPath.
	RootPath string
	// MonitoringPath is asynqmon's page, linked from the header; default
	// "/monitoring/".
	MonitoringPath string
	// Realm is the HTTP auth realm; default "relayops" (the dashboard's, so
	// a browser signed in to one is signed in to the other).
	Realm string
	// CSRFWindow is how long a CSRF token is valid at least (at most
	// twice as long). Default 1h.
	CSRFWindow time.Duration
	Clock      clock.Clock  // default clock.Real{}
	Logger     *slog.Logger // default: discard
}

func (c Config) withDefaults() Config {
	if c.RootPath == "" {
		c.RootPath = DefaultRootPath
	}
	if c.MonitoringPath == "" {
		c.MonitoringPath = "/monitoring/"
	}
	if c.Realm == "" {
		c.Realm = "relayops"
	}
	if c.CSRFWindow == 0 {
		c.CSRFWindow = time.Hour
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Operations == nil {
		errs = append(errs, errors.New("console: Config.Operations is required"))
	}
	if !strings.HasPrefix(c.RootPath, "/") || strings.HasSuffix(c.RootPath, "/") {
		errs = append(errs, fmt.Errorf("console: Config.RootPath must start and not end with '/', got %q", c.RootPath))
	}
	if strings.ContainsAny(c.Realm, "\"\\\r\n") {
		errs = append(errs, errors.New("console: Config.Realm must not contain quotes, backslashes or line breaks"))
	}
	if c.CSRFWindow < time.Minute {
		errs = append(errs, errors.New("console: Config.CSRFWindow must be at least 1m"))
	}
	return errors.Join(errs...)
}

// Console is the operator console, an http.Handler that sees full request
// paths under RootPath. Create it with New.
type Console struct {
	cfg   Config
	ops   Operations
	log   *slog.Logger
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New validates cfg and builds the console.
func New(cfg Config) (*Console, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	pages, err := parsePages(cfg.RootPath)
	if err != nil {
		return nil, err
	}
	c := &Console{cfg: cfg, ops: cfg.Operations, log: cfg.Logger, pages: pages}
	c.mux = c.routes()
	return c, nil
}

// Policy is the Content-Security-Policy of every answer: the console's own
// stylesheet, no script at all, forms posting only to itself.
const Policy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP sets the security headers, authenticates the operator and
// serves the page.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", Policy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if len(r.Header.Values("Authorization")) > 1 {
		c.fail(w, r, nil, http.StatusBadRequest, "Send at most one Authorization header.")
		return
	}
	p, err := c.ops.Authenticate(r)
	var rl *RateLimitError
	switch {
	case errors.As(err, &rl):
		h.Set("Retry-After", retryAfter(rl.RetryAfter))
		c.fail(w, r, nil, http.StatusTooManyRequests, "Too many failed sign-ins from this address; try again later.")
		return
	case err != nil:
		h.Set("WWW-Authenticate", `Basic realm="`+c.cfg.Realm+`", charset="UTF-8"`)
		c.fail(w, r, nil, http.StatusUnauthorized, "Sign in with your operator name and token.")
		return
	case !p.Operator:
		c.fail(w, r, nil, http.StatusForbidden, "The console is for operators; a tenant token cannot open it.")
		return
	}
	c.mux.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principal(r *http.Request) Principal {
	p, _ := r.Context().Value(principalKey{}).(Principal)
	return p
}

func retryAfter(d time.Duration) string {
	return fmt.Sprint(max(1, int((d+time.Second-1)/time.Second)))
}
