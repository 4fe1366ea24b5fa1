package supplier

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/keyring"
)

// The stored profiles of a tenant's suppliers: each a sealed JSON value
// (encrypted under the data keys when they are set, bound to its tenant and
// supplier), versioned, listed by when it last changed, counted in the
// tenant's budget of supplier data, and audited in the tenant's supplier
// audit stream. The profile's content is package supplier's Profile; the
// store holds its bytes.

// Errors of the profile store.
var (
	// ErrProfileNotFound: no profile for this supplier of this tenant.
	ErrProfileNotFound = errors.New("supplier: profile not found")
	// ErrProfileConflict: another learning changed the profile first; the
	// caller learns again from the stored version.
	ErrProfileConflict = errors.New("supplier: profile changed concurrently")
	// ErrQuota: the tenant's supplier data is at its budget
	// (RELAYOPS_TENANT_MAX_SUPPLIER_BYTES): nothing more is learned until
	// profiles are deleted or the budget raised.
	ErrQuota = errors.New("supplier: the tenant's supplier data budget is used up")
)

// StoredProfile is one stored profile: its supplier, version, when it
// changed and its JSON (a Profile); Reads and Misses count the documents
// read with it (any version) and those of them that then missed
// (CountRead; FlaggedCounts judges them).
type StoredProfile struct {
	Supplier      string
	Version       int
	Updated       time.Time
	Data          json.RawMessage
	Reads, Misses int
}

// ProfileEvent is one entry of a tenant's supplier audit: a profile
// learned or deleted.
type ProfileEvent struct {
	ID       string // the stream entry's ID
	Action   string // "profile_learned" or "profile_deleted"
	Supplier string
	Version  int
	Job      string   // profile_learned: the job it learned from
	Kind     string   // profile_learned: "correction" or "approval"
	Operator string   // who corrected or approved, or deleted
	Fields   []string // profile_learned: the fields whose anchors it learned or refined
	At       time.Time
}

// Audit actions of the supplier audit stream.
const (
	ActionProfileLearned = "profile_learned"
	ActionProfileDeleted = "profile_deleted"
)

var (
	//go:embed lua/lib.lua
	libLua string
	//go:embed lua/resolve.lua
	resolveLua string
	//go:embed lua/save.lua
	saveLua string
	//go:embed lua/delete.lua
	deleteLua string
	//go:embed lua/count.lua
	countLua string

	resolveScript = redis.NewScript(libLua + "\n" + resolveLua)
	saveScript    = redis.NewScript(saveLua)
	deleteScript  = redis.NewScript(deleteLua)
	countScript   = redis.NewScript(countLua)
)

func profileKey(tenant, supplier string) string { return tenantKey(tenant, "p:"+supplier) }
func profilesKey(tenant string) string          { return tenantKey(tenant, "profiles") }
func bytesKey(tenant string) string             { return tenantKey(tenant, "bytes") }
func auditKey(tenant string) string             { return tenantKey(tenant, "audit") }

// profileAD binds a sealed profile to its tenant and supplier.
func profileAD(tenant, supplier string) []byte {
	return []byte("supplier_profile\x00" + tenant + ":" + supplier)
}

// Stored values: 'p' then the JSON in clear (no data key), or 's' then
// keyring.Ring.Seal's output.
const (
	plainValue  = 'p'
	sealedValue = 's'
)

func (s *Store) seal(tenant, supplier string, data []byte) ([]byte, error) {
	if !s.keys.Enabled() {
		return append([]byte{plainValue}, data...), nil
	}
	return s.keys.Seal([]byte{sealedValue}, data, profileAD(tenant, supplier))
}

func (s *Store) open(tenant, supplier string, v []byte) ([]byte, error) {
	switch {
	case len(v) > 0 && v[0] == plainValue:
		return v[1:], nil
	case len(v) > 0 && v[0] == sealedValue:
		return s.keys.Open(v, 1, profileAD(tenant, supplier))
	}
	return nil, keyring.ErrUnopenable
}

// Resolve is the supplier of a document with the identity keys keys (in
// clear, strongest first: IdentityKeys), registering its aliases as a
// claim does: the supplier a profile is learned for.
func (s *Store) Resolve(ctx context.Context, tenant string, keys []string) (string, error) {
	hashed := hashedKeys(tenant, keys)
	if len(hashed) == 0 {
		return "", errors.New("supplier: resolve: no identity key")
	}
	akeys := make([]string, len(hashed))
	args := []any{s.window.Milliseconds()}
	for i, k := range hashed {
		akeys[i] = tenantKey(tenant, "a:"+k)
		args = append(args, k)
	}
	id, err := resolveScript.Run(ctx, s.rdb, akeys, args...).Text()
	if err != nil {
		return "", fmt.Errorf("supplier: resolve: %w", err)
	}
	return id, nil
}

// Lookup is the supplier a document's identity keys name, without
// registering anything: "" when none is known. The worker looks a
// document's supplier up before it reads it with the profile.
func (s *Store) Lookup(ctx context.Context, tenant string, keys []string) (string, error) {
	hashed := hashedKeys(tenant, keys)
	if len(hashed) == 0 {
		return "", nil
	}
	akeys := make([]string, len(hashed))
	for i, k := range hashed {
		akeys[i] = tenantKey(tenant, "a:"+k)
	}
	vals, err := s.rdb.MGet(ctx, akeys...).Result()
	if err != nil {
		return "", fmt.Errorf("supplier: lookup: %w", err)
	}
	mine := map[string]map[string]bool{}
	for _, k := range hashed {
		sc, _, _ := strings.Cut(k, ":")
		if mine[sc] == nil {
			mine[sc] = map[string]bool{}
		}
		mine[sc][k] = true
	}
	for _, v := range vals {
		str, _ := v.(string)
		sup, anchor, ok := strings.Cut(str, "|")
		if !ok {
			continue
		}
		sc, _, _ := strings.Cut(anchor, ":")
		if mine[sc] != nil && !mine[sc][anchor] {
			continue // another supplier's, sharing a weaker key
		}
		return sup, nil
	}
	return "", nil
}

// hashedKeys are the stored form of identity keys ("scheme:hash"), as a
// Fingerprint holds them.
func hashedKeys(tenant string, keys []string) []string {
	out := make([]string, 0, min(len(keys), maxIdentityKeys))
	for _, k := range keys {
		if len(out) == maxIdentityKeys {
			break
		}
		scheme, _, _ := strings.Cut(k, ":")
		out = append(out, scheme+":"+hash(tenant, "id\x1f"+k)[:24])
	}
	return out
}

// Profile returns the stored profile of a tenant's supplier.
func (s *Store) Profile(ctx context.Context, tenant, supplier string) (*StoredProfile, error) {
	v, err := s.rdb.HMGet(ctx, profileKey(tenant, supplier), profileFields...).Result()
	if err != nil {
		return nil, fmt.Errorf("supplier: profile: %w", err)
	}
	return s.storedProfile(tenant, supplier, v)
}

func (s *Store) storedProfile(tenant, supplier string, v []any) (*StoredProfile, error) {
	ver, _ := v[0].(string)
	data, _ := v[1].(string)
	if ver == "" || data == "" {
		return nil, ErrProfileNotFound
	}
	pt, err := s.open(tenant, supplier, []byte(data))
	if err != nil {
		return nil, fmt.Errorf("supplier: profile of %s: %w", supplier, err)
	}
	n, _ := strconv.Atoi(ver)
	u, _ := v[2].(string)
	ms, _ := strconv.ParseInt(u, 10, 64)
	reads, _ := v[3].(string)
	misses, _ := v[4].(string)
	r, _ := strconv.Atoi(reads)
	m, _ := strconv.Atoi(misses)
	return &StoredProfile{Supplier: supplier, Version: n, Updated: time.UnixMilli(ms).UTC(), Data: pt, Reads: r, Misses: m}, nil
}

// profileFields are the fields of a profile's hash a read returns, in
// storedProfile's order.
var profileFields = []string{"v", "d", "u", "r", "m"}

// CountRead counts one document of a tenant's supplier read with its
// profile, missed when it was then rejected or a field the profile read
// was corrected. The counts are statistics for FlaggedCounts: a
// redelivered job may count twice. A deleted profile counts nothing.
func (s *Store) CountRead(ctx context.Context, tenant, supplier string, read, missed bool) error {
	args := []any{0, 0}
	if read {
		args[0] = 1
	}
	if missed {
		args[1] = 1
	}
	if err := countScript.Run(ctx, s.rdb, []string{profileKey(tenant, supplier)}, args...).Err(); err != nil {
		return fmt.Errorf("supplier: count read: %w", err)
	}
	return nil
}

// ProfilePage is one page of a tenant's profiles, newest change first.
type ProfilePage struct {
	Profiles   []*StoredProfile
	NextCursor string // "" on the last page
}

// Profiles lists a tenant's profiles, the most recently changed first,
// limit at a time; cursor is the previous page's NextCursor ("" first).
func (s *Store) Profiles(ctx context.Context, tenant, cursor string, limit int) (*ProfilePage, error) {
	offset := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, ErrBadCursor
		}
		offset = n
	}
	ids, err := s.rdb.ZRevRange(ctx, profilesKey(tenant), int64(offset), int64(offset+limit)).Result()
	if err != nil {
		return nil, fmt.Errorf("supplier: profiles: %w", err)
	}
	page := &ProfilePage{}
	if len(ids) > limit {
		ids, page.NextCursor = ids[:limit], strconv.Itoa(offset+limit)
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HMGet(ctx, profileKey(tenant, id), profileFields...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("supplier: profiles: %w", err)
	}
	for i, id := range ids {
		p, err := s.storedProfile(tenant, id, cmds[i].Val())
		if errors.Is(err, ErrProfileNotFound) {
			continue // deleted between the two reads
		}
		if err != nil {
			return nil, err
		}
		page.Profiles = append(page.Profiles, p)
	}
	return page, nil
}

// ErrBadCursor: a list cursor this store did not give.
var ErrBadCursor = errors.New("supplier: invalid cursor")

// SaveProfile stores a new version of a supplier's profile, made from the
// stored version from (0: there was none); ErrProfileConflict when another
// learning stored one since, ErrQuota past the tenant's budget. ev is its
// audit entry (ProfileEvent without ID and At).
func (s *Store) SaveProfile(ctx context.Context, tenant string, from, version int, data []byte, ev ProfileEvent) error {
	sealed, err := s.seal(tenant, ev.Supplier, data)
	if err != nil {
		return fmt.Errorf("supplier: save profile: %w", err)
	}
	ev.Action, ev.Version = ActionProfileLearned, version
	args := append([]any{ev.Supplier, from, version, sealed, s.clock.Now().UnixMilli(), s.maxBytes, s.auditRetention.Milliseconds()},
		auditFields(ev)...)
	keys := []string{profileKey(tenant, ev.Supplier), profilesKey(tenant), bytesKey(tenant), auditKey(tenant)}
	r, err := saveScript.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return fmt.Errorf("supplier: save profile: %w", err)
	}
	switch r[0] {
	case "saved":
		return nil
	case "conflict":
		return ErrProfileConflict
	case "quota":
		return ErrQuota
	}
	return fmt.Errorf("supplier: save profile: unexpected answer %q", r[0])
}

// DeleteProfile forgets a supplier's profile, audited with the operator;
// ErrProfileNotFound when there is none.
func (s *Store) DeleteProfile(ctx context.Context, tenant, supplier, operator string) error {
	ev := ProfileEvent{Action: ActionProfileDeleted, Supplier: supplier, Operator: operator}
	args := append([]any{supplier, s.clock.Now().UnixMilli(), s.auditRetention.Milliseconds()}, auditFields(ev)...)
	keys := []string{profileKey(tenant, supplier), profilesKey(tenant), bytesKey(tenant), auditKey(tenant)}
	r, err := deleteScript.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return fmt.Errorf("supplier: delete profile: %w", err)
	}
	if r[0] == "not_found" {
		return ErrProfileNotFound
	}
	return nil
}

// UsedBytes is the tenant's supplier data counted against its budget.
func (s *Store) UsedBytes(ctx context.Context, tenant string) (int64, error) {
	n, err := s.rdb.Get(ctx, bytesKey(tenant)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// auditFields are an audit entry's stream fields.
func auditFields(ev ProfileEvent) []any {
	out := []any{"a", ev.Action, "s", ev.Supplier, "v", ev.Version}
	for _, f := range []struct{ k, v string }{{"j", ev.Job}, {"k", ev.Kind}, {"op", ev.Operator}, {"f", strings.Join(ev.Fields, ",")}} {
		if f.v != "" {
			out = append(out, f.k, f.v)
		}
	}
	return out
}

// ProfileAudit lists a tenant's supplier audit, newest first, at most
// limit entries.
func (s *Store) ProfileAudit(ctx context.Context, tenant string, limit int) ([]ProfileEvent, error) {
	msgs, err := s.rdb.XRevRangeN(ctx, auditKey(tenant), "+", "-", int64(limit)).Result()
	if err != nil {
		return nil, fmt.Errorf("supplier: audit: %w", err)
	}
	out := make([]ProfileEvent, 0, len(msgs))
	for _, m := range msgs {
		str := func(k string) string { v, _ := m.Values[k].(string); return v }
		ev := ProfileEvent{ID: m.ID, Action: str("a"), Supplier: str("s"), Job: str("j"), Kind: str("k"), Operator: str("op")}
		ev.Version, _ = strconv.Atoi(str("v"))
		if f := str("f"); f != "" {
			ev.Fields = strings.Split(f, ",")
		}
		if ms, err := strconv.ParseInt(strings.SplitN(m.ID, "-", 2)[0], 10, 64); err == nil {
			ev.At = time.UnixMilli(ms).UTC()
		}
		out = append(out, ev)
	}
	return out, nil
}
