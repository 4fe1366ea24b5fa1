package pdf

import (
	"math"
	"unicode"
	"unicode/utf16"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// maxPageChars bounds the characters read from one page; a real page has a
// few thousand, a page built to exhaust the reader has millions.
const maxPageChars = 200_000

// pageText reads the glyphs of page index (0-based) and lays them out.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (string, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return "", err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	glyphs, err := pageGlyphs(inst, tp.TextPage)
	if err != nil {
		return "", err
	}
	return layoutText(glyphs), nil
}

// pageGlyphs reads every character's code point, box, font size and angle,
// and turns the page's glyphs so that the dominant writing direction runs
// left to right (a landscape page stored rotated). Each call into PDFium
// costs a goroutine (wazero watches the context of every call so that a
// timeout can stop it), so the page's text comes in one call and each
// character costs as few calls as its geometry needs.
func pageGlyphs(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE) ([]glyph, error) {
	count, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp})
	if err != nil {
		return nil, err
	}
	n := min(count.Count, maxPageChars)
	units, err := pageUnits(inst, tp, n)
	if err != nil {
		return nil, err
	}
	raws := make([]rawGlyph, 0, n)
	space := false
	for i, r := range units {
		if r <= ' ' || r == 0xFFFE || r == 0xFFFF || unicode.IsSpace(r) {
			space = true // line breaks come from the geometry, spaces mostly too
			continue
		}
		var prev *rawGlyph
		if len(raws) > 0 {
			prev = &raws[len(raws)-1]
		}
		g, err := readGlyph(inst, tp, i, prev)
		if err != nil {
			return nil, err
		}
		g.r, g.spaceBefore = r, space
		raws = append(raws, g)
		space = false
	}
	raws = joinSurrogates(raws)
	splitLigatures(raws)
	return turn(raws), nil
}

// pageUnits returns the UTF-16 unit of each of the first n characters:
// PDFium keeps one unit per character (a character outside the BMP takes
// two), so the page text maps onto the indexes. When it does not, each
// character is asked for on its own.
func pageUnits(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, n int) ([]rune, error) {
	text, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: n})
	if err != nil {
		return nil, err
	}
	units := utf16.Encode([]rune(text.Text))
	if len(units) == n {
		out := make([]rune, n)
		for i, u := range units {
			out[i] = rune(u)
		}
		return out, nil
	}
	out := make([]rune, n)
	for i := range n {
		u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		out[i] = rune(u.Unicode)
	}
	return out, nil
}

// joinSurrogates combines the UTF-16 surrogate pairs PDFium reports as two
// characters (an emoji) into one; a lone surrogate becomes U+FFFD.
func joinSurrogates(raws []rawGlyph) []rawGlyph {
	out := raws[:0]
	for i := 0; i < len(raws); i++ {
		g := raws[i]
		if utf16.IsSurrogate(g.r) {
			next := rune(0)
			if i+1 < len(raws) {
				next = raws[i+1].r
			}
			if c := utf16.DecodeRune(g.r, next); c != unicode.ReplacementChar {
				g.r = c
				i++
			} else {
				g.r = unicode.ReplacementChar
			}
		}
		out = append(out, g)
	}
	return out
}

// splitLigatures shares the box of a ligature (one glyph that PDFium reports
// as several characters with one box, like "tt" or "ffi") among its
// characters, so they keep their order and are not taken for overprint.
func splitLigatures(raws []rawGlyph) {
	for i := 0; i < len(raws); {
		j := i + 1
		for j < len(raws) && raws[j].left == raws[i].left && raws[j].bottom == raws[i].bottom && raws[j].right == raws[i].right {
			j++
		}
		if n := j - i; n > 1 {
			g := raws[i]
			w := (g.right - g.left) / float64(n)
			h := (g.top - g.bottom) / float64(n)
			for k := i; k < j; k++ {
				raws[k].left, raws[k].right = g.left+w*float64(k-i), g.left+w*float64(k-i+1)
				if g.quarter%2 == 1 {
					raws[k].bottom, raws[k].top = g.bottom+h*float64(k-i), g.bottom+h*float64(k-i+1)
				}
			}
		}
		i = j
	}
}

// rawGlyph is a character as PDFium reports it, in page space.
type rawGlyph struct {
	r rune
	// The loose box: the glyph's advance by the font's ascent and descent.
	left, right, bottom, top float64
	ox, oy                   float64 // the origin, on the baseline
	size                     float64
	quarter                  int  // the character's angle in quarter turns
	spaceBefore              bool // a space character came before it
}

// readGlyph reads character i's geometry. prev is the character read just
// before it (nil at the start): when both have the same angle, font size and
// the same extent across the line (the same font on the same baseline), it
// shares prev's origin instead of asking PDFium for it, which is most of a
// character's cost.
func readGlyph(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, i int, prev *rawGlyph) (rawGlyph, error) {
	// The loose box spans the glyph's advance, not its ink, so the gap
	// between two boxes is the space the text left between them.
	box, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, err
	}
	size, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, err
	}
	angle, err := inst.FPDFText_GetCharAngle(&requests.FPDFText_GetCharAngle{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, err
	}
	g := rawGlyph{
		left: float64(box.Rect.Left), right: float64(box.Rect.Right), bottom: float64(box.Rect.Bottom), top: float64(box.Rect.Top),
		quarter: quarter(float64(angle.CharAngle)),
	}
	g.size = max(size.FontSize, boxSize(g), 1)
	if prev != nil && sameBaseline(*prev, g) {
		g.ox, g.oy = prev.ox, prev.oy
		return g, nil
	}
	// The baseline comes from the origin: the box's bottom depends on each
	// font's descent, which differs between a regular and a bold word on
	// one line.
	origin, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, err
	}
	g.ox, g.oy = origin.X, origin.Y
	return g, nil
}

// boxSize is the font size a glyph's loose box implies: the box spans the
// font's ascent and descent, about 0.9–1.2 em, so 0.8 of its height is at
// most an em. A PDF that sets its text at size 1 and scales it by the text
// matrix reports a font size of 1 (some generators do so for every word),
// and gaps measured against that size would split every word into
// columns; the box gives the size the page shows.
func boxSize(g rawGlyph) float64 {
	h := g.top - g.bottom
	if g.quarter%2 == 1 {
		h = g.right - g.left
	}
	if !finite(h) || h <= 0 {
		return 0
	}
	return 0.8 * h
}

// sameBaseline reports whether b continues a's run: same angle and size and
// the same extent across the writing direction, so the same baseline. Only
// the coordinate across the line is shared (the one rotate uses).
func sameBaseline(a, b rawGlyph) bool {
	if a.quarter != b.quarter || a.size != b.size {
		return false
	}
	if a.quarter%2 == 0 {
		return a.bottom == b.bottom && a.top == b.top
	}
	return a.left == b.left && a.right == b.right
}

// turn turns the page by its dominant writing angle (a multiple of 90°) so
// that its lines run left to right, as a person turns a landscape page
// stored rotated. Glyphs at another angle keep their place in the turned
// frame, which puts vertical margin text on lines of its own rather than
// dropping it.
func turn(raws []rawGlyph) []glyph {
	var votes [4]int
	for _, g := range raws {
		votes[g.quarter]++
	}
	q := 0
	for i, v := range votes {
		if v > votes[q] {
			q = i
		}
	}
	glyphs := make([]glyph, len(raws))
	for i, g := range raws {
		glyphs[i] = rotate(g, q)
		glyphs[i].seq = i
		glyphs[i].spaceBefore = g.spaceBefore
	}
	return glyphs
}

// quarter maps an angle in radians (counter-clockwise, as PDFium reports it)
// to the nearest multiple of 90°, 0..3.
func quarter(a float64) int {
	q := int(math.Round(a/(math.Pi/2))) % 4
	if q < 0 {
		q += 4
	}
	return q
}

// rotate maps a glyph into the frame turned back by q quarter turns, where
// text written q quarter turns counter-clockwise runs left to right.
func rotate(g rawGlyph, q int) glyph {
	out := glyph{r: g.r, size: g.size}
	switch q {
	case 0:
		out.x0, out.x1, out.y = g.left, g.right, g.oy
	case 1: // written upwards: (x, y) → (y, -x)
		out.x0, out.x1, out.y = g.bottom, g.top, -g.ox
	case 2: // upside down: (x, y) → (-x, -y)
		out.x0, out.x1, out.y = -g.right, -g.left, -g.oy
	default: // written downwards: (x, y) → (-y, x)
		out.x0, out.x1, out.y = -g.top, -g.bottom, g.ox
	}
	return out
}
