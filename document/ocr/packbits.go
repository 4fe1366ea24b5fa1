package ocr

import (
	"bytes"
	"io"
)

// packBits is a streaming PackBits decoder (TIFF compression 32773).
type packBits struct {
	src  *bytes.Reader
	run  []byte // literal bytes still to give
	rep  byte   // a repeated byte
	reps int    // how many more times
}

func (d *packBits) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		switch {
		case d.reps > 0:
			b[n] = d.rep
			d.reps--
			n++
		case len(d.run) > 0:
			c := copy(b[n:], d.run)
			d.run = d.run[c:]
			n += c
		default:
			h, err := d.src.ReadByte()
			if err != nil {
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			}
			switch c := int8(h); {
			case c >= 0:
				lit := make([]byte, int(c)+1)
				if _, err := io.ReadFull(d.src, lit); err != nil {
					return n, io.ErrUnexpectedEOF
				}
				d.run = lit
			case c != -128:
				v, err := d.src.ReadByte()
				if err != nil {
					return n, io.ErrUnexpectedEOF
				}
				d.rep, d.reps = v, 1-int(c)
			}
		}
	}
	return n, nil
}
