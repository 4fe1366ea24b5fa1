package outbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// Stored inputs are tagged by their first byte: 'p' plaintext, 'e' AES-256-GCM
// (nonce || ciphertext). The associated data is "tenant:documentId", so a
// reprocess may reuse a version's ciphertext for the next version of the same
// document, and a blob moved to another document fails to open.
const (
	blobPlain     = 'p'
	blobEncrypted = 'e'
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
		return sealer{}, fmt.Errorf("outbox: data key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sealer{}, fmt.Errorf("outbox: data key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealer{}, fmt.Errorf("outbox: data key: %w", err)
	}
	return sealer{aead: aead}, nil
}

func associatedData(k Key) []byte { return []byte(k.Tenant + ":" + k.DocumentID) }

func (s sealer) seal(k Key, content string) ([]byte, error) {
	if s.aead == nil {
		return append([]byte{blobPlain}, content...), nil
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(content)+s.aead.Overhead()+1)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("outbox: nonce: %w", err)
	}
	out := append([]byte{blobEncrypted}, nonce...)
	return s.aead.Seal(out, nonce, []byte(content), associatedData(k)), nil
}

// errUndecryptable is returned for a blob that cannot be opened: encrypted
// with another key, moved between documents, or encrypted while this
// process has no key.
var errUndecryptable = errors.New("outbox: stored input cannot be decrypted with the configured data key")

func (s sealer) open(k Key, blob []byte) (string, error) {
	if len(blob) == 0 {
		return "", errUndecryptable
	}
	switch blob[0] {
	case blobPlain:
		return string(blob[1:]), nil
	case blobEncrypted:
		if s.aead == nil || len(blob) < 1+s.aead.NonceSize() {
			return "", errUndecryptable
		}
		nonce, ct := blob[1:1+s.aead.NonceSize()], blob[1+s.aead.NonceSize():]
		pt, err := s.aead.Open(nil, nonce, ct, associatedData(k))
		if err != nil {
			return "", errUndecryptable
		}
		return string(pt), nil
	}
	return "", errUndecryptable
}
