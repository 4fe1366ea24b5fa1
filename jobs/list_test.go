package jobs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
)

func TestListJobs_PagesNewestFirst_AcrossShards_WithoutGapsOrRepeats(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		var want []string
		for i := range 23 {
			k := mustKey(t, "acme", fmt.Sprintf("doc-%02d", i), 1)
			x.submit(t, k, "c")
			want = append([]string{k.String()}, want...)
			if i%3 == 0 {
				x.clock.Advance(time.Millisecond) // some share a millisecond, some do not
			}
			x.submit(t, mustKey(t, "globex", fmt.Sprintf("doc-%02d", i), 1), "c")
		}
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10)
			p, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", Limit: 5, Cursor: cursor})
			require.NoError(t, err)
			for _, j := range p.Jobs {
				require.Equal(t, "acme", j.Key.Tenant, "never another tenant's job")
				got = append(got, j.Key.String())
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		require.ElementsMatch(t, want, got)
		require.Len(t, got, 23)
		for i := 1; i < len(got); i++ {
			require.NotEqual(t, got[i-1], got[i])
		}
	})
}

func TestListJobs_FiltersByStateAndDocument(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		x.succeed(t, mustKey(t, "acme", "a", 1))
		x.submit(t, mustKey(t, "acme", "b", 1), "c")
		x.submit(t, mustKey(t, "acme", "a", 2), "c2")
		p, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: StateSucceeded})
		require.NoError(t, err)
		require.Len(t, p.Jobs, 1)
		require.Equal(t, "acme:a:v1", p.Jobs[0].Key.String())
		p, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: StateQueued})
		require.NoError(t, err)
		require.Len(t, p.Jobs, 2)
		x.claim(t, mustKey(t, "acme", "b", 1))
		p, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: StateRunning})
		require.NoError(t, err)
		require.Len(t, p.Jobs, 1, "open states share an index and are told apart by the record")
		require.Equal(t, "acme:b:v1", p.Jobs[0].Key.String())
		p, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", State: StateQueued})
		require.NoError(t, err)
		require.Len(t, p.Jobs, 1)
		p, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", DocumentID: "a"})
		require.NoError(t, err)
		require.Len(t, p.Jobs, 2)
		p, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: "globex"})
		require.NoError(t, err)
		require.Empty(t, p.Jobs)
	})
}

func TestLists_RejectBadCursorAndLimit(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		for _, c := range []string{"!!", "bm90LWEtY3Vyc29y", encodeCursor(pos{score: 1})} {
			_, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", Cursor: c})
			require.ErrorIs(t, err, ErrInvalidCursor, c)
		}
		_, err := x.store.ListJobs(x.ctx, ListOptions{Tenant: "acme", Limit: MaxLimit + 1})
		require.Error(t, err)
		_, err = x.store.ListJobs(x.ctx, ListOptions{Tenant: ""})
		require.ErrorIs(t, err, ErrInvalidKey)
	})
}

func TestListAudit_PagesAcrossShards(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		for i := range 12 {
			x.submit(t, mustKey(t, "acme", fmt.Sprintf("doc-%02d", i), 1), "c")
		}
		seen := map[string]bool{}
		cursor := ""
		for {
			p, err := x.store.ListAudit(x.ctx, AuditOptions{Tenant: "acme", Limit: 5, Cursor: cursor})
			require.NoError(t, err)
			for _, e := range p.Entries {
				require.False(t, seen[e.ID], "entry %s twice", e.ID)
				seen[e.ID] = true
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		require.Len(t, seen, 12)
	})
}

// The finding: the audit list, merged from per-shard streams by Redis's
// own IDs, showed entries out of the order of their times (inversions of
// tens of milliseconds between shards). Two API processes, one's clock
// 35 ms behind, write entries on several shards; the list is newest first
// by the time each entry shows, page after page, each entry once.
func TestListAudit_NewestFirstByTime_AcrossShardsAndClocks(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		behind := clock.NewStub(t0.Add(-35 * time.Millisecond))
		other, err := NewStore(Config{Redis: b.Client, Clock: behind, Shards: 4})
		require.NoError(t, err)
		for i := range 12 {
			x.submit(t, mustKey(t, "acme", fmt.Sprintf("a-%02d", i), 1), "c")
			_, err := other.Submit(x.ctx, SubmitRequest{Key: mustKey(t, "acme", fmt.Sprintf("b-%02d", i), 1), Content: "c", Limits: DefaultLimits})
			require.NoError(t, err)
			x.clock.Advance(10 * time.Millisecond)
			behind.Advance(10 * time.Millisecond)
		}
		var got []*AuditEntry
		seen := map[string]bool{}
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10)
			p, err := x.store.ListAudit(x.ctx, AuditOptions{Tenant: "acme", Limit: 5, Cursor: cursor})
			require.NoError(t, err)
			for _, e := range p.Entries {
				require.False(t, seen[e.ID], "entry %s twice", e.ID)
				seen[e.ID] = true
				got = append(got, e)
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		require.Len(t, got, 24)
		for i := 1; i < len(got); i++ {
			require.False(t, got[i].At.After(got[i-1].At), "entry %d (%s, %s) after entry %d (%s, %s)",
				i, got[i].JobKey, got[i].At.Format("15:04:05.000"), i-1, got[i-1].JobKey, got[i-1].At.Format("15:04:05.000"))
		}
		// Each entry's time is its writer's clock, or a little later when
		// its shard held a later entry already: never earlier, never by
		// more than the clocks' difference.
		for _, e := range got {
			var i int
			var who string
			_, err := fmt.Sscanf(strings.Split(e.JobKey, ":")[1], "%1s-%d", &who, &i)
			require.NoError(t, err, e.JobKey)
			wrote := t0.Add(time.Duration(i) * 10 * time.Millisecond)
			if who == "b" {
				wrote = wrote.Add(-35 * time.Millisecond)
			}
			require.False(t, e.At.Before(wrote), "%s at %s, written at %s", e.JobKey, e.At, wrote)
			require.LessOrEqual(t, e.At.Sub(wrote), 35*time.Millisecond, e.JobKey)
		}
	})
}

func TestListReviews_OldestFirst_AcrossTenants_PagesWithoutGapsOrRepeats(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		var want []string // oldest first
		for i := range 13 {
			for _, tenant := range []string{"acme", "globex", "initech"} {
				k := mustKey(t, tenant, fmt.Sprintf("inv-%02d", i), 1)
				_, err := x.store.ApplyCommitted(x.ctx, k, x.succeed(t, k))
				require.NoError(t, err)
				if tenant != "initech" {
					want = append(want, k.String())
				}
				x.clock.Advance(time.Millisecond)
			}
		}
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10)
			p, err := x.store.ListReviews(x.ctx, ReviewOptions{Tenants: []string{"acme", "globex"}, Oldest: true,
				Status: ReviewPending, Limit: 4, Cursor: cursor})
			require.NoError(t, err)
			for _, r := range p.Reviews {
				got = append(got, r.Key.String())
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		require.Equal(t, want, got, "every listed tenant's reviews, oldest first, never another tenant's")

		p, err := x.store.ListReviews(x.ctx, ReviewOptions{Tenant: "globex", Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"globex:inv-12:v1", "globex:inv-11:v1"},
			[]string{p.Reviews[0].Key.String(), p.Reviews[1].Key.String()}, "newest first by default")

		_, err = x.store.ListReviews(x.ctx, ReviewOptions{Tenants: []string{"acme", "Not A Tenant"}})
		require.ErrorIs(t, err, ErrInvalidKey)
		_, err = x.store.ListReviews(x.ctx, ReviewOptions{})
		require.ErrorIs(t, err, ErrInvalidKey, "a tenant is required")
	})
}

func TestListAudit_FiltersByAction(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		_, err := x.store.ApplyCommitted(x.ctx, k, x.succeed(t, k))
		require.NoError(t, err)
		_, err = x.store.Decide(x.ctx, k, "alice", ReviewApproved, "")
		require.NoError(t, err)
		x.submit(t, mustKey(t, "acme", "inv-2", 1), "c")
		p, err := x.store.ListAudit(x.ctx, AuditOptions{Action: AuditReviewDecided})
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		require.Equal(t, k.String(), p.Entries[0].JobKey)
		p, err = x.store.ListAudit(x.ctx, AuditOptions{Action: AuditSubmitted})
		require.NoError(t, err)
		require.Len(t, p.Entries, 2)
	})
}
