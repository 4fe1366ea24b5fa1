package ocr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/tiff"
)

// Media types of the images this package reads.
const (
	MediaPNG  = "image/png"
	MediaJPEG = "image/jpeg"
	MediaTIFF = "image/tiff"
)

// MaxPagePixels bounds one page image (width × height), checked from the
// header before anything is decoded: an A4 page at 600 dpi is 35 million
// pixels. A larger image is refused as ErrImageTooLarge, which is what stops
// a decompression bomb (a small file that declares a huge image).
const MaxPagePixels = 40_000_000

// Refusals of an image. None of their messages quotes the image.
var (
	// ErrUnsupportedMediaType: not image/png, image/jpeg or image/tiff.
	ErrUnsupportedMediaType = errors.New("ocr: unsupported image media type (accepted: image/png, image/jpeg, image/tiff)")
	// ErrMediaTypeMismatch: the file's signature is not the declared type's.
	ErrMediaTypeMismatch = errors.New("ocr: the file's signature does not match its declared media type")
	// ErrUnreadableImage: a corrupt or truncated image.
	ErrUnreadableImage = errors.New("ocr: unreadable image")
	// ErrImageTooLarge: an image over MaxPagePixels.
	ErrImageTooLarge = fmt.Errorf("ocr: image larger than %d pixels", MaxPagePixels)
	// ErrTooManyPages: a multi-page TIFF with more pages than allowed.
	ErrTooManyPages = errors.New("ocr: more pages than allowed")
)

// Sniff returns the media type that data's signature shows (MediaPNG,
// MediaJPEG or MediaTIFF), or "".
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return MediaPNG
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return MediaJPEG
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return MediaTIFF
	}
	return ""
}

// Pages checks an image file and returns its pages, each a PNG or JPEG file
// that Engine.Page reads: a PNG or JPEG is one page, returned as it came; a
// TIFF gives one PNG per page, in order, at most maxPages (more is
// ErrTooManyPages; maxPages <= 0 means no limit). Every page is decoded once
// here, so a corrupt or truncated file is refused now (ErrUnreadableImage),
// and its dimensions are checked from the header first (ErrImageTooLarge).
func Pages(data []byte, mediaType string, maxPages int) ([][]byte, error) {
	switch mediaType {
	case MediaPNG, MediaJPEG, MediaTIFF:
	default:
		return nil, ErrUnsupportedMediaType
	}
	if Sniff(data) != mediaType {
		return nil, ErrMediaTypeMismatch
	}
	if mediaType == MediaTIFF {
		return tiffPages(data, maxPages)
	}
	if _, err := decode(data); err != nil {
		return nil, err
	}
	return [][]byte{data}, nil
}

// decode decodes one PNG, JPEG or TIFF image (a TIFF's first page) after
// checking its dimensions.
func decode(data []byte) (image.Image, error) {
	dec, cfg := decoders(Sniff(data))
	if dec == nil {
		return nil, ErrUnsupportedMediaType
	}
	c, err := cfg(bytes.NewReader(data))
	if err != nil {
		return nil, ErrUnreadableImage
	}
	if err := checkSize(c.Width, c.Height); err != nil {
		return nil, err
	}
	img, err := dec(bytes.NewReader(data))
	if err != nil {
		return nil, ErrUnreadableImage
	}
	return img, nil
}

type (
	decodeFunc       func(r *bytes.Reader) (image.Image, error)
	decodeConfigFunc func(r *bytes.Reader) (image.Config, error)
)

func decoders(mediaType string) (decodeFunc, decodeConfigFunc) {
	switch mediaType {
	case MediaPNG:
		return func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) },
			func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) }
	case MediaJPEG:
		return func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) },
			func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) }
	case MediaTIFF:
		return func(r *bytes.Reader) (image.Image, error) { return tiff.Decode(r) },
			func(r *bytes.Reader) (image.Config, error) { return tiff.DecodeConfig(r) }
	}
	return nil, nil
}

func checkSize(w, h int) error {
	if w <= 0 || h <= 0 {
		return ErrUnreadableImage
	}
	if int64(w)*int64(h) > MaxPagePixels {
		return ErrImageTooLarge
	}
	return nil
}

// tiffPages splits a multi-page TIFF. golang.org/x/image/tiff decodes only
// the first image directory (IFD), so each page is decoded from a copy of
// the file whose header points at that page's IFD: offsets inside a TIFF
// are absolute, so the rest of the file reads unchanged.
func tiffPages(data []byte, maxPages int) ([][]byte, error) {
	offsets, err := tiffIFDs(data, maxPages)
	if err != nil {
		return nil, err
	}
	pages := make([][]byte, 0, len(offsets))
	view := bytes.Clone(data)
	order := tiffOrder(data)
	for _, off := range offsets {
		order.PutUint32(view[4:8], off)
		img, err := decode(view)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, fmt.Errorf("ocr: encode TIFF page: %w", err)
		}
		pages = append(pages, buf.Bytes())
	}
	return pages, nil
}

func tiffOrder(data []byte) binary.ByteOrder {
	if data[0] == 'I' {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// tiffIFDs walks the chain of image directories and returns their offsets;
// a chain that loops or leaves the file is unreadable.
func tiffIFDs(data []byte, maxPages int) ([]uint32, error) {
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
		if maxPages > 0 && len(offsets) > maxPages {
			return nil, ErrTooManyPages
		}
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
