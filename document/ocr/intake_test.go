package ocr

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/readbomb"
)

// grayPage is a small white image with a dark bar whose position tells
// pages apart.
func grayPage(w, h, bar int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xFF
	}
	for x := 0; x < w; x++ {
		img.SetGray(x, bar, color.Gray{})
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// pngHeaderOnly is a PNG that declares w×h pixels and holds none: what a
// decompression bomb shows before it is decoded.
func pngHeaderOnly(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grayscale
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

// decodePages opens data and decodes every page at its own size.
func decodePages(t *testing.T, data []byte, media string) []*image.Gray {
	t.Helper()
	im, err := Open(data, media, 50)
	require.NoError(t, err)
	var out []*image.Gray
	for i := range im.Pages() {
		g, err := im.Gray(i, 0)
		require.NoError(t, err)
		out = append(out, g)
	}
	return out
}

func TestOpen_PNGAndJPEG_AreOnePageDecodedToGray(t *testing.T) {
	t.Parallel()
	page := grayPage(40, 30, 5)
	var jb bytes.Buffer
	require.NoError(t, jpeg.Encode(&jb, page, &jpeg.Options{Quality: 100}))
	for media, data := range map[string][]byte{MediaPNG: encodePNG(t, page), MediaJPEG: jb.Bytes()} {
		pages := decodePages(t, data, media)
		require.Len(t, pages, 1, media)
		require.Equal(t, page.Rect, pages[0].Rect, media)
		require.InDelta(t, 0, int(pages[0].GrayAt(3, 5).Y), 8, media)
		require.InDelta(t, 255, int(pages[0].GrayAt(3, 20).Y), 8, media)
	}
}

func TestOpen_MultiPageTIFF_GivesEveryPageInOrder(t *testing.T) {
	t.Parallel()
	data := readbomb.GrayTIFF([]*image.Gray{grayPage(20, 10, 1), grayPage(20, 10, 5), grayPage(20, 10, 8)})
	pages := decodePages(t, data, MediaTIFF)
	require.Len(t, pages, 3)
	for i, bar := range []int{1, 5, 8} {
		require.Equal(t, uint8(0), pages[i].GrayAt(3, bar).Y, "page %d", i+1)
		require.Equal(t, uint8(0xFF), pages[i].GrayAt(3, (bar+2)%10).Y, "page %d", i+1)
	}
}

func TestOpen_TIFFOverThePageLimit_IsTooManyPagesWithItsRealCount(t *testing.T) {
	t.Parallel()
	data := readbomb.GrayTIFF([]*image.Gray{grayPage(8, 8, 1), grayPage(8, 8, 2), grayPage(8, 8, 3)})
	_, err := Open(data, MediaTIFF, 2)
	require.ErrorIs(t, err, ErrTooManyPages)
	var pc *PageCountError
	require.ErrorAs(t, err, &pc)
	require.Equal(t, PageCountError{Pages: 3, Max: 2}, *pc)
}

func TestOpen_TIFFWhoseDirectoriesLoop_IsUnreadable(t *testing.T) {
	t.Parallel()
	data := readbomb.GrayTIFF([]*image.Gray{grayPage(8, 8, 1)})
	first := binary.LittleEndian.Uint32(data[4:8])
	next := first + 2 + 12*uint32(binary.LittleEndian.Uint16(data[first:]))
	binary.LittleEndian.PutUint32(data[next:], first) // the last page points back at the first
	_, err := Open(data, MediaTIFF, 0)
	require.ErrorIs(t, err, ErrUnreadableImage)
}

func TestOpen_BadImages_AreRefusedFromTheirHeaders(t *testing.T) {
	t.Parallel()
	good := encodePNG(t, grayPage(200, 100, 50))
	tiffBomb := readbomb.GrayTIFF([]*image.Gray{grayPage(8, 8, 1)})
	first := binary.LittleEndian.Uint32(tiffBomb[4:8])
	binary.LittleEndian.PutUint32(tiffBomb[first+2+8:], 100000) // ImageWidth
	binary.LittleEndian.PutUint32(tiffBomb[first+2+12+8:], 100000)
	shortStrip := readbomb.GrayTIFF([]*image.Gray{grayPage(8, 8, 1)})
	binary.LittleEndian.PutUint32(shortStrip[first+2+7*12+8:], 10) // StripByteCounts: 10 of 64 bytes
	var jb bytes.Buffer
	require.NoError(t, jpeg.Encode(&jb, grayPage(64, 64, 5), nil))
	cases := []struct {
		name, media string
		data        []byte
		want        error
	}{
		{"truncated PNG", MediaPNG, good[:len(good)/2], ErrUnreadableImage},
		{"PNG without IEND", MediaPNG, good[:len(good)-12], ErrUnreadableImage},
		{"PNG declaring 100000x100000", MediaPNG, pngHeaderOnly(100000, 100000), ErrImageTooLarge},
		{"PNG declaring 0 pixels", MediaPNG, pngHeaderOnly(0, 10), ErrUnreadableImage},
		{"TIFF declaring 100000x100000", MediaTIFF, tiffBomb, ErrImageTooLarge},
		{"TIFF whose strip is shorter than its rows", MediaTIFF, shortStrip, ErrUnreadableImage},
		{"not an image", MediaPNG, []byte("%PDF-1.7 not a picture"), ErrMediaTypeMismatch},
		{"PNG declared as JPEG", MediaJPEG, good, ErrMediaTypeMismatch},
		{"empty file", MediaJPEG, nil, ErrMediaTypeMismatch},
		{"truncated JPEG", MediaJPEG, []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16}, ErrUnreadableImage},
		{"JPEG without its end", MediaJPEG, jb.Bytes()[:jb.Len()-2], ErrUnreadableImage},
		{"unsupported type", "image/gif", []byte("GIF89a"), ErrUnsupportedMediaType},
	}
	for _, c := range cases {
		_, err := Open(c.data, c.media, 50)
		require.ErrorIs(t, err, c.want, c.name)
	}
}

func TestSniff_TellsFormatsBySignature(t *testing.T) {
	t.Parallel()
	require.Equal(t, MediaPNG, Sniff(pngHeaderOnly(1, 1)))
	require.Equal(t, MediaJPEG, Sniff([]byte{0xFF, 0xD8, 0xFF, 0xDB}))
	require.Equal(t, MediaTIFF, Sniff([]byte("MM\x00*\x00\x00\x00\x08")))
	require.Equal(t, "", Sniff([]byte("hello")))
}
