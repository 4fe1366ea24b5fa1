package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
