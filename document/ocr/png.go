package ocr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
)

// pngPage is a PNG checked from its chunks: IHDR, PLTE, tRNS, the IDAT
// data and IEND, each CRC checked, before a byte of image data is inflated.
//
// A non-interlaced PNG is decoded row by row into the scaler: two rows of
// raw samples and the output are all it holds, whatever its bit depth or
// colour type, so a 16-bit RGBA page of 40 million pixels costs what its
// gray output at 300 dpi costs. An interlaced one (Adam7 sends the pixels
// in seven passes over the page) is decoded pass by pass into a gray frame
// of the page's size, one byte a pixel, then scaled: its cost is that
// frame, never its 16-bit samples.
type pngPage struct {
	data      []byte
	w, h      int
	depth     int // bits per sample
	colorType int
	interlace bool
	palette   [][4]uint8 // RGBA, for colour type 3
	idat      [][]byte   // the IDAT chunks' data, in order
}

// PNG colour types.
const (
	pngGray      = 0
	pngRGB       = 2
	pngPaletted  = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// maxDeflateRatio bounds what deflate can expand to: 258 bytes from one
// bit-length pair of at least 2 bits, so about 1032 to 1. Image data whose
// compressed size is below its raw size over this ratio was cut short, and
// is refused without inflating it.
const maxDeflateRatio = 1032

func openPNG(data []byte) (*pngPage, error) {
	p := &pngPage{data: data}
	rest := data[8:]
	seenIHDR, seenIEND := false, false
	for len(rest) > 0 && !seenIEND {
		if len(rest) < 12 {
			return nil, ErrUnreadableImage
		}
		n := binary.BigEndian.Uint32(rest[:4])
		if uint64(n)+12 > uint64(len(rest)) {
			return nil, ErrUnreadableImage // cut short
		}
		typ, body := string(rest[4:8]), rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:12+n]) {
			return nil, ErrUnreadableImage
		}
		rest = rest[12+n:]
		if !seenIHDR && typ != "IHDR" {
			return nil, ErrUnreadableImage
		}
		var err error
		switch typ {
		case "IHDR":
			err, seenIHDR = p.header(body), true
		case "PLTE":
			err = p.setPalette(body)
		case "tRNS":
			p.setAlpha(body)
		case "IDAT":
			p.idat = append(p.idat, body)
		case "IEND":
			seenIEND = true
		}
		if err != nil {
			return nil, err
		}
	}
	if !seenIEND || len(p.idat) == 0 || (p.colorType == pngPaletted && p.palette == nil) {
		return nil, ErrUnreadableImage
	}
	if p.compressed()*maxDeflateRatio < p.rawBytes() {
		return nil, ErrUnreadableImage // the image data cannot hold the rows it declares
	}
	return p, nil
}

func (p *pngPage) header(b []byte) error {
	if len(b) != 13 {
		return ErrUnreadableImage
	}
	w, h := binary.BigEndian.Uint32(b[0:4]), binary.BigEndian.Uint32(b[4:8])
	if w > 1<<31-1 || h > 1<<31-1 {
		return ErrImageTooLarge
	}
	p.w, p.h, p.depth, p.colorType = int(w), int(h), int(b[8]), int(b[9])
	if b[10] != 0 || b[11] != 0 || b[12] > 1 || !validPNGDepth(p.colorType, p.depth) {
		return ErrUnreadableImage
	}
	p.interlace = b[12] == 1
	return checkSize(p.w, p.h)
}

func validPNGDepth(colorType, depth int) bool {
	switch colorType {
	case pngGray:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case pngPaletted:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8
	case pngRGB, pngGrayAlpha, pngRGBA:
		return depth == 8 || depth == 16
	}
	return false
}

func (p *pngPage) setPalette(b []byte) error {
	if len(b)%3 != 0 || len(b) == 0 || len(b) > 256*3 {
		return ErrUnreadableImage
	}
	p.palette = make([][4]uint8, len(b)/3)
	for i := range p.palette {
		p.palette[i] = [4]uint8{b[3*i], b[3*i+1], b[3*i+2], 0xFF}
	}
	return nil
}

// setAlpha applies a palette's transparency; a single transparent colour
// of a gray or RGB image is ignored (the page keeps that colour).
func (p *pngPage) setAlpha(b []byte) {
	if p.colorType != pngPaletted {
		return
	}
	for i, a := range b {
		if i < len(p.palette) {
			p.palette[i][3] = a
		}
	}
}

func (p *pngPage) channels() int {
	return map[int]int{pngGray: 1, pngRGB: 3, pngPaletted: 1, pngGrayAlpha: 2, pngRGBA: 4}[p.colorType]
}

// rowBytes is one row's raw samples, without its filter byte.
func (p *pngPage) rowBytes() int64 {
	return (int64(p.w)*int64(p.channels()*p.depth) + 7) / 8
}

// rawBytes is what the image data inflates to: every row and its filter
// byte (each Adam7 pass has its own rows, so an interlaced image has a
// little more; this is the lower bound).
func (p *pngPage) rawBytes() int64 { return int64(p.h) * (1 + p.rowBytes()) }

func (p *pngPage) compressed() int64 {
	var n int64
	for _, d := range p.idat {
		n += int64(len(d))
	}
	return n
}

func (p *pngPage) size() (int, int) { return p.w, p.h }

// zlibBytes is what an inflater holds: its 32 KiB window and tables.
const zlibBytes = 48 << 10

func (p *pngPage) cost(maxPixels int) int64 {
	out := scalerBytes(p.w, p.h, maxPixels)
	if p.interlace {
		return out + int64(p.w)*int64(p.h) + 2*p.rowBytes() + zlibBytes
	}
	return out + 2*p.rowBytes() + int64(p.w) + zlibBytes
}

func (p *pngPage) decode(maxPixels int) (*image.Gray, error) {
	readers := make([]io.Reader, len(p.idat))
	for i, d := range p.idat {
		readers[i] = bytes.NewReader(d)
	}
	zr, err := zlib.NewReader(io.MultiReader(readers...))
	if err != nil {
		return nil, ErrUnreadableImage
	}
	defer zr.Close()
	if p.interlace {
		return p.decodeInterlaced(zr, maxPixels)
	}
	s := newScaler(p.w, p.h, maxPixels)
	out := make([]uint8, p.w)
	rows := p.rowReader(zr, p.w)
	for range p.h {
		raw, ok := rows()
		if !ok {
			return nil, ErrUnreadableImage
		}
		p.grayRow(raw, out)
		s.push(out)
	}
	return s.image(), nil
}

// rowReader returns the function that reads and unfilters the next row of
// w pixels from r (the rows of one image, or of one Adam7 pass).
func (p *pngPage) rowReader(r io.Reader, w int) func() ([]byte, bool) {
	n := (w*p.channels()*p.depth + 7) / 8
	bpp := max(p.channels()*p.depth/8, 1) // the filters' byte distance
	cur, prev := make([]byte, 1+n), make([]byte, 1+n)
	return func() ([]byte, bool) {
		cur, prev = prev, cur
		if _, err := io.ReadFull(r, cur); err != nil {
			return nil, false
		}
		return cur[1:], unfilter(cur[0], cur[1:], prev[1:], bpp)
	}
}

// adam7 are the interlace passes: the first column and row each covers,
// and the steps between them.
var adam7 = [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}

// decodeInterlaced reads the seven passes into a gray frame of the page,
// then scales it.
func (p *pngPage) decodeInterlaced(r io.Reader, maxPixels int) (*image.Gray, error) {
	frame := make([]uint8, p.w*p.h)
	out := make([]uint8, p.w)
	for _, pass := range adam7 {
		x0, y0, dx, dy := pass[0], pass[1], pass[2], pass[3]
		pw, ph := (p.w-x0+dx-1)/dx, (p.h-y0+dy-1)/dy
		if pw <= 0 || ph <= 0 {
			continue // an empty pass has no rows, not even filter bytes
		}
		rows := p.rowReader(r, pw)
		for j := range ph {
			raw, ok := rows()
			if !ok {
				return nil, ErrUnreadableImage
			}
			p.grayRow(raw, out[:pw])
			y := y0 + j*dy
			for i, v := range out[:pw] {
				frame[y*p.w+x0+i*dx] = v
			}
		}
	}
	s := newScaler(p.w, p.h, maxPixels)
	for y := range p.h {
		s.push(frame[y*p.w : (y+1)*p.w])
	}
	return s.image(), nil
}

// unfilter reverses a row's PNG filter in place (prev is the row above,
// zeros for the first).
func unfilter(filter byte, cur, prev []byte, bpp int) bool {
	switch filter {
	case 0:
	case 1: // Sub
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2: // Up
		for i := range cur {
			cur[i] += prev[i]
		}
	case 3: // Average
		for i := range cur {
			var left int
			if i >= bpp {
				left = int(cur[i-bpp])
			}
			cur[i] += uint8((left + int(prev[i])) / 2)
		}
	case 4: // Paeth
		for i := range cur {
			var a, c int
			if i >= bpp {
				a, c = int(cur[i-bpp]), int(prev[i-bpp])
			}
			cur[i] += paeth(a, int(prev[i]), c)
		}
	default:
		return false
	}
	return true
}

func paeth(a, b, c int) uint8 {
	p := a + b - c
	pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
	switch {
	case pa <= pb && pa <= pc:
		return uint8(a)
	case pb <= pc:
		return uint8(b)
	}
	return uint8(c)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// grayRow converts one row of raw samples to 8-bit gray on white.
func (p *pngPage) grayRow(raw []byte, out []uint8) {
	switch {
	case p.colorType == pngPaletted || (p.colorType == pngGray && p.depth < 8):
		p.packedRow(raw, out)
		return
	}
	step := p.depth / 8 // bytes per sample: 1 or 2 (16-bit samples keep their high byte)
	px := p.channels() * step
	for x := range out {
		s := raw[x*px:]
		switch p.colorType {
		case pngGray:
			out[x] = s[0]
		case pngGrayAlpha:
			out[x] = onWhite(uint32(s[0]), uint32(s[step]))
		case pngRGB:
			out[x] = gray(uint32(s[0]), uint32(s[step]), uint32(s[2*step]))
		case pngRGBA:
			out[x] = onWhite(uint32(gray(uint32(s[0]), uint32(s[step]), uint32(s[2*step]))), uint32(s[3*step]))
		}
	}
}

// packedRow converts a row of samples of fewer than 8 bits (gray, or
// palette indices), most significant bits first.
func (p *pngPage) packedRow(raw []byte, out []uint8) {
	d := uint(p.depth)
	mask := uint8(uint16(1)<<d - 1)
	for x := range out {
		bit := uint(x) * d
		v := raw[bit/8] >> (8 - d - bit%8) & mask
		if p.colorType == pngGray {
			out[x] = uint8(uint32(v) * 255 / uint32(mask))
			continue
		}
		if int(v) >= len(p.palette) {
			out[x] = 0xFF // an index past the palette: nothing drawn
			continue
		}
		c := p.palette[v]
		out[x] = onWhite(uint32(gray(uint32(c[0]), uint32(c[1]), uint32(c[2]))), uint32(c[3]))
	}
}
