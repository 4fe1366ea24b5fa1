package main

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIBAN_ChecksumIsValid(t *testing.T) {
	t.Parallel()
	require.Equal(t, "GB33BUKB20201555555555", iban("GB", "BUKB20201555555555"), "the standard's example")
	for _, s := range suppliers {
		if s.Seller.IBAN == "" {
			continue
		}
		v := s.Seller.IBAN
		var digits strings.Builder
		for _, r := range v[4:] + v[:4] {
			if r >= 'A' && r <= 'Z' {
				digits.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
			} else {
				digits.WriteRune(r)
			}
		}
		n, ok := new(big.Int).SetString(digits.String(), 10)
		require.True(t, ok, s.Key)
		require.EqualValues(t, 1, new(big.Int).Mod(n, big.NewInt(97)).Int64(), "%s: %s", s.Key, v)
	}
}

func TestTotals_RoundOrTruncateAsTheTemplate(t *testing.T) {
	t.Parallel()
	l := languages["de"]
	d := &doc{Lines: []line{mkLine(l, "x", 1, "", 1005)}} // 10.05 at 19% = 1.9095
	totals(d, supplier{VATBP: 1900}, l)
	require.EqualValues(t, 191, d.TaxCents, "rounded half up")
	totals(d, supplier{VATBP: 1900, TaxFloor: true}, l)
	require.EqualValues(t, 190, d.TaxCents, "truncated")
	d = &doc{Lines: []line{mkLine(l, "x", 1, "", -3376)}}
	totals(d, supplier{VATBP: 2000}, l)
	require.Equal(t, []string{"-33,76", "-6,75", "-40,51"}, []string{d.SubtotalText, d.TaxText, d.TotalText})
	require.Equal(t, "-40.51", decimal(d.TotalCents))
	require.Equal(t, "1.234,50", l.money(123450))
	require.Equal(t, "1,234.50", languages["en"].money(123450))
}

func TestGenerate_EverySupplierHasSeveralDocumentsAndCopiesNameTheirFirst(t *testing.T) {
	t.Parallel()
	keys := map[string]bool{}
	for _, s := range suppliers {
		require.False(t, keys[s.Key], "supplier key %s twice", s.Key)
		keys[s.Key] = true
		docs, err := generate(s)
		require.NoError(t, err, s.Key)
		require.GreaterOrEqual(t, len(docs), 4, s.Key)
		again, err := generate(s)
		require.NoError(t, err)
		require.Equal(t, docs, again, "%s: the data is the same on every run", s.Key)
		files := map[string]*doc{}
		for _, d := range docs {
			files[d.File] = d
			require.Equal(t, d.SubtotalCents+d.TaxCents, d.TotalCents, d.File)
			if d.CopyOf != "" {
				first := files[d.CopyOf]
				require.NotNil(t, first, "%s copies %s, which comes before it", d.File, d.CopyOf)
				require.Empty(t, first.CopyOf, "%s: a copy names the first copy", d.File)
				require.Equal(t, first.Number, d.Number)
			}
			if d.Kind != "invoice" {
				require.NotEmpty(t, d.Preceding, "%s: a credit note names the invoice it corrects", d.File)
			}
		}
	}
	require.GreaterOrEqual(t, len(keys), 20)
}
