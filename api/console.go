package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"

	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/pages"
	"github.com/relayops/relayops/supplier"
)

// consoleCountCap bounds the counts of the console's header: past it they
// read "99+" rather than walk the whole index on every page.
const consoleCountCap = 99

// consoleOps gives the operator console the API's own operations: the same
// authentication, the same decision and reprocess paths (audit,
// idempotency, the reprocess rate limit, metrics), each store call bounded
// by StoreTimeout.
type consoleOps struct{ s *Server }

var _ console.Operations = consoleOps{}

// newConsole builds the console mounted at /console.
func (s *Server) newConsole() (*console.Console, error) {
	return console.New(console.Config{
		Operations: consoleOps{s},
		Clock:      s.cfg.Clock,
		Logger:     s.log.With("component", "console"),
	})
}

// Authenticate accepts HTTP Basic (operator name and token, what a browser
// sends after its prompt) or a bearer token. Wrong credentials count
// against the client address like the API's; a request without any (a
// browser's first) does not.
func (o consoleOps) Authenticate(r *http.Request) (console.Principal, error) {
	name, token, basic := r.BasicAuth()
	if !basic {
		var ok bool
		if token, ok = bearerToken(r); !ok {
			return console.Principal{}, console.ErrUnauthorized
		}
	}
	p, ok := o.s.auth.lookup(token)
	if !ok || (basic && p.name != name) {
		ip, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			ip = r.RemoteAddr
		}
		if wait := o.s.authThrottle.fail(ip); wait > 0 {
			return console.Principal{}, &console.RateLimitError{RetryAfter: wait, Message: "too many failed sign-ins"}
		}
		return console.Principal{}, console.ErrUnauthorized
	}
	// The CSRF secret derives from the credential: every replica agrees
	// and a token dies with the credential that signed it.
	secret := sha256.Sum256([]byte("relayops console csrf\x00" + token))
	return console.Principal{Name: p.name, Operator: p.role == roleOperator, Secret: secret[:]}, nil
}

// bounded bounds one store call and classifies an unreachable store.
func bounded[T any](o consoleOps, ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, o.s.cfg.StoreTimeout)
	defer cancel()
	v, err := f(ctx)
	if err != nil && (unavailable(err) || errors.Is(err, jobs.ErrReprocessRace)) {
		err = fmt.Errorf("%w: %w", console.ErrUnavailable, err)
	}
	return v, err
}

// tenants is every configured tenant, the console's "every tenant".
func (o consoleOps) tenants() []string {
	var out []string
	for _, c := range o.s.cfg.Tenants {
		if !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

func (o consoleOps) ListReviews(ctx context.Context, opts jobs.ReviewOptions) (*jobs.ReviewPage, error) {
	if opts.Tenant == "" {
		if opts.Tenants = o.tenants(); len(opts.Tenants) == 0 {
			return &jobs.ReviewPage{}, nil
		}
	}
	return bounded(o, ctx, func(ctx context.Context) (*jobs.ReviewPage, error) { return o.s.store.ListReviews(ctx, opts) })
}

func (o consoleOps) GetReview(ctx context.Context, k jobs.Key) (*jobs.Review, error) {
	return bounded(o, ctx, func(ctx context.Context) (*jobs.Review, error) { return o.s.store.GetReview(ctx, k) })
}

func (o consoleOps) GetJob(ctx context.Context, k jobs.Key) (*jobs.Job, error) {
	return bounded(o, ctx, func(ctx context.Context) (*jobs.Job, error) { return o.s.store.Get(ctx, k) })
}

func (o consoleOps) Input(ctx context.Context, k jobs.Key) (string, error) {
	return bounded(o, ctx, func(ctx context.Context) (string, error) { return o.s.store.Input(ctx, k) })
}

// errNoPDFReader: this API process has no PDF reader (Config.Pages).
var errNoPDFReader = errors.New("api: no PDF reader configured")

func (o consoleOps) PageCount(ctx context.Context, operator string, k jobs.Key, pdf []byte) (int, error) {
	if o.s.pages == nil {
		return 0, errNoPDFReader
	}
	n, err := o.s.pages.PageCount(ctx, pageCaller(roleOperator, operator), pages.Key{Tenant: k.Tenant, Job: k.String()}, pdf)
	return n, consolePageError(err)
}

func (o consoleOps) RenderPage(ctx context.Context, operator string, k jobs.Key, pdf []byte, page int) ([]byte, error) {
	if o.s.pages == nil {
		return nil, errNoPDFReader
	}
	pk := pages.Key{Tenant: k.Tenant, Job: k.String(), Page: page, Pixels: pageImagePixels}
	png, err := o.s.pages.Render(ctx, pageCaller(roleOperator, operator), pk, pdf)
	return png, consolePageError(err)
}

func (o consoleOps) Result(ctx context.Context, k jobs.Key) ([]byte, error) {
	return bounded(o, ctx, func(ctx context.Context) ([]byte, error) { return o.s.store.Result(ctx, k) })
}

// Decide checks the decision with the JSON route's rules and decides
// through its path.
func (o consoleOps) Decide(ctx context.Context, k jobs.Key, d console.Decision) (*jobs.Review, error) {
	var fields []jobs.FieldError
	status := decisions[d.Decision]
	if status == "" {
		fields = append(fields, jobs.FieldError{Field: "decision", Problem: `must be "approve" or "reject"`})
	}
	if p := noteProblem(d.Note); p != "" {
		fields = append(fields, jobs.FieldError{Field: "note", Problem: p})
	}
	if d.Corrections != nil && status != jobs.ReviewApproved {
		fields = append(fields, jobs.FieldError{Field: "corrections", Problem: "only an approval may correct fields"})
	}
	if d.NotDuplicateOf != "" {
		if _, err := jobs.ParseKey(d.NotDuplicateOf); err != nil {
			fields = append(fields, jobs.FieldError{Field: "notDuplicateOf", Problem: "must be the jobId of the first document this one is not a duplicate of"})
		} else if status == jobs.ReviewRejected {
			fields = append(fields, jobs.FieldError{Field: "notDuplicateOf", Problem: "only an approval names the first document"})
		}
	}
	corr, cfields := asTheJSONRouteReads(d.Corrections)
	if fields = append(fields, cfields...); fields != nil {
		return nil, &jobs.ValidationError{Fields: fields}
	}
	return bounded(o, ctx, func(ctx context.Context) (*jobs.Review, error) {
		return o.s.decideReview(ctx, k, d.Operator, status, d.Note, corr, d.NotDuplicateOf)
	})
}

func (o consoleOps) ReviewCorrections(ctx context.Context, k jobs.Key) (*extract.Corrections, error) {
	return bounded(o, ctx, func(ctx context.Context) (*extract.Corrections, error) {
		raw, err := o.s.store.ReviewCorrections(ctx, k)
		if err != nil || raw == nil {
			return nil, err
		}
		var c extract.Corrections
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("api: review corrections %s: not JSON", k)
		}
		return &c, nil
	})
}

func (o consoleOps) ListDLQ(ctx context.Context, opts jobs.DLQOptions) (*jobs.JobPage, error) {
	return bounded(o, ctx, func(ctx context.Context) (*jobs.JobPage, error) { return o.s.store.ListDLQ(ctx, opts) })
}

// Reprocess checks the reason and content with the JSON route's rules and
// reprocesses through its path, corrections validated as there; the rate
// limit's 429 becomes a *console.RateLimitError.
func (o consoleOps) Reprocess(ctx context.Context, req jobs.ReprocessRequest, corr *extract.Corrections) (*jobs.ReprocessResult, error) {
	var fields []jobs.FieldError
	if p := reasonProblem(req.Reason); p != "" {
		fields = append(fields, jobs.FieldError{Field: "reason", Problem: p})
	}
	if req.Content != nil && int64(len(*req.Content)) > o.s.cfg.BodyLimit {
		fields = append(fields, jobs.FieldError{Field: "content", Problem: fmt.Sprintf("must be at most %d bytes", o.s.cfg.BodyLimit)})
	}
	corr, cfields := asTheJSONRouteReads(corr)
	if fields = append(fields, cfields...); fields != nil {
		return nil, &jobs.ValidationError{Fields: fields}
	}
	res, err := bounded(o, ctx, func(ctx context.Context) (*jobs.ReprocessResult, error) { return o.s.reprocessJob(ctx, req, corr) })
	var e *Error
	if errors.As(err, &e) && e.Code == CodeRateLimited {
		return nil, &console.RateLimitError{RetryAfter: e.RetryAfter, Message: e.Message}
	}
	return res, err
}

// asTheJSONRouteReads puts the console's corrections through the JSON
// route's reading of a "corrections" member (takeCorrections: the bounds
// and characters of every value, a charge's kind from its sign when not
// given), so both doors accept, default and refuse alike; the problems
// name "corrections.<field>" as there.
func asTheJSONRouteReads(c *extract.Corrections) (*extract.Corrections, []jobs.FieldError) {
	if c == nil {
		return nil, nil
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, []jobs.FieldError{{Field: "corrections", Problem: "cannot be read"}}
	}
	o := &object{members: map[string]json.RawMessage{"corrections": raw}}
	read := takeCorrections(o)
	return read, o.fields
}

// Kept is what a rejected job kept of its extraction (nil: nothing).
func (o consoleOps) Kept(ctx context.Context, j *jobs.Job) (*extract.Kept, error) {
	return bounded(o, ctx, func(ctx context.Context) (*extract.Kept, error) { return o.s.kept(ctx, j) })
}

func (o consoleOps) ListAudit(ctx context.Context, opts jobs.AuditOptions) (*jobs.AuditPage, error) {
	return bounded(o, ctx, func(ctx context.Context) (*jobs.AuditPage, error) { return o.s.store.ListAudit(ctx, opts) })
}

// Counts reads one bounded page of each list: pending reviews of every
// tenant, dead letters not yet reprocessed.
func (o consoleOps) Counts(ctx context.Context) (console.Counts, error) {
	var c console.Counts
	if tenants := o.tenants(); len(tenants) > 0 {
		p, err := o.ListReviews(ctx, jobs.ReviewOptions{Tenants: tenants, Status: jobs.ReviewPending, Limit: consoleCountCap})
		if err != nil {
			return c, err
		}
		c.PendingReviews, c.PendingCapped = len(p.Reviews), p.NextCursor != ""
	}
	d, err := o.ListDLQ(ctx, jobs.DLQOptions{Limit: consoleCountCap})
	if err != nil {
		return c, err
	}
	c.DeadLetters, c.DeadCapped = len(d.Jobs), d.NextCursor != ""
	return c, nil
}

// Tenants are the configured tenants.
func (o consoleOps) Tenants() []string { return o.tenants() }

// suppliers is the supplier store, console.ErrNoSupplierMemory without one
// (where the JSON routes are not mounted).
func (o consoleOps) suppliers() (*supplier.Store, error) {
	if o.s.cfg.Suppliers == nil {
		return nil, console.ErrNoSupplierMemory
	}
	return o.s.cfg.Suppliers, nil
}

// Profiles lists a tenant's profiles with the store call of
// GET /v1/suppliers.
func (o consoleOps) Profiles(ctx context.Context, tenant, cursor string, limit int) (*supplier.ProfilePage, error) {
	s, err := o.suppliers()
	if err != nil {
		return nil, err
	}
	return bounded(o, ctx, func(ctx context.Context) (*supplier.ProfilePage, error) {
		return s.Profiles(ctx, tenant, cursor, limit)
	})
}

func (o consoleOps) Profile(ctx context.Context, tenant, id string) (*supplier.StoredProfile, error) {
	s, err := o.suppliers()
	if err != nil {
		return nil, err
	}
	return bounded(o, ctx, func(ctx context.Context) (*supplier.StoredProfile, error) { return s.Profile(ctx, tenant, id) })
}

func (o consoleOps) ProfileAudit(ctx context.Context, tenant string, limit int) ([]supplier.ProfileEvent, error) {
	s, err := o.suppliers()
	if err != nil {
		return nil, err
	}
	return bounded(o, ctx, func(ctx context.Context) ([]supplier.ProfileEvent, error) { return s.ProfileAudit(ctx, tenant, limit) })
}

// DeleteProfile forgets a profile with the store call of
// DELETE /v1/suppliers/{supplierId}, audited with the operator.
func (o consoleOps) DeleteProfile(ctx context.Context, tenant, id, operator string) error {
	s, err := o.suppliers()
	if err != nil {
		return err
	}
	_, err = bounded(o, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.DeleteProfile(ctx, tenant, id, operator)
	})
	return err
}
