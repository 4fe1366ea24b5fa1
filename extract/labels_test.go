package extract

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTextHelpers_AgreeWithTheStringsFunctionsTheyReplace(t *testing.T) {
	t.Parallel()
	pieces := []string{" ", "  ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "a", "Total", "1",
		"*", "_", "`", "/", "-", "é", "\xff", "\xc3", "€"}
	r := rand.New(rand.NewPCG(7, 8))
	for range 30000 {
		s := randomText(r, pieces, r.IntN(12))
		require.Equal(t, len(strings.Fields(s)), countFields(s), "%q", s)
		for _, set := range []string{"*_`", "/-_", "0123456789"} {
			require.Equal(t, strings.ContainsAny(s, set), containsASCII(s, set), "%q %q", s, set)
		}
		require.Equal(t, strings.ContainsAny(s, "0123456789"), hasDigit(s), "%q", s)
		isSep := func(r rune) bool { return strings.ContainsRune(" :()[]@*\t", r) }
		require.Equal(t, strings.FieldsFunc(s, isSep), appendFieldsFunc(make([]string, 0), s, isSep), "%q", s)
	}
}
