// Package dashboard serves asynqmon, the Asynq web UI, read-only and behind
// operator authentication, for mounting under /monitoring by the API server.
//
// Operators sign in with HTTP Basic auth, user = operator name and password =
// operator token (RELAYOPS_OPERATOR_TOKENS), so a browser prompts for them;
// scripts may send the operator token as a bearer token instead. Every method
// but GET and HEAD is refused with 405 before asynqmon sees the request, on
// top of asynqmon's own ReadOnly mode, so no task can be run, deleted,
// archived or cancelled from here. Task payloads are references (job keys)
// and task errors are reason codes by design; task results, which a handler
// might fill with document data, are never shown.
package dashboard

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/credential"
)

// DefaultRootPath is where the dashboard is mounted.
const DefaultRootPath = "/monitoring"

// Config configures a Dashboard.
type Config struct {
	// RedisURL is Asynq's Redis (redis://, rediss:// or unix://). Exactly
	// one of RedisURL and RedisCluster is required.
	RedisURL string
	// RedisCluster is Asynq's Redis when it is a Redis Cluster.
	RedisCluster *redis.ClusterOptions
	// Operators may sign in. With none, every request is refused.
	Operators []credential.Credential
	// PrometheusURL, when set, lets asynqmon chart queue metrics.
	PrometheusURL string
	// RootPath is the mount path; default DefaultRootPath.
	RootPath string
	// Realm is the HTTP auth realm; default "relayops".
	Realm  string
	Logger *slog.Logger // default: discard
}

func (c Config) withDefaults() Config {
	if c.RootPath == "" {
		c.RootPath = DefaultRootPath
	}
	if c.Realm == "" {
		c.Realm = "relayops"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if (c.RedisURL == "") == (c.RedisCluster == nil) {
		errs = append(errs, errors.New("dashboard: exactly one of Config.RedisURL and Config.RedisCluster is required"))
	}
	if !strings.HasPrefix(c.RootPath, "/") || strings.HasSuffix(c.RootPath, "/") {
		errs = append(errs, fmt.Errorf("dashboard: Config.RootPath must start and not end with '/', got %q", c.RootPath))
	}
	if strings.ContainsAny(c.Realm, "\"\\\r\n") {
		errs = append(errs, errors.New("dashboard: Config.Realm must not contain quotes, backslashes or line breaks"))
	}
	return errors.Join(errs...)
}

// Dashboard is an http.Handler serving asynqmon under RootPath. Create it
// with New and Close it when done.
type Dashboard struct {
	mon        *asynqmon.HTTPHandler
	operators  []operator
	challenge  string
	apiPrefix  string // RootPath + "/api/"
	promOrigin string // " <origin>" of the Prometheus the page queries, or ""
	log        *slog.Logger
}

// operator is a credential kept as hashes, so comparisons take the same time
// whatever the lengths presented.
type operator struct {
	name, token [sha256.Size]byte
}

// New validates cfg and builds the dashboard. It does not connect to Redis
// until a page asks for data.
func New(cfg Config) (*Dashboard, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	conn, err := cfg.connOpt()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{
		mon: asynqmon.New(asynqmon.Options{
			RootPath:          cfg.RootPath,
			RedisConnOpt:      conn,
			ReadOnly:          true,
			PrometheusAddress: cfg.PrometheusURL,
			ResultFormatter:   asynqmon.ResultFormatterFunc(hideResult),
		}),
		challenge:  fmt.Sprintf(`Basic realm="%s", charset="UTF-8"`, cfg.Realm),
		apiPrefix:  cfg.RootPath + "/api/",
		promOrigin: origin(cfg.PrometheusURL),
		log:        cfg.Logger,
	}
	for _, c := range cfg.Operators {
		d.operators = append(d.operators, operator{sha256.Sum256([]byte(c.Name)), sha256.Sum256([]byte(c.Token))})
	}
	return d, nil
}

// Close releases asynqmon's Redis connections.
func (d *Dashboard) Close() error { return d.mon.Close() }

// ServeHTTP authenticates the operator, refuses every write, and hands the
// request to asynqmon, whose page it serves self-contained under a
// Content-Security-Policy and whose errors it answers in the API's shape.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", d.policy())
	if len(r.Header.Values("Authorization")) > 1 {
		writeError(w, r, http.StatusBadRequest, "invalid_request", "send at most one Authorization header")
		return
	}
	if !d.authenticated(r) {
		// A browser's first request always lands here, before its prompt.
		d.log.Debug("dashboard: credentials missing or refused", "path", r.URL.EscapedPath())
		h.Set("WWW-Authenticate", d.challenge)
		writeError(w, r, http.StatusUnauthorized, "unauthorized", "operator credentials required")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "the dashboard is read-only")
		return
	}
	apiPath, isAPI := strings.CutPrefix(r.URL.Path, d.apiPrefix)
	rw := &rewriter{w: w, hold: isAPI}
	d.mon.ServeHTTP(rw, r)
	d.finish(w, r, rw, apiPath)
}

// authenticated accepts HTTP Basic (operator name and token) or an operator
// bearer token, comparing against every operator in constant time.
func (d *Dashboard) authenticated(r *http.Request) bool {
	name, token, basic := r.BasicAuth()
	if !basic {
		scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(t) == "" {
			return false
		}
		token = strings.TrimSpace(t)
	}
	nameSum, tokenSum := sha256.Sum256([]byte(name)), sha256.Sum256([]byte(token))
	found := 0
	for _, op := range d.operators {
		nameOK := subtle.ConstantTimeCompare(nameSum[:], op.name[:])
		if !basic {
			nameOK = 1 // a bearer token names its operator by itself
		}
		found |= nameOK & subtle.ConstantTimeCompare(tokenSum[:], op.token[:])
	}
	return found == 1
}

// writeError answers with the API's error body. The request ID is the one
// the API server assigned (set on the response before the dashboard runs).
func writeError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	id := w.Header().Get("X-Request-ID")
	if id == "" {
		id = r.Header.Get("X-Request-ID")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]string{"code": code, "message": msg, "requestId": id},
	})
}

// hideResult keeps task results out of the UI: a handler may write document
// data there, which operators must not browse.
func hideResult(_ string, result []byte) string {
	return fmt.Sprintf("(%d bytes, hidden)", len(result))
}

// connOpt is asynqmon's connection: a copy of the cluster options, or the
// single Redis the URL names.
func (c Config) connOpt() (asynq.RedisConnOpt, error) {
	if c.RedisCluster != nil {
		o := *c.RedisCluster
		return clusterConnOpt{&o}, nil
	}
	opt, err := redis.ParseURL(c.RedisURL)
	if err != nil {
		return nil, errors.New("dashboard: Config.RedisURL does not parse (value not shown)")
	}
	return connOpt{opt}, nil
}

// connOpt gives asynqmon a client built from the full Redis URL (TLS, unix
// sockets, credentials, database), which asynq's own URI parser does not
// all support.
type connOpt struct{ opt *redis.Options }

// MakeRedisClient implements asynq.RedisConnOpt.
func (c connOpt) MakeRedisClient() any {
	o := *c.opt
	return redis.NewClient(&o)
}

// clusterConnOpt gives asynqmon a cluster client with the caller's options
// (asynq.RedisClusterClientOpt carries only some of them).
type clusterConnOpt struct{ opt *redis.ClusterOptions }

// MakeRedisClient implements asynq.RedisConnOpt.
func (c clusterConnOpt) MakeRedisClient() any {
	o := *c.opt
	return redis.NewClusterClient(&o)
}
