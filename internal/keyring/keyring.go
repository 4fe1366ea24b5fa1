// Package keyring holds the data keys that encrypt what relayops stores at
// rest (document inputs, results, checkpoints, review notes, webhook signing
// secrets) with AES-256-GCM.
//
// A Ring is an ordered list of named keys: the first seals, every key opens.
// Each sealed value names the key that sealed it, so a key is rotated by
// putting a new one first and keeping the old one in the ring until nothing
// it sealed is left.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"regexp"
)

// KeySize is the length of a data key: AES-256.
const KeySize = 32

// LegacyID is the ID of the one key of a deployment configured with a
// single key (RELAYOPS_DATA_KEY) rather than a ring.
const LegacyID = "default"

// idRe is the shape of a key ID: short, printable, no separator of the
// RELAYOPS_DATA_KEYS list (',' and ':').
var idRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

// ErrUnopenable is returned for a sealed value that no key of the ring
// opens: corrupted, sealed by a key no longer in the ring, moved to another
// place (its associated data differ), or truncated. It never says which.
var ErrUnopenable = errors.New("keyring: sealed value cannot be opened with the configured data keys")

// Key is one named data key.
type Key struct {
	ID     string // ^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$, unique in a ring
	Secret []byte // KeySize bytes
}

// ValidID reports whether id may name a key.
func ValidID(id string) bool { return idRe.MatchString(id) }

// Ring seals with its first key and opens with any. A nil *Ring has no key:
// Enabled is false and Seal fails.
type Ring struct {
	primary string
	aeads   map[string]cipher.AEAD
	order   []string // IDs as configured, for OpenUnnamed
}

// New builds a ring from keys, the first of which seals. No keys: a nil
// ring (nothing is encrypted).
func New(keys []Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	r := &Ring{primary: keys[0].ID, aeads: make(map[string]cipher.AEAD, len(keys))}
	for i, k := range keys {
		if !ValidID(k.ID) {
			return nil, fmt.Errorf("keyring: key %d: ID must match %s", i+1, idRe)
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("keyring: key %d: ID %q is used twice", i+1, k.ID)
		}
		if len(k.Secret) != KeySize {
			return nil, fmt.Errorf("keyring: key %q must be %d bytes, got %d", k.ID, KeySize, len(k.Secret))
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", k.ID, err)
		}
		r.aeads[k.ID], r.order = aead, append(r.order, k.ID)
	}
	return r, nil
}

// Enabled reports whether the ring has a key.
func (r *Ring) Enabled() bool { return r != nil }

// Primary is the ID of the key that seals; "" for a nil ring.
func (r *Ring) Primary() string {
	if r == nil {
		return ""
	}
	return r.primary
}

// Seal encrypts plaintext with the primary key and returns
//
//	header || len(id) || id || nonce || ciphertext
//
// The associated data of the AEAD is everything before the nonce followed
// by ad: the caller's header (its format tags), the key ID, and what binds
// the value to its place (its owner and kind). Changing any of them makes
// Open fail.
func (r *Ring) Seal(header, plaintext, ad []byte) ([]byte, error) {
	if r == nil {
		return nil, errors.New("keyring: seal without a key")
	}
	aead := r.aeads[r.primary]
	out := make([]byte, 0, len(header)+1+len(r.primary)+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out = append(append(append(out, header...), byte(len(r.primary))), r.primary...)
	prefix := len(out)
	out = out[:prefix+aead.NonceSize()]
	if _, err := rand.Read(out[prefix:]); err != nil {
		return nil, fmt.Errorf("keyring: nonce: %w", err)
	}
	return aead.Seal(out, out[prefix:], plaintext, associated(out[:prefix], ad)), nil
}

// Open decrypts a value Seal returned; headerLen is the length of the
// caller's header, ad the associated data given to Seal.
func (r *Ring) Open(sealed []byte, headerLen int, ad []byte) ([]byte, error) {
	if r == nil || len(sealed) <= headerLen {
		return nil, ErrUnopenable
	}
	n := int(sealed[headerLen])
	idEnd := headerLen + 1 + n
	if len(sealed) < idEnd {
		return nil, ErrUnopenable
	}
	aead, ok := r.aeads[string(sealed[headerLen+1:idEnd])]
	if !ok || len(sealed) < idEnd+aead.NonceSize() {
		return nil, ErrUnopenable
	}
	nonce, ct := sealed[idEnd:idEnd+aead.NonceSize()], sealed[idEnd+aead.NonceSize():]
	pt, err := aead.Open(nil, nonce, ct, associated(sealed[:idEnd], ad))
	if err != nil {
		return nil, ErrUnopenable
	}
	return pt, nil
}

// KeyID returns the ID of the key that sealed a value Seal returned, or
// false when sealed is too short to name one.
func KeyID(sealed []byte, headerLen int) (string, bool) {
	if len(sealed) <= headerLen || len(sealed) < headerLen+1+int(sealed[headerLen]) {
		return "", false
	}
	return string(sealed[headerLen+1 : headerLen+1+int(sealed[headerLen])]), true
}

// OpenUnnamed decrypts nonce || ciphertext sealed before values named their
// key (one key, ad as the whole associated data), trying every key of the
// ring in order: the deployment's old single key may be anywhere in it.
func (r *Ring) OpenUnnamed(sealed, ad []byte) ([]byte, error) {
	if r == nil {
		return nil, ErrUnopenable
	}
	for _, id := range r.order {
		aead := r.aeads[id]
		if len(sealed) < aead.NonceSize() {
			return nil, ErrUnopenable
		}
		if pt, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], ad); err == nil {
			return pt, nil
		}
	}
	return nil, ErrUnopenable
}

// associated is the AEAD's associated data: the stored prefix (header and
// key ID), then the caller's binding.
func associated(prefix, ad []byte) []byte {
	out := make([]byte, 0, len(prefix)+len(ad))
	return append(append(out, prefix...), ad...)
}
