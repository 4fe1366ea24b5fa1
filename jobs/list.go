package jobs

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
		return 0, fmt.Errorf("jobs: limit must be 1..%d, got %d", MaxLimit, limit)
	}
	return limit, nil
}

// fetchFunc returns, for each of the sources srcs, up to n of its entries
// strictly below below[i] (nil: from the top), newest first, and whether
// that source may have more. It serves every source in one round trip.
type fetchFunc func(ctx context.Context, srcs []int, below []*pos, n int) ([][]pos, []bool, error)

// merger walks several newest-first indexes (shards, or shards x states) as
// one sequence.
type merger struct {
	asc   bool // oldest first: the fetch walks upwards and the smallest head comes next
	fetch fetchFunc
	batch int
	bufs  [][]pos
	more  []bool
	last  []*pos
}

func newMerger(sources, batch int, fetch fetchFunc, from *pos) *merger {
	m := &merger{fetch: fetch, batch: batch, bufs: make([][]pos, sources), more: make([]bool, sources), last: make([]*pos, sources)}
	for i := range m.more {
		m.more[i] = true
		m.last[i] = from
	}
	return m
}

// head refills, in one round trip, every empty buffer whose source may have
// more, and returns the source whose head comes next in the merged order, or
// -1 when every source is done.
func (m *merger) head(ctx context.Context) (int, error) {
	var srcs []int
	var below []*pos
	for src := range m.bufs {
		if len(m.bufs[src]) == 0 && m.more[src] {
			srcs, below = append(srcs, src), append(below, m.last[src])
		}
	}
	if len(srcs) > 0 {
		items, more, err := m.fetch(ctx, srcs, below, m.batch)
		if err != nil {
			return -1, err
		}
		for i, src := range srcs {
			m.bufs[src], m.more[src] = items[i], more[i] && len(items[i]) > 0
			if n := len(items[i]); n > 0 {
				l := items[i][n-1]
				m.last[src] = &l
			}
		}
	}
	best := -1
	for src := range m.bufs {
		if len(m.bufs[src]) > 0 && (best < 0 || m.bufs[best][0].less(m.bufs[src][0]) != m.asc) {
			best = src
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

// zsetFetch reads sorted sets, scores descending, ties by member descending
// (ZREVRANGEBYSCORE's own order); key names source i's set.
func (s *Store) zsetFetch(key func(src int) string) fetchFunc { return s.zsetWalk(key, false) }

// zsetWalk is zsetFetch, or with asc its mirror: scores ascending, ties by
// member ascending, entries strictly above the cursor (a merger with asc).
func (s *Store) zsetWalk(key func(src int) string, asc bool) fetchFunc {
	return func(ctx context.Context, srcs []int, below []*pos, n int) ([][]pos, []bool, error) {
		items, more := make([][]pos, len(srcs)), make([]bool, len(srcs))
		offsets := make([]int64, len(srcs))
		todo := make([]int, len(srcs))
		for i := range todo {
			todo[i] = i
		}
		for len(todo) > 0 {
			pipe := s.rdb.Pipeline()
			cmds := make([]*redis.ZSliceCmd, len(todo))
			for j, i := range todo {
				if asc {
					minScore := "-inf"
					if below[i] != nil {
						minScore = strconv.FormatInt(below[i].score, 10)
					}
					cmds[j] = pipe.ZRangeByScoreWithScores(ctx, key(srcs[i]), &redis.ZRangeBy{
						Min: minScore, Max: "+inf", Offset: offsets[i], Count: int64(n),
					})
					continue
				}
				maxScore := "+inf"
				if below[i] != nil {
					maxScore = strconv.FormatInt(below[i].score, 10)
				}
				cmds[j] = pipe.ZRevRangeByScoreWithScores(ctx, key(srcs[i]), &redis.ZRangeBy{
					Max: maxScore, Min: "-inf", Offset: offsets[i], Count: int64(n),
				})
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return nil, nil, err
			}
			var again []int
			for j, i := range todo {
				zs := cmds[j].Val()
				for _, z := range zs {
					p := pos{score: int64(z.Score), member: z.Member.(string)}
					if below[i] == nil || (!asc && p.less(*below[i])) || (asc && below[i].less(p)) {
						items[i] = append(items[i], p)
					}
				}
				more[i] = len(zs) == n
				if len(items[i]) == 0 && more[i] {
					// A full batch of ties at the cursor's score: read past them.
					offsets[i] += int64(len(zs))
					again = append(again, i)
				}
			}
			todo = again
		}
		return items, more, nil
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
			return nil, nil, fmt.Errorf("jobs: index holds a bad key %q", p.member)
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

// pageArgs checks the tenant, limit and cursor every list takes.
func pageArgs(tenant string, tenantRequired bool, limit int, cursor string) (int, *pos, error) {
	if (tenantRequired || tenant != "") && !tenantRe.MatchString(tenant) {
		return 0, nil, fmt.Errorf("%w: tenant", ErrInvalidKey)
	}
	limit, err := checkLimit(limit)
	if err != nil {
		return 0, nil, err
	}
	from, err := decodeCursor(cursor)
	return limit, from, err
}

// ListJobs lists a tenant's jobs newest first, optionally of one state or one
// document. Without a state it merges the tenant's four state indexes (there
// is no separate all-jobs index: one index entry per job, not two); an open
// state (queued, running, retrying) reads the open index and filters.
func (s *Store) ListJobs(ctx context.Context, o ListOptions) (*JobPage, error) {
	limit, from, err := pageArgs(o.Tenant, true, o.Limit, o.Cursor)
	if err != nil {
		return nil, err
	}
	if o.State != "" && !o.State.Valid() {
		return nil, fmt.Errorf("jobs: unknown state %q", o.State)
	}
	states := indexStates
	if o.State != "" {
		states = []State{indexState(o.State)}
	}
	shards := make([]int, 0, s.shards)
	if o.DocumentID != "" {
		if !documentRe.MatchString(o.DocumentID) {
			return nil, fmt.Errorf("%w: documentId", ErrInvalidKey)
		}
		shards = append(shards, Shard(o.Tenant, o.DocumentID, s.shards)) // one document, one shard
	} else {
		for sh := range s.shards {
			shards = append(shards, sh)
		}
	}
	// Source i is shard shards[i/len(states)], state states[i%len(states)].
	index := func(src int) string {
		return s.keys.tenantState(shards[src/len(states)], o.Tenant, states[src%len(states)])
	}
	prefix := o.Tenant + ":" + o.DocumentID + ":"
	m := newMerger(len(shards)*len(states), limit, s.zsetFetch(index), from)
	jobs, next, err := collect(ctx, m, limit, func(ctx context.Context, b []pos) ([]*Job, []bool, error) {
		return s.loadJobs(ctx, b, func(j *Job) bool {
			return (o.State == "" || j.State == o.State) && (o.DocumentID == "" || strings.HasPrefix(j.Key.String(), prefix))
		})
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: list jobs: %w", err)
	}
	return &JobPage{Jobs: jobs, NextCursor: next}, nil
}

// ListDLQ lists dead-lettered jobs newest first, by default only those not
// yet reprocessed.
func (s *Store) ListDLQ(ctx context.Context, o DLQOptions) (*JobPage, error) {
	limit, from, err := pageArgs(o.Tenant, false, o.Limit, o.Cursor)
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
		return nil, fmt.Errorf("jobs: list dlq: %w", err)
	}
	return &JobPage{Jobs: jobs, NextCursor: next}, nil
}

// ListReviews lists a tenant's reviews, or those of every tenant in
// o.Tenants, newest job first (oldest first with o.Oldest). Reviews live in
// their succeeded job's record, so this walks the tenants' succeeded indexes.
func (s *Store) ListReviews(ctx context.Context, o ReviewOptions) (*ReviewPage, error) {
	tenants := o.Tenants
	if o.Tenant != "" || len(tenants) == 0 {
		tenants = []string{o.Tenant}
	}
	var limit int
	var from *pos
	for _, t := range tenants {
		var err error
		if limit, from, err = pageArgs(t, true, o.Limit, o.Cursor); err != nil {
			return nil, err
		}
	}
	// Source i is shard i%shards of tenant i/shards.
	index := func(src int) string {
		return s.keys.tenantState(src%s.shards, tenants[src/s.shards], StateSucceeded)
	}
	m := newMerger(s.shards*len(tenants), limit, s.zsetWalk(index, o.Oldest), from)
	m.asc = o.Oldest
	revs, next, err := collect(ctx, m, limit, func(ctx context.Context, b []pos) ([]*Review, []bool, error) {
		pipe := s.rdb.Pipeline()
		keys := make([]Key, len(b))
		cmds := make([]*redis.SliceCmd, len(b))
		for i, p := range b {
			k, err := ParseKey(p.member)
			if err != nil {
				return nil, nil, fmt.Errorf("jobs: index holds a bad key %q", p.member)
			}
			keys[i], cmds[i] = k, pipe.HMGet(ctx, s.keys.job(k), reviewFields...)
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, nil, err
		}
		out, ok := make([]*Review, len(b)), make([]bool, len(b))
		for i, c := range cmds {
			var err error
			if out[i], err = s.reviewFromFields(keys[i], c.Val()); err != nil {
				return nil, nil, err
			}
			ok[i] = out[i] != nil && (o.Status == "" || out[i].Status == o.Status)
		}
		return out, ok, nil
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: list reviews: %w", err)
	}
	return &ReviewPage{Reviews: revs, NextCursor: next}, nil
}
