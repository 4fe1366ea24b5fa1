package jobs

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"

	"github.com/relayops/relayops/internal/keyring"
)

// Stored values that hold document data — inputs, results, checkpoints,
// review notes — pass through one codec, the sealer. Three formats coexist,
// told apart by their first byte, so values written by any release stay
// readable without a migration:
//
//   - Sealed (current), first byte sealedTag (0x01), then a mode byte:
//     'p' plaintext, 'z' deflated plaintext, 'e' AES-256-GCM of the
//     plaintext, 'c' AES-256-GCM of the deflated plaintext. An encrypted
//     body is keyring.Ring.Seal's: the ID of the key that sealed it, the
//     nonce, the ciphertext. Its associated data are the two tag bytes, the
//     key ID, the kind of value ("input", "result", "checkpoint:<stage>",
//     "review_note") and "tenant:documentId": a value moved to another
//     document, or to another kind of place, does not open.
//   - Legacy input (inputs stored before key rings), first byte 'p', 'z',
//     'e' or 'c' with the same meanings; 'e' and 'c' are nonce ||
//     ciphertext under a single key with "tenant:documentId" as associated
//     data, tried with every key of the ring.
//   - Raw (results, checkpoints and review notes stored before they were
//     encrypted, and still written so without a key): the value itself.
//     Results and checkpoints are JSON and notes are text, neither of which
//     starts with 0x01; a value that does is written sealed in mode 'p'.
//
// Without a key, inputs are still written in the legacy format ('p', 'z')
// and the other kinds raw, byte for byte what earlier releases wrote.
//
// Values of compressMin bytes or more are compressed when that saves at
// least an eighth: document text usually halves, and Redis memory is what
// a retention window costs. A smaller input would save a few dozen bytes
// of a finished job's ~2 KiB for a deflate (Huffman tables built per
// input) that costs more CPU than the rest of its submission's encoding: a
// 200-byte invoice deflates to 172 bytes in about 6 µs. Inputs are bound to
// "tenant:documentId", not to the version, so a reprocess may reuse a
// version's ciphertext for the next version of the same document.
const (
	sealedTag             = 0x01
	blobPlain             = 'p'
	blobDeflated          = 'z'
	blobEncrypted         = 'e'
	blobEncryptedDeflated = 'c'
	compressMin           = 512 // smaller values are stored as they are
)

// The kinds of stored value, part of each sealed value's associated data.
const (
	kindInput      = "input"
	kindResult     = "result"
	kindReviewNote = "review_note"
	// kindCorrections and kindChanges: an operator's field corrections
	// and the audit's per-field old and new values.
	kindCorrections = "corrections"
	kindChanges     = "changes"
	// kindRejection: what a rejected job kept (its partial extraction),
	// stored in the job's result key.
	kindRejection = "rejection"
)

// kindCheckpoint is the kind of the checkpoint of stage.
func kindCheckpoint(stage string) string { return "checkpoint:" + stage }

// sealer encodes and decodes stored values. A nil ring stores plaintext.
type sealer struct {
	ring *keyring.Ring
}

// legacyAD is the associated data of a legacy encrypted input.
func legacyAD(k Key) []byte { return []byte(k.Tenant + ":" + k.DocumentID) }

// sealedAD binds a sealed value to its kind and document. Neither a kind
// nor a tenant holds NUL or ':' where it would make two bindings alike.
func sealedAD(k Key, kind string) []byte {
	return []byte(kind + "\x00" + k.Tenant + ":" + k.DocumentID)
}

// seal encodes an input. A file whose format is compressed already (a PDF's
// streams, a PNG, a JPEG) is not deflated again: it would save next to
// nothing at the cost of a pass over up to the file limit.
func (s sealer) seal(k Key, content string) ([]byte, error) {
	data, deflated := []byte(content), false
	if !precompressed(content) {
		data, deflated = compress(data)
	}
	if !s.ring.Enabled() {
		tag := byte(blobPlain)
		if deflated {
			tag = blobDeflated
		}
		return append([]byte{tag}, data...), nil
	}
	return s.encrypt(k, kindInput, data, deflated)
}

// sealValue encodes a result, checkpoint or review note: raw without a
// key (the empty value too, which tells nothing), sealed otherwise.
func (s sealer) sealValue(k Key, kind string, v []byte) ([]byte, error) {
	if !s.ring.Enabled() || len(v) == 0 {
		if len(v) > 0 && v[0] == sealedTag {
			return append([]byte{sealedTag, blobPlain}, v...), nil
		}
		return v, nil
	}
	data, deflated := compress(v)
	return s.encrypt(k, kind, data, deflated)
}

func (s sealer) encrypt(k Key, kind string, data []byte, deflated bool) ([]byte, error) {
	mode := byte(blobEncrypted)
	if deflated {
		mode = blobEncryptedDeflated
	}
	return s.ring.Seal([]byte{sealedTag, mode}, data, sealedAD(k, kind))
}

// compress deflates b when it is long enough and deflating saves an eighth.
// precompressed reports a file input of a compressed format.
func precompressed(content string) bool {
	mt, _, _, ok := cutEnvelope(content)
	return ok && (mt == "application/pdf" || mt == "image/png" || mt == "image/jpeg")
}

func compress(b []byte) ([]byte, bool) {
	if len(b) >= compressMin {
		if z := deflate(b); len(z) <= len(b)-len(b)/8 {
			return z, true
		}
	}
	return b, false
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

// maxInput bounds what inflating a stored value may produce, so a corrupted
// blob cannot exhaust memory.
const maxInput = 64 << 20

var inflaters = sync.Pool{New: func() any { return flate.NewReader(nil) }}

func inflate(b []byte) ([]byte, error) {
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b), nil); err != nil {
		return nil, ErrUndecryptable
	}
	out, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil || len(out) > maxInput {
		return nil, ErrUndecryptable
	}
	return out, nil
}

// ErrUndecryptable is returned for a stored value that cannot be opened:
// corrupted, sealed by a key that is not in the ring (retired too early, or
// a process started without RELAYOPS_DATA_KEYS), moved between documents or
// kinds of value. Its message never quotes the value.
var ErrUndecryptable = errors.New("jobs: stored value cannot be decrypted with the configured data keys")

// open decodes an input, in the sealed or the legacy format.
func (s sealer) open(k Key, blob []byte) (string, error) {
	if len(blob) == 0 {
		return "", ErrUndecryptable
	}
	var out []byte
	var err error
	switch blob[0] {
	case sealedTag:
		out, err = s.openSealed(k, kindInput, blob)
	case blobPlain:
		out = blob[1:]
	case blobDeflated:
		out, err = inflate(blob[1:])
	case blobEncrypted, blobEncryptedDeflated:
		if out, err = s.ring.OpenUnnamed(blob[1:], legacyAD(k)); err != nil {
			return "", ErrUndecryptable
		}
		if blob[0] == blobEncryptedDeflated {
			out, err = inflate(out)
		}
	default:
		err = ErrUndecryptable
	}
	return string(out), err
}

// openValue decodes a result, checkpoint or review note, sealed or raw.
func (s sealer) openValue(k Key, kind string, blob []byte) ([]byte, error) {
	if len(blob) == 0 || blob[0] != sealedTag {
		return blob, nil
	}
	return s.openSealed(k, kind, blob)
}

// openSealed decodes a value in the sealed format.
func (s sealer) openSealed(k Key, kind string, blob []byte) ([]byte, error) {
	if len(blob) < 2 {
		return nil, ErrUndecryptable
	}
	switch blob[1] {
	case blobPlain:
		return blob[2:], nil
	case blobDeflated:
		return inflate(blob[2:])
	case blobEncrypted, blobEncryptedDeflated:
		pt, err := s.ring.Open(blob, 2, sealedAD(k, kind))
		if err != nil {
			return nil, ErrUndecryptable
		}
		if blob[1] == blobEncryptedDeflated {
			return inflate(pt)
		}
		return pt, nil
	}
	return nil, ErrUndecryptable
}
