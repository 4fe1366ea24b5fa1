package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNumberFormat_CanonicalAmounts(t *testing.T) {
	t.Parallel()
	dot := numberFormat{decimal: '.', voted: true, minor: 2}
	comma := numberFormat{decimal: ',', voted: true, minor: 2}
	none2 := numberFormat{decimal: '.', minor: 2}
	none0 := numberFormat{decimal: '.', minor: 0}
	none3 := numberFormat{decimal: '.', minor: 3}
	tests := []struct {
		name string
		f    numberFormat
		raw  string
		want string
	}{
		{"comma thousands, dot decimals", dot, "1,234.56", "1234.56"},
		{"dot thousands, comma decimals", comma, "1.234,56", "1234.56"},
		{"both marks tell themselves", dot, "1.234,56", "1234.56"},
		{"space thousands, comma decimals", comma, "1 234,56", "1234.56"},
		{"apostrophe thousands", dot, "1'234.50", "1234.50"},
		{"one decimal", dot, "1234.5", "1234.5"},
		{"no decimals", dot, "912", "912"},
		{"three-digit tail in a dot document", dot, "1.234", "1.234"},
		{"three-digit tail in a comma document", comma, "1.234", "1234"},
		{"comma three-digit tail in a dot document", dot, "1,234", "1234"},
		{"comma three-digit tail in a comma document", comma, "1,234", "1.234"},
		{"no evidence, two-decimal currency: grouping", none2, "1.234", "1234"},
		{"no evidence, yen: grouping", none0, "20,420", "20420"},
		{"no evidence, dinar: decimals", none3, "250,000", "250.000"},
		{"a leading zero is a decimal", dot, "0,125", "0.125"},
		{"a long head is not a group", comma, "1234.567", "1234.567"},
		{"several groups", dot, "1,234,567.89", "1234567.89"},
		{"Indian grouping", dot, "1,20,000.00", "120000.00"},
		{"fractional quantity", comma, "5,25", "5.25"},
		{"leading zeros", dot, "007", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.f.canonical(tt.raw, false)
			require.True(t, ok, tt.raw)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNumberFormat_RejectsInconsistentNumbers(t *testing.T) {
	t.Parallel()
	f := numberFormat{decimal: '.', voted: true, minor: 2}
	for _, raw := range []string{"12.34.56", "1.234.5", "1,23,4.00", "1,234,56.78,9", "1234,567,890"} {
		_, ok := f.canonical(raw, false)
		require.False(t, ok, raw)
	}
	v, ok := f.canonical("10.00", true)
	require.True(t, ok)
	require.Equal(t, "-10.00", v)
	v, ok = f.canonical("0.00", true)
	require.True(t, ok)
	require.Equal(t, "0.00", v, "no negative zero")
}

func TestFormatVotes_TheDocumentDecidesItsDecimalMark(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raws  []string
		want  byte
		voted bool
	}{
		{"US amounts", []string{"1,234.56", "12.00"}, '.', true},
		{"continental amounts", []string{"1.234,56", "12,50"}, ',', true},
		{"space-grouped continental", []string{"1", "234,56"}, ',', true},
		{"grouping only says nothing", []string{"1,234", "20,420"}, '.', false},
		{"repeated grouping tells", []string{"1.234.567"}, ',', true},
		{"majority wins", []string{"1,50", "2,50", "3.50"}, ',', true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v formatVotes
			for _, r := range tt.raws {
				v.vote(r)
			}
			f := v.decide(2)
			require.Equal(t, string(tt.want), string(f.decimal))
			require.Equal(t, tt.voted, f.voted)
		})
	}
}

func TestScanNumbers_WhatSurroundsANumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text     string
		spaceGrp bool
		raw      string
		cur      string
		neg, pct bool
		unit     string
	}{
		{"Amount Due: £912.40", false, "912.40", "GBP", false, false, ""},
		{"Total 1.234,56 €", false, "1.234,56", "EUR", false, false, ""},
		{"2 400,00 €", true, "2 400,00", "EUR", false, false, ""},
		{"Total (EUR) 1,234.56 EUR", false, "1,234.56", "EUR", false, false, ""},
		{"EUR 12.00", false, "12.00", "EUR", false, false, ""},
		{"EUR1,234.56", false, "1,234.56", "EUR", false, false, ""},
		{"US$12", false, "12", "USD", false, false, ""},
		{"A$ 99.00", false, "99.00", "AUD", false, false, ""},
		{"$4.00", false, "4.00", "$", false, false, ""},
		{"¥20,420", false, "20,420", "JPY", false, false, ""},
		{"KD 1,600.535", false, "1,600.535", "KWD", false, false, ""},
		{"5 533,00 kr", true, "5 533,00", "kr", false, false, ""},
		{"CHF 3'240.00", false, "3'240.00", "CHF", false, false, ""},
		{"Discount -10.00", false, "10.00", "", true, false, ""},
		{"-£69.19", false, "69.19", "GBP", true, false, ""},
		{"Loyalty discount (8,997)", false, "8,997", "", true, false, ""},
		{"VAT 20%", false, "20", "", false, true, ""},
		{"9.5h", false, "9.5", "", false, false, "h"},
		{"£45/hr", false, "45", "GBP", false, false, ""},
		{"R12 450.00", true, "12 450.00", "ZAR", false, false, ""},
		{"R250.00", false, "250.00", "ZAR", false, false, ""},
		{"Total R 1 234,56", true, "1 234,56", "ZAR", false, false, ""},
		{"R$ 99,90", false, "99,90", "BRL", false, false, ""},
		{"SR 1,150.00", false, "1,150.00", "SAR", false, false, ""},
	}
	for _, tt := range tests {
		toks := scanNumbers(tt.text, tt.spaceGrp)
		require.NotEmpty(t, toks, tt.text)
		got := toks[len(toks)-1]
		require.Equal(t, tt.raw, got.raw, tt.text)
		require.Equal(t, tt.cur, got.cur, tt.text)
		require.Equal(t, tt.neg, got.neg, tt.text)
		require.Equal(t, tt.pct, got.pct, tt.text)
		require.Equal(t, tt.unit, got.unit, tt.text)
	}
}

func TestScanNumbers_IdentifiersAndDatesAreNotAmounts(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"INV-2024-0001", "Invoice #: 50-1187", "03/03/2026", "A4", "M8x40", "2024/0815", "Net-30", "R16", "Tyre 205/55R16", "R2D2"} {
		require.Empty(t, scanNumbers(text, false), text)
	}
}

func TestScanNumbers_ASpaceGroupedAmountWithItsCodeAgainstIt(t *testing.T) {
	t.Parallel()
	toks := scanNumbers("Razem do zapłaty: 17 115,45PLN", true)
	require.NotEmpty(t, toks)
	last := toks[len(toks)-1]
	require.Equal(t, "17 115,45", last.raw)
	require.Equal(t, "PLN", last.cur)
}
