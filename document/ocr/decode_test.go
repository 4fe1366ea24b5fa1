package ocr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/image/tiff"

	"github.com/relayops/relayops/internal/readbomb"
)

// referenceGray is what a page should decode to: the standard decoder's
// image converted pixel by pixel (16-bit, premultiplied: what is not drawn
// is white).
func referenceGray(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, gr, bl, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			v := color.GrayModel.Convert(color.RGBA64{R: uint16(r), G: uint16(gr), B: uint16(bl), A: 0xFFFF}).(color.Gray).Y
			g.Pix[y*g.Stride+x] = uint8(min(uint32(v)+(0xFFFF-a)>>8, 255))
		}
	}
	return g
}

// requireClose checks two gray images of one size differ by at most tol
// anywhere (8-bit rounding of 16-bit samples, premultiplied alpha).
func requireClose(t *testing.T, want, got *image.Gray, tol int, msg string) {
	t.Helper()
	require.Equal(t, want.Rect.Size(), got.Rect.Size(), msg)
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			w, g := int(want.GrayAt(x, y).Y), int(got.GrayAt(x, y).Y)
			if w-g > tol || g-w > tol {
				t.Fatalf("%s: pixel (%d,%d) is %d, want %d", msg, x, y, g, w)
			}
		}
	}
}

// randomImages are small images of every kind image/png writes: gray of
// each depth it chooses, 16-bit gray, RGB(A) 8 and 16 bits, with and
// without transparency, and palettes.
func randomImages(rng *rand.Rand) map[string]image.Image {
	r := image.Rect(0, 0, 37, 23) // odd sizes: rows that are not whole bytes
	gray, gray16 := image.NewGray(r), image.NewGray16(r)
	nrgba, nrgba64, rgba64 := image.NewNRGBA(r), image.NewNRGBA64(r), image.NewRGBA64(r)
	opaque := image.NewNRGBA(r)
	pal := image.NewPaletted(r, color.Palette{color.White, color.Black, color.RGBA{200, 10, 10, 255}, color.NRGBA{0, 0, 255, 128}})
	bw := image.NewPaletted(r, color.Palette{color.Black, color.White})
	for y := range r.Dy() {
		for x := range r.Dx() {
			c := color.NRGBA64{uint16(rng.Uint32()), uint16(rng.Uint32()), uint16(rng.Uint32()), uint16(rng.Uint32())}
			gray.SetGray(x, y, color.Gray{uint8(rng.Uint32())})
			gray16.SetGray16(x, y, color.Gray16{uint16(rng.Uint32())})
			nrgba.Set(x, y, c)
			nrgba64.Set(x, y, c)
			rgba64.Set(x, y, color.RGBA64{c.R >> 1, c.G >> 1, c.B >> 1, 0xFFFF})
			opaque.Set(x, y, color.NRGBA{uint8(c.R), uint8(c.G), uint8(c.B), 0xFF})
			pal.SetColorIndex(x, y, uint8(rng.IntN(4)))
			bw.SetColorIndex(x, y, uint8(rng.IntN(2)))
		}
	}
	return map[string]image.Image{"gray": gray, "gray16": gray16, "nrgba": nrgba, "nrgba64": nrgba64,
		"rgb48": rgba64, "rgb": opaque, "palette": pal, "1-bit palette": bw}
}

func TestOpen_PNGOfEveryColourTypeAndDepth_DecodesAsImagePNGDoes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for name, img := range randomImages(rng) {
		for _, level := range []png.CompressionLevel{png.NoCompression, png.BestCompression} {
			var b bytes.Buffer
			require.NoError(t, (&png.Encoder{CompressionLevel: level}).Encode(&b, img))
			ref, err := png.Decode(bytes.NewReader(b.Bytes()))
			require.NoError(t, err)
			got := decodePages(t, b.Bytes(), MediaPNG)
			requireClose(t, referenceGray(ref), got[0], 1, name)
		}
	}
}

func TestOpen_TIFFLayouts_DecodeAsXImageTIFFDoes(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "xtiff", "*.tiff"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 14)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		ref, err := tiff.Decode(bytes.NewReader(data))
		require.NoError(t, err, p)
		got := decodePages(t, data, MediaTIFF)
		requireClose(t, referenceGray(ref), got[0], 1, p)
	}
}

func TestGray_LargePage_IsScaledDownWhileDecoded(t *testing.T) {
	t.Parallel()
	// A 1200 × 900 page, left half black, right half white, as a PNG.
	page := image.NewGray(image.Rect(0, 0, 1200, 900))
	for y := range 900 {
		for x := 600; x < 1200; x++ {
			page.Pix[y*1200+x] = 0xFF
		}
	}
	im, err := Open(encodePNG(t, page), MediaPNG, 1)
	require.NoError(t, err)
	g, err := im.Gray(0, 100_000)
	require.NoError(t, err)
	require.LessOrEqual(t, g.Rect.Dx()*g.Rect.Dy(), 100_000)
	require.InDelta(t, 4.0/3, float64(g.Rect.Dx())/float64(g.Rect.Dy()), 0.01, "the page keeps its proportions")
	require.Equal(t, uint8(0), g.GrayAt(10, 10).Y)
	require.Equal(t, uint8(0xFF), g.GrayAt(g.Rect.Dx()-10, 10).Y)
	require.Less(t, im.Cost(0, 100_000), int64(1<<20), "the scaled page, not the whole one, is held")
}

// heapGrowth runs f and returns how much the Go heap's peak grew over it,
// sampled every millisecond.
func heapGrowth(f func()) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	go func() { f(); close(done) }()
	for {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		select {
		case <-done:
			runtime.ReadMemStats(&ms)
			return max(peak, ms.HeapAlloc) - base
		case <-time.After(time.Millisecond):
		}
	}
}

// The crafted files of issue 31 are refused from their headers, or decoded
// row by row into the page OCR reads, never as their declared 40-megapixel
// frames.
func TestOpen_CraftedFiles_RefusedOrDecodedWithoutTheirFrame(t *testing.T) {
	for _, c := range []struct {
		name, media string
		data        []byte
	}{
		{"144-byte progressive JPEG cut short", MediaJPEG, readbomb.ProgressiveJPEG()},
		{"2 KB 16-bit RGBA PNG cut short", MediaPNG, readbomb.TruncatedPNG()},
	} {
		var err error
		grew := heapGrowth(func() { _, err = Open(c.data, c.media, 50) })
		require.ErrorIs(t, err, ErrUnreadableImage, c.name)
		require.Less(t, grew, uint64(1<<20), "%s: refused before anything was allocated", c.name)
	}

	data := readbomb.DeflateTIFF()
	im, err := Open(data, MediaTIFF, 50)
	require.NoError(t, err)
	require.Less(t, im.Cost(0, PagePixels), int64(PagePixels+1<<20), "the cost of the page OCR reads, not of its 320 MB of samples")
	var g *image.Gray
	start := time.Now()
	grew := heapGrowth(func() { g, err = im.Gray(0, PagePixels) })
	require.NoError(t, err)
	t.Logf("6324 × 6324 16-bit RGBA deflate TIFF: decoded to %v in %v, heap grew %d MB (its full frame: 320 MB)",
		g.Rect.Size(), time.Since(start).Round(time.Millisecond), grew>>20)
	require.LessOrEqual(t, g.Rect.Dx()*g.Rect.Dy(), PagePixels)
	require.Equal(t, uint8(0xFF), g.GrayAt(100, 100).Y, "a white page")
	require.Less(t, grew, uint64(im.Cost(0, PagePixels))+8<<20, "the decode holds what its cost says")

	_, err = Open(readbomb.SharedStripTIFF(50), MediaTIFF, 10)
	var pc *PageCountError
	require.ErrorAs(t, err, &pc)
	require.Equal(t, 50, pc.Pages)
}

// FuzzOpen: whatever the bytes, Open and Gray answer (an image, or one of
// the package's errors) without panicking, and a decode never produces a
// page over the pixels it was asked for.
func FuzzOpen(f *testing.F) {
	for _, media := range []string{MediaPNG, MediaJPEG, MediaTIFF} {
		f.Add([]byte(nil), media)
	}
	f.Add(encodePNG(f, grayPage(12, 9, 3)), MediaPNG)
	f.Add(interlacedPNG(image.NewNRGBA64(image.Rect(0, 0, 11, 7))), MediaPNG)
	f.Add(readbomb.GrayTIFF([]*image.Gray{grayPage(8, 8, 1), grayPage(8, 8, 2)}), MediaTIFF)
	var jb bytes.Buffer
	_ = jpeg.Encode(&jb, grayPage(16, 16, 4), nil)
	f.Add(jb.Bytes(), MediaJPEG)
	paths, _ := filepath.Glob(filepath.Join("testdata", "xtiff", "bw-*.tiff"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, MediaTIFF)
		}
	}
	paths, _ = filepath.Glob(filepath.Join("testdata", "xjpeg", "*.q50.4*.jpeg"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, MediaJPEG)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, media string) {
		im, err := Open(data, media, 8)
		if err != nil {
			return
		}
		for i := range im.Pages() {
			if im.Cost(i, 10_000) > 64<<20 {
				continue // a page the budget would hold back; not decoded here
			}
			g, err := im.Gray(i, 10_000)
			if err == nil {
				require.LessOrEqual(t, g.Rect.Dx()*g.Rect.Dy(), 10_000)
			}
		}
	})
}

// interlacedPNG writes img as an Adam7-interlaced 16-bit RGBA PNG (each pass
// row unfiltered but the first of each pass, which uses Sub), which
// image/png does not write.
func interlacedPNG(img *image.NRGBA64) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var raw bytes.Buffer
	for _, pass := range adam7 {
		x0, y0, dx, dy := pass[0], pass[1], pass[2], pass[3]
		pw, ph := (w-x0+dx-1)/dx, (h-y0+dy-1)/dy
		if pw <= 0 || ph <= 0 {
			continue
		}
		for j := range ph {
			row := make([]byte, 0, pw*8)
			for i := range pw {
				c := img.NRGBA64At(x0+i*dx, y0+j*dy)
				row = binary.BigEndian.AppendUint16(row, c.R)
				row = binary.BigEndian.AppendUint16(row, c.G)
				row = binary.BigEndian.AppendUint16(row, c.B)
				row = binary.BigEndian.AppendUint16(row, c.A)
			}
			filter := byte(0)
			if j == 0 {
				filter = 1 // Sub: each byte less the one 8 bytes before it
				for k := len(row) - 1; k >= 8; k-- {
					row[k] -= row[k-8]
				}
			}
			raw.WriteByte(filter)
			raw.Write(row)
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw.Bytes())
	_ = zw.Close()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9], ihdr[12] = 16, 6, 1
	for _, c := range []struct {
		typ  string
		data []byte
	}{{"IHDR", ihdr}, {"IDAT", z.Bytes()}, {"IEND", nil}} {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(c.data)))
		b.WriteString(c.typ)
		b.Write(c.data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(c.typ), c.data...)))
	}
	return b.Bytes()
}

func TestOpen_InterlacedPNG_DecodesAsImagePNGDoesIntoAGrayFrame(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []image.Point{{37, 23}, {1, 1}, {3, 9}, {9, 3}} {
		img := image.NewNRGBA64(image.Rectangle{Max: size})
		for i := 0; i+1 < len(img.Pix); i += 2 {
			img.Pix[i], img.Pix[i+1] = uint8(rng.Uint32()), uint8(rng.Uint32())
		}
		data := interlacedPNG(img)
		ref, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err, "image/png reads the test's interlaced file")
		got := decodePages(t, data, MediaPNG)
		requireClose(t, referenceGray(ref), got[0], 1, fmt.Sprint(size))
		im, err := Open(data, MediaPNG, 1)
		require.NoError(t, err)
		require.Less(t, im.Cost(0, 0), int64(size.X*size.Y*3+1<<20), "a gray frame, not 8 bytes a pixel")
	}
}

// A colour photo of a page is decoded one MCU row at a time, its luma
// only: the decode holds the scaled page, not the photo's planes.
func TestGray_ColourJPEG_IsDecodedWithoutItsFrame(t *testing.T) {
	t.Parallel()
	photo := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for i := range photo.Pix {
		photo.Pix[i] = 0xFF
	}
	for y := 1000; y < 1040; y++ {
		for x := range 4000 {
			photo.Pix[4*(y*4000+x)] = 0 // a red line: dark in luma
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, photo, &jpeg.Options{Quality: 80}))
	im, err := Open(b.Bytes(), MediaJPEG, 1)
	require.NoError(t, err)
	const px = 1_000_000
	require.Less(t, im.Cost(0, px), int64(px+2<<20), "one MCU row of luma and the scaled page")
	var g *image.Gray
	grew := heapGrowth(func() { g, err = im.Gray(0, px) })
	require.NoError(t, err)
	require.Less(t, grew, uint64(8<<20), "image/jpeg would hold 18 MB of planes")
	require.Equal(t, uint8(0xFF), g.GrayAt(10, 10).Y)
	require.Less(t, g.GrayAt(10, g.Rect.Dy()/3).Y, uint8(0xE0), "the line is there")
}
