package jobs

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
)

var (
	tenantRe   = regexp.MustCompile(`^[a-z][a-z0-9-]{1,32}$`)
	documentRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$`)
)

// MaxVersion is the highest operation version a key may carry (2^31-1).
const MaxVersion = 1<<31 - 1

// Key is a job's identity and idempotency key: <tenant>:<documentId>:v<version>.
// The only way to obtain a valid Key is BuildKey or ParseKey; the zero Key is
// invalid and every store method rejects it.
type Key struct {
	Tenant     string
	DocumentID string
	Version    int64
}

// FieldError names one input field and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// ValidationError lists every invalid field of one input. It matches
// ErrInvalidKey with errors.Is.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Problem
	}
	return "jobs: invalid key: " + strings.Join(parts, "; ")
}

// Is reports whether target is ErrInvalidKey.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidKey }

// ErrInvalidKey is matched by every key validation failure.
var ErrInvalidKey = errors.New("jobs: invalid key")

// BuildKey validates its parts and returns the job key. It is the only
// constructor of a Key: no code path builds one without a tenant. Every
// invalid part is reported, with the API's field names.
func BuildKey(tenant, documentID string, version int64) (Key, error) {
	var fields []FieldError
	for _, f := range []*FieldError{ValidateTenant(tenant), ValidateDocumentID(documentID), ValidateVersion(version)} {
		if f != nil {
			fields = append(fields, *f)
		}
	}
	if fields != nil {
		return Key{}, &ValidationError{Fields: fields}
	}
	return Key{Tenant: tenant, DocumentID: documentID, Version: version}, nil
}

// ValidateTenant checks a tenant name, the first part of a key; nil when it
// is valid.
func ValidateTenant(tenant string) *FieldError {
	if tenantRe.MatchString(tenant) {
		return nil
	}
	return &FieldError{"tenant", "must match ^[a-z][a-z0-9-]{1,32}$"}
}

// ValidateDocumentID checks a document ID, the second part of a key; nil
// when it is valid.
func ValidateDocumentID(documentID string) *FieldError {
	if documentRe.MatchString(documentID) {
		return nil
	}
	return &FieldError{"documentId", "must be 1-128 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or digit"}
}

// ValidateVersion checks an operation version, the third part of a key;
// nil when it is valid.
func ValidateVersion(version int64) *FieldError {
	if version >= 1 && version <= MaxVersion {
		return nil
	}
	return &FieldError{"operationVersion", "must be an integer from 1 to 2147483647"}
}

// ParseKey parses the string form of a key and validates it like BuildKey.
// The version must be written canonically (no sign, no leading zeros), so
// every valid key has exactly one string form.
func ParseKey(s string) (Key, error) {
	tenant, rest, ok1 := strings.Cut(s, ":")
	doc, ver, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || !strings.HasPrefix(ver, "v") {
		return Key{}, &ValidationError{Fields: []FieldError{{"jobId", "must be <tenant>:<documentId>:v<version>"}}}
	}
	digits := ver[1:]
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || digits == "" || digits[0] == '0' || digits[0] == '+' {
		return Key{}, &ValidationError{Fields: []FieldError{{"jobId", "version must be a positive integer without leading zeros"}}}
	}
	return BuildKey(tenant, doc, n)
}

// String returns the canonical form <tenant>:<documentId>:v<version>.
func (k Key) String() string {
	return k.Tenant + ":" + k.DocumentID + ":v" + strconv.FormatInt(k.Version, 10)
}

// Valid reports whether k was built by BuildKey or ParseKey.
func (k Key) Valid() bool {
	_, err := BuildKey(k.Tenant, k.DocumentID, k.Version)
	return err == nil
}

// WithVersion returns the key of another version of the same document.
func (k Key) WithVersion(v int64) (Key, error) { return BuildKey(k.Tenant, k.DocumentID, v) }

// Shard returns the shard of a document: fnv1a(tenant + "/" + documentId) mod
// shards. All versions of one document live in one shard, hence one Redis
// Cluster slot.
func Shard(tenant, documentID string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(tenant + "/" + documentID))
	return int(h.Sum32() % uint32(shards))
}

// keyspace builds every Redis key of the store. Each key of one document
// carries the hash tag {<shard>}, so each script touches exactly one slot.
type keyspace struct {
	shards int
	tags   []string // per-shard prefixes, built once: keys are built on the hot path
}

func (ks keyspace) shardOf(k Key) int { return Shard(k.Tenant, k.DocumentID, ks.shards) }

func newKeyspace(shards int) keyspace {
	ks := keyspace{shards: shards, tags: make([]string, shards)}
	for i := range ks.tags {
		ks.tags[i] = fmt.Sprintf("ro:{%02d}:", i)
	}
	return ks
}

// tag is the key prefix of a shard, hash tag included.
func (ks keyspace) tag(shard int) string { return ks.tags[shard] }

func (ks keyspace) prefix(k Key) string { return ks.tag(ks.shardOf(k)) }

// job is the job record: the small, long-lived ledger entry (hash).
func (ks keyspace) job(k Key) string { return ks.prefix(k) + "job:" + k.String() }

// ledger is the idempotency ledger entry written when the job ends (string,
// TTL class "ledger"): it outlives the job record so a late duplicate still
// dedupes and a late different payload still conflicts.
func (ks keyspace) ledger(k Key) string { return ks.prefix(k) + "led:" + k.String() }

// input is the stored (possibly encrypted) input (string, TTL class "input").
func (ks keyspace) input(k Key) string { return ks.prefix(k) + "input:" + k.String() }

// result is the committed result (string, TTL class "result").
func (ks keyspace) result(k Key) string { return ks.prefix(k) + "result:" + k.String() }

// checkpoints holds one field per completed stage (hash, TTL class "result").
func (ks keyspace) checkpoints(k Key) string { return ks.prefix(k) + "ckpt:" + k.String() }

// document holds the document's highest version (string, TTL class
// "ledger"): a reprocess creates version max+1.
func (ks keyspace) document(k Key) string {
	return ks.prefix(k) + "doc:" + k.Tenant + ":" + k.DocumentID
}

// request remembers the answer given to one submit request ID for one job
// key (string): the same request ID may be reused for another version.
func (ks keyspace) request(k Key, requestID string) string {
	return ks.prefix(k) + "req:" + k.String() + ":" + requestID
}

// Per-shard keys.
func (ks keyspace) outbox(shard int) string { return ks.tag(shard) + "outbox" }
func (ks keyspace) audit(shard int) string  { return ks.tag(shard) + "audit" }

// tenants is the set of tenants that ever had a job in the shard: the
// reconciler and the oldest-job gauge find the shard's open jobs through
// their open indexes (tenantState).
func (ks keyspace) tenants(shard int) string { return ks.tag(shard) + "tenants" }

// legacyActive is the per-shard index of open jobs that scripts before the
// tenants set wrote (and StaleJobs migrates: migrateActive).
func (ks keyspace) legacyActive(shard int) string { return ks.tag(shard) + "active" }

// tenantState indexes a tenant's jobs by creation time, one sorted set per
// terminal state and one ("open") for queued, running and retrying together:
// a job moves between open states on every attempt, and one index for them
// spares each claim and retry its index writes.
func (ks keyspace) tenantState(shard int, tenant string, state State) string {
	return ks.tag(shard) + "jobs:" + tenant + ":" + string(indexState(state))
}

// indexState is the index a state's jobs are listed in.
func indexState(s State) State {
	if s.Terminal() {
		return s
	}
	return stateOpen
}

// dlq indexes dead-lettered jobs of every tenant by dead-letter time.
func (ks keyspace) dlq(shard int) string { return ks.tag(shard) + "dlq" }
