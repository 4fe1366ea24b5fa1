package pdf

import (
	"math"

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

// pageGlyphs reads every character's code point, baseline origin, box,
// font size and angle, and turns the page's glyphs so that the dominant
// writing direction runs left to right (a landscape page stored rotated).
func pageGlyphs(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE) ([]glyph, error) {
	count, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp})
	if err != nil {
		return nil, err
	}
	n := min(count.Count, maxPageChars)
	raws := make([]rawGlyph, 0, n)
	for i := range n {
		g, ok, err := readGlyph(inst, tp, i)
		if err != nil {
			return nil, err
		}
		if ok {
			raws = append(raws, g)
		}
	}
	splitLigatures(raws)
	return turn(raws), nil
}

// splitLigatures shares the box of a ligature (one glyph that PDFium reports
// as several characters at one origin, like "tt" or "ffi") among its
// characters, so they keep their order and are not taken for overprint.
func splitLigatures(raws []rawGlyph) {
	for i := 0; i < len(raws); {
		j := i + 1
		for j < len(raws) && raws[j].ox == raws[i].ox && raws[j].oy == raws[i].oy {
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
	r                        rune
	left, right, bottom, top float64
	ox, oy                   float64 // baseline origin
	size                     float64
	quarter                  int // the character's angle in quarter turns
}

func readGlyph(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, i int) (rawGlyph, bool, error) {
	u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, false, err
	}
	r := rune(u.Unicode)
	if r <= ' ' || r == 0xFFFE || r == 0xFFFF {
		return rawGlyph{}, false, nil // spaces and line breaks come from the geometry
	}
	// The loose box spans the glyph's advance, not its ink, so the gap
	// between two boxes is the space the text left between them.
	box, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, false, err
	}
	origin, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, false, err
	}
	size, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, false, err
	}
	angle, err := inst.FPDFText_GetCharAngle(&requests.FPDFText_GetCharAngle{TextPage: tp, Index: i})
	if err != nil {
		return rawGlyph{}, false, err
	}
	return rawGlyph{
		r: r, left: float64(box.Rect.Left), right: float64(box.Rect.Right), bottom: float64(box.Rect.Bottom), top: float64(box.Rect.Top),
		ox: origin.X, oy: origin.Y, size: max(size.FontSize, 1), quarter: quarter(float64(angle.CharAngle)),
	}, true, nil
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
	if out.x1 <= out.x0 { // an invisible glyph has no box: place it at its origin
		switch q {
		case 0:
			out.x0 = g.ox
		case 1:
			out.x0 = g.oy
		case 2:
			out.x0 = -g.ox
		default:
			out.x0 = -g.oy
		}
		out.x1 = out.x0
	}
	return out
}
