package supplier

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// layout is a document's text as the profile reads it: every line of
// every page, each cut into words with their columns.
type layout struct {
	lines []textLine
	pages int
}

// textLine is one line of a page.
type textLine struct {
	page  int    // 1-based
	num   int    // 1-based line in the whole text, as the rules count it
	text  string // tabs expanded, no-break and thin spaces plain
	words []word
}

// word is a run of non-space characters of a line.
type word struct {
	text       string
	norm       string // label form: lower case, digit runs '#', ':' trimmed
	start, end int    // byte offsets in the line
	col, end2  int    // rune columns of its first and past its last rune
	// cellStart: the line's start or a gap of two spaces or more is before
	// it, so it opens a cell; cell is the index of its cell's first word.
	cellStart bool
	cell      int
	// filler: punctuation only (":", "|", "--"), skipped when labels are
	// matched.
	filler bool
}

// maxLayoutLines and maxLayoutWords bound what a read or a learning
// looks at: an invoice's fields are on its first pages, and the bounds
// keep a read's cost fixed whatever the document.
const (
	maxLayoutLines = 4000
	maxLayoutWords = 50000
)

// maxLineBytes: a longer line is cut.
const maxLineBytes = 2000

// newLayout cuts pages into lines and words. Line numbers count the lines
// of the whole text as document.Document.Text joins the pages (each page
// ended by a new line and a form feed that opens the next page's first
// line), which is how the rules number their evidence.
func newLayout(pages []Page) *layout {
	l := &layout{pages: len(pages)}
	num, words := 0, 0
	for p, text := range pages {
		rows := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		for r, raw := range rows {
			if len(l.lines) >= maxLayoutLines || words >= maxLayoutWords {
				return l
			}
			t := newLine(p+1, num+r+1, raw)
			words += len(t.words)
			l.lines = append(l.lines, t)
		}
		num += len(rows)
	}
	return l
}

func newLine(page, num int, raw string) textLine {
	if len(raw) > maxLineBytes {
		raw = raw[:maxLineBytes]
	}
	text := plainLine(raw)
	return textLine{page: page, num: num, text: text, words: splitWords(text)}
}

// plainLine is raw with tabs expanded to the next multiple of eight
// columns, no-break, thin and figure spaces and form feeds made plain
// spaces, a carriage return dropped, and invalid UTF-8 replaced.
func plainLine(raw string) string {
	raw = strings.TrimRight(raw, "\r")
	if !utf8.ValidString(raw) {
		raw = strings.ToValidUTF8(raw, " ")
	}
	if !strings.ContainsAny(raw, "\t\f\u00a0\u202f\u2009\u2007") {
		return raw
	}
	var b strings.Builder
	col := 0
	for _, r := range raw {
		switch r {
		case '\t':
			for n := 8 - col%8; n > 0; n-- {
				b.WriteByte(' ')
				col++
			}
			continue
		case '\f', '\u00a0', '\u202f', '\u2009', '\u2007':
			r = ' '
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// splitWords cuts a line into its words.
func splitWords(text string) []word {
	var out []word
	col, spaces := 0, 2 // the line's start opens a cell
	start, startCol := -1, 0
	flush := func(end, endCol int) {
		if start < 0 {
			return
		}
		t := text[start:end]
		w := word{text: t, norm: normWord(t), start: start, end: end, col: startCol, end2: endCol,
			cellStart: spaces >= 2, filler: isFiller(t), cell: len(out)}
		if !w.cellStart {
			w.cell = out[len(out)-1].cell
		}
		out = append(out, w)
		start = -1
	}
	for i, r := range text {
		if r == ' ' {
			if start >= 0 {
				flush(i, col)
				spaces = 0
			}
			spaces++
			col++
			continue
		}
		if start < 0 {
			start, startCol = i, col
		}
		col++
	}
	flush(len(text), col)
	return out
}

// normWord is a word as labels are matched: lower case, each run of
// digits '#', ':' trimmed from either end.
func normWord(s string) string {
	var b strings.Builder
	digit := false
	for _, r := range strings.ToLower(strings.Trim(s, ":")) {
		if unicode.IsDigit(r) {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}

// isFiller: a word of punctuation only, which labels skip.
func isFiller(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune(":|-–—*•·.=_", r) {
			return false
		}
	}
	return true
}

// labelWords are the words of a label in match form, fillers left out.
func labelWords(ws []word) []string {
	var out []string
	for _, w := range ws {
		if !w.filler && w.norm != "" {
			out = append(out, w.norm)
		}
	}
	return out
}

// cellEnd is the index past the last word of the cell word i is in.
func cellEnd(ws []word, i int) int {
	j := i + 1
	for j < len(ws) && !ws[j].cellStart {
		j++
	}
	return j
}

// cellStartOf is the index of the first word of the cell word i is in.
func cellStartOf(ws []word, i int) int { return ws[i].cell }

// overlapping returns the index of the first word of line that overlaps
// the columns [col, end), or -1.
func (t *textLine) overlapping(col, end int) int {
	for i, w := range t.words {
		if w.col < end && w.end2 > col {
			return i
		}
	}
	return -1
}

// region is the side of the page a value starts on, "left" or "right"
// (of column 40): where an anchor's text or date must stand to be read. A
// side, not a height: how far down a field is printed changes with the
// rows above it.
func region(col int) string {
	if col >= 40 {
		return "right"
	}
	return "left"
}

// skipSeparators returns the byte offset in s past the spaces and label
// punctuation (':', '|') from i on.
func skipSeparators(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == ':' || s[i] == '|') {
		i++
	}
	return i
}
