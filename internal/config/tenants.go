package config

import (
	"regexp"
	"strconv"
	"strings"
)

// Tenants is per-tenant fairness (admission in the workers' relays) and
// quotas (at the API).
type Tenants struct {
	MaxInFlight int            // RELAYOPS_TENANT_MAX_INFLIGHT, default 100; 0: admission off
	Limits      map[string]int // RELAYOPS_TENANT_LIMITS, default none
	SubmitRate  Rate           // RELAYOPS_TENANT_SUBMIT_RATE, default none (zero Rate: no limit)
	MaxBacklog  int            // RELAYOPS_TENANT_MAX_BACKLOG, default 0 (no cap)
	// MaxBacklogBytes is RELAYOPS_TENANT_MAX_BACKLOG_BYTES, default 0 (no cap).
	MaxBacklogBytes int64
	// MaxStoredBytes is RELAYOPS_TENANT_MAX_STORED_BYTES, default 0 (no
	// cap): the input bytes a tenant may have stored at once, counting every
	// input until its retention expires, not only open jobs'.
	MaxStoredBytes int64
	// MaxSupplierBytes is RELAYOPS_TENANT_MAX_SUPPLIER_BYTES, default
	// 16MiB: the supplier profiles a tenant may have stored (0: no cap).
	MaxSupplierBytes int64
}

func (l *loader) tenants() Tenants {
	t := Tenants{
		MaxInFlight: l.intRange("RELAYOPS_TENANT_MAX_INFLIGHT", 0, 1_000_000),
		Limits:      l.tenantLimits("RELAYOPS_TENANT_LIMITS"),
		MaxBacklog:  l.intRange("RELAYOPS_TENANT_MAX_BACKLOG", 0, 100_000_000),
	}
	if l.raw("RELAYOPS_TENANT_SUBMIT_RATE") != "" {
		t.SubmitRate = l.rate("RELAYOPS_TENANT_SUBMIT_RATE")
	}
	t.MaxBacklogBytes = l.bytes("RELAYOPS_TENANT_MAX_BACKLOG_BYTES")
	t.MaxStoredBytes = l.bytes("RELAYOPS_TENANT_MAX_STORED_BYTES")
	t.MaxSupplierBytes = l.bytes("RELAYOPS_TENANT_MAX_SUPPLIER_BYTES")
	return t
}

// tenantLimits parses "tenant=n,tenant=n". Tenant names follow the job key's
// rule; each tenant appears once.
func (l *loader) tenantLimits(name string) map[string]int {
	s := l.raw(name)
	if s == "" {
		return nil
	}
	out := map[string]int{}
	for i, entry := range strings.Split(s, ",") {
		who, n, ok := strings.Cut(strings.TrimSpace(entry), "=")
		who = strings.TrimSpace(who)
		v, err := strconv.Atoi(strings.TrimSpace(n))
		switch {
		case !ok || err != nil || v < 0 || v > 1_000_000:
			l.fail(name, "entry %d must be tenant=n with n from 0 to 1000000, got %q", i+1, strings.TrimSpace(entry))
		case !nameRE.MatchString(who):
			l.fail(name, "entry %d: tenant %q must match ^[a-z][a-z0-9-]{1,32}$", i+1, who)
		default:
			if _, dup := out[who]; dup {
				l.fail(name, "tenant %s is listed twice", who)
			}
			out[who] = v
		}
	}
	return out
}

var bytesRE = regexp.MustCompile(`^([0-9]+)(B|KiB|MiB|GiB|TiB)?$`)

var byteUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// bytes parses a size: a number of bytes, optionally with a binary unit
// (KiB, MiB, GiB, TiB).
func (l *loader) bytes(name string) int64 {
	s := l.raw(name)
	m := bytesRE.FindStringSubmatch(s)
	var n int64
	var err error
	if m != nil {
		n, err = strconv.ParseInt(m[1], 10, 64)
	}
	if m == nil || err != nil || n > (1<<50)/byteUnits[m[2]] {
		l.fail(name, "must be a number of bytes, optionally with KiB, MiB, GiB or TiB (e.g. 256MiB), at most 1 PiB, got %q", s)
		return 0
	}
	return n * byteUnits[m[2]]
}
