package supplier

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScanAmount_ReadsEveryWayAnAmountIsPrinted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, marker string
		values     []string
	}{
		{"€ 771,90", "€", []string{"771.90"}},
		{"3.112,00 PLN", "PLN", []string{"3112.00"}},
		{"£1,029.60", "£", []string{"1029.60"}},
		{"14,189.00 USD", "USD", []string{"14189.00"}},
		{"−720.00 €", "€", []string{"-720.00"}},
		{"-€ 33,76", "€", []string{"-33.76"}},
		{"(12.50)", "", []string{"-12.50"}},
		{"8,79-", "", []string{"-8.79"}},
		{"1'756.05 CHF", "CHF", []string{"1756.05"}},
		{"4992", "", []string{"4992"}},
		{"1.234", "", []string{"1234", "1.234"}},   // grouping, or three decimals
		{"1,234", "", []string{"1234", "1.234"}},   //
		{"12,5", "", []string{"12.5"}},             //
		{"1.234.567", "", []string{"1234567"}},     // a mark used twice groups
		{"10.085,35 €", "€", []string{"10085.35"}}, //
	} {
		tok, ok := scanAmount(tc.in, 0, false)
		require.True(t, ok, tc.in)
		require.Equal(t, tc.marker, tok.marker, tc.in)
		var got []string
		for _, r := range tok.readings {
			got = append(got, r.value)
		}
		require.Equal(t, tc.values, got, tc.in)
	}
}

func TestScanAmount_RefusesWhatIsNoAmount(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"20%", "RE-2024", "abc", "12.34.5,6", "1.23,4.5", "2024-10234", "€", "1.2345678"} {
		_, ok := scanAmount(in, 0, false)
		require.False(t, ok, in)
	}
}

func TestScanAmount_SpaceGroupsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	tok, ok := scanAmount("1 234,56 EUR", 0, true)
	require.True(t, ok)
	require.Equal(t, "1234.56", tok.readings[0].value)
	require.Equal(t, " ", tok.readings[0].group)
	tok, ok = scanAmount("5 425.00", 0, false)
	require.True(t, ok)
	require.Equal(t, "5", tok.readings[0].value, "a quantity before a price is no group")
}

func TestReadAmount_OnlyTheLearnedForm(t *testing.T) {
	t.Parallel()
	comma := Format{Kind: FormatAmount, Decimal: ",", Currency: "€"}
	for _, tc := range []struct {
		in   string
		f    Format
		want string // "" reads nothing
	}{
		{"€ 1.234,56", comma, "1234.56"},
		{"€ 1.234", comma, "1234"}, // the decimal mark is learned: '.' groups
		{"€ 12,50", comma, "12.50"},
		{"€ 12.50", comma, ""}, // another decimal mark
		{"12,50", comma, ""},   // no marker, learned with one
		{"$ 12,50", comma, ""}, // another marker
		{"1,234.56", Format{Kind: FormatAmount, Decimal: ".", Group: ","}, "1234.56"},
		{"1.234,56", Format{Kind: FormatAmount, Decimal: ".", Group: ","}, ""},
		{"1 234.56", Format{Kind: FormatAmount, Decimal: ".", Group: " "}, "1234.56"},
		{"1.234", Format{Kind: FormatAmount}, ""},            // learned whole: which is it?
		{"12,50", Format{Kind: FormatAmount}, "12.50"},       // learned whole, unambiguous here
		{"4992", Format{Kind: FormatAmount}, "4992"},         //
		{"-40,51", comma.withoutCurrency(), "-40.51"},        //
		{"(40,51)", comma.withoutCurrency(), "-40.51"},       //
		{"40,51 €", comma, "40.51"},                          // the marker after it
		{"40,51 € extra", comma, "40.51"},                    //
		{"40,51x", comma, ""},                                //
		{"1.234,5678", comma.withoutCurrency(), "1234.5678"}, //
	} {
		got, _, ok := readAmount(tc.in, 0, tc.f)
		require.Equal(t, tc.want != "", ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func (f Format) withoutCurrency() Format { f.Currency = ""; return f }

func TestScanDate_ReadsNumericAndNamedDates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		sep      string
		names    bool
		readings []dateReading
	}{
		{"15.01.2024", ".", false, []dateReading{{"2024-01-15", "DMY"}}},
		{"01/15/2024", "/", false, []dateReading{{"2024-01-15", "MDY"}}},
		{"03/01/2024", "/", false, []dateReading{{"2024-01-03", "DMY"}, {"2024-03-01", "MDY"}}},
		{"2024-01-15", "-", false, []dateReading{{"2024-01-15", "YMD"}}},
		{"10. 02. 2015", ".", false, []dateReading{{"2015-02-10", "DMY"}, {"2015-10-02", "MDY"}}},
		{"15. Januar 2024", ".", true, []dateReading{{"2024-01-15", "DMY"}}},
		{"15 janv. 2024", " ", true, []dateReading{{"2024-01-15", "DMY"}}},
		{"15-Jan-24", "-", true, []dateReading{{"2024-01-15", "DMY"}}},
		{"January 15, 2024", " ", true, []dateReading{{"2024-01-15", "MDY"}}},
		{"Jan 5th 2024", " ", true, []dateReading{{"2024-01-05", "MDY"}}},
		{"2 lutego 2024", " ", true, []dateReading{{"2024-02-02", "DMY"}}},
	} {
		tok, ok := scanDate(tc.in, 0)
		require.True(t, ok, tc.in)
		require.Equal(t, tc.sep, tok.format.Separator, tc.in)
		require.Equal(t, tc.names, tok.format.MonthNames, tc.in)
		require.Equal(t, tc.readings, tok.readings, tc.in)
	}
	for _, in := range []string{"31.02.2024", "2024-13-01", "15.01.20245", "Januar 2024", "12.5", "1.234,56"} {
		_, ok := scanDate(in, 0)
		require.False(t, ok, in)
	}
}

func TestReadDate_UnknownOrderReadsOnlyDatesThatCannotBeMisread(t *testing.T) {
	t.Parallel()
	dmy := Format{Kind: FormatDate, Order: "DMY", Separator: "/", YearDigits: 4}
	unknown := Format{Kind: FormatDate, Separator: "/", YearDigits: 4}
	for _, tc := range []struct {
		in   string
		f    Format
		want string
	}{
		{"03/01/2024", dmy, "2024-01-03"},
		{"03.01.2024", dmy, ""}, // another separator
		{"03/01/24", dmy, ""},   // another year
		{"25/02/2024", unknown, "2024-02-25"},
		{"05/05/2024", unknown, "2024-05-05"},
		{"05/02/2024", unknown, ""}, // 5 February or 2 May
		{"5 February 2024", dmy, ""},
	} {
		got, _, ok := readDate(tc.in, 0, tc.f)
		require.Equal(t, tc.want != "", ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestShapeOf_RunsOfLettersAndDigits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"RE-2024-0311": "A-9-9", "FV 2024/0812": "A 9/9", "202410712": "9", "KH202402201": "A9", "2024/FE/142": "9/A/9",
		"№ 12": "№ 9",
	} {
		require.Equal(t, want, shapeOf(in), in)
	}
}

func TestNewLayout_NumbersLinesAsTheRulesDoAcrossPages(t *testing.T) {
	t.Parallel()
	text := "Rechnung\nNr. 1\n\fSeite 2\nSumme 5,00\n\f"
	l := newLayout(PagesOf(text))
	require.Equal(t, 2, l.pages)
	var got []string
	for _, t := range l.lines {
		got = append(got, itoa(t.page)+":"+itoa(t.num)+":"+t.text)
	}
	require.Equal(t, []string{"1:1:Rechnung", "1:2:Nr. 1", "2:3:Seite 2", "2:4:Summe 5,00"}, got)
}

func TestSplitWords_CellsOpenAfterTwoSpaces(t *testing.T) {
	t.Parallel()
	ws := splitWords(plainLine("Invoice No.: #12  Date\t03/01/2024"))
	var cells []bool
	var norms []string
	for _, w := range ws {
		cells = append(cells, w.cellStart)
		norms = append(norms, w.norm)
	}
	require.Equal(t, []string{"invoice", "no.", "##", "date", "#/#/#"}, norms)
	require.Equal(t, []bool{true, false, false, true, true}, cells)
	require.Equal(t, 24, ws[4].col, "a tab moves to the next multiple of eight")
}
