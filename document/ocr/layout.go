package ocr

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Page is what OCR read on one page image.
type Page struct {
	// Text is the page as layout text: one line per row of the page, top
	// to bottom, each word at the column its position gives (so columns
	// line up across rows and stay apart by two or more spaces), a blank
	// line for a wide vertical gap, lines ending in "\n".
	Text string
	// Words are the words in the order of Text.
	Words []Word
	// LowConfidence are the words under Config.MinConfidence, as byte
	// ranges of Text, in order.
	LowConfidence []Span
	// MeanConfidence is the words' mean confidence, 0–100 (0 with no
	// words).
	MeanConfidence float64
	// Elapsed is how long the command ran; CPUTime is the CPU time it
	// used (user and system), which a loaded machine does not inflate.
	Elapsed, CPUTime time.Duration
}

// Span is the byte range [Start, End) of Page.Text; Line is its line.
type Span struct {
	Start, End, Line int
}

// unitBox is one line as tesseract segmented it: words that belong
// together, within one block of the page.
type unitBox struct {
	words       []Word
	y, h        float64 // deskewed vertical centre, median word height
	left, right int
}

// row is a line of Text: the units at the same height across the page (a
// table's cells are often separate blocks to tesseract).
type row struct {
	units []*unitBox
	y, h  float64
}

// layout rebuilds the page's text from its words, like `pdftotext -layout`:
// units whose deskewed centres are at the same height form a row; a word's
// column is its distance from the leftmost text in character widths.
func layout(words []Word, minConfidence float64) *Page {
	if len(words) == 0 {
		return &Page{}
	}
	units := unitBoxes(words, skew(words))
	rows := rowsOf(units)
	cw, lh := charWidth(words), lineHeight(units)
	origin := slices.MinFunc(units, func(a, b *unitBox) int { return a.left - b.left }).left
	p := &Page{Words: make([]Word, 0, len(words))}
	var text strings.Builder
	var sum float64
	line := 0
	for i, r := range rows {
		if i > 0 {
			for range blankLines(r.y-rows[i-1].y, lh) {
				text.WriteByte('\n')
				line++
			}
		}
		for _, w := range placeRow(&text, r, origin, cw) {
			w.Line = line
			sum += w.Confidence
			if w.Confidence < minConfidence {
				p.LowConfidence = append(p.LowConfidence, Span{Start: w.Offset, End: w.Offset + len(w.Text), Line: line})
			}
			p.Words = append(p.Words, w)
		}
		text.WriteByte('\n')
		line++
	}
	p.Text = text.String()
	p.MeanConfidence = sum / float64(len(p.Words))
	return p
}

// placeRow writes one row's words to text and returns them with their
// offsets. Words closer than two character widths are one space apart (a
// phrase stays a phrase); a wider gap puts the word at its own column, at
// least two spaces on, which the rules read as a column break.
func placeRow(text *strings.Builder, r *row, origin int, cw float64) []Word {
	var ws []Word
	for _, u := range r.units {
		ws = append(ws, u.words...)
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Left < ws[j].Left })
	col := 0
	for i, w := range ws {
		target := int(math.Round(float64(w.Left-origin) / cw))
		switch {
		case i == 0:
		case float64(w.Left-(ws[i-1].Left+ws[i-1].Width)) < 2*cw:
			target = col + 1
		default:
			target = max(target, col+2)
		}
		for ; col < target; col++ {
			text.WriteByte(' ')
		}
		ws[i].Offset = text.Len()
		text.WriteString(w.Text)
		col += utf8.RuneCountInString(w.Text)
	}
	return ws
}

// blankLines is how many empty lines stand for a vertical gap dy between
// rows: none for ordinary line spacing, up to three for a wide gap.
func blankLines(dy, lh float64) int {
	return min(3, max(0, int(dy/(2*lh))))
}

// skew estimates the page's rotation as the median slope of its
// multi-word lines (from the bottoms of their first and last words),
// bounded to about 6°.
func skew(words []Word) float64 {
	first, last := map[int]Word{}, map[int]Word{}
	for _, w := range words {
		if _, ok := first[w.unit]; !ok {
			first[w.unit] = w
		}
		last[w.unit] = w
	}
	var slopes []float64
	for u, a := range first {
		b := last[u]
		dx := float64(b.Left+b.Width/2) - float64(a.Left+a.Width/2)
		if dx > float64(4*a.Height) {
			slopes = append(slopes, (float64(b.Top+b.Height)-float64(a.Top+a.Height))/dx)
		}
	}
	if len(slopes) == 0 {
		return 0
	}
	return max(-0.1, min(0.1, median(slopes)))
}

// unitBoxes groups words into tesseract's lines with their deskewed
// centres.
func unitBoxes(words []Word, slope float64) []*unitBox {
	var units []*unitBox
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && words[j].unit == words[i].unit {
			j++
		}
		ys, hs := make([]float64, 0, j-i), make([]float64, 0, j-i)
		u := &unitBox{words: words[i:j], left: words[i].Left, right: words[i].Left + words[i].Width}
		for _, w := range words[i:j] {
			cx := float64(w.Left) + float64(w.Width)/2
			ys = append(ys, float64(w.Top)+float64(w.Height)/2-slope*cx)
			hs = append(hs, float64(w.Height))
			u.left, u.right = min(u.left, w.Left), max(u.right, w.Left+w.Width)
		}
		u.y, u.h = median(ys), median(hs)
		units = append(units, u)
		i = j
	}
	return units
}

// rowsOf puts units at the same height into one row: a unit joins the
// nearest row whose centre is within half the smaller height and that has
// nothing where the unit is; else it starts a row. Rows come top to bottom.
func rowsOf(units []*unitBox) []*row {
	sorted := slices.Clone(units)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y < sorted[j].y })
	var rows []*row
	for _, u := range sorted {
		var best *row
		bestDy := math.Inf(1)
		for k := len(rows) - 1; k >= 0 && rows[k].y > u.y-4*u.h; k-- {
			r := rows[k]
			dy := math.Abs(r.y - u.y)
			if dy < 0.5*min(r.h, u.h) && dy < bestDy && !overlaps(r, u) {
				best, bestDy = r, dy
			}
		}
		if best == nil {
			rows = append(rows, &row{units: []*unitBox{u}, y: u.y, h: u.h})
			continue
		}
		n := float64(len(best.units))
		best.y = (best.y*n + u.y) / (n + 1)
		best.units = append(best.units, u)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].y < rows[j].y })
	return rows
}

func overlaps(r *row, u *unitBox) bool {
	for _, o := range r.units {
		if u.left < o.right && o.left < u.right {
			return true
		}
	}
	return false
}

// charWidth is the page's typical character width: the median of its
// words' widths per character.
func charWidth(words []Word) float64 {
	var ws []float64
	for _, w := range words {
		if n := utf8.RuneCountInString(w.Text); n >= 2 {
			ws = append(ws, float64(w.Width)/float64(n))
		}
	}
	if cw := median(ws); cw >= 1 {
		return cw
	}
	return 10
}

func lineHeight(units []*unitBox) float64 {
	hs := make([]float64, len(units))
	for i, u := range units {
		hs[i] = u.h
	}
	return max(1, median(hs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
