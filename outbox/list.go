package outbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Lists read per-shard indexes and merge them newest first. A position in
// the merged order is (score, member), compared score first; the opaque
// cursor is the position of the last item a page consumed.

// Page size bounds.
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// scanFactor bounds how many index entries one page may skip over
	// (filtered out or expired) before it returns early with a cursor.
	scanFactor = 20
)

type pos struct {
	score  int64
	member string
	values map[string]any // stream entries carry their fields; not part of the cursor
}

func (p pos) less(q pos) bool {
	return p.score < q.score || (p.score == q.score && p.member < q.member)
}

func encodeCursor(p pos) string {
	return base64.RawURLEncoding.EncodeToString([]byte("1|" + strconv.FormatInt(p.score, 10) + "|" + p.member))
}

func decodeCursor(c string) (*pos, error) {
	if c == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, ErrInvalidCursor
	}
	parts := strings.SplitN(string(b), "|", 3)
	if len(parts) != 3 || parts[0] != "1" || parts[2] == "" {
		return nil, ErrInvalidCursor
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return nil, ErrInvalidCursor
	}
	return &pos{score: n, member: parts[2]}, nil
}

func checkLimit(limit int) (int, error) {
	if limit == 0 {
		return DefaultLimit, nil
	}
	if limit < 0 || limit > MaxLimit {
		return 0, fmt.Errorf("outbox: limit must be 1..%d, got %d", MaxLimit, limit)
	}
	return limit, nil
}

// fetchFunc returns up to n entries of one shard's index strictly below
// `below` (nil: from the top), newest first, and whether the shard may have
// more.
type fetchFunc func(ctx context.Context, shard int, below *pos, n int) ([]pos, bool, error)

// merger walks every shard's index newest first, as one sequence.
type merger struct {
	fetch fetchFunc
	batch int
	bufs  [][]pos
	more  []bool
	last  []*pos
}

func newMerger(shards, batch int, fetch fetchFunc, from *pos) *merger {
	m := &merger{fetch: fetch, batch: batch, bufs: make([][]pos, shards), more: make([]bool, shards), last: make([]*pos, shards)}
	for i := range m.more {
		m.more[i] = true
		m.last[i] = from
	}
	return m
}

// head fills empty buffers that may have more and returns the shard whose
// head comes next in the merged order, or -1 when every shard is done.
func (m *merger) head(ctx context.Context) (int, error) {
	best := -1
	for sh := range m.bufs {
		if len(m.bufs[sh]) == 0 && m.more[sh] {
			items, more, err := m.fetch(ctx, sh, m.last[sh], m.batch)
			if err != nil {
				return -1, err
			}
			m.bufs[sh], m.more[sh] = items, more && len(items) > 0
			if len(items) > 0 {
				l := items[len(items)-1]
				m.last[sh] = &l
			}
		}
		if len(m.bufs[sh]) > 0 && (best < 0 || m.bufs[best][0].less(m.bufs[sh][0])) {
			best = sh
		}
	}
	return best, nil
}

// next returns the next position in the merged order.
func (m *merger) next(ctx context.Context) (pos, bool, error) {
	best, err := m.head(ctx)
	if err != nil || best < 0 {
		return pos{}, false, err
	}
	p := m.bufs[best][0]
	m.bufs[best] = m.bufs[best][1:]
	return p, true, nil
}

// zsetFetch reads a sorted set per shard, scores descending, ties by member
// descending (ZREVRANGEBYSCORE's own order).
func (s *Store) zsetFetch(key func(shard int) string) fetchFunc {
	return func(ctx context.Context, shard int, below *pos, n int) ([]pos, bool, error) {
		maxScore := "+inf"
		if below != nil {
			maxScore = strconv.FormatInt(below.score, 10)
		}
		var out []pos
		for offset := int64(0); ; {
			zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, key(shard), &redis.ZRangeBy{
				Max: maxScore, Min: "-inf", Offset: offset, Count: int64(n),
			}).Result()
			if err != nil {
				return nil, false, err
			}
			for _, z := range zs {
				p := pos{score: int64(z.Score), member: z.Member.(string)}
				if below == nil || p.less(*below) {
					out = append(out, p)
				}
			}
			if len(out) > 0 || len(zs) < n {
				return out, len(zs) == n, nil
			}
			offset += int64(len(zs)) // a full batch of ties at the cursor's score
		}
	}
}

// collect walks the merged index from the cursor and keeps what load
// accepts, loading candidates in pipelined batches.
func collect[T any](ctx context.Context, m *merger, limit int, load func(context.Context, []pos) ([]T, []bool, error)) ([]T, string, error) {
	var out []T
	var last pos
	scanned := 0
	for len(out) < limit && scanned < limit*scanFactor {
		var batch []pos
		for len(batch) < limit-len(out) {
			p, ok, err := m.next(ctx)
			if err != nil {
				return nil, "", err
			}
			if !ok {
				break
			}
			batch = append(batch, p)
		}
		if len(batch) == 0 {
			return out, "", nil
		}
		items, keep, err := load(ctx, batch)
		if err != nil {
			return nil, "", err
		}
		for i := range batch {
			scanned++
			last = batch[i]
			if keep[i] {
				out = append(out, items[i])
			}
		}
	}
	// Only hand out a cursor if something may follow.
	if best, err := m.head(ctx); err != nil {
		return nil, "", err
	} else if best < 0 {
		return out, "", nil
	}
	return out, encodeCursor(last), nil
}

// loadJobs reads job records in one pipeline; missing records are dropped
// (expired since the index was written).
func (s *Store) loadJobs(ctx context.Context, batch []pos, keep func(*Job) bool) ([]*Job, []bool, error) {
	keys := make([]Key, len(batch))
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(batch))
	for i, p := range batch {
		k, err := ParseKey(p.member)
		if err != nil {
			return nil, nil, fmt.Errorf("outbox: index holds a bad key %q", p.member)
		}
		keys[i] = k
		cmds[i] = pipe.HGetAll(ctx, s.keys.job(k))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, err
	}
	jobs := make([]*Job, len(batch))
	ok := make([]bool, len(batch))
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			continue
		}
		jobs[i] = jobFromHash(keys[i], c.Val())
		ok[i] = keep == nil || keep(jobs[i])
	}
	return jobs, ok, nil
}

// ListJobs lists a tenant's jobs newest first, optionally of one state or one
// document.
func (s *Store) ListJobs(ctx context.Context, o ListOptions) (*JobPage, error) {
	if !tenantRe.MatchString(o.Tenant) {
		return nil, fmt.Errorf("%w: tenant", ErrInvalidKey)
	}
	if o.State != "" && !o.State.Valid() {
		return nil, fmt.Errorf("outbox: unknown state %q", o.State)
	}
	limit, err := checkLimit(o.Limit)
	if err != nil {
		return nil, err
	}
	from, err := decodeCursor(o.Cursor)
	if err != nil {
		return nil, err
	}
	index := func(shard int) string { return s.keys.tenantJobs(shard, o.Tenant) }
	if o.State != "" {
		index = func(shard int) string { return s.keys.tenantState(shard, o.Tenant, o.State) }
	}
	shards := s.shards
	fetch := s.zsetFetch(index)
	if o.DocumentID != "" {
		if !documentRe.MatchString(o.DocumentID) {
			return nil, fmt.Errorf("%w: documentId", ErrInvalidKey)
		}
		// One document lives in one shard: read only that one.
		shard := Shard(o.Tenant, o.DocumentID, s.shards)
		inner := s.zsetFetch(index)
		shards, fetch = 1, func(ctx context.Context, _ int, below *pos, n int) ([]pos, bool, error) {
			return inner(ctx, shard, below, n)
		}
	}
	prefix := o.Tenant + ":" + o.DocumentID + ":"
	m := newMerger(shards, limit, fetch, from)
	jobs, next, err := collect(ctx, m, limit, func(ctx context.Context, b []pos) ([]*Job, []bool, error) {
		if o.DocumentID != "" {
			return s.loadJobs(ctx, b, func(j *Job) bool { return strings.HasPrefix(j.Key.String(), prefix) })
		}
		return s.loadJobs(ctx, b, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: list jobs: %w", err)
	}
	return &JobPage{Jobs: jobs, NextCursor: next}, nil
}

// ListDLQ lists dead-lettered jobs newest first, by default only those not
// yet reprocessed.
func (s *Store) ListDLQ(ctx context.Context, o DLQOptions) (*JobPage, error) {
	if o.Tenant != "" && !tenantRe.MatchString(o.Tenant) {
		return nil, fmt.Errorf("%w: tenant", ErrInvalidKey)
	}
	limit, err := checkLimit(o.Limit)
	if err != nil {
		return nil, err
	}
	from, err := decodeCursor(o.Cursor)
	if err != nil {
		return nil, err
	}
	m := newMerger(s.shards, limit, s.zsetFetch(s.keys.dlq), from)
	jobs, next, err := collect(ctx, m, limit, func(ctx context.Context, b []pos) ([]*Job, []bool, error) {
		return s.loadJobs(ctx, b, func(j *Job) bool {
			return j.State == StateDeadLettered && (o.Tenant == "" || j.Key.Tenant == o.Tenant) &&
				(o.IncludeReprocessed || j.ReprocessedAs == "")
		})
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: list dlq: %w", err)
	}
	return &JobPage{Jobs: jobs, NextCursor: next}, nil
}

// ListReviews lists reviews newest first, of one tenant or of all.
func (s *Store) ListReviews(ctx context.Context, o ReviewOptions) (*ReviewPage, error) {
	if o.Tenant != "" && !tenantRe.MatchString(o.Tenant) {
		return nil, fmt.Errorf("%w: tenant", ErrInvalidKey)
	}
	limit, err := checkLimit(o.Limit)
	if err != nil {
		return nil, err
	}
	from, err := decodeCursor(o.Cursor)
	if err != nil {
		return nil, err
	}
	index := s.keys.allReviews
	if o.Tenant != "" {
		index = func(shard int) string { return s.keys.reviews(shard, o.Tenant) }
	}
	m := newMerger(s.shards, limit, s.zsetFetch(index), from)
	revs, next, err := collect(ctx, m, limit, func(ctx context.Context, b []pos) ([]*Review, []bool, error) {
		pipe := s.rdb.Pipeline()
		keys := make([]Key, len(b))
		cmds := make([]*redis.MapStringStringCmd, len(b))
		for i, p := range b {
			k, err := ParseKey(p.member)
			if err != nil {
				return nil, nil, fmt.Errorf("outbox: index holds a bad key %q", p.member)
			}
			keys[i], cmds[i] = k, pipe.HGetAll(ctx, s.keys.review(k))
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, nil, err
		}
		out, ok := make([]*Review, len(b)), make([]bool, len(b))
		for i, c := range cmds {
			if len(c.Val()) > 0 {
				out[i] = reviewFromHash(keys[i], c.Val())
				ok[i] = o.Status == "" || out[i].Status == o.Status
			}
		}
		return out, ok, nil
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: list reviews: %w", err)
	}
	return &ReviewPage{Reviews: revs, NextCursor: next}, nil
}
