package supplier

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePublicID_TheShapeTheAPIAndTheConsoleName(t *testing.T) {
	t.Parallel()
	const sup = "vat:0123456789abcdef01234567"
	tenant, id, ok := ParsePublicID(PublicID("acme", sup))
	require.True(t, ok)
	require.Equal(t, "acme", tenant)
	require.Equal(t, sup, id)
	for _, bad := range []string{sup, "acme:" + sup + "0", "acme:vat:0123456789ABCDEF01234567", "acme:phone:0123456789abcdef01234567",
		"Acme:" + sup, "acme:" + sup + "\n", ""} {
		_, _, ok := ParsePublicID(bad)
		require.False(t, ok, bad)
	}
}

func TestParseRef_IsRefsInverse(t *testing.T) {
	t.Parallel()
	sup, v, ok := ParseRef(Ref("vat:0123456789abcdef01234567", 12))
	require.True(t, ok)
	require.Equal(t, "vat:0123456789abcdef01234567", sup)
	require.Equal(t, 12, v)
	for _, bad := range []string{"vat:x", "vat:x@v", "vat:x@v0", "vat:x@v-1", "vat:x@v01", "@v1", "vat:x@v1x"} {
		_, _, ok := ParseRef(bad)
		require.False(t, ok, bad)
	}
}
