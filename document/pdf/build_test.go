package pdf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/relayops/relayops/internal/pdfbuild"
)

// textPDF returns a PDF with one page per content stream, each with
// Helvetica as /F1, plus extra entries for the catalog.
func textPDF(t testing.TB, contents []string, catalogExtra string) []byte {
	t.Helper()
	var b pdfbuild.Builder
	catalog := b.Reserve()
	pages := b.Reserve()
	font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, c := range contents {
		content := b.Stream("", []byte(c))
		page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R %s >>", pages, catalogExtra))
	return b.Bytes(catalog)
}

// showText is a content stream that writes each line of text at (x, y).
func showText(lines ...textAt) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", l.size, l.x, l.y, l.text)
	}
	return b.String()
}

type textAt struct {
	x, y, size float64
	text       string
}

// zeroBomb returns a zlib stream that inflates to n MiB of zero bytes while
// being about a thousandth of that: one compressed MiB of zeros repeated
// (deflate blocks may follow each other, and every back-reference within
// zeros finds zeros), a final empty block, and the Adler-32 of n MiB zeros.
func zeroBomb(t testing.TB, mib int) []byte {
	t.Helper()
	var block bytes.Buffer
	w, err := flate.NewWriter(&block, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out := []byte{0x78, 0xda}
	for range mib {
		out = append(out, block.Bytes()...)
	}
	out = append(out, 0x03, 0x00) // final fixed-Huffman block with no data
	n := uint64(mib) << 20
	adler := uint32((n%65521)<<16 | 1)
	return binary.BigEndian.AppendUint32(out, adler)
}
