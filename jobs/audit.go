package jobs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Audit entries live in one stream per shard. Their merged order is the
// stream ID (ms, seq), ties between shards broken by shard number; a
// position's member is "<seq>:<shard>", zero-padded so it sorts. A script
// writes an entry's ID from its time (lib.lua's audit_add: the caller's
// now, or the stream's last time when that is later), and an entry's At
// is read from its ID: so the list is newest first by the time it shows,
// across shards, and a cursor is a time.

func streamPos(id string, shard int, values map[string]any) (pos, error) {
	msPart, seqPart, ok := strings.Cut(id, "-")
	ms, err1 := strconv.ParseInt(msPart, 10, 64)
	seq, err2 := strconv.ParseUint(seqPart, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return pos{}, fmt.Errorf("jobs: bad stream id %q", id)
	}
	return pos{score: ms, member: fmt.Sprintf("%020d:%05d", seq, shard), values: values}, nil
}

// streamEnd is the highest stream ID of shard that sorts strictly below p.
func streamEnd(p *pos, shard int) (string, bool) {
	if p == nil {
		return "+", true
	}
	seqPart, shardPart, _ := strings.Cut(p.member, ":")
	seq, _ := strconv.ParseUint(seqPart, 10, 64)
	pshard, _ := strconv.Atoi(shardPart)
	if shard < pshard {
		return fmt.Sprintf("%d-%d", p.score, seq), true
	}
	if seq > 0 {
		return fmt.Sprintf("%d-%d", p.score, seq-1), true
	}
	if p.score == 0 {
		return "", false
	}
	return fmt.Sprintf("%d-%d", p.score-1, uint64(math.MaxUint64)), true
}

func (s *Store) streamFetch(key func(src int) string) fetchFunc {
	return func(ctx context.Context, srcs []int, below []*pos, n int) ([][]pos, []bool, error) {
		pipe := s.rdb.Pipeline()
		cmds := make([]*redis.XMessageSliceCmd, len(srcs))
		for i, src := range srcs {
			if end, ok := streamEnd(below[i], src); ok {
				cmds[i] = pipe.XRevRangeN(ctx, key(src), end, "-", int64(n))
			}
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, nil, err
		}
		items, more := make([][]pos, len(srcs)), make([]bool, len(srcs))
		for i, c := range cmds {
			if c == nil {
				continue
			}
			for _, m := range c.Val() {
				p, err := streamPos(m.ID, srcs[i], m.Values)
				if err != nil {
					return nil, nil, err
				}
				items[i] = append(items[i], p)
			}
			more[i] = len(c.Val()) == n
		}
		return items, more, nil
	}
}

func str(v map[string]any, f string) string {
	s, _ := v[f].(string)
	return s
}

func auditFromValues(id string, v map[string]any) *AuditEntry {
	e := &AuditEntry{
		ID: id, Action: str(v, auAction), Tenant: str(v, auTenant), JobKey: str(v, auKey), NewJobKey: str(v, auNewKey),
		Operator: str(v, auOperator), Reason: str(v, auReason), Decision: str(v, auDecision),
		OldPayloadHash: str(v, auOldHash), NewPayloadHash: str(v, auNewHash), At: msTime(str(v, auAt)),
		Note: str(v, auNote), Overruled: str(v, auOverrule),
	}
	if e.Action == AuditReviewDecided && e.Decision == "" {
		// Written before the decision had its own field (schema.go).
		e.Decision, e.Reason = e.Reason, ""
	}
	return e
}

// ListAudit lists the audit trail newest first. Filtering by JobKey reads
// the one shard that job lives in and matches both the job and, for a
// reprocess, the job it created.
func (s *Store) ListAudit(ctx context.Context, o AuditOptions) (*AuditPage, error) {
	limit, from, err := pageArgs(o.Tenant, false, o.Limit, o.Cursor)
	if err != nil {
		return nil, err
	}
	m := newMerger(s.shards, limit, s.streamFetch(s.keys.audit), from)
	if o.JobKey != "" {
		k, err := ParseKey(o.JobKey)
		if err != nil {
			return nil, err
		}
		// The job's shard is the only one that can hold its entries.
		shard := s.keys.shardOf(k)
		for sh := range m.more {
			m.more[sh] = sh == shard
		}
	}
	entries, next, err := collect(ctx, m, limit, func(_ context.Context, b []pos) ([]*AuditEntry, []bool, error) {
		out, ok := make([]*AuditEntry, len(b)), make([]bool, len(b))
		for i, p := range b {
			seq, _, _ := strings.Cut(p.member, ":")
			n, _ := strconv.ParseUint(seq, 10, 64)
			e := auditFromValues(fmt.Sprintf("%d-%d@%s", p.score, n, shardOfMember(p.member)), p.values)
			e.At = time.UnixMilli(p.score).UTC()
			if err := s.openChanges(e, p.values); err != nil {
				return nil, nil, err
			}
			out[i] = e
			ok[i] = (o.Tenant == "" || e.Tenant == o.Tenant) && (o.Operator == "" || e.Operator == o.Operator) &&
				(o.Action == "" || e.Action == o.Action) &&
				(o.JobKey == "" || e.JobKey == o.JobKey || e.NewJobKey == o.JobKey)
		}
		return out, ok, nil
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: list audit: %w", err)
	}
	return &AuditPage{Entries: entries, NextCursor: next}, nil
}

// openChanges opens the sealed per-field changes of an entry, sealed with
// its job's key (a reprocess: the dead job's; a decision: the reviewed
// job's).
func (s *Store) openChanges(e *AuditEntry, v map[string]any) error {
	blob := str(v, auChanges)
	if blob == "" {
		return nil
	}
	k, err := ParseKey(e.JobKey)
	if err != nil {
		return fmt.Errorf("audit entry %s: %w", e.ID, err)
	}
	c, err := s.seal.openValue(k, kindChanges, []byte(blob))
	if err != nil {
		return fmt.Errorf("audit entry %s: %w", e.ID, err)
	}
	e.Changes = c
	return nil
}

func shardOfMember(member string) string {
	_, sh, _ := strings.Cut(member, ":")
	n, _ := strconv.Atoi(sh)
	return strconv.Itoa(n)
}
