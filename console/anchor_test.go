package console

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/supplier"
)

func TestAnchorWhere_SaysWhereAndHowEachValueIsPrinted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a    supplier.Anchor
		want string
	}{
		{supplier.Anchor{Relation: supplier.RelationRight, Label: "Gesamtbetrag", Occurrence: 2, Occurrences: 2, Page: 1, Region: "right",
			Format: supplier.Format{Kind: supplier.FormatAmount, Decimal: ",", Group: ".", Currency: "€"}},
			"right of 'Gesamtbetrag', the 2nd of 2 such rows, on page 1, right side, written 1.234,56 €"},
		{supplier.Anchor{Relation: supplier.RelationBelow, Label: "Invoice No.", Below: 2,
			Format: supplier.Format{Kind: supplier.FormatText, Shape: "A-9", Prefix: "#"}},
			"below 'Invoice No.' in its column (the 2nd cell under it), written like #A-9 (A letters, 9 digits)"},
		{supplier.Anchor{Relation: supplier.RelationRight, Label: "Date",
			Format: supplier.Format{Kind: supplier.FormatDate, Order: "MDY", Separator: "/", YearDigits: 2}},
			"right of 'Date', written 12/31/24 (month, day, year)"},
		{supplier.Anchor{Relation: supplier.RelationRight, Label: "Datum",
			Format: supplier.Format{Kind: supplier.FormatDate, Order: "DMY", MonthNames: true, YearDigits: 4}},
			"right of 'Datum', written 31 December 2024 (day, month, year)"},
		{supplier.Anchor{Relation: supplier.RelationRight, Label: "Date", Format: supplier.Format{Kind: supplier.FormatDate, Separator: "."}},
			"right of 'Date', written as a date whose day and month order the learning could not tell"},
		{supplier.Anchor{Relation: supplier.RelationRight, Label: "Tax", Format: supplier.Format{Kind: supplier.FormatAmount, Decimal: "."}},
			"right of 'Tax', written 234.56 (its thousands separator not seen yet)"},
		{supplier.Anchor{Relation: supplier.RelationIdentity},
			"not printed (a logo): the name a person gave for the identifiers the page states"},
		{supplier.Anchor{Relation: supplier.RelationComputed}, "not printed: the validator computes it from the other amounts"},
		{supplier.Anchor{Relation: supplier.RelationMarker, Label: "PLN"}, "told by the marker 'PLN' printed with the amounts"},
	} {
		require.Equal(t, c.want, anchorWhere(c.a))
	}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd"} {
		require.Equal(t, want, ordinal(n))
	}
}

func TestProfileOfRef_OnlyTheJobsTenant(t *testing.T) {
	t.Parallel()
	const sup = "vat:0123456789abcdef01234567"
	id, v, ok := profileOfRef("acme", sup+"@v3")
	require.True(t, ok)
	require.Equal(t, "acme:"+sup, id)
	require.Equal(t, 3, v)
	_, _, ok = profileOfRef("acme", "acme:"+sup+"@v3")
	require.True(t, ok, "a public ID of the job's tenant")
	for _, ref := range []string{"globex:" + sup + "@v3", sup, sup + "@v0", sup + "@v03", "vat:x@v1", "@v1", ""} {
		_, _, ok := profileOfRef("acme", ref)
		require.False(t, ok, ref)
	}
}
