package ocr

import (
	"image"
	"math"
)

// scaledSize is the size a w × h page is read at: unchanged when it has at
// most maxPixels pixels, else scaled down, keeping its proportions, to the
// largest size within maxPixels (at least 1 × 1).
func scaledSize(w, h, maxPixels int) (int, int) {
	if maxPixels <= 0 || int64(w)*int64(h) <= int64(maxPixels) {
		return w, h
	}
	s := math.Sqrt(float64(maxPixels) / (float64(w) * float64(h)))
	ow, oh := max(int(float64(w)*s), 1), max(int(float64(h)*s), 1)
	for int64(ow)*int64(oh) > int64(maxPixels) {
		if ow > oh {
			ow--
		} else {
			oh--
		}
	}
	return ow, oh
}

// scaler turns a page's rows of 8-bit gray, pushed top to bottom, into a
// gray image of the scaled size: each output pixel is the mean of the
// source pixels that fall on it (a box filter), so a page is read at the
// resolution OCR needs while it is decoded, never held whole at its own.
// It holds the output and one row of sums.
type scaler struct {
	w, h   int // the source's size
	out    *image.Gray
	colOf  []int32  // source column → output column
	colN   []uint32 // source columns per output column
	sum    []uint32 // the current output row's sums
	y      int      // source rows pushed
	rowsIn int      // source rows in the current output row
	outY   int      // the current output row
}

func newScaler(w, h, maxPixels int) *scaler {
	ow, oh := scaledSize(w, h, maxPixels)
	s := &scaler{w: w, h: h, out: image.NewGray(image.Rect(0, 0, ow, oh))}
	if ow == w && oh == h {
		return s // rows are copied as they come
	}
	s.colOf, s.colN, s.sum = make([]int32, w), make([]uint32, ow), make([]uint32, ow)
	for x := range w {
		ox := int32(int64(x) * int64(ow) / int64(w))
		s.colOf[x] = ox
		s.colN[ox]++
	}
	return s
}

// scalerBytes is what a scaler to maxPixels of a w × h page holds.
func scalerBytes(w, h, maxPixels int) int64 {
	ow, oh := scaledSize(w, h, maxPixels)
	n := int64(ow) * int64(oh)
	if ow != w || oh != h {
		n += int64(w)*4 + int64(ow)*8
	}
	return n
}

// push adds the next source row (w gray values); rows past the page's
// height are ignored.
func (s *scaler) push(row []uint8) {
	if s.y >= s.h {
		return
	}
	if s.colOf == nil {
		copy(s.out.Pix[s.y*s.out.Stride:], row[:s.w])
		s.y++
		return
	}
	oy := int(int64(s.y) * int64(s.out.Rect.Dy()) / int64(s.h))
	if oy != s.outY {
		s.flush()
		s.outY = oy
	}
	for x, v := range row[:s.w] {
		s.sum[s.colOf[x]] += uint32(v)
	}
	s.rowsIn++
	s.y++
	if s.y == s.h {
		s.flush()
	}
}

// flush writes the current output row.
func (s *scaler) flush() {
	if s.rowsIn == 0 {
		return
	}
	dst := s.out.Pix[s.outY*s.out.Stride:]
	for ox, sum := range s.sum {
		n := s.colN[ox] * uint32(s.rowsIn)
		dst[ox] = uint8((sum + n/2) / n)
		s.sum[ox] = 0
	}
	s.rowsIn = 0
}

// image returns the output once every source row was pushed, else nil: a
// page whose rows ran out is unreadable.
func (s *scaler) image() *image.Gray {
	if s.y < s.h {
		return nil
	}
	return s.out
}

// gray is the luma of an RGB colour with 8-bit channels (ITU-R BT.601, as
// color.GrayModel computes it).
func gray(r, g, b uint32) uint8 {
	return uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 16)
}

// onWhite composites a gray value with 8-bit alpha over white paper: a
// transparent pixel of a scan is the page, not ink.
func onWhite(v, a uint32) uint8 {
	return uint8((v*a + 255*(255-a) + 127) / 255)
}
