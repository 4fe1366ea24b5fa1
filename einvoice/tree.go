package einvoice

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Bounds of what Parse reads. An e-invoice is a few hundred elements per
// line and rarely deeper than 12 levels; its attachments (BT-125) are text
// inside one element. Past a bound the document is refused, never partly
// read, so time and memory stay linear in a bounded input.
const (
	// MaxBytes is the largest document Parse and Sniff read (20 MiB: the
	// API's default file limit is 10 MiB).
	MaxBytes = 20 << 20
	// MaxDepth is the deepest element nesting accepted.
	MaxDepth = 64
	// MaxElements bounds the elements and attributes of one document.
	MaxElements = 200_000
)

// Refusals of a document that is not read at all.
var (
	// ErrNotEInvoice: well-formed XML whose root is none of the supported
	// e-invoice syntaxes.
	ErrNotEInvoice = errors.New("einvoice: not a UBL, CII or ZUGFeRD 1.0 invoice")
	// ErrDoctype: the document has a document type declaration. No
	// e-invoice syntax uses one, and it is where external entities (XXE)
	// and entity expansion (billion laughs) live, so it is refused outright.
	ErrDoctype = errors.New("einvoice: document type declarations are refused")
	// ErrTooLarge: more than MaxBytes, or more than MaxElements elements.
	ErrTooLarge = errors.New("einvoice: document too large")
	// ErrTooDeep: elements nested deeper than MaxDepth.
	ErrTooDeep = errors.New("einvoice: elements nested too deep")
)

// SyntaxError is XML that is not well-formed. Its message names the line
// only, never the document's text.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("einvoice: malformed XML at line %d", e.Line)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// node is one element of the parsed document.
type node struct {
	name   xml.Name // Space is the namespace URI, whatever prefix was written
	attrs  []xml.Attr
	text   string // the element's own character data, trimmed
	kids   []*node
	parent *node
	// index is the 1-based position among the parent's children of the
	// same name; repeated says there is more than one of them.
	index    int
	repeated bool
}

// attr returns the value of the attribute local (any namespace) and
// whether it is present.
func (n *node) attr(local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value), true
		}
	}
	return "", false
}

// newDecoder returns a strict decoder that knows no entities beyond XML's
// five and reads UTF-8 (or a declared ISO-8859-1/US-ASCII).
func newDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	d.Strict = true
	d.Entity = nil
	d.CharsetReader = charsetReader
	return d
}

func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return r, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		return latin1Reader(r)
	}
	return nil, fmt.Errorf("unsupported encoding")
}

// latin1Reader converts ISO-8859-1 to UTF-8: each byte is the code point.
func latin1Reader(r io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return bytes.NewReader(out), nil
}

// parseTree reads data into a tree of elements, refusing DOCTYPEs, and any
// document past the bounds.
func parseTree(data []byte) (*node, error) {
	if len(data) > MaxBytes {
		return nil, ErrTooLarge
	}
	d := newDecoder(data)
	var root, cur *node
	var text strings.Builder
	budget := MaxElements
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, syntaxError(d, err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, ErrDoctype
		case xml.StartElement:
			depth++
			budget -= 1 + len(t.Attr)
			if depth > MaxDepth {
				return nil, ErrTooDeep
			}
			if budget < 0 {
				return nil, ErrTooLarge
			}
			n := &node{name: t.Name, attrs: t.Copy().Attr, parent: cur}
			if cur == nil {
				if root != nil {
					return nil, &SyntaxError{Line: line(d), Err: errors.New("second root element")}
				}
				root = n
			} else {
				cur.kids = append(cur.kids, n)
			}
			cur = n
			text.Reset()
		case xml.CharData:
			if cur != nil && len(cur.kids) == 0 {
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			if len(cur.kids) == 0 {
				cur.text = strings.TrimSpace(text.String())
			}
			numberSiblings(cur.kids)
			cur = cur.parent
			text.Reset()
		}
	}
	if root == nil {
		return nil, &SyntaxError{Line: line(d), Err: errors.New("no root element")}
	}
	return root, nil
}

// numberSiblings sets index and repeated on a finished element's children.
func numberSiblings(kids []*node) {
	if len(kids) < 2 {
		for _, k := range kids {
			k.index = 1
		}
		return
	}
	count := map[xml.Name]int{}
	for _, k := range kids {
		count[k.name]++
		k.index = count[k.name]
	}
	for _, k := range kids {
		k.repeated = count[k.name] > 1
	}
}

func syntaxError(d *xml.Decoder, err error) error {
	return &SyntaxError{Line: line(d), Err: err}
}

func line(d *xml.Decoder) int {
	l, _ := d.InputPos()
	return l
}
