package supplier

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/keyring"
	"github.com/relayops/relayops/internal/redistest"
)

func sealedStore(t *testing.T, be *redistest.Backend, maxBytes int64) *Store {
	t.Helper()
	ring, err := keyring.New([]keyring.Key{{ID: "k1", Secret: bytes.Repeat([]byte{7}, keyring.KeySize)}})
	require.NoError(t, err)
	s, err := NewStore(Config{Redis: be.Client, Clock: clock.NewStub(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)),
		Keys: ring, MaxBytes: maxBytes})
	require.NoError(t, err)
	return s
}

func TestProfiles_SavedSealedVersionedListedAuditedDeleted(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		ctx := context.Background()
		s := sealedStore(t, be, 0)
		keys := []string{"vat:DE136695976", "name:lieferant"}
		sup, err := s.Resolve(ctx, "acme", keys)
		require.NoError(t, err)
		got, err := s.Lookup(ctx, "acme", []string{"name:lieferant"})
		require.NoError(t, err)
		require.Equal(t, sup, got, "a later document that prints only the name finds the supplier")
		none, err := s.Lookup(ctx, "globex", keys)
		require.NoError(t, err)
		require.Empty(t, none, "never across tenants")

		ev := ProfileEvent{Supplier: sup, Job: "acme:inv-1:v2", Kind: "correction", Operator: "alice", Fields: []string{"total"}}
		require.NoError(t, s.SaveProfile(ctx, "acme", 0, 1, []byte(`{"version":1,"vendor":"Lieferant GmbH"}`), ev))
		require.ErrorIs(t, s.SaveProfile(ctx, "acme", 0, 1, []byte(`{"version":1}`), ev), ErrProfileConflict, "made from a stale version")
		require.NoError(t, s.SaveProfile(ctx, "acme", 1, 2, []byte(`{"version":2,"vendor":"Lieferant GmbH"}`), ev))

		p, err := s.Profile(ctx, "acme", sup)
		require.NoError(t, err)
		require.Equal(t, 2, p.Version)
		require.JSONEq(t, `{"version":2,"vendor":"Lieferant GmbH"}`, string(p.Data))
		raw, err := be.Client.HGet(ctx, profileKey("acme", sup), "d").Result()
		require.NoError(t, err)
		require.NotContains(t, raw, "Lieferant", "encrypted at rest")
		_, err = s.Profile(ctx, "globex", sup)
		require.ErrorIs(t, err, ErrProfileNotFound)

		page, err := s.Profiles(ctx, "acme", "", 10)
		require.NoError(t, err)
		require.Len(t, page.Profiles, 1)
		used, err := s.UsedBytes(ctx, "acme")
		require.NoError(t, err)
		require.Positive(t, used)

		require.ErrorIs(t, s.DeleteProfile(ctx, "globex", sup, "bob"), ErrProfileNotFound)
		require.NoError(t, s.DeleteProfile(ctx, "acme", sup, "bob"))
		_, err = s.Profile(ctx, "acme", sup)
		require.ErrorIs(t, err, ErrProfileNotFound)
		used, err = s.UsedBytes(ctx, "acme")
		require.NoError(t, err)
		require.Zero(t, used, "the budget is given back")

		audit, err := s.ProfileAudit(ctx, "acme", 10)
		require.NoError(t, err)
		require.Len(t, audit, 3)
		require.Equal(t, ActionProfileDeleted, audit[0].Action)
		require.Equal(t, "bob", audit[0].Operator)
		require.Equal(t, ProfileEvent{ID: audit[2].ID, Action: ActionProfileLearned, Supplier: sup, Version: 1, Job: "acme:inv-1:v2",
			Kind: "correction", Operator: "alice", Fields: []string{"total"}, At: audit[2].At}, audit[2])
	})
}

func TestProfiles_TenantBudget_RefusesPastIt(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		ctx := context.Background()
		s := sealedStore(t, be, 300)
		ev := ProfileEvent{Supplier: "vat:a"}
		require.NoError(t, s.SaveProfile(ctx, "acme", 0, 1, bytes.Repeat([]byte("x"), 100), ev))
		ev.Supplier = "vat:b"
		require.ErrorIs(t, s.SaveProfile(ctx, "acme", 0, 1, bytes.Repeat([]byte("x"), 200), ev), ErrQuota)
		require.NoError(t, s.DeleteProfile(ctx, "acme", "vat:a", "op"))
		require.NoError(t, s.SaveProfile(ctx, "acme", 0, 1, bytes.Repeat([]byte("x"), 200), ev))
	})
}

// The supplier a learning resolves is the one the claim resolves: a
// profile learned from a correction serves the duplicate check's supplier.
func TestResolve_AgreesWithTheClaim(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		b := setup(t, be)
		inv := invoice("RE-1", "10.00", "2026-01-01", vat)
		sup, err := b.store.Resolve(b.ctx, "acme", IdentityKeys(inv))
		require.NoError(t, err)
		k := key(t, "acme:a:v1")
		keys, args := b.store.claimArgs(k, FingerprintOf("acme", inv))
		v, err := claimScript.Run(b.ctx, be.Client, keys, args...).StringSlice()
		require.NoError(t, err)
		require.Equal(t, sup, v[0])
	})
}
