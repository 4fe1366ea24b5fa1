package supplier

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/redistest"
)

// holzwerkConfirmed is holzwerk1 as a person confirmed it, with the seller
// id the page states (the worker's identify finds it).
func holzwerkConfirmed() *extract.Invoice {
	v := holzwerk1Values
	return &extract.Invoice{DocumentType: v.DocumentType, InvoiceNumber: v.InvoiceNumber, IssueDate: v.IssueDate,
		Currency: v.Currency, Vendor: v.Vendor, Subtotal: v.Subtotal, Tax: v.Tax, Total: v.Total,
		Seller:   []extract.PartyID{{Scheme: extract.IDVAT, ID: "DE318204577"}},
		Evidence: map[string]extract.Evidence{"invoiceNumber": {Source: extract.EvidenceCorrection}}}
}

// holzwerkRead is what the rules read of holzwerk2, without its number.
func holzwerkRead() extract.Extraction {
	return extract.Extraction{DocumentType: "invoice", Vendor: "Holzwerk Brandt GmbH", Total: "1342.80",
		Seller: []extract.PartyID{{Scheme: extract.IDVAT, ID: "DE 318 204 577"}}}
}

func TestMemory_LearnsFromACorrection_ReadsTheSuppliersNextDocument(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		s := setup(t, b)
		m := NewMemory(s.store)

		x, err := m.Read(s.ctx, "acme", []string{holzwerk2}, holzwerkRead())
		require.NoError(t, err)
		require.Equal(t, holzwerkRead(), x, "no profile yet: the rules' extraction unchanged")

		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, holzwerkConfirmed(), "acme:doc-1:v2", LearnedCorrection, "clerk"))
		x, err = m.Read(s.ctx, "acme", []string{holzwerk2}, holzwerkRead())
		require.NoError(t, err)
		require.Equal(t, "RE-2024-0312", x.InvoiceNumber)
		ev := x.Evidence["invoiceNumber"]
		require.Equal(t, extract.EvidenceProfile, ev.Source)
		require.Equal(t, "acme:doc-1:v2", ev.Learned)
		sup, _, _ := cutRef(ev.Profile)
		require.NotEmpty(t, sup)

		sp, err := s.store.Profile(s.ctx, "acme", sup)
		require.NoError(t, err)
		require.Equal(t, 1, sp.Version)
		var p Profile
		require.NoError(t, json.Unmarshal(sp.Data, &p))
		require.Equal(t, []string{"invoiceNumber"}, p.Learned[0].Fields, "the corrected fields are recorded")
		require.Equal(t, "clerk", p.Learned[0].Operator)
		audit, err := s.store.ProfileAudit(s.ctx, "acme", 10)
		require.NoError(t, err)
		require.Len(t, audit, 1)
		require.Equal(t, "acme:doc-1:v2", audit[0].Job)

		// Another tenant has no profile of the same supplier.
		y, err := m.Read(s.ctx, "globex", []string{holzwerk2}, holzwerkRead())
		require.NoError(t, err)
		require.Empty(t, y.InvoiceNumber, "never across tenants")
	})
}

func TestMemory_TheSameJobTeachesOnce_AnotherRefinesTheVersion(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		s := setup(t, b)
		m := NewMemory(s.store)
		inv := holzwerkConfirmed()
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, inv, "acme:doc-1:v2", LearnedCorrection, "clerk"))
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, inv, "acme:doc-1:v2", LearnedCorrection, "clerk"),
			"a redelivered learning")
		page, err := s.store.Profiles(s.ctx, "acme", "", 10)
		require.NoError(t, err)
		require.Len(t, page.Profiles, 1)
		require.Equal(t, 1, page.Profiles[0].Version, "the same job learned once")

		v2 := &extract.Invoice{DocumentType: "invoice", InvoiceNumber: "RE-2024-0312", IssueDate: "2024-02-25", Currency: "EUR",
			Vendor: "Holzwerk Brandt GmbH", Subtotal: "1128.40", Tax: "214.40", Total: "1342.80", Seller: inv.Seller}
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk2}, v2, "acme:doc-2:v1", LearnedApproval, "clerk"))
		sp, err := s.store.Profile(s.ctx, "acme", page.Profiles[0].Supplier)
		require.NoError(t, err)
		require.Equal(t, 2, sp.Version)
	})
}

func TestMemory_ConcurrentLearnings_EachIsKept(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		s := setup(t, b)
		m := NewMemory(s.store)
		inv := holzwerkConfirmed()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				errs[i] = m.Learn(s.ctx, "acme", []string{holzwerk1}, inv, "acme:doc-"+string(rune('a'+i))+":v1", LearnedApproval, "")
			})
		}
		wg.Wait()
		stored := 0
		for _, err := range errs {
			if err == nil {
				stored++
			} else {
				require.ErrorIs(t, err, ErrProfileConflict, "only a lost race may fail")
			}
		}
		page, err := s.store.Profiles(s.ctx, "acme", "", 10)
		require.NoError(t, err)
		require.Len(t, page.Profiles, 1)
		require.Equal(t, stored, page.Profiles[0].Version, "each stored learning is one version, none lost silently")
	})
}

func TestMemory_CountsReadsAndMisses_FlagsAProfileThatKeepsMissing(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		s := setup(t, b)
		m := NewMemory(s.store)
		require.NoError(t, m.Count(s.ctx, "acme", "nobody@v1", true, true), "no profile: nothing counted")
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, holzwerkConfirmed(), "acme:doc-1:v2", LearnedCorrection, "clerk"))
		x, err := m.Read(s.ctx, "acme", []string{holzwerk2}, holzwerkRead())
		require.NoError(t, err)
		ref := x.Evidence["total"].Profile
		require.NoError(t, m.Count(s.ctx, "acme", ref, true, false))
		require.NoError(t, m.Count(s.ctx, "acme", ref, true, true))
		require.NoError(t, m.Count(s.ctx, "acme", ref, false, true))
		sup, _, _ := cutRef(ref)
		sp, err := s.store.Profile(s.ctx, "acme", sup)
		require.NoError(t, err)
		require.Equal(t, 2, sp.Reads)
		require.Equal(t, 2, sp.Misses)
		require.True(t, FlaggedCounts(sp.Reads, sp.Misses))

		// A learning keeps the counts; a deletion forgets them.
		v2 := holzwerkConfirmed()
		v2.InvoiceNumber = "RE-2024-0399"
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, v2, "acme:doc-3:v1", LearnedApproval, "clerk"))
		sp, err = s.store.Profile(s.ctx, "acme", sup)
		require.NoError(t, err)
		require.Equal(t, 2, sp.Reads)
		require.NoError(t, s.store.DeleteProfile(s.ctx, "acme", sup, "admin"))
		require.NoError(t, m.Count(s.ctx, "acme", ref, true, false))
		_, err = s.store.Profile(s.ctx, "acme", sup)
		require.ErrorIs(t, err, ErrProfileNotFound, "a count does not bring a deleted profile back")
	})
}

func TestMemory_NoIdentity_LearnsNothing(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		s := setup(t, b)
		m := NewMemory(s.store)
		require.NoError(t, m.Learn(s.ctx, "acme", []string{holzwerk1}, &extract.Invoice{DocumentType: "invoice", Total: "1.00"}, "acme:d:v1", LearnedApproval, ""))
		page, err := s.store.Profiles(s.ctx, "acme", "", 10)
		require.NoError(t, err)
		require.Empty(t, page.Profiles)
	})
}

// cutRef splits a profile reference "<supplier>@v<version>".
func cutRef(ref string) (string, string, bool) { return strings.Cut(ref, "@v") }
