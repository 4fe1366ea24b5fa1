package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/jobs"
)

// role is what a bearer token may do.
type role int

// The roles. A tenant acts on its own tenant only; an operator acts on every
// tenant but never submits.
const (
	roleTenant role = iota + 1
	roleOperator
)

func (r role) String() string {
	switch r {
	case roleTenant:
		return "tenant"
	case roleOperator:
		return "operator"
	}
	return "unknown"
}

// caller is the authenticated caller: a tenant (name is the tenant) or an
// operator (name is the identity written to the audit trail).
type caller struct {
	role role
	name string
}

// hashedToken is a configured token, kept as its SHA-256 so that comparisons
// take the same time whatever the length of the presented token.
type hashedToken struct {
	role role
	name string
	hash [sha256.Size]byte
}

// authenticator holds every configured token.
type authenticator struct {
	creds []hashedToken
}

func newAuthenticator(tenants, operators []credential.Credential) *authenticator {
	a := &authenticator{}
	for _, c := range tenants {
		a.creds = append(a.creds, hashedToken{roleTenant, c.Name, sha256.Sum256([]byte(c.Token))})
	}
	for _, c := range operators {
		a.creds = append(a.creds, hashedToken{roleOperator, c.Name, sha256.Sum256([]byte(c.Token))})
	}
	return a
}

// lookup finds the owner of token. It compares against every credential in
// constant time, so neither the match position nor a prefix leaks.
func (a *authenticator) lookup(token string) (caller, bool) {
	sum := sha256.Sum256([]byte(token))
	var found caller
	ok := 0
	for _, c := range a.creds {
		if subtle.ConstantTimeCompare(sum[:], c.hash[:]) == 1 {
			found = caller{role: c.role, name: c.name}
			ok = 1
		}
	}
	return found, ok == 1
}

// twoAuthorizations answers a request with more than one Authorization
// header: which one would count is a guess a proxy and this server could
// make differently.
func twoAuthorizations() *Error {
	return invalid(jobs.FieldError{Field: "Authorization", Problem: "must be given at most once"})
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header.
// The scheme is case-insensitive (RFC 9110).
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// noBearerToken says why a request has no bearer token, for its 401: a
// client that sent the bare token, or another scheme, learns what to send.
// It never repeats the header, which holds a credential.
func noBearerToken(r *http.Request) string {
	const how = "send Authorization: Bearer <token>"
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, _, hasSpace := strings.Cut(h, " ")
	switch {
	case h == "":
		return "missing bearer token: " + how
	case strings.EqualFold(scheme, "Bearer"):
		return "the Authorization header names the Bearer scheme but no token: " + how
	case !hasSpace:
		return "the Authorization header's scheme is missing (a bare token?): " + how
	default:
		return "the Authorization header's scheme is not Bearer: " + how
	}
}

const principalKey = "relayops.principal"

// authenticate is the middleware of every /v1 route: it admits a valid
// token whose role is one of roles, and answers 401 or 403 otherwise. The
// 403 message says which kind of token the route wants.
func (s *Server) authenticate(roles ...role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if len(c.Request().Header.Values("Authorization")) > 1 {
				return twoAuthorizations()
			}
			token, ok := bearerToken(c.Request())
			if !ok {
				return s.unauthorized(c, noBearerToken(c.Request()))
			}
			p, ok := s.auth.lookup(token)
			if !ok {
				return s.unauthorized(c, "unknown bearer token")
			}
			c.Set(principalKey, p)
			for _, r := range roles {
				if p.role == r {
					return next(c)
				}
			}
			return forbidden("this route needs " + roleList(roles) + " token")
		}
	}
}

func roleList(roles []role) string {
	if len(roles) == 1 && roles[0] == roleOperator {
		return "an operator"
	}
	return "a tenant"
}

// principal returns the caller admitted by authenticate.
func principal(c echo.Context) caller {
	p, _ := c.Get(principalKey).(caller)
	return p
}

// metricsAuth guards /metrics with Config.MetricsToken, when set: only that
// bearer token is admitted (tenant and operator tokens are not).
func (s *Server) metricsAuth() echo.MiddlewareFunc {
	want := sha256.Sum256([]byte(s.cfg.MetricsToken))
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if s.cfg.MetricsToken == "" {
			return next
		}
		return func(c echo.Context) error {
			if len(c.Request().Header.Values("Authorization")) > 1 {
				return twoAuthorizations()
			}
			token, ok := bearerToken(c.Request())
			got := sha256.Sum256([]byte(token))
			if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				return s.unauthorized(c, "/metrics needs the metrics bearer token")
			}
			return next(c)
		}
	}
}

// unauthorized answers a failed authentication: 401, or 429 once the
// client's address has failed too often (authThrottle).
func (s *Server) unauthorized(c echo.Context, msg string) *Error {
	if wait := s.authThrottle.fail(c.RealIP()); wait > 0 {
		return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
			Message: "too many failed authentications from this address; retry later", RetryAfter: wait}
	}
	return &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: msg}
}
