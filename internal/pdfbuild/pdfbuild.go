// Package pdfbuild writes small PDFs for tests and measuring tools:
// objects numbered from 1 in the order added, and a cross-reference table
// with their real offsets, so that a strict reader accepts them.
package pdfbuild

import (
	"bytes"
	"fmt"
)

// Builder collects a PDF's objects.
type Builder struct {
	objects []string
}

// Add appends an object body and returns its number.
func (b *Builder) Add(body string) int {
	b.objects = append(b.objects, body)
	return len(b.objects)
}

// Reserve returns the number of an object whose body is Set later.
func (b *Builder) Reserve() int { return b.Add("") }

// Set sets the body of object n.
func (b *Builder) Set(n int, body string) { b.objects[n-1] = body }

// Stream appends a stream object with the dictionary entries dict (beside
// its /Length) and returns its number.
func (b *Builder) Stream(dict string, data []byte) int {
	return b.Add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

// Bytes writes the PDF whose catalog is object root.
func (b *Builder) Bytes(root int) []byte {
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
