package jobs

import (
	"bytes"
	"compress/flate"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Stored inputs are tagged by their first byte: 'p' plaintext, 'z' deflated
// plaintext, 'e' AES-256-GCM of the plaintext, 'c' AES-256-GCM of the
// deflated plaintext (nonce || ciphertext). Inputs of compressMin bytes or
// more are compressed when that saves at least an eighth: document text
// usually halves, and Redis memory is what a retention window costs. A
// smaller input would save a few dozen bytes of a finished job's ~2 KiB for
// a deflate (Huffman tables built per input) that costs more CPU than the
// rest of its submission's encoding: a 200-byte invoice deflates to 172
// bytes in about 6 µs. The associated data is
// "tenant:documentId", so a reprocess may reuse a version's ciphertext for
// the next version of the same document, and a blob moved to another
// document fails to open.
const (
	blobPlain             = 'p'
	blobDeflated          = 'z'
	blobEncrypted         = 'e'
	blobEncryptedDeflated = 'c'
	compressMin           = 512 // smaller inputs are stored as they are
)

// sealer encrypts and decrypts stored inputs. A nil aead stores plaintext.
type sealer struct {
	aead cipher.AEAD
}

func newSealer(key []byte) (sealer, error) {
	if key == nil {
		return sealer{}, nil
	}
	if len(key) != 32 {
		return sealer{}, fmt.Errorf("jobs: data key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sealer{}, fmt.Errorf("jobs: data key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealer{}, fmt.Errorf("jobs: data key: %w", err)
	}
	return sealer{aead: aead}, nil
}

func associatedData(k Key) []byte { return []byte(k.Tenant + ":" + k.DocumentID) }

func (s sealer) seal(k Key, content string) ([]byte, error) {
	data, deflated := []byte(content), false
	if len(content) >= compressMin {
		if z := deflate(data); len(z) <= len(data)-len(data)/8 {
			data, deflated = z, true
		}
	}
	if s.aead == nil {
		tag := byte(blobPlain)
		if deflated {
			tag = blobDeflated
		}
		return append([]byte{tag}, data...), nil
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("jobs: nonce: %w", err)
	}
	tag := byte(blobEncrypted)
	if deflated {
		tag = blobEncryptedDeflated
	}
	out := make([]byte, 0, 1+len(nonce)+len(data)+s.aead.Overhead())
	out = append(append(out, tag), nonce...)
	return s.aead.Seal(out, nonce, data, associatedData(k)), nil
}

// deflaters pools flate writers: each holds about a megabyte of state that
// is expensive to allocate per input.
var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level cannot fail
	return w
}}

func deflate(b []byte) []byte {
	var buf bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	_, _ = w.Write(b) // writes to a bytes.Buffer cannot fail
	_ = w.Close()
	return buf.Bytes()
}

// maxInput bounds what inflating a stored input may produce, so a corrupted
// blob cannot exhaust memory.
const maxInput = 64 << 20

var inflaters = sync.Pool{New: func() any { return flate.NewReader(nil) }}

func inflate(b []byte) (string, error) {
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b), nil); err != nil {
		return "", errUndecryptable
	}
	out, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil || len(out) > maxInput {
		return "", errUndecryptable
	}
	return string(out), nil
}

// errUndecryptable is returned for a blob that cannot be opened: corrupted, encrypted
// with another key, moved between documents, or encrypted while this
// process has no key.
var errUndecryptable = errors.New("jobs: stored input cannot be decrypted with the configured data key")

func (s sealer) open(k Key, blob []byte) (string, error) {
	if len(blob) == 0 {
		return "", errUndecryptable
	}
	switch blob[0] {
	case blobPlain:
		return string(blob[1:]), nil
	case blobDeflated:
		return inflate(blob[1:])
	case blobEncrypted, blobEncryptedDeflated:
		if s.aead == nil || len(blob) < 1+s.aead.NonceSize() {
			return "", errUndecryptable
		}
		nonce, ct := blob[1:1+s.aead.NonceSize()], blob[1+s.aead.NonceSize():]
		pt, err := s.aead.Open(nil, nonce, ct, associatedData(k))
		if err != nil {
			return "", errUndecryptable
		}
		if blob[0] == blobEncryptedDeflated {
			return inflate(pt)
		}
		return string(pt), nil
	}
	return "", errUndecryptable
}
