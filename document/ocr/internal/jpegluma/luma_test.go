package jpegluma

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdLuma is the luma image/jpeg decodes: the Y plane of a YCbCr image, the
// pixels of a gray one.
func stdLuma(t *testing.T, img image.Image) [][]byte {
	t.Helper()
	b := img.Bounds()
	var rows [][]byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		switch m := img.(type) {
		case *image.YCbCr:
			rows = append(rows, m.Y[m.YOffset(b.Min.X, y):][:b.Dx()])
		case *image.Gray:
			rows = append(rows, m.Pix[m.PixOffset(b.Min.X, y):][:b.Dx()])
		default:
			t.Fatalf("image/jpeg gave a %T", img)
		}
	}
	return rows
}

func decodeRows(data []byte) ([][]byte, error) {
	var rows [][]byte
	err := DecodeLuma(bytes.NewReader(data), func(row []byte) { rows = append(rows, bytes.Clone(row)) })
	return rows, err
}

// Every JPEG of the standard library's tests decodes to exactly the luma
// image/jpeg gives, row for row; RGB and CMYK are left to image/jpeg; a
// file image/jpeg refuses is refused.
func TestDecodeLuma_IsImageJPEGsLumaRowByRow(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "xjpeg", "*.jpeg"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 20)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		rows, err := decodeRows(data)
		if strings.Contains(p, ".rgb.") || strings.Contains(p, ".cmyk.") {
			require.ErrorIs(t, err, ErrNotLuma, p)
			require.Empty(t, rows, "%s: refused before any row", p)
			continue
		}
		img, stdErr := jpeg.Decode(bytes.NewReader(data))
		if stdErr != nil {
			require.Error(t, err, "%s: image/jpeg refuses it: %v", p, stdErr)
			continue
		}
		require.NoError(t, err, p)
		require.Equal(t, stdLuma(t, img), rows, p)
	}
}

func TestDecodeLuma_GrayAndColourPagesOfEverySize(t *testing.T) {
	t.Parallel()
	for _, size := range []image.Point{{1, 1}, {7, 9}, {17, 33}, {64, 48}} {
		gray := image.NewGray(image.Rectangle{Max: size})
		rgba := image.NewRGBA(image.Rectangle{Max: size})
		for i := range gray.Pix {
			gray.Pix[i] = uint8(i * 37)
		}
		for i := range rgba.Pix {
			rgba.Pix[i] = uint8(i * 11)
		}
		for _, img := range []image.Image{gray, rgba} {
			var b bytes.Buffer
			require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}))
			want, err := jpeg.Decode(bytes.NewReader(b.Bytes()))
			require.NoError(t, err)
			rows, err := decodeRows(b.Bytes())
			require.NoError(t, err)
			require.Equal(t, stdLuma(t, want), rows, "%T %v", img, size)
		}
	}
}

func TestDecodeLuma_CutShort_IsAnError(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 64, 64)), nil))
	for _, n := range []int{2, 100, b.Len() / 2, b.Len() - 2} {
		_, err := decodeRows(b.Bytes()[:n])
		require.Error(t, err, "%d of %d bytes", n, b.Len())
		require.False(t, errors.Is(err, ErrNotLuma))
	}
}
