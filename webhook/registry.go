package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/keyring"
	"github.com/relayops/relayops/jobs"
)

// ErrNotFound: no endpoint has that ID (or it belongs to another tenant,
// which callers answer alike).
var ErrNotFound = errors.New("webhook: endpoint not found")

// RegistryConfig configures a Registry.
type RegistryConfig struct {
	// Redis is the connection (the job store's: it does not retry
	// scripts). Required.
	Redis redis.UniversalClient
	// Clock is the source of "now". Default clock.Real{}.
	Clock clock.Clock
	// Policy decides which URLs may be registered. Default: https, public
	// addresses only.
	Policy TargetPolicy
	// Resolver resolves endpoint hosts at registration. Default
	// net.DefaultResolver.
	Resolver *net.Resolver
	// RotationGrace is how long a rotated-out secret keeps signing beside
	// the new one. Default 24h.
	RotationGrace time.Duration
	// MaxEndpoints bounds the endpoints of one tenant. Default 20.
	MaxEndpoints int
	// AttemptsKept is how many recent attempts each endpoint keeps for
	// GET /v1/webhooks/{id}/deliveries. Default 100.
	AttemptsKept int
	// Keys, when set, encrypts the signing secrets stored in Redis (the job
	// store's ring: jobs.Store.Keys). Default nil: stored in clear.
	Keys *keyring.Ring
}

func (c RegistryConfig) withDefaults() RegistryConfig {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	if c.RotationGrace == 0 {
		c.RotationGrace = 24 * time.Hour
	}
	if c.MaxEndpoints == 0 {
		c.MaxEndpoints = 20
	}
	if c.AttemptsKept == 0 {
		c.AttemptsKept = 100
	}
	return c
}

func (c RegistryConfig) validate() error {
	var errs []error
	if c.Redis == nil {
		errs = append(errs, errors.New("webhook: RegistryConfig.Redis is required"))
	}
	if c.RotationGrace < 0 {
		errs = append(errs, fmt.Errorf("webhook: RegistryConfig.RotationGrace must not be negative, got %s", c.RotationGrace))
	}
	if c.MaxEndpoints < 1 || c.AttemptsKept < 1 {
		errs = append(errs, errors.New("webhook: RegistryConfig.MaxEndpoints and AttemptsKept must be positive"))
	}
	return errors.Join(errs...)
}

// Endpoint is a registered webhook endpoint. Its secrets are never part of
// its JSON: the API shows the secret once, in the answer that creates or
// rotates it.
type Endpoint struct {
	ID        string    `json:"id"`
	Tenant    string    `json:"tenant"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
	// Disabled says why deliveries to the endpoint stopped; nil while
	// enabled.
	Disabled *Disabled `json:"disabled,omitempty"`
	// ConsecutiveFailures counts failed attempts since the last success.
	ConsecutiveFailures int `json:"consecutiveFailures"`

	secrets secrets
}

// Disabled says why and when an endpoint was disabled.
type Disabled struct {
	// Reason is "gone" (it answered 410 Gone) or "consecutive_failures".
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Reasons an endpoint is disabled.
const (
	DisabledGone                = "gone"
	DisabledConsecutiveFailures = "consecutive_failures"
)

// secrets are an endpoint's signing secrets: the current one and, during
// a rotation's grace period, the previous one.
type secrets struct {
	current, previous string
	previousUntil     time.Time
}

// signing returns the secrets that sign at now, current first.
func (s secrets) signing(now time.Time) []string {
	if s.previous != "" && now.Before(s.previousUntil) {
		return []string{s.current, s.previous}
	}
	return []string{s.current}
}

// A stored secrets value is "current|previous|previous valid until (unix
// ms)". Each secret in it is either in clear ("whsec_…", as stored without
// a data key, and before secrets were encrypted) or sealed: sealedSecret
// and the unpadded base64 of keyring.Ring.Seal's output, with associated
// data naming the kind of value, the tenant and the endpoint, so a secret
// copied to another endpoint does not open. Neither form holds '|', so
// rotate.lua moves the current secret to previous without opening it.
const sealedSecret = "sealed1."

// secretAD binds a sealed secret to its endpoint.
func secretAD(tenant, id string) []byte { return []byte("webhook_secret\x00" + tenant + ":" + id) }

// sealSecret is what the store holds for secret of endpoint id.
func (r *Registry) sealSecret(tenant, id, secret string) (string, error) {
	if !r.cfg.Keys.Enabled() || secret == "" {
		return secret, nil
	}
	b, err := r.cfg.Keys.Seal(nil, []byte(secret), secretAD(tenant, id))
	if err != nil {
		return "", fmt.Errorf("webhook: seal secret: %w", err)
	}
	return sealedSecret + base64.RawStdEncoding.EncodeToString(b), nil
}

// openSecret reverses sealSecret; a secret in clear is returned as it is.
func (r *Registry) openSecret(tenant, id, stored string) (string, error) {
	b64, ok := strings.CutPrefix(stored, sealedSecret)
	if !ok {
		return stored, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("webhook: endpoint %s: %w", id, keyring.ErrUnopenable)
	}
	pt, err := r.cfg.Keys.Open(b, 0, secretAD(tenant, id))
	if err != nil {
		return "", fmt.Errorf("webhook: endpoint %s: %w", id, err)
	}
	return string(pt), nil
}

// encodeSecrets is the stored value of s (a new endpoint's, so nothing
// to rotate).
func (r *Registry) encodeSecrets(tenant, id string, s secrets) (string, error) {
	cur, err := r.sealSecret(tenant, id, s.current)
	if err != nil {
		return "", err
	}
	prev, err := r.sealSecret(tenant, id, s.previous)
	if err != nil {
		return "", err
	}
	return cur + "|" + prev + "|" + strconv.FormatInt(s.previousUntil.UnixMilli(), 10), nil
}

// decodeSecrets reads a stored secrets value, opening sealed secrets.
func (r *Registry) decodeSecrets(tenant, id, v string) (secrets, error) {
	parts := strings.SplitN(v, "|", 3)
	var s secrets
	var err error
	if s.current, err = r.openSecret(tenant, id, parts[0]); err != nil {
		return secrets{}, err
	}
	if len(parts) == 3 {
		ms, _ := strconv.ParseInt(parts[2], 10, 64)
		if s.previous, err = r.openSecret(tenant, id, parts[1]); err != nil {
			return secrets{}, err
		}
		s.previousUntil = time.UnixMilli(ms).UTC()
	}
	return s, nil
}

// Registry stores endpoints and their delivery attempts in Redis. Every
// key of a tenant carries the hash tag {wh:<tenant>}; the endpoint ID
// names its tenant, so every call on an endpoint touches one slot.
type Registry struct {
	cfg RegistryConfig
	rdb redis.UniversalClient
}

// NewRegistry checks cfg and returns a Registry.
func NewRegistry(cfg RegistryConfig) (*Registry, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Registry{cfg: cfg, rdb: cfg.Redis}, nil
}

// Policy returns the registry's target policy.
func (r *Registry) Policy() TargetPolicy { return r.cfg.Policy }

// The keys of a tenant. tenantsKey lists the tenants that have (or had)
// endpoints, for the operator's list of all endpoints; it is written in its
// own call (another slot) before the endpoint, so it never misses one.
const tenantsKey = "ro:wh:tenants"

func tenantKey(tenant, name string) string { return "ro:{wh:" + tenant + "}:" + name }

func endpointsKey(tenant string) string { return tenantKey(tenant, "endpoints") }
func secretsKey(tenant string) string   { return tenantKey(tenant, "secrets") }
func disabledKey(tenant string) string  { return tenantKey(tenant, "disabled") }
func failuresKey(tenant string) string  { return tenantKey(tenant, "failures") }
func attemptsKey(tenant, id string) string {
	return tenantKey(tenant, "attempts:"+id)
}

// idRe is the shape of an endpoint ID: wh_<tenant>_<20 hex>. Tenants have no
// underscore, so the tenant is read back unambiguously.
var idRe = regexp.MustCompile(`^wh_([a-z][a-z0-9-]{1,32})_([0-9a-f]{20})$`)

// TenantOf returns the tenant an endpoint ID belongs to; false when id is
// not an endpoint ID.
func TenantOf(id string) (string, bool) {
	m := idRe.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func newID(tenant string) string { return "wh_" + tenant + "_" + hex.EncodeToString(random(10)) }

// NewSecret returns a fresh signing secret: "whsec_" and the base64 of 32
// random bytes, the Standard Webhooks format.
func NewSecret() string { return "whsec_" + base64.StdEncoding.EncodeToString(random(32)) }

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return b
}

// Registration is a request to register an endpoint.
type Registration struct {
	Tenant string
	URL    string
	Events []string
}

// Create validates reg and registers the endpoint; it returns the endpoint
// and its secret, which nothing else ever returns. Invalid input is a
// *jobs.ValidationError naming every bad field (tenant, url, events), and
// nothing is written.
func (r *Registry) Create(ctx context.Context, reg Registration) (*Endpoint, string, error) {
	if err := r.checkRegistration(ctx, reg); err != nil {
		return nil, "", err
	}
	n, err := r.rdb.HLen(ctx, endpointsKey(reg.Tenant)).Result()
	if err != nil {
		return nil, "", fmt.Errorf("webhook: create: %w", err)
	}
	if int(n) >= r.cfg.MaxEndpoints {
		return nil, "", &jobs.ValidationError{Fields: []jobs.FieldError{{Field: "tenant",
			Problem: fmt.Sprintf("has %d endpoints, the most allowed", r.cfg.MaxEndpoints)}}}
	}
	events := slices.Clone(reg.Events)
	slices.Sort(events)
	ep := &Endpoint{ID: newID(reg.Tenant), Tenant: reg.Tenant, URL: reg.URL, Events: slices.Compact(events),
		CreatedAt: r.cfg.Clock.Now().UTC().Truncate(time.Millisecond)}
	secret := NewSecret()
	stored, err := r.encodeSecrets(reg.Tenant, ep.ID, secrets{current: secret})
	if err != nil {
		return nil, "", err
	}
	b, _ := json.Marshal(ep) // strings, a time: cannot fail
	if err := r.rdb.SAdd(ctx, tenantsKey, reg.Tenant).Err(); err != nil {
		return nil, "", fmt.Errorf("webhook: create: %w", err)
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, secretsKey(reg.Tenant), ep.ID, stored)
		p.HSet(ctx, endpointsKey(reg.Tenant), ep.ID, b)
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("webhook: create: %w", err)
	}
	return ep, secret, nil
}

// checkRegistration names every bad field of reg.
func (r *Registry) checkRegistration(ctx context.Context, reg Registration) error {
	var fields []jobs.FieldError
	if f := jobs.ValidateTenant(reg.Tenant); f != nil {
		fields = append(fields, *f)
	}
	if err := r.cfg.Policy.CheckURL(ctx, reg.URL, r.cfg.Resolver); err != nil {
		fields = append(fields, jobs.FieldError{Field: "url", Problem: urlProblem(err)})
	}
	if len(reg.Events) == 0 {
		fields = append(fields, jobs.FieldError{Field: "events", Problem: "must list at least one of " + strings.Join(EventTypes, ", ")})
	}
	for i, e := range reg.Events {
		if !KnownEvent(e) {
			fields = append(fields, jobs.FieldError{Field: fmt.Sprintf("events[%d]", i), Problem: "must be one of " + strings.Join(EventTypes, ", ")})
		}
	}
	if fields != nil {
		return &jobs.ValidationError{Fields: fields}
	}
	return nil
}

func urlProblem(err error) string {
	switch {
	case errors.Is(err, ErrInsecureURL):
		return "must use https"
	case errors.Is(err, ErrForbiddenAddress):
		return "must not resolve to a private, loopback, link-local or metadata address"
	case errors.Is(err, ErrBadURL):
		return "must be an absolute https URL with a host, without credentials or fragment"
	}
	return "host does not resolve"
}

// Get returns the endpoint id (without secrets exposed).
func (r *Registry) Get(ctx context.Context, id string) (*Endpoint, error) {
	tenant, ok := TenantOf(id)
	if !ok {
		return nil, ErrNotFound
	}
	var ep, sec, dis, fails *redis.StringCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		ep = p.HGet(ctx, endpointsKey(tenant), id)
		sec = p.HGet(ctx, secretsKey(tenant), id)
		dis = p.HGet(ctx, disabledKey(tenant), id)
		fails = p.HGet(ctx, failuresKey(tenant), id)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("webhook: get %s: %w", id, err)
	}
	if ep.Err() != nil {
		return nil, ErrNotFound
	}
	e, err := decodeEndpoint(ep.Val(), dis.Val(), fails.Val())
	if err != nil {
		return nil, err
	}
	if e.secrets, err = r.decodeSecrets(tenant, id, sec.Val()); err != nil {
		return nil, err
	}
	return e, nil
}

func decodeEndpoint(v, disabled, failures string) (*Endpoint, error) {
	var e Endpoint
	if err := json.Unmarshal([]byte(v), &e); err != nil {
		return nil, fmt.Errorf("webhook: malformed endpoint record: %w", err)
	}
	e.Disabled = decodeDisabled(disabled)
	e.ConsecutiveFailures, _ = strconv.Atoi(failures)
	return &e, nil
}

func decodeDisabled(v string) *Disabled {
	if v == "" {
		return nil
	}
	reason, at, _ := strings.Cut(v, "|")
	ms, _ := strconv.ParseInt(at, 10, 64)
	return &Disabled{Reason: reason, At: time.UnixMilli(ms).UTC()}
}

// List returns a tenant's endpoints, oldest first.
func (r *Registry) List(ctx context.Context, tenant string) ([]*Endpoint, error) {
	var eps, dis, fails *redis.MapStringStringCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		eps = p.HGetAll(ctx, endpointsKey(tenant))
		dis = p.HGetAll(ctx, disabledKey(tenant))
		fails = p.HGetAll(ctx, failuresKey(tenant))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webhook: list %s: %w", tenant, err)
	}
	out := make([]*Endpoint, 0, len(eps.Val()))
	for id, v := range eps.Val() {
		e, err := decodeEndpoint(v, dis.Val()[id], fails.Val()[id])
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Endpoint) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// ListAll returns every tenant's endpoints, by tenant.
func (r *Registry) ListAll(ctx context.Context) ([]*Endpoint, error) {
	tenants, err := r.rdb.SMembers(ctx, tenantsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("webhook: list tenants: %w", err)
	}
	slices.Sort(tenants)
	var out []*Endpoint
	for _, t := range tenants {
		eps, err := r.List(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, eps...)
	}
	return out, nil
}

//go:embed lua/delete.lua
var deleteLua string

//go:embed lua/rotate.lua
var rotateLua string

//go:embed lua/record.lua
var recordLua string

var (
	deleteScript = redis.NewScript(deleteLua)
	rotateScript = redis.NewScript(rotateLua)
	recordScript = redis.NewScript(recordLua)
)

// Delete removes endpoint id and its recorded attempts. Deliveries already
// queued for it end without a request when they find it gone.
func (r *Registry) Delete(ctx context.Context, id string) error {
	tenant, ok := TenantOf(id)
	if !ok {
		return ErrNotFound
	}
	keys := []string{endpointsKey(tenant), secretsKey(tenant), disabledKey(tenant), failuresKey(tenant), attemptsKey(tenant, id)}
	n, err := deleteScript.Run(ctx, r.rdb, keys, id).Int()
	if err != nil {
		return fmt.Errorf("webhook: delete %s: %w", id, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Rotation is the answer of Rotate.
type Rotation struct {
	Secret string
	// PreviousValidUntil is when the old secret stops signing.
	PreviousValidUntil time.Time
}

// Rotate gives endpoint id a new secret. Until RotationGrace has passed,
// every delivery is signed with both (webhook-signature carries two v1
// signatures), so the receiver can switch secrets without losing any.
func (r *Registry) Rotate(ctx context.Context, id string) (*Rotation, error) {
	tenant, ok := TenantOf(id)
	if !ok {
		return nil, ErrNotFound
	}
	rot := &Rotation{Secret: NewSecret(), PreviousValidUntil: r.cfg.Clock.Now().Add(r.cfg.RotationGrace).UTC().Truncate(time.Millisecond)}
	stored, err := r.sealSecret(tenant, id, rot.Secret)
	if err != nil {
		return nil, err
	}
	st, err := rotateScript.Run(ctx, r.rdb, []string{secretsKey(tenant)}, id, stored, rot.PreviousValidUntil.UnixMilli()).Text()
	if err != nil {
		return nil, fmt.Errorf("webhook: rotate %s: %w", id, err)
	}
	if st != "rotated" {
		return nil, ErrNotFound
	}
	return rot, nil
}
