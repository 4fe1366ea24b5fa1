package pdf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// pdfBuilder writes small PDFs for the tests of hostile input: objects are
// numbered from 1 in the order added, and bytes writes the cross-reference
// table with the real offsets.
type pdfBuilder struct {
	objects []string
}

// add appends an object body and returns its number.
func (b *pdfBuilder) add(body string) int {
	b.objects = append(b.objects, body)
	return len(b.objects)
}

// reserve returns the number of an object whose body is set later.
func (b *pdfBuilder) reserve() int { return b.add("") }

func (b *pdfBuilder) set(n int, body string) { b.objects[n-1] = body }

func (b *pdfBuilder) addStream(dict string, data []byte) int {
	return b.add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

func (b *pdfBuilder) bytes(root int) []byte {
	var buf bytes.Buffer
	buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(b.objects))
	for i, body := range b.objects {
		offsets[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(b.objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(b.objects)+1, root, xref)
	return buf.Bytes()
}

// textPDF returns a PDF with one page per content stream, each with
// Helvetica as /F1, plus extra entries for the catalog.
func textPDF(t testing.TB, contents []string, catalogExtra string) []byte {
	t.Helper()
	var b pdfBuilder
	catalog := b.reserve()
	pages := b.reserve()
	font := b.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, c := range contents {
		content := b.addStream("", []byte(c))
		page := b.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	b.set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	b.set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R %s >>", pages, catalogExtra))
	return b.bytes(catalog)
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
