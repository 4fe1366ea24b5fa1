package ocr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
	"io"

	"golang.org/x/image/ccitt"
	"golang.org/x/image/tiff"
	"golang.org/x/image/tiff/lzw"
)

// TIFF tags read from an image directory (IFD).
const (
	tagWidth        = 256
	tagHeight       = 257
	tagBits         = 258
	tagCompression  = 259
	tagPhotometric  = 262
	tagFillOrder    = 266
	tagStripOffsets = 273
	tagSamples      = 277
	tagRowsPerStrip = 278
	tagStripCounts  = 279
	tagPlanar       = 284
	tagPredictor    = 317
	tagColorMap     = 320
	tagTileWidth    = 322
	tagTileOffsets  = 324
	tagTileCounts   = 325
	tagExtraSamples = 338
	tagSampleFormat = 339
)

// TIFF compressions.
const (
	tiffNone       = 1
	tiffG3         = 3
	tiffG4         = 4
	tiffLZW        = 5
	tiffDeflate    = 8
	tiffPackBits   = 32773
	tiffDeflateOld = 32946
)

// Photometric interpretations.
const (
	photoWhiteIsZero = 0
	photoBlackIsZero = 1
	photoRGB         = 2
	photoPalette     = 3
)

// maxLZWRatio bounds what TIFF's LZW (codes of at most 12 bits, strings of
// at most 4096 bytes) can expand to; maxPackBitsRatio PackBits (a 2-byte
// run of 128).
const (
	maxLZWRatio      = 2731
	maxPackBitsRatio = 64
)

// tiffPage is one image directory of a TIFF. A page stored the common way
// (strips of interleaved samples, uncompressed, LZW, deflate, PackBits or
// CCITT fax, 1 to 16 bits) is decoded one row at a time into the scaler:
// one row of raw samples and the output are all it holds. Other layouts
// (tiles, separate planes) are decoded whole by golang.org/x/image/tiff,
// and their cost says so. The directory is read once; its strips are
// checked against the file and, compressed, against the most their
// compression can expand to, so a page cut short is refused before it is
// decoded. A file whose pages share one strip decodes that strip once per
// page, never more.
type tiffPage struct {
	data         []byte
	order        binary.ByteOrder
	ifd          uint32 // the directory's offset
	w, h         int
	bits         int
	samples      int
	compression  int
	photometric  int
	fillOrder    int
	predictor    int
	extra        int // ExtraSamples' first value: 1 associated alpha, 2 unassociated
	rowsPerStrip int
	offsets      []uint32
	counts       []uint32
	colorMap     []uint16
	streamed     bool // decoded row by row; else whole, by x/image/tiff
}

func openTIFF(data []byte, maxPages int) ([]page, error) {
	offsets, err := tiffIFDs(data)
	if err != nil {
		return nil, err
	}
	if maxPages > 0 && len(offsets) > maxPages {
		return nil, &PageCountError{Pages: len(offsets), Max: maxPages}
	}
	pages := make([]page, 0, len(offsets))
	for _, off := range offsets {
		p, err := openTIFFPage(data, off)
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

func tiffOrder(data []byte) binary.ByteOrder {
	if data[0] == 'I' {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// tiffIFDs walks the chain of image directories and returns every one's
// offset: the file's real number of pages. A chain that loops or leaves the
// file is unreadable; a directory takes at least 18 bytes, so the walk is
// bounded by the file's size.
func tiffIFDs(data []byte) ([]uint32, error) {
	if len(data) < 8 {
		return nil, ErrUnreadableImage
	}
	order := tiffOrder(data)
	seen := map[uint32]bool{}
	var offsets []uint32
	for off := order.Uint32(data[4:8]); off != 0; {
		if seen[off] || uint64(off)+2 > uint64(len(data)) {
			return nil, ErrUnreadableImage
		}
		seen[off] = true
		offsets = append(offsets, off)
		next := uint64(off) + 2 + 12*uint64(order.Uint16(data[off:off+2]))
		if next+4 > uint64(len(data)) {
			return nil, ErrUnreadableImage
		}
		off = order.Uint32(data[next : next+4])
	}
	if len(offsets) == 0 {
		return nil, ErrUnreadableImage
	}
	return offsets, nil
}

// tiffTags reads a directory's entries: each tag's values (BYTE, SHORT or
// LONG), at most maxValues of them (a strip list of a page within
// MaxPagePixels is far shorter).
func tiffTags(data []byte, order binary.ByteOrder, off uint32) (map[int][]uint32, error) {
	const maxValues = 1 << 20
	n := int(order.Uint16(data[off:]))
	tags := make(map[int][]uint32, n)
	for e := range n {
		entry := data[int(off)+2+12*e:]
		tag, typ, count := int(order.Uint16(entry)), order.Uint16(entry[2:]), order.Uint32(entry[4:])
		size := map[uint16]uint32{1: 1, 3: 2, 4: 4}[typ]
		if size == 0 {
			continue // a type the page does not need (rationals, ASCII)
		}
		if count > maxValues {
			return nil, ErrUnreadableImage
		}
		raw := entry[8:12]
		if count*size > 4 {
			at := order.Uint32(entry[8:])
			if uint64(at)+uint64(count*size) > uint64(len(data)) {
				return nil, ErrUnreadableImage
			}
			raw = data[at : at+count*size]
		}
		vals := make([]uint32, count)
		for i := range vals {
			switch typ {
			case 1:
				vals[i] = uint32(raw[i])
			case 3:
				vals[i] = uint32(order.Uint16(raw[2*i:]))
			case 4:
				vals[i] = order.Uint32(raw[4*i:])
			}
		}
		tags[tag] = vals
	}
	return tags, nil
}

func first(tags map[int][]uint32, tag int, def uint32) uint32 {
	if v := tags[tag]; len(v) > 0 {
		return v[0]
	}
	return def
}

func openTIFFPage(data []byte, off uint32) (*tiffPage, error) {
	order := tiffOrder(data)
	tags, err := tiffTags(data, order, off)
	if err != nil {
		return nil, err
	}
	p := &tiffPage{
		data: data, order: order, ifd: off,
		w: int(first(tags, tagWidth, 0)), h: int(first(tags, tagHeight, 0)),
		bits: int(first(tags, tagBits, 1)), samples: int(first(tags, tagSamples, 1)),
		compression: int(first(tags, tagCompression, tiffNone)), photometric: int(first(tags, tagPhotometric, photoBlackIsZero)),
		fillOrder: int(first(tags, tagFillOrder, 1)), predictor: int(first(tags, tagPredictor, 1)),
		extra: int(first(tags, tagExtraSamples, 0)), offsets: tags[tagStripOffsets], counts: tags[tagStripCounts],
	}
	if err := checkSize(p.w, p.h); err != nil {
		return nil, err
	}
	if p.compression == 0 {
		p.compression = tiffNone // some writers leave it out
	}
	p.rowsPerStrip = int(min(first(tags, tagRowsPerStrip, uint32(p.h)), uint32(p.h)))
	for _, c := range tags[tagColorMap] {
		p.colorMap = append(p.colorMap, uint16(c))
	}
	if tags[tagTileWidth] != nil { // tiles: their data is checked against the file like strips'
		p.offsets, p.counts = tags[tagTileOffsets], tags[tagTileCounts]
	}
	p.streamed = p.streamable(tags)
	if err := p.checkStrips(); err != nil {
		return nil, err
	}
	return p, nil
}

// streamable reports whether the page is stored in a layout the row
// decoder reads.
func (p *tiffPage) streamable(tags map[int][]uint32) bool {
	for _, b := range tags[tagBits] {
		if int(b) != p.bits {
			return false
		}
	}
	for _, f := range tags[tagSampleFormat] {
		if f != 1 {
			return false // signed or floating-point samples
		}
	}
	okBits := p.bits == 1 || p.bits == 2 || p.bits == 4 || p.bits == 8 || p.bits == 16
	var okColour bool
	switch p.photometric {
	case photoWhiteIsZero, photoBlackIsZero:
		okColour = p.samples == 1
	case photoPalette:
		okColour = p.samples == 1 && p.bits <= 8 && len(p.colorMap) == 3<<p.bits
	case photoRGB:
		okColour = (p.samples == 3 || p.samples == 4) && p.bits >= 8
	}
	switch p.compression {
	case tiffNone, tiffLZW, tiffDeflate, tiffDeflateOld, tiffPackBits:
	case tiffG3, tiffG4:
		okBits = p.bits == 1 && p.samples == 1
	default:
		return false
	}
	strips := (p.h + p.rowsPerStrip - 1) / max(p.rowsPerStrip, 1)
	return okBits && okColour && p.rowsPerStrip > 0 && tags[tagTileWidth] == nil &&
		first(tags, tagPlanar, 1) == 1 && (p.predictor == 1 || (p.predictor == 2 && p.bits >= 8)) &&
		len(p.offsets) >= strips && len(p.counts) >= strips
}

// rowBytes is one row's raw samples.
func (p *tiffPage) rowBytes() int64 {
	return (int64(p.w)*int64(p.samples*p.bits) + 7) / 8
}

// checkStrips refuses a page whose strips leave the file or are too small
// to hold the rows they must hold.
func (p *tiffPage) checkStrips() error {
	if len(p.offsets) == 0 || len(p.offsets) != len(p.counts) {
		return ErrUnreadableImage
	}
	for i := range p.offsets {
		if uint64(p.offsets[i])+uint64(p.counts[i]) > uint64(len(p.data)) {
			return ErrUnreadableImage
		}
	}
	if !p.streamed {
		return nil
	}
	ratio := map[int]int64{tiffNone: 1, tiffLZW: maxLZWRatio, tiffDeflate: maxDeflateRatio,
		tiffDeflateOld: maxDeflateRatio, tiffPackBits: maxPackBitsRatio}[p.compression]
	if ratio == 0 {
		return nil // CCITT fax: a blank row is a few bits
	}
	for s := range p.strips() {
		if int64(p.counts[s])*ratio < int64(p.stripRows(s))*p.rowBytes() {
			return ErrUnreadableImage
		}
	}
	return nil
}

func (p *tiffPage) strips() int { return (p.h + p.rowsPerStrip - 1) / p.rowsPerStrip }

func (p *tiffPage) stripRows(s int) int { return min(p.rowsPerStrip, p.h-s*p.rowsPerStrip) }

func (p *tiffPage) size() (int, int) { return p.w, p.h }

func (p *tiffPage) cost(maxPixels int) int64 {
	out := scalerBytes(p.w, p.h, maxPixels)
	if p.streamed {
		return out + p.rowBytes() + int64(p.w) + zlibBytes
	}
	// x/image/tiff: the whole image in its own model, the raw data of one
	// strip or tile (its bound: 8 bytes a pixel), and the page's copy of the
	// file that points its header at this directory.
	px := int64(p.w) * int64(p.h)
	perPixel := int64(4)
	switch {
	case p.photometric != photoRGB && p.bits <= 8:
		perPixel = 1
	case p.photometric != photoRGB:
		perPixel = 2
	case p.bits == 16:
		perPixel = 8
	}
	return out + px*perPixel + px*8 + int64(len(p.data))
}

func (p *tiffPage) decode(maxPixels int) (*image.Gray, error) {
	if !p.streamed {
		view := bytes.Clone(p.data)
		p.order.PutUint32(view[4:8], p.ifd)
		img, err := tiff.Decode(bytes.NewReader(view))
		if err != nil {
			return nil, ErrUnreadableImage
		}
		return grayOf(img, maxPixels), nil
	}
	s := newScaler(p.w, p.h, maxPixels)
	raw := make([]byte, p.rowBytes())
	out := make([]uint8, p.w)
	for strip := range p.strips() {
		r, closeFn, err := p.stripReader(strip)
		if err != nil {
			return nil, ErrUnreadableImage
		}
		for range p.stripRows(strip) {
			if _, err := io.ReadFull(r, raw); err != nil {
				closeFn()
				return nil, ErrUnreadableImage
			}
			p.unpredict(raw)
			p.grayRow(raw, out)
			s.push(out)
		}
		closeFn()
	}
	return s.image(), nil
}

// stripReader returns the decompressed rows of strip s.
func (p *tiffPage) stripReader(s int) (io.Reader, func(), error) {
	src := bytes.NewReader(p.data[p.offsets[s] : p.offsets[s]+p.counts[s]])
	none := func() {}
	switch p.compression {
	case tiffNone:
		return src, none, nil
	case tiffLZW:
		r := lzw.NewReader(src, lzw.MSB, 8)
		return r, func() { r.Close() }, nil
	case tiffDeflate, tiffDeflateOld:
		r, err := zlib.NewReader(src)
		if err != nil {
			return nil, none, err
		}
		return r, func() { r.Close() }, nil
	case tiffPackBits:
		return &packBits{src: src}, none, nil
	}
	order := ccitt.MSB
	if p.fillOrder == 2 {
		order = ccitt.LSB
	}
	sub := ccitt.Group3
	if p.compression == tiffG4 {
		sub = ccitt.Group4
	}
	// The fax decoder writes 1 for white; inverted for WhiteIsZero, so its
	// bits mean what the photometric interpretation says.
	inv := p.photometric == photoWhiteIsZero
	return ccitt.NewReader(src, order, sub, p.w, p.stripRows(s), &ccitt.Options{Invert: inv}), none, nil
}

// unpredict reverses horizontal differencing (predictor 2) in a row.
func (p *tiffPage) unpredict(raw []byte) {
	if p.predictor != 2 {
		return
	}
	if p.bits == 8 {
		for i := p.samples; i < len(raw); i++ {
			raw[i] += raw[i-p.samples]
		}
		return
	}
	n := 2 * p.samples
	for i := n; i+1 < len(raw); i += 2 {
		p.order.PutUint16(raw[i:], p.order.Uint16(raw[i:])+p.order.Uint16(raw[i-n:]))
	}
}

// sample is sample k of a row of 8- or 16-bit samples, as 8 bits.
func (p *tiffPage) sample(raw []byte, k int) uint32 {
	if p.bits == 8 {
		return uint32(raw[k])
	}
	return uint32(p.order.Uint16(raw[2*k:]) >> 8)
}

// grayRow converts one row of raw samples to 8-bit gray on white.
func (p *tiffPage) grayRow(raw []byte, out []uint8) {
	if p.bits < 8 {
		p.packedRow(raw, out)
		return
	}
	for x := range out {
		k := x * p.samples
		var v uint32
		switch p.photometric {
		case photoWhiteIsZero:
			v = 255 - p.sample(raw, k)
		case photoBlackIsZero:
			v = p.sample(raw, k)
		case photoPalette:
			v = p.paletteGray(p.sample(raw, k))
		case photoRGB:
			v = uint32(gray(p.sample(raw, k), p.sample(raw, k+1), p.sample(raw, k+2)))
			if p.samples == 4 {
				a := p.sample(raw, k+3)
				switch p.extra {
				case 1: // premultiplied: what is not drawn is white
					v = min(v+255-a, 255)
				case 2:
					v = uint32(onWhite(v, a))
				}
			}
		}
		out[x] = uint8(v)
	}
}

// packedRow converts a row of 1, 2 or 4-bit gray or palette samples.
func (p *tiffPage) packedRow(raw []byte, out []uint8) {
	d := uint(p.bits)
	mask := uint32(1)<<d - 1
	for x := range out {
		bit := uint(x) * d
		v := uint32(raw[bit/8]>>(8-d-bit%8)) & mask
		switch p.photometric {
		case photoPalette:
			out[x] = uint8(p.paletteGray(v))
		case photoWhiteIsZero:
			out[x] = uint8(255 - v*255/mask)
		default:
			out[x] = uint8(v * 255 / mask)
		}
	}
}

// paletteGray is the gray of palette entry i (the colour map holds every
// red, then every green, then every blue, 16 bits each).
func (p *tiffPage) paletteGray(i uint32) uint32 {
	n := uint32(len(p.colorMap) / 3)
	if i >= n {
		return 255
	}
	return uint32(gray(uint32(p.colorMap[i]>>8), uint32(p.colorMap[n+i]>>8), uint32(p.colorMap[2*n+i]>>8)))
}
