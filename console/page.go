package console

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/relayops/relayops/jobs"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/console.css
var stylesheet []byte

// ErrUnavailable wraps an Operations error meaning the store could not be
// reached in time: the page says so and answers 503.
var ErrUnavailable = errors.New("console: the job store is unavailable")

// page is what every template receives: the header's data and the page's own.
type page struct {
	Title      string
	Nav        string // reviews, dlq, audit, suppliers: the header link shown as current
	Root       string
	Monitoring string
	Operator   string
	Counts     *Counts // nil: not available (not signed in, or the store failed)
	CSRF       string
	Notice     string // a success message
	Problem    string // a failure message
	Fields     []jobs.FieldError
	Refresh    bool // reload every 2s (a job still running)
	Body       any
}

// parsePages parses each page template together with the layout.
func parsePages(root string) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"describe":   describe,
		"changes":    auditChanges,
		"fieldLabel": fieldLabel,
		"statusWord": statusWord, "statusIcon": statusIcon, "statusMeans": statusMeans,
		"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
		"jobURL": func(id string) string { return root + "/jobs/" + url.PathEscape(id) },
		"reviewURL": func(id string) string {
			return root + "/reviews/" + url.PathEscape(id)
		},
		"supplierURL": func(id string) string { return root + "/suppliers/" + url.PathEscape(id) },
		"join":        func(s []string) string { return strings.Join(s, ", ") },
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := n[len("templates/") : len(n)-len(".html")]
		if name == "layout" || name == "parts" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", n)
		if err != nil {
			return nil, fmt.Errorf("console: parse %s: %w", n, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes a page with the header filled in for the signed-in operator.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, pg *page) {
	p := principal(r)
	pg.Root, pg.Monitoring, pg.Operator = c.cfg.RootPath, c.cfg.MonitoringPath, p.Name
	if p.Operator {
		pg.CSRF = c.csrfToken(p)
		if counts, err := c.ops.Counts(r.Context()); err == nil {
			pg.Counts = &counts
		} else {
			c.log.Warn("console: counts", "err", err)
		}
	}
	var buf bytes.Buffer
	if err := c.pages[name].Execute(&buf, pg); err != nil {
		c.log.Error("console: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// fail answers an error page.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, fields []jobs.FieldError, status int, msg string) {
	c.render(w, r, status, "error", &page{Title: http.StatusText(status), Problem: msg, Fields: fields,
		Body: status})
}

// invalid answers 400 naming the fields.
func (c *Console) invalid(w http.ResponseWriter, r *http.Request, fields ...jobs.FieldError) {
	c.fail(w, r, fields, http.StatusBadRequest, "The request has invalid fields.")
}

// storeFailed answers an error of Operations with its page.
func (c *Console) storeFailed(w http.ResponseWriter, r *http.Request, err error) {
	if c.profileFailure(w, r, err) {
		return
	}
	var ve *jobs.ValidationError
	switch {
	case errors.As(err, &ve):
		c.invalid(w, r, ve.Fields...)
	case errors.Is(err, jobs.ErrNotFound), errors.Is(err, jobs.ErrReviewNotFound):
		c.fail(w, r, nil, http.StatusNotFound, "There is no such job or review (it may have expired).")
	case errors.Is(err, jobs.ErrInvalidCursor):
		c.invalid(w, r, jobs.FieldError{Field: "cursor", Problem: "is not a cursor of this list; start again from the first page"})
	case errors.Is(err, jobs.ErrInvalidKey):
		c.invalid(w, r, jobs.FieldError{Field: "jobId", Problem: "must be <tenant>:<documentId>:v<version>"})
	case errors.Is(err, ErrUnavailable):
		c.fail(w, r, nil, http.StatusServiceUnavailable, "The job store is unavailable; try again shortly.")
	default:
		c.log.Error("console: operation failed", "path", r.URL.Path, "err", err)
		c.fail(w, r, nil, http.StatusInternalServerError, "Internal error.")
	}
}

func (c *Console) routes() *http.ServeMux {
	root := c.cfg.RootPath
	mux := http.NewServeMux()
	home := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, root+"/reviews", http.StatusSeeOther)
	}
	mux.HandleFunc("GET "+root+"/{$}", home)
	mux.HandleFunc("GET "+root, home)
	mux.HandleFunc("GET "+root+"/static/console.css", serveCSS)
	mux.HandleFunc("GET "+root+"/reviews", c.reviews)
	mux.HandleFunc("GET "+root+"/reviews/next", c.nextReview)
	mux.HandleFunc("GET "+root+"/reviews/{jobId}", c.review)
	mux.HandleFunc("POST "+root+"/reviews/{jobId}/decision", c.guard(c.decide))
	mux.HandleFunc("GET "+root+"/dlq", c.dlq)
	mux.HandleFunc("GET "+root+"/jobs/{jobId}", c.job)
	mux.HandleFunc("GET "+root+"/jobs/{jobId}/document", c.document)
	mux.HandleFunc("GET "+root+"/jobs/{jobId}/pages/{page}", c.pageImage)
	mux.HandleFunc("POST "+root+"/jobs/{jobId}/reprocess", c.guard(c.reprocess))
	mux.HandleFunc("POST "+root+"/jobs/{jobId}/correct", c.guard(c.correct))
	mux.HandleFunc("GET "+root+"/audit", c.audit)
	mux.HandleFunc("GET "+root+"/suppliers", c.suppliers)
	mux.HandleFunc("GET "+root+"/suppliers/{supplierId}", c.supplierPage)
	mux.HandleFunc("POST "+root+"/suppliers/{supplierId}/delete", c.guard(c.deleteSupplier))
	// The forms' targets answer every other method 405: no link can act.
	postOnly := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		c.fail(w, r, nil, http.StatusMethodNotAllowed, "This address takes a form (POST) only.")
	}
	mux.HandleFunc(root+"/reviews/{jobId}/decision", postOnly)
	mux.HandleFunc(root+"/jobs/{jobId}/reprocess", postOnly)
	mux.HandleFunc(root+"/jobs/{jobId}/correct", postOnly)
	mux.HandleFunc(root+"/suppliers/{supplierId}/delete", postOnly)
	mux.HandleFunc(root+"/", func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, nil, http.StatusNotFound, "There is no such page.")
	})
	return mux
}

func serveCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(stylesheet)
}

// maxForm bounds a form body: a corrected document plus the other fields.
const maxForm = 2 << 20

// guard admits a state-changing form: same-origin, a form body within
// bounds, and a valid CSRF token for the signed-in operator. A refused
// request changes nothing.
func (c *Console) guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r) {
			c.fail(w, r, nil, http.StatusForbidden, "The form was sent from another site; it was refused.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				c.fail(w, r, []jobs.FieldError{{Field: "content", Problem: "the form is larger than 2 MiB"}},
					http.StatusRequestEntityTooLarge, "The form is too large.")
				return
			}
			c.invalid(w, r, jobs.FieldError{Field: "body", Problem: "must be a URL-encoded form"})
			return
		}
		if !c.validCSRF(principal(r), r.PostForm.Get(csrfField)) {
			c.fail(w, r, []jobs.FieldError{{Field: csrfField, Problem: "is missing, wrong or expired; reload the page and submit again"}},
				http.StatusForbidden, "The form's security token was refused; nothing was changed.")
			return
		}
		next(w, r)
	}
}

// jobKey parses the {jobId} path segment; false after answering 404.
func (c *Console) jobKey(w http.ResponseWriter, r *http.Request) (jobs.Key, bool) {
	k, err := jobs.ParseKey(r.PathValue("jobId"))
	if err != nil {
		c.fail(w, r, []jobs.FieldError{{Field: "jobId", Problem: "must be <tenant>:<documentId>:v<version>"}},
			http.StatusNotFound, "There is no such job.")
		return jobs.Key{}, false
	}
	return k, true
}

// age is a duration in rough human units.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(max(d, 0)/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}
