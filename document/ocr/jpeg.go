package ocr

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
)

// jpegPage is a JPEG checked from its markers: one frame (baseline,
// extended or progressive), each scan's entropy-coded data followed by a
// marker, and an end-of-image marker, all before a coefficient is decoded.
// A file cut short anywhere (the 144-byte progressive header that claims a
// 40-megapixel frame) is refused here, without the frame being allocated.
//
// The standard library's decoder, which decodes the frame whole (it has no
// DCT scaling), is then run on a complete file, and its cost is what that
// decoder allocates for the frame: its planes, and for a progressive JPEG
// the coefficients of every block, kept until the last scan.
type jpegPage struct {
	data        []byte
	w, h        int
	progressive bool
	comps       []jpegComp
	adobeRGB    bool // an Adobe APP14 marker says the 3 components are RGB
}

type jpegComp struct{ h, v int } // sampling factors

func openJPEG(data []byte) (*jpegPage, error) {
	p := &jpegPage{data: data}
	i, seenSOF, seenSOS := 2, false, false
	for {
		// Fill bytes (0xFF) may precede a marker.
		for i+1 < len(data) && data[i] == 0xFF && data[i+1] == 0xFF {
			i++
		}
		if i+1 >= len(data) || data[i] != 0xFF {
			return nil, ErrUnreadableImage // cut short, or not at a marker
		}
		m := data[i+1]
		i += 2
		switch {
		case m == 0xD9: // EOI
			if !seenSOF || !seenSOS {
				return nil, ErrUnreadableImage
			}
			return p, nil
		case m >= 0xD0 && m <= 0xD7, m == 0x01: // RSTn, TEM: no length
			continue
		}
		if i+2 > len(data) {
			return nil, ErrUnreadableImage
		}
		n := int(binary.BigEndian.Uint16(data[i:]))
		if n < 2 || i+n > len(data) {
			return nil, ErrUnreadableImage
		}
		seg := data[i+2 : i+n]
		i += n
		switch {
		case m == 0xC0 || m == 0xC1 || m == 0xC2:
			if seenSOF {
				return nil, ErrUnreadableImage
			}
			if err := p.frame(seg, m == 0xC2); err != nil {
				return nil, err
			}
			seenSOF = true
		case m >= 0xC3 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return nil, ErrUnreadableImage // lossless, hierarchical or arithmetic coding: not supported
		case m == 0xEE && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("Adobe")):
			p.adobeRGB = seg[11] == 0
		case m == 0xDA: // SOS: the entropy-coded data runs to the next marker
			if !seenSOF {
				return nil, ErrUnreadableImage
			}
			seenSOS = true
			i = skipEntropyCoded(data, i)
		}
	}
}

// skipEntropyCoded returns the index of the marker that ends the
// entropy-coded data starting at i (stuffed 0xFF00 bytes and restart
// markers belong to it), or len(data) when there is none.
func skipEntropyCoded(data []byte, i int) int {
	for {
		j := bytes.IndexByte(data[i:], 0xFF)
		if j < 0 || i+j+1 >= len(data) {
			return len(data)
		}
		i += j
		if m := data[i+1]; m == 0x00 || (m >= 0xD0 && m <= 0xD7) || m == 0xFF {
			i++
			continue
		}
		return i
	}
}

func (p *jpegPage) frame(seg []byte, progressive bool) error {
	if len(seg) < 6 {
		return ErrUnreadableImage
	}
	p.h, p.w = int(binary.BigEndian.Uint16(seg[1:])), int(binary.BigEndian.Uint16(seg[3:]))
	n := int(seg[5])
	if seg[0] != 8 || (n != 1 && n != 3 && n != 4) || len(seg) < 6+3*n {
		return ErrUnreadableImage // 8-bit precision and 1, 3 or 4 components, as image/jpeg reads
	}
	p.progressive = progressive
	for c := range n {
		hv := seg[6+3*c+1]
		h, v := int(hv>>4), int(hv&0x0F)
		if h < 1 || h > 4 || v < 1 || v > 4 {
			return ErrUnreadableImage
		}
		p.comps = append(p.comps, jpegComp{h, v})
	}
	return checkSize(p.w, p.h)
}

func (p *jpegPage) size() (int, int) { return p.w, p.h }

// cost is what image/jpeg allocates for the frame, and the gray output.
func (p *jpegPage) cost(maxPixels int) int64 {
	hmax, vmax := 1, 1
	for _, c := range p.comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	if len(p.comps) == 1 {
		hmax, vmax = 1, 1 // one component: blocks, not MCUs
	}
	mxx := int64((p.w + 8*hmax - 1) / (8 * hmax))
	myy := int64((p.h + 8*vmax - 1) / (8 * vmax))
	padded := mxx * myy * int64(64*hmax*vmax) // the frame's pixels, padded to whole MCUs
	var planes, coeffs int64
	for _, c := range p.comps {
		blocks := mxx * myy * int64(c.h*c.v)
		if len(p.comps) == 1 {
			blocks = mxx * myy
		}
		planes += blocks * 64
		if p.progressive {
			coeffs += blocks * 64 * 4 // a block's 64 int32 coefficients
		}
	}
	switch {
	case len(p.comps) == 4:
		planes += padded * 4 // converted to CMYK at the end
	case len(p.comps) == 3 && p.adobeRGB:
		planes += padded * 4 // converted to RGBA at the end
	}
	return planes + coeffs + scalerBytes(p.w, p.h, maxPixels) + 64<<10
}

func (p *jpegPage) decode(maxPixels int) (*image.Gray, error) {
	img, err := jpeg.Decode(bytes.NewReader(p.data))
	if err != nil {
		return nil, ErrUnreadableImage
	}
	if b := img.Bounds(); b.Dx() != p.w || b.Dy() != p.h {
		return nil, ErrUnreadableImage
	}
	return grayOf(img, maxPixels), nil
}
