package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// glyph is one character on a page in PDF user space (y grows upwards),
// already turned so that its text runs left to right.
type glyph struct {
	r      rune
	x0, x1 float64 // left and right edge
	y      float64 // baseline
	size   float64 // font size, at least 1
}

// line is glyphs sharing a baseline, left to right.
type line struct {
	glyphs []glyph
	y      float64
	size   float64 // the largest font size on the line
}

// Layout thresholds, in units of the font size. A word space in body text is
// about 0.25–0.33 em, so a gap up to wordGap is one space; a wider gap is a
// column gap and gets the spaces of its distance, at least two, so that
// columns stay apart as pdftotext -layout keeps them.
const (
	joinGap    = 0.12 // below this two glyphs are in one word
	wordGap    = 0.8  // up to this one space separates two words
	sameLine   = 0.45 // baselines closer than this share a line
	blankLine  = 1.9  // a baseline step past this many sizes leaves a blank line
	maxBlank   = 2    // at most this many blank lines in a row
	minColumns = 2    // spaces at least between two columns
)

// layoutText turns a page's glyphs into text as a person sees the page:
// lines top to bottom, each line's words placed at the column of their x
// position on a grid of the page's typical character width.
func layoutText(glyphs []glyph) string {
	glyphs = slices.DeleteFunc(glyphs, func(g glyph) bool { return unicode.IsSpace(g.r) || g.r == 0 || unicode.IsControl(g.r) })
	if len(glyphs) == 0 {
		return ""
	}
	pitch, left := grid(glyphs)
	lines := groupLines(glyphs)
	var b strings.Builder
	for i, ln := range lines {
		if i > 0 {
			b.WriteByte('\n')
			gap := (lines[i-1].y - ln.y) / max(lines[i-1].size, ln.size)
			for n := 0; gap > blankLine && n < maxBlank; n++ {
				b.WriteByte('\n')
				gap -= blankLine
			}
		}
		writeLine(&b, ln, pitch, left)
	}
	b.WriteByte('\n')
	return b.String()
}

// grid returns the page's column width (the median glyph width, the measure
// pdftotext uses in spirit) and its leftmost edge.
func grid(glyphs []glyph) (pitch, left float64) {
	widths := make([]float64, 0, len(glyphs))
	left = math.Inf(1)
	for _, g := range glyphs {
		if w := g.x1 - g.x0; w > 0 {
			widths = append(widths, w)
		}
		left = min(left, g.x0)
	}
	if len(widths) == 0 {
		return 5, left
	}
	slices.Sort(widths)
	return max(widths[len(widths)/2], 1), left
}

// groupLines sorts glyphs top to bottom and gathers those whose baselines
// lie within sameLine of the line's first glyph, then orders each line left
// to right.
func groupLines(glyphs []glyph) []line {
	slices.SortStableFunc(glyphs, func(a, b glyph) int {
		switch {
		case a.y > b.y:
			return -1
		case a.y < b.y:
			return 1
		}
		return 0
	})
	var lines []line
	for _, g := range glyphs {
		if n := len(lines); n > 0 {
			last := &lines[n-1]
			if last.y-g.y < sameLine*min(last.size, g.size) {
				last.glyphs = append(last.glyphs, g)
				last.size = max(last.size, g.size)
				continue
			}
		}
		lines = append(lines, line{glyphs: []glyph{g}, y: g.y, size: g.size})
	}
	for i := range lines {
		slices.SortStableFunc(lines[i].glyphs, func(a, b glyph) int {
			switch {
			case a.x0 < b.x0:
				return -1
			case a.x0 > b.x0:
				return 1
			}
			return 0
		})
		lines[i].glyphs = dropOverprint(lines[i].glyphs)
	}
	return lines
}

// dropOverprint removes a glyph printed again on top of the same glyph (fake
// bold), which would otherwise read as a doubled letter.
func dropOverprint(gs []glyph) []glyph {
	out := gs[:0]
	for _, g := range gs {
		if n := len(out); n > 0 {
			p := out[n-1]
			if p.r == g.r && math.Abs(p.x0-g.x0) < 0.1*g.size && math.Abs(p.y-g.y) < 0.1*g.size {
				continue
			}
		}
		out = append(out, g)
	}
	return out
}

// writeLine writes one line: glyphs closer than joinGap form words, words a
// word gap apart get one space, and a word after a wider gap starts at its
// grid column (at least minColumns spaces after the previous word).
func writeLine(b *strings.Builder, ln line, pitch, left float64) {
	col := 0
	for i, g := range ln.glyphs {
		target := int(math.Round((g.x0 - left) / pitch))
		switch {
		case i == 0:
			col += pad(b, target)
		default:
			prev := ln.glyphs[i-1]
			gap := (g.x0 - prev.x1) / max(g.size, prev.size)
			switch {
			case gap < joinGap:
			case gap <= wordGap:
				col += pad(b, 1)
			default:
				col += pad(b, max(target-col, minColumns))
			}
		}
		b.WriteRune(g.r)
		col++
	}
}

func pad(b *strings.Builder, n int) int {
	for range n {
		b.WriteByte(' ')
	}
	return max(n, 0)
}
