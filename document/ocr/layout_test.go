package ocr

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func fixturePage(t *testing.T, minConfidence float64) *Page {
	t.Helper()
	tsv, err := os.ReadFile("testdata/MustangBeispiel20221026-300dpi.tsv")
	require.NoError(t, err)
	words, err := parseTSV(tsv)
	require.NoError(t, err)
	require.NotEmpty(t, words)
	return layout(words, minConfidence)
}

// lineWith returns the line of text that contains s.
func lineWith(t *testing.T, text, s string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line contains %q in:\n%s", s, text)
	return ""
}

// column is the rune column where s starts on line.
func column(line, s string) int {
	return utf8.RuneCountInString(line[:strings.Index(line, s)])
}

func TestLayout_LabelAndAmountShareARowApartByAColumnGap(t *testing.T) {
	t.Parallel()
	p := fixturePage(t, 60)
	require.Regexp(t, regexp.MustCompile(`Endsumme {2,}963,12 €$`), lineWith(t, p.Text, "Endsumme"))
	require.Regexp(t, regexp.MustCompile(`Kunden-Nr\.: {2,}10000 {2,}Belegdatum: {2,}26\.10\.22$`), lineWith(t, p.Text, "Kunden-Nr"))
	// A phrase stays one cell: single spaces inside it.
	require.Contains(t, p.Text, "Suite_Enterprise year monthly")
}

func TestLayout_TableColumnsLineUpAcrossRows(t *testing.T) {
	t.Parallel()
	p := fixturePage(t, 60)
	header := lineWith(t, p.Text, "Bezeichnung")
	row1, row2 := lineWith(t, p.Text, "AWE12M"), lineWith(t, p.Text, "BWP12J")
	for _, pair := range [][2]string{{"Art.-Nr.", "AWE12M"}, {"Bezeichnung", "Suite_Enterprise"}, {"Menge", "1,00"}, {"Einheit", "Stk."}} {
		require.InDelta(t, column(header, pair[0]), column(row1, pair[1]), 3, "%s over %s", pair[0], pair[1])
	}
	require.Equal(t, column(row1, "AWE12M"), column(row2, "BWP12J"))
	require.Equal(t, column(row1, "Suite_"), column(row2, "Suite_"))
}

func TestLayout_RowsComeTopToBottom(t *testing.T) {
	t.Parallel()
	p := fixturePage(t, 60)
	order := []string{"weclapp.com |", "Rechnung RE1001", "Kunden-Nr.", "Pos.", "AWE12M", "BWP12J", "Positionen netto", "Endsumme", "Zahlungsbedingung"}
	last := -1
	for _, s := range order {
		i := strings.Index(p.Text, s)
		require.Greater(t, i, last, s)
		last = i
	}
}

func TestLayout_WordsKnowWhereTheyAreInTheText(t *testing.T) {
	t.Parallel()
	p := fixturePage(t, 60)
	lines := strings.Split(p.Text, "\n")
	for _, w := range p.Words {
		require.Equal(t, w.Text, p.Text[w.Offset:w.Offset+len(w.Text)])
		require.Contains(t, lines[w.Line], w.Text)
	}
	require.Greater(t, p.MeanConfidence, 50.0)
	require.LessOrEqual(t, p.MeanConfidence, 100.0)
}

func TestLayout_WordsUnderTheThresholdAreMarked(t *testing.T) {
	t.Parallel()
	require.Empty(t, fixturePage(t, 0.001).LowConfidence)
	all := fixturePage(t, 100.001)
	require.Len(t, all.LowConfidence, len(all.Words))
	for i, s := range all.LowConfidence {
		require.Equal(t, all.Words[i].Text, all.Text[s.Start:s.End])
	}
}

// words builds the words of one tesseract line (unit) at the given
// baseline, each 10 pixels per character wide and 20 high.
func lineWords(unit, left, top int, texts ...string) []Word {
	var ws []Word
	for _, s := range texts {
		ws = append(ws, Word{Text: s, Left: left, Top: top, Width: 10 * len(s), Height: 20, Confidence: 90, unit: unit})
		left += 10*len(s) + 10
	}
	return ws
}

func TestLayout_CellsOfSeparateBlocksOnOneRowShareALine(t *testing.T) {
	t.Parallel()
	// Tesseract often puts a table's columns in separate blocks, so it
	// reports the label column first and the amounts after.
	var ws []Word
	ws = append(ws, lineWords(0, 100, 100, "Subtotal")...)
	ws = append(ws, lineWords(1, 100, 140, "Total", "due")...)
	ws = append(ws, lineWords(2, 600, 102, "25.50")...)
	ws = append(ws, lineWords(3, 600, 141, "30.60")...)
	p := layout(ws, 60)
	require.Regexp(t, `^Subtotal {2,}25\.50\nTotal due {2,}30\.60\n$`, p.Text)
}

func TestLayout_SkewedPageKeepsItsRows(t *testing.T) {
	t.Parallel()
	// The page is turned by 2°: a word 1000 pixels right of another on the
	// same row sits 35 pixels lower, more than the 30 between rows.
	const slope = 0.035
	var ws []Word
	for i, row := range [][2]string{{"Invoice", "4471"}, {"Subtotal", "25.50"}, {"Total", "30.60"}} {
		top := 100 + 30*i
		ws = append(ws, lineWords(3*i, 100, top, row[0])...)
		ws = append(ws, lineWords(3*i+1, 1100, top, row[1])...)
		// A line of several words, from which the skew is measured.
		ws = append(ws, lineWords(3*i+2, 2200, top, "x", "y", "z", "w", "v", "u", "t", "s")...)
	}
	for i := range ws {
		ws[i].Top += int(slope * float64(ws[i].Left-100))
	}
	p := layout(ws, 60)
	lines := strings.Split(strings.TrimSuffix(p.Text, "\n"), "\n")
	require.Len(t, lines, 3, p.Text)
	require.Regexp(t, `^Invoice {2,}4471 {2,}x y`, lines[0])
	require.Regexp(t, `^Total {2,}30\.60 {2,}x y`, lines[2])
}

func TestLayout_NoWords_IsAnEmptyPage(t *testing.T) {
	t.Parallel()
	p := layout(nil, 60)
	require.Equal(t, "", p.Text)
	require.Zero(t, p.MeanConfidence)
}

func TestParseTSV_NotTSV_IsFailed(t *testing.T) {
	t.Parallel()
	_, err := parseTSV([]byte("<html>"))
	require.ErrorIs(t, err, ErrFailed)
}
