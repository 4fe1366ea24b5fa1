package pdf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// word lays out s from x on baseline y in a 10 pt font whose glyphs are
// 5 pt wide, as PDFium would report them (one glyph per rune, in order).
func word(s string, x, y float64) []glyph {
	var gs []glyph
	for _, r := range s {
		gs = append(gs, glyph{r: r, x0: x, x1: x + 5, y: y, size: 10})
		x += 5
	}
	return gs
}

func glyphs(parts ...[]glyph) []glyph {
	var out []glyph
	for _, p := range parts {
		out = append(out, p...)
	}
	for i := range out {
		out[i].seq = i
	}
	return out
}

func TestLayoutText_PlacesLinesAndColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		glyphs []glyph
		want   string
	}{
		{"no glyphs", nil, ""},
		{"only spaces", word("   ", 0, 700), ""},
		{"one word", word("Invoice", 100, 700), "Invoice\n"},
		{"words a space apart get one space", glyphs(word("Invoice", 0, 700), word("4711", 37.5, 700)), "Invoice 4711\n"},
		{"a column gap keeps its distance", glyphs(word("Total", 0, 700), word("123,45", 100, 700)), "Total               123,45\n"},
		{"lines top to bottom, whatever the content order", glyphs(word("second", 0, 688), word("first", 0, 700)), "first\nsecond\n"},
		{"a big vertical gap leaves a blank line", glyphs(word("head", 0, 700), word("foot", 0, 650)), "head\n\n\nfoot\n"},
		{"a slightly raised glyph stays on its line", glyphs(word("m", 0, 700), word("2", 5, 703)), "m2\n"},
		{"indentation follows x", glyphs(word("a", 0, 700), word("b", 50, 688)), "a\n          b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, layoutText(tt.glyphs))
		})
	}
}

func TestLayoutText_HostileCoordinates_StayBounded(t *testing.T) {
	t.Parallel()
	gs := glyphs(word("a", 0, 700), word("far", 1e30, 700), word("nan", math.NaN(), 700), word("inf", 0, math.Inf(1)))
	text := layoutText(gs)
	require.Less(t, len(text), 1100)
	require.Contains(t, text, "far")
	require.NotContains(t, text, "nan")
	require.NotContains(t, text, "inf")
}

func TestLayoutText_TableColumnsStayAligned(t *testing.T) {
	t.Parallel()
	text := layoutText(glyphs(
		word("Pos", 0, 700), word("Description", 60, 700), word("Amount", 250, 700),
		word("1", 0, 688), word("Kite", 60, 688), word("40,00", 255, 688),
		word("2", 0, 676), word("Turbo", 60, 676), word("Flyer", 90, 676), word("200,00", 250, 676),
	))
	require.Equal(t, ""+
		"Pos         Description                           Amount\n"+
		"1           Kite                                   40,00\n"+
		"2           Turbo Flyer                           200,00\n", text)
}

func TestLayoutText_DropsOverprintButKeepsDoubleLetters(t *testing.T) {
	t.Parallel()
	bold := glyphs(word("Total", 0, 700), word("Total", 0.3, 700)) // fake bold: printed twice
	require.Equal(t, "Total\n", layoutText(bold))
	// A ligature split into two boxes at nearly one place, consecutive in
	// the content: both letters stay.
	lig := glyphs([]glyph{{r: 'M', x0: 0, x1: 5, y: 700, size: 10}, {r: 'i', x0: 5, x1: 7, y: 700, size: 10},
		{r: 't', x0: 7, x1: 7.2, y: 700, size: 10}, {r: 't', x0: 7.2, x1: 7.4, y: 700, size: 10}, {r: 'e', x0: 8, x1: 12, y: 700, size: 10}})
	require.Equal(t, "Mitte\n", layoutText(lig))
}

func TestLayoutText_SpaceInTheTextSurvivesTouchingBoxes(t *testing.T) {
	t.Parallel()
	gs := glyphs(word("ab", 0, 700), word("cd", 10, 700))
	gs[2].spaceBefore = true
	require.Equal(t, "ab cd\n", layoutText(gs))
}

func TestTurn_RotatedPageReadsLeftToRight(t *testing.T) {
	t.Parallel()
	// "AB" written upwards (90° counter-clockwise) at x=100: each glyph's
	// advance runs along y.
	up := []rawGlyph{
		{r: 'A', left: 90, right: 100, bottom: 200, top: 205, ox: 98, oy: 200, size: 10, quarter: 1},
		{r: 'B', left: 90, right: 100, bottom: 205, top: 210, ox: 98, oy: 205, size: 10, quarter: 1},
		{r: 'C', left: 90, right: 100, bottom: 215, top: 220, ox: 98, oy: 215, size: 10, quarter: 1},
	}
	require.Equal(t, "AB C\n", layoutText(turn(up)))
	down := []rawGlyph{
		{r: 'A', left: 100, right: 110, bottom: 205, top: 210, ox: 102, oy: 210, size: 10, quarter: 3},
		{r: 'B', left: 100, right: 110, bottom: 200, top: 205, ox: 102, oy: 205, size: 10, quarter: 3},
	}
	require.Equal(t, "AB\n", layoutText(turn(down)))
}

func TestQuarter_RoundsToTheNearestQuarterTurn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		angle float64
		want  int
	}{{0, 0}, {0.1, 0}, {math.Pi / 2, 1}, {math.Pi, 2}, {3 * math.Pi / 2, 3}, {2 * math.Pi, 0}, {-math.Pi / 2, 3}} {
		require.Equal(t, tt.want, quarter(tt.angle), "angle %v", tt.angle)
	}
}

func TestJoinSurrogates_CombinesPairsAndReplacesLoneHalves(t *testing.T) {
	t.Parallel()
	got := joinSurrogates([]rawGlyph{{r: 0xD83C}, {r: 0xDF10}, {r: 'x'}, {r: 0xD800}, {r: 'y'}})
	var runes []rune
	for _, g := range got {
		runes = append(runes, g.r)
	}
	require.Equal(t, []rune{'🌐', 'x', '\uFFFD', 'y'}, runes)
}

func TestSplitLigatures_SharesTheBox(t *testing.T) {
	t.Parallel()
	raws := []rawGlyph{
		{r: 'f', left: 0, right: 9, bottom: 700},
		{r: 'f', left: 0, right: 9, bottom: 700},
		{r: 'i', left: 0, right: 9, bottom: 700},
		{r: 'x', left: 9, right: 14, bottom: 700},
	}
	splitLigatures(raws)
	require.Equal(t, []float64{0, 3, 6, 9}, []float64{raws[0].left, raws[1].left, raws[2].left, raws[3].left})
	require.Equal(t, []float64{3, 6, 9, 14}, []float64{raws[0].right, raws[1].right, raws[2].right, raws[3].right})
}

func TestBoxSize_TheBoxGivesTheSizeAScaledFontHides(t *testing.T) {
	t.Parallel()
	// Set at size 1 and scaled ×12 by the text matrix: the box is 12 high.
	require.InDelta(t, 9.6, boxSize(rawGlyph{left: 0, right: 7, bottom: 100, top: 112}), 1e-9)
	// Written upwards: the height across the line is the box's width.
	require.InDelta(t, 9.6, boxSize(rawGlyph{left: 0, right: 12, bottom: 100, top: 107, quarter: 1}), 1e-9)
	require.Zero(t, boxSize(rawGlyph{top: math.NaN()}))
}
