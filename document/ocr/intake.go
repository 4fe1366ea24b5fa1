package ocr

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
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

// PagePixels is the size a page is read at for OCR: about 300 dpi on A4,
// where tesseract reads best. A larger page is scaled down while it is
// decoded.
const PagePixels = 9_000_000

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
	// ErrTooManyPages: a multi-page TIFF with more pages than allowed (a
	// *PageCountError says how many it has).
	ErrTooManyPages = errors.New("ocr: more pages than allowed")
)

// PageCountError is a multi-page image with more pages than allowed. Pages
// is the number of pages the file really has (every image directory of the
// chain counted), not a number it declares.
type PageCountError struct {
	Pages, Max int
}

func (e *PageCountError) Error() string {
	return fmt.Sprintf("ocr: %d pages, at most %d", e.Pages, e.Max)
}

// Is makes a PageCountError an ErrTooManyPages.
func (e *PageCountError) Is(target error) bool { return target == ErrTooManyPages }

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

// Image is an image file checked from its headers: its type, its pages and
// their sizes, and what decoding each will cost. Nothing is decoded until
// Gray, so the caller can refuse or budget a page before it pays for it.
type Image struct {
	MediaType string
	pages     []page
}

// page is one page of an image file.
type page interface {
	size() (w, h int)
	// cost is the memory, in bytes, that decoding the page to gray at
	// maxPixels holds at its peak, the output included.
	cost(maxPixels int) int64
	// decode decodes the page to 8-bit gray, scaled down to maxPixels.
	decode(maxPixels int) (*image.Gray, error)
}

// Open checks an image file from its headers without decoding it: the
// signature against mediaType, each page's dimensions (ErrImageTooLarge
// over MaxPagePixels), the structure that shows a file cut short (PNG
// chunks and the size of their image data, JPEG markers to the end of the
// image, TIFF image directories and strips: ErrUnreadableImage), and the
// number of pages of a TIFF, at most maxPages (a *PageCountError past it;
// maxPages <= 0 means no limit). A PNG or JPEG is one page.
func Open(data []byte, mediaType string, maxPages int) (*Image, error) {
	switch mediaType {
	case MediaPNG, MediaJPEG, MediaTIFF:
	default:
		return nil, ErrUnsupportedMediaType
	}
	if Sniff(data) != mediaType {
		return nil, ErrMediaTypeMismatch
	}
	im := &Image{MediaType: mediaType}
	switch mediaType {
	case MediaPNG:
		p, err := openPNG(data)
		if err != nil {
			return nil, err
		}
		im.pages = []page{p}
	case MediaJPEG:
		p, err := openJPEG(data)
		if err != nil {
			return nil, err
		}
		im.pages = []page{p}
	case MediaTIFF:
		pages, err := openTIFF(data, maxPages)
		if err != nil {
			return nil, err
		}
		im.pages = pages
	}
	return im, nil
}

// Pages is the number of pages.
func (im *Image) Pages() int { return len(im.pages) }

// Size is page i's width and height in pixels (0-based i).
func (im *Image) Size(i int) (w, h int) { return im.pages[i].size() }

// Cost is the memory, in bytes, that Gray(i, maxPixels) holds at its peak,
// the returned image included: the caller reserves it before decoding.
func (im *Image) Cost(i, maxPixels int) int64 { return im.pages[i].cost(maxPixels) }

// Gray decodes page i (0-based) to 8-bit gray on white, scaled down to at
// most maxPixels pixels (maxPixels <= 0: its own size) while it is decoded
// where the format allows it. A page whose data is corrupt or ends early is
// ErrUnreadableImage.
func (im *Image) Gray(i, maxPixels int) (*image.Gray, error) {
	g, err := im.pages[i].decode(maxPixels)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, ErrUnreadableImage
	}
	return g, nil
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

// grayOf scales an image decoded whole (by a standard decoder) to gray at
// maxPixels, row by row.
func grayOf(img image.Image, maxPixels int) *image.Gray {
	b := img.Bounds()
	s := newScaler(b.Dx(), b.Dy(), maxPixels)
	row := make([]uint8, b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		grayRowOf(img, y, row)
		s.push(row)
	}
	return s.image()
}

// grayRowOf converts row y of img to gray on white, without an interface
// call per pixel for the types the decoders return.
func grayRowOf(img image.Image, y int, row []uint8) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.Gray:
		copy(row, m.Pix[m.PixOffset(b.Min.X, y):])
	case *image.YCbCr:
		copy(row, m.Y[m.YOffset(b.Min.X, y):]) // luma is gray
	case *image.RGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range row {
			// Premultiplied: what is not drawn is white.
			v := gray(uint32(p[4*x]), uint32(p[4*x+1]), uint32(p[4*x+2]))
			row[x] = uint8(min(uint32(v)+255-uint32(p[4*x+3]), 255))
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range row {
			row[x] = onWhite(uint32(gray(uint32(p[4*x]), uint32(p[4*x+1]), uint32(p[4*x+2]))), uint32(p[4*x+3]))
		}
	default:
		for x := range row {
			r, g, bl, a := img.At(b.Min.X+x, y).RGBA() // premultiplied, 16-bit
			v := uint32(color.GrayModel.Convert(color.RGBA64{R: uint16(r), G: uint16(g), B: uint16(bl), A: 0xFFFF}).(color.Gray).Y)
			row[x] = uint8(min(v+(0xFFFF-a)>>8, 255))
		}
	}
}
