package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// Page sizes of every list (api/openapi.json: default 50, max 500).
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// maxCursor bounds what is handed to the store; real cursors are short.
	maxCursor = 512
)

// query reads a list route's query string strictly, like bodies: unknown and
// repeated parameters are errors, collected with every other problem.
type query struct {
	vals   url.Values
	fields []jobs.FieldError
}

func parseQuery(c echo.Context, allowed ...string) *query {
	q := &query{vals: c.QueryParams()}
	names := make([]string, 0, len(q.vals))
	for k := range q.vals {
		names = append(names, k)
	}
	sort.Strings(names)
	known := map[string]bool{}
	for _, a := range allowed {
		known[a] = true
	}
	for _, k := range names {
		switch {
		case !known[k]:
			q.fail(truncate(k, 64), "is not a known parameter")
		case len(q.vals[k]) > 1:
			q.fail(k, "must be given at most once")
		}
	}
	return q
}

func (q *query) fail(field, problem string) {
	q.fields = append(q.fields, jobs.FieldError{Field: field, Problem: problem})
}

// get returns a parameter's value; "" when absent.
func (q *query) get(name string) string { return q.vals.Get(name) }

// has reports whether the parameter is present, even empty.
func (q *query) has(name string) bool { _, ok := q.vals[name]; return ok }

// limit returns ?limit=, DefaultLimit when absent.
func (q *query) limit() int {
	if !q.has("limit") {
		return DefaultLimit
	}
	s := q.get("limit")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxLimit || !plainInteger(s) {
		q.fail("limit", "must be an integer from 1 to "+strconv.Itoa(MaxLimit))
		return 0
	}
	return n
}

// cursor returns ?cursor=; an absurdly long one is an invalid cursor without
// asking the store.
func (q *query) cursor() (string, error) {
	c := q.get("cursor")
	if len(c) > maxCursor {
		return "", jobs.ErrInvalidCursor
	}
	return c, nil
}

// tenant validates a tenant filter with the key's rules.
func (q *query) tenant(name string) string {
	t := q.get(name)
	if f := jobs.ValidateTenant(t); f != nil {
		q.fail(name, f.Problem)
		return ""
	}
	return t
}

// done returns the collected problems as one invalid_request, or nil.
func (q *query) done() error {
	if len(q.fields) > 0 {
		return invalid(q.fields...)
	}
	return nil
}

// respondList finishes a list request: it checks the query, decodes the
// cursor into *cursor, makes the one store call and answers the page.
func respondList[P, V any](s *Server, c echo.Context, q *query, cursor *string, what string,
	list func(context.Context) (P, error), view func(P) V) error {
	if err := q.done(); err != nil {
		return err
	}
	var err error
	if *cursor, err = q.cursor(); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	page, err := list(ctx)
	if err != nil {
		return fmt.Errorf("api: list %s: %w", what, err)
	}
	return c.JSON(http.StatusOK, view(page))
}
