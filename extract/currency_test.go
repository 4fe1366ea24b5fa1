package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMinorUnits_CurrencyTable(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{"EUR": 2, "GBP": 2, "USD": 2, "JPY": 0, "KRW": 0, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3} {
		got, ok := MinorUnits(code)
		require.True(t, ok, code)
		require.Equal(t, want, got, code)
	}
	for _, bad := range []string{"XAU", "XTS", "eur", "EURO", ""} {
		_, ok := MinorUnits(bad)
		require.False(t, ok, bad)
	}
}
