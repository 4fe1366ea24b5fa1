// Package readbomb builds the crafted files that once cost the read stage
// far more than their size: a few hundred bytes to a few hundred KiB that
// declare a 40-megapixel image, or fifty pages of one. They are the
// regression tests of the read stage's limits and memory budget (package
// document and document/ocr, and the worker's process test), built in Go so
// no such file is stored in the repository.
//
// Each builder returns a new slice; the large compressed strips are made
// once per process.
package readbomb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"sync"
)

// Side is the width and height of the crafted images: 6324 × 6324 is just
// under 40 million pixels, the most a page may declare.
const Side = 6324

// JPEGSide is the crafted progressive JPEG's width and height.
const JPEGSide = 6320

// ProgressiveJPEG is a 144-byte progressive JPEG whose frame header claims
// 6320 × 6320 pixels in three full-resolution components and whose first
// scan is cut short after 18 bytes: image/jpeg allocates the frame and the
// coefficients of every block (about 570 MiB) before it finds the end.
func ProgressiveJPEG() []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	segment(&b, 0xDB, append([]byte{0x00}, bytes.Repeat([]byte{1}, 64)...)) // DQT: table 0, all ones
	sof := []byte{8, JPEGSide >> 8, JPEGSide & 0xFF, JPEGSide >> 8, JPEGSide & 0xFF, 3}
	for id := byte(1); id <= 3; id++ {
		sof = append(sof, id, 0x11, 0) // 1×1 sampling: no chroma subsampling
	}
	segment(&b, 0xC2, sof) // SOF2: progressive
	dht := append([]byte{0x00, 1}, make([]byte, 15)...)
	segment(&b, 0xC4, append(dht, 0))                                // DHT: DC table 0, one 1-bit code for 0
	segment(&b, 0xDA, []byte{3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0}) // SOS: DC first scan of all three
	b.Write(make([]byte, 18))                                        // and the scan cut short
	return b.Bytes()
}

func segment(b *bytes.Buffer, marker byte, body []byte) {
	b.Write([]byte{0xFF, marker})
	_ = binary.Write(b, binary.BigEndian, uint16(len(body)+2))
	b.Write(body)
}

// TruncatedPNG is a PNG of about 2.1 KB whose header declares 6324 × 6324
// pixels of 16-bit RGBA (320 MB decoded) and whose IDAT chunk, which
// declares its full length, is cut short after its first 2,060 bytes, as a
// download cut short would be. image/png allocates the whole frame before
// it reads a row.
func TruncatedPNG() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], Side)
	binary.BigEndian.PutUint32(ihdr[4:], Side)
	ihdr[8], ihdr[9] = 16, 6 // 16-bit RGBA
	pngChunk(&b, "IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+Side*8)
	for range 200 {
		_, _ = zw.Write(row)
	}
	_ = zw.Flush()
	_ = binary.Write(&b, binary.BigEndian, uint32(311_000)) // the length the whole image data would have
	b.WriteString("IDAT")
	b.Write(z.Bytes()[:2060])
	return b.Bytes()
}

func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// whiteStrip is the deflated strip of a white 6324 × 6324 16-bit RGBA
// page: 320 MB of 0xFF compressed to about 310 KB.
var whiteStrip = sync.OnceValue(func() []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := bytes.Repeat([]byte{0xFF}, Side*8)
	for range Side {
		_, _ = zw.Write(row)
	}
	_ = zw.Close()
	return z.Bytes()
})

// DeflateTIFF is a one-page TIFF of about 311 KB: a white 6324 × 6324 page
// of 16-bit RGBA in one deflate strip. It is whole and valid; decoding it
// the usual way holds 320 MB of decoded strip and 320 MB of image.
func DeflateTIFF() []byte { return SharedStripTIFF(1) }

// SharedStripTIFF is a TIFF of pages image directories that all point at
// the one strip of DeflateTIFF: 50 pages in about 318 KB, each 40 million
// pixels to decode and read.
func SharedStripTIFF(pages int) []byte {
	strip := whiteStrip()
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString("II*\x00")
	_ = binary.Write(&b, le, uint32(8+len(strip)+len(strip)%2))
	b.Write(strip)
	if len(strip)%2 == 1 {
		b.WriteByte(0)
	}
	for p := range pages {
		ifd := uint32(b.Len())
		bits := ifd + 2 + 12*11 + 4 // the four BitsPerSample values follow the directory
		entries := [][4]uint32{     // tag, type (3 short, 4 long), count, value
			{256, 4, 1, Side}, {257, 4, 1, Side}, {258, 3, 4, bits}, {259, 3, 1, 8},
			{262, 3, 1, 2}, {273, 4, 1, 8}, {277, 3, 1, 4}, {278, 4, 1, Side},
			{279, 4, 1, uint32(len(strip))}, {284, 3, 1, 1}, {338, 3, 1, 2},
		}
		_ = binary.Write(&b, le, uint16(len(entries)))
		for _, e := range entries {
			_ = binary.Write(&b, le, uint16(e[0]))
			_ = binary.Write(&b, le, uint16(e[1]))
			_ = binary.Write(&b, le, e[2])
			if e[1] == 3 && e[2] == 1 {
				_ = binary.Write(&b, le, uint16(e[3]))
				_ = binary.Write(&b, le, uint16(0))
			} else {
				_ = binary.Write(&b, le, e[3])
			}
		}
		next := uint32(0)
		if p < pages-1 {
			next = bits + 8
		}
		_ = binary.Write(&b, le, next)
		for range 4 {
			_ = binary.Write(&b, le, uint16(16))
		}
	}
	return b.Bytes()
}

// denseScan is a JPEG of an A4 page at 300 dpi (2480 × 3508) covered in
// rows of print-like noise: about 500 KB that PDFium decodes for every page
// it draws on, and that OCR finds dense.
var denseScan = sync.OnceValue(func() []byte {
	const w, h = 2480, 3508
	img := image.NewGray(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(31, 31))
	for y := range h {
		ink := (y/40)%2 == 0 && y%40 < 24 && y > 150 && y < h-150
		for x := range w {
			v := uint8(0xFF)
			if ink && x > 150 && x < w-150 && rng.IntN(6) == 0 {
				v = 0
			}
			img.Pix[y*w+x] = v
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 10})
	return b.Bytes()
})

// ScanPDF is a PDF of pages pages (A4) that each draw the one dense scan:
// a few hundred KiB, every page to be rendered and read by OCR.
func ScanPDF(pages int) []byte {
	scan := denseScan()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s", len(offsets), body)
		if stream != nil {
			b.WriteString("\nstream\n")
			b.Write(stream)
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	b.WriteString("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")
	kids := ""
	for p := range pages {
		kids += fmt.Sprintf("%d 0 R ", 5+p)
	}
	content := []byte("q 595 0 0 842 0 0 cm /Im0 Do Q")
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", pages, kids), nil)
	obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 2480 /Height 3508 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>", len(scan)), scan)
	obj(fmt.Sprintf("<< /Length %d >>", len(content)), content)
	for range pages {
		obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 3 0 R >> >> /Contents 4 0 R >>", nil)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// GrayTIFF writes an uncompressed 8-bit gray TIFF, one image directory per
// page, chained in order: the plain multi-page TIFF the tests read.
func GrayTIFF(pages []*image.Gray) []byte {
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString("II*\x00")
	_ = binary.Write(&b, le, uint32(0)) // first directory, patched below
	prevNext := 4
	for _, p := range pages {
		w, h := p.Rect.Dx(), p.Rect.Dy()
		pixels := b.Len()
		b.Write(p.Pix)
		if b.Len()%2 == 1 {
			b.WriteByte(0)
		}
		le.PutUint32(b.Bytes()[prevNext:], uint32(b.Len()))
		entries := [][3]uint32{ // tag, type (3 short, 4 long), value
			{256, 4, uint32(w)}, {257, 4, uint32(h)}, {258, 3, 8}, {259, 3, 1},
			{262, 3, 1}, {273, 4, uint32(pixels)}, {278, 4, uint32(h)}, {279, 4, uint32(w * h)},
		}
		_ = binary.Write(&b, le, uint16(len(entries)))
		for _, e := range entries {
			_ = binary.Write(&b, le, uint16(e[0]))
			_ = binary.Write(&b, le, uint16(e[1]))
			_ = binary.Write(&b, le, uint32(1))
			if e[1] == 3 {
				_ = binary.Write(&b, le, uint16(e[2]))
				_ = binary.Write(&b, le, uint16(0))
			} else {
				_ = binary.Write(&b, le, e[2])
			}
		}
		prevNext = b.Len()
		_ = binary.Write(&b, le, uint32(0))
	}
	return b.Bytes()
}
