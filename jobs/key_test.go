package jobs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBuildKey_Validation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tenant, doc string
		version           int64
		bad               []string // fields reported
	}{
		{"valid", "acme", "inv-001", 1, nil},
		{"valid max version", "acme", "A.b_c~d-e", MaxVersion, nil},
		{"tenant empty", "", "inv", 1, []string{"tenant"}},
		{"tenant one char", "a", "inv", 1, []string{"tenant"}},
		{"tenant uppercase", "Acme", "inv", 1, []string{"tenant"}},
		{"tenant with colon", "ac:me", "inv", 1, []string{"tenant"}},
		{"tenant too long", "a" + strings.Repeat("b", 33), "inv", 1, []string{"tenant"}},
		{"doc empty", "acme", "", 1, []string{"documentId"}},
		{"doc with colon", "acme", "a:b", 1, []string{"documentId"}},
		{"doc with slash", "acme", "a/b", 1, []string{"documentId"}},
		{"doc with space", "acme", "a b", 1, []string{"documentId"}},
		{"doc leading dot", "acme", ".a", 1, []string{"documentId"}},
		{"doc unicode", "acme", "résumé", 1, []string{"documentId"}},
		{"doc zero width", "acme", "a\u200bb", 1, []string{"documentId"}},
		{"doc control", "acme", "a\x00b", 1, []string{"documentId"}},
		{"doc too long", "acme", strings.Repeat("a", 129), 1, []string{"documentId"}},
		{"version zero", "acme", "inv", 0, []string{"operationVersion"}},
		{"version negative", "acme", "inv", -1, []string{"operationVersion"}},
		{"version too big", "acme", "inv", MaxVersion + 1, []string{"operationVersion"}},
		{"everything wrong", "", "", 0, []string{"tenant", "documentId", "operationVersion"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := BuildKey(tc.tenant, tc.doc, tc.version)
			if tc.bad == nil {
				require.NoError(t, err)
				require.Equal(t, tc.tenant+":"+tc.doc+":v", k.String()[:len(tc.tenant)+len(tc.doc)+3])
				return
			}
			require.ErrorIs(t, err, ErrInvalidKey)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Field)
			}
			require.Equal(t, tc.bad, got)
			require.False(t, k.Valid())
		})
	}
}

func TestParseKey_RoundTripsAndRejectsNonCanonical(t *testing.T) {
	t.Parallel()
	k, err := ParseKey("acme:inv-1:v42")
	require.NoError(t, err)
	require.Equal(t, Key{Tenant: "acme", DocumentID: "inv-1", Version: 42}, k)
	require.Equal(t, "acme:inv-1:v42", k.String())
	for _, s := range []string{"", "acme", "acme:inv", "acme:inv:42", "acme:inv:v", "acme:inv:v0", "acme:inv:v01",
		"acme:inv:v+1", "acme:inv:v-1", "acme:inv:v1:x", ":inv:v1", "acme::v1", "acme:inv:v99999999999"} {
		_, err := ParseKey(s)
		require.ErrorIs(t, err, ErrInvalidKey, s)
	}
}

func TestShard_IsStableAndInRange(t *testing.T) {
	t.Parallel()
	require.Equal(t, Shard("acme", "inv-1", 16), Shard("acme", "inv-1", 16))
	for i := range 1000 {
		s := Shard("acme", strings.Repeat("x", i%7)+string(rune('a'+i%26)), 16)
		require.True(t, s >= 0 && s < 16)
	}
}

func FuzzKey(f *testing.F) {
	f.Add("acme", "inv-1", int64(1), "globex")
	f.Add("a", ":", int64(0), "b")
	f.Add("acme", "x:v1", int64(MaxVersion), "acme-x")
	f.Fuzz(func(t *testing.T, tenant, doc string, version int64, other string) {
		k, err := BuildKey(tenant, doc, version)
		if err != nil {
			return
		}
		back, err := ParseKey(k.String())
		if err != nil || back != k {
			t.Fatalf("key %q does not round-trip: %v %v", k.String(), back, err)
		}
		k2, err := BuildKey(other, doc, version)
		if err == nil && other != tenant && k2.String() == k.String() {
			t.Fatalf("tenants %q and %q share key %q", tenant, other, k.String())
		}
		// A key's string never parses to a different tenant.
		if back.Tenant != tenant {
			t.Fatalf("tenant changed: %q -> %q", tenant, back.Tenant)
		}
	})
}

func FuzzParseKey(f *testing.F) {
	f.Add("acme:inv:v1")
	f.Add("acme:inv:v01")
	f.Add("::")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("accepted %q but renders %q", s, k.String())
		}
	})
}
