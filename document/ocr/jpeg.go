package ocr

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"

	"github.com/relayops/relayops/document/ocr/internal/jpegluma"
)

// jpegPage is a JPEG checked from its markers: one frame (baseline,
// extended or progressive), each scan's entropy-coded data followed by a
// marker, and an end-of-image marker, all before a coefficient is decoded.
// A file cut short anywhere (the 144-byte progressive header that claims a
// 40-megapixel frame) is refused here, without the frame being allocated.
//
// A gray or YCbCr JPEG (nearly every scan and photo) is decoded by
// internal/jpegluma: its luma only, one MCU row at a time, into the scaler
// (plus, for a progressive one, its luma's coefficients, 4 bytes a pixel,
// kept until the last scan). Others (CMYK, RGB) go to the standard
// library's decoder, whole, and their cost is what it allocates: the
// planes, the converted image, a progressive JPEG's coefficients.
type jpegPage struct {
	data        []byte
	w, h        int
	progressive bool
	comps       []jpegComp
	jfif        bool // an APP0 JFIF marker: the components are YCbCr
	adobe       int  // an Adobe APP14 marker's colour transform, -1 without one
}

type jpegComp struct {
	id   byte
	h, v int // sampling factors
}

func openJPEG(data []byte) (*jpegPage, error) {
	p := &jpegPage{data: data, adobe: -1}
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
			p.adobe = int(seg[11])
		case m == 0xE0 && bytes.HasPrefix(seg, []byte("JFIF\x00")):
			p.jfif = true
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
		if n == 1 {
			h, v = 1, 1 // one component is not interleaved: its blocks are its MCUs
		}
		p.comps = append(p.comps, jpegComp{seg[6+3*c], h, v})
	}
	return checkSize(p.w, p.h)
}

func (p *jpegPage) size() (int, int) { return p.w, p.h }

// luma reports whether internal/jpegluma decodes the page: a gray JPEG, or
// a YCbCr one (as image/jpeg tells YCbCr from RGB) whose luma has the
// highest sampling.
func (p *jpegPage) luma() bool {
	switch len(p.comps) {
	case 1:
		return true
	case 3:
		rgb := !p.jfif && (p.adobe == 0 || (p.comps[0].id == 'R' && p.comps[1].id == 'G' && p.comps[2].id == 'B'))
		y := p.comps[0]
		return !rgb && y.h >= p.comps[1].h && y.h >= p.comps[2].h && y.v >= p.comps[1].v && y.v >= p.comps[2].v
	}
	return false
}

// cost is what the decoder allocates, and the gray output.
func (p *jpegPage) cost(maxPixels int) int64 {
	y := p.comps[0]
	mxx := int64((p.w + 8*y.h - 1) / (8 * y.h)) // MCUs across, as the decoders count them
	myy := int64((p.h + 8*y.v - 1) / (8 * y.v))
	out := scalerBytes(p.w, p.h, maxPixels) + 64<<10
	if p.luma() {
		band := mxx * int64(64*y.h*y.v) // one MCU row of luma
		if p.progressive {
			band += mxx * myy * int64(y.h*y.v) * 64 * 4 // the luma blocks' int32 coefficients
		}
		return out + band
	}
	hmax, vmax := 1, 1
	for _, c := range p.comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	padded := mxx * myy * int64(64*hmax*vmax) // the frame's pixels, padded to whole MCUs
	var planes, coeffs int64
	for _, c := range p.comps {
		blocks := mxx * myy * int64(c.h*c.v)
		planes += blocks * 64
		if p.progressive {
			coeffs += blocks * 64 * 4 // a block's 64 int32 coefficients
		}
	}
	return out + planes + coeffs + padded*4 // converted to CMYK or RGBA at the end
}

func (p *jpegPage) decode(maxPixels int) (*image.Gray, error) {
	if p.luma() {
		s := newScaler(p.w, p.h, maxPixels)
		if err := jpegluma.DecodeLuma(bytes.NewReader(p.data), s.push); err != nil {
			return nil, ErrUnreadableImage
		}
		return s.image(), nil
	}
	img, err := jpeg.Decode(bytes.NewReader(p.data))
	if err != nil {
		return nil, ErrUnreadableImage
	}
	if b := img.Bounds(); b.Dx() != p.w || b.Dy() != p.h {
		return nil, ErrUnreadableImage
	}
	return grayOf(img, maxPixels), nil
}
