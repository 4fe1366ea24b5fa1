// Package supplier is who sent a document, per tenant: the identity of a
// supplier (the identifiers its documents print: VAT id, tax and company
// registrations, GLN, IBAN, e-mail domain; its normalised name only as a
// fallback), the fingerprint that catches the same invoice arriving twice
// under another document ID, and the profile learned from people's
// corrections and approvals that reads its next documents.
//
// Everything of one tenant lives under that tenant's own hash tag
// ({sup:<tenant>}), so each script touches one slot and runs on Redis
// Cluster; nothing is shared between tenants. Identifiers and numbers are
// stored only as hashes salted with the tenant.
package supplier

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/keyring"
	"github.com/relayops/relayops/jobs"
)

// Config configures a Store.
type Config struct {
	// Redis is the connection. Required; like the job store's, it must
	// not retry scripts by itself.
	Redis redis.UniversalClient
	// Clock is the source of "now". Default clock.Real{}.
	Clock clock.Clock
	// Window is how long a fingerprint and an alias are kept after their
	// last use: the duplicate check's memory. Default 400 days (the
	// ledger's retention); negative keeps them forever.
	Window time.Duration
	// Keys encrypts the stored profiles (the data key ring); nil stores
	// them in clear.
	Keys *keyring.Ring
	// MaxBytes is each tenant's budget of supplier data (profiles);
	// default 16 MiB; negative: none.
	MaxBytes int64
	// AuditRetention is how long the supplier audit keeps its entries.
	// Default 400 days (the job audit's).
	AuditRetention time.Duration
}

// DefaultMaxBytes is Config.MaxBytes's default.
const DefaultMaxBytes = 16 << 20

// DefaultWindow is Config.Window's default: the ledger's retention.
var DefaultWindow = jobs.DefaultRetention.Ledger

func (c Config) withDefaults() Config {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Window < 0 {
		c.Window = 0
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxBytes < 0 {
		c.MaxBytes = 0
	}
	if c.AuditRetention == 0 {
		c.AuditRetention = jobs.DefaultRetention.Audit
	}
	return c
}

func (c Config) validate() error {
	if c.Redis == nil {
		return errors.New("supplier: Config.Redis is required")
	}
	return nil
}

// Store keeps the suppliers of every tenant.
type Store struct {
	rdb            redis.UniversalClient
	clock          clock.Clock
	window         time.Duration
	keys           *keyring.Ring
	maxBytes       int64
	auditRetention time.Duration
}

// NewStore checks cfg and returns a Store. A zero Window is the default;
// pass a negative one to keep fingerprints forever.
func NewStore(cfg Config) (*Store, error) {
	if cfg.Window == 0 {
		cfg.Window = DefaultWindow
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Store{rdb: cfg.Redis, clock: cfg.Clock, window: cfg.Window, keys: cfg.Keys, maxBytes: cfg.MaxBytes,
		auditRetention: cfg.AuditRetention}, nil
}

// tenantKey is a key of tenant's supplier data, in its own slot.
func tenantKey(tenant, name string) string { return "ro:{sup:" + tenant + "}:" + name }

//go:embed lua/claim.lua
var claimLua string

// claimScript runs after lib.lua, the resolution it shares with
// resolve.lua.
var claimScript = redis.NewScript(libLua + "\n" + claimLua)

// Claim resolves the supplier of the committed document of job k and
// claims its fingerprint: the answer says whether another document of the
// tenant already has its number (a possible duplicate), and which job
// holds the invoice a credit note refers to. It is idempotent: the review
// consumer runs it again for a redelivered event and gets the same
// answer. A nil Match means nothing to record.
func (s *Store) Claim(ctx context.Context, k jobs.Key, fp Fingerprint) (*jobs.Match, error) {
	keys, args := s.claimArgs(k, fp)
	v, err := claimScript.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("supplier: claim %s: %w", k, err)
	}
	return decodeClaim(v)
}

// ClaimEvents claims the fingerprint of every extraction.committed event
// that carries one and sets its Match, in one pipeline (each claim in its
// tenant's slot). A malformed fingerprint is skipped (nothing to claim);
// a failed claim fails the batch, whose rows stay pending and are
// delivered again.
func (s *Store) ClaimEvents(ctx context.Context, evs []jobs.Event) error {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(evs))
	for i, ev := range evs {
		if ev.Type != jobs.EventExtractionCommitted || ev.Fingerprint == "" {
			continue
		}
		fp, err := DecodeFingerprint(ev.Fingerprint)
		if err != nil {
			continue
		}
		keys, args := s.claimArgs(ev.Key, fp)
		cmds[i] = claimScript.EvalSha(ctx, pipe, keys, args...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		return fmt.Errorf("supplier: claim %d events: %w", len(evs), err)
	}
	for i, cmd := range cmds {
		if cmd == nil {
			continue
		}
		v, err := cmd.StringSlice()
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			fp, _ := DecodeFingerprint(evs[i].Fingerprint)
			keys, args := s.claimArgs(evs[i].Key, fp)
			v, err = claimScript.Run(ctx, s.rdb, keys, args...).StringSlice()
		}
		if err != nil {
			return fmt.Errorf("supplier: claim %s: %w", evs[i].Key, err)
		}
		if evs[i].Match, err = decodeClaim(v); err != nil {
			return err
		}
	}
	return nil
}

// claimArgs lays out claim.lua's KEYS and ARGV.
func (s *Store) claimArgs(k jobs.Key, fp Fingerprint) ([]string, []any) {
	t := k.Tenant
	keys := make([]string, 0, len(fp.Keys)+3)
	for _, id := range fp.Keys {
		keys = append(keys, tenantKey(t, "a:"+id))
	}
	pre, hasPre := fp.Number, "0"
	if fp.Preceding != "" {
		pre, hasPre = fp.Preceding, "1"
	}
	keys = append(keys, tenantKey(t, "n:"+fp.Number), tenantKey(t, "m:"+fp.Amount), tenantKey(t, "n:"+pre))
	args := []any{s.clock.Now().UnixMilli(), s.window.Milliseconds(), k.String(), k.Tenant + "/" + k.DocumentID, len(fp.Keys)}
	for _, id := range fp.Keys {
		args = append(args, id)
	}
	args = append(args, fp.Number, fp.Amount, fp.Total, hasPre)
	return keys, args
}

// decodeClaim reads claim.lua's answer {supplier, status, of, matched,
// credits}.
func decodeClaim(v []string) (*jobs.Match, error) {
	if len(v) != 5 {
		return nil, fmt.Errorf("supplier: claim answered %d values, want 5", len(v))
	}
	m := &jobs.Match{}
	if v[1] == jobs.DuplicateStrong || v[1] == jobs.DuplicateWeak {
		of, err := jobs.ParseKey(v[2])
		if err != nil {
			return nil, fmt.Errorf("supplier: claim: first job: %w", err)
		}
		m.Strength, m.Of, m.Matched = v[1], of, strings.Split(v[3], ",")
	}
	if v[4] != "" {
		c, err := jobs.ParseKey(v[4])
		if err != nil {
			return nil, fmt.Errorf("supplier: claim: credited job: %w", err)
		}
		m.Credits = &c
	}
	if m.Strength == "" && m.Credits == nil {
		return nil, nil
	}
	return m, nil
}
