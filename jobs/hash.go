package jobs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// PayloadHash is the hex SHA-256 of the canonical business payload of a job.
// The business payload is {"content": content}; execution options such as
// deadlineSeconds are not part of it.
//
// Its canonical form is {"content":<content as encoding/json writes it>}.
// For valid UTF-8 content (all the API accepts) that is written directly;
// other content takes CanonicalHash's decode and re-encode, which turns each
// invalid byte into U+FFFD. TestPayloadHash_MatchesCanonicalHash holds the
// two paths to the same bytes.
//
// A file's stored content (see FileContent) hashes as the business payload
// {"file":{"mediaType":…,"sha256":…}} instead.
func PayloadHash(content string) string {
	if h, ok := filePayloadHash(content); ok {
		return h
	}
	if !utf8.ValidString(content) {
		h, _ := CanonicalHash(mustJSON(map[string]any{"content": content}))
		return h
	}
	h := sha256.New()
	h.Write([]byte(`{"content":`))
	h.Write(mustJSON(content))
	h.Write([]byte(`}`))
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalHash hashes a JSON document in canonical form: object keys sorted,
// no insignificant whitespace, numbers as written. Two documents that differ
// only in key order or whitespace hash the same; any change of a value does
// not.
func CanonicalHash(doc []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("jobs: canonical hash: %w", err)
	}
	if dec.More() {
		return "", fmt.Errorf("jobs: canonical hash: trailing data")
	}
	// encoding/json sorts map keys and writes no whitespace; json.Number is
	// written verbatim.
	canon, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("jobs: canonical hash: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings and maps of strings
	}
	return b
}

// CorrectedPayloadHash is the payload hash of a version made of an input
// (its payload hash) and an operator's corrections (their JSON): the
// SHA-256 of {"payloadHash":…,"corrections":…}. The same input with the
// same corrections is the same payload; other corrections are another.
func CorrectedPayloadHash(inputHash string, corrections []byte) string {
	h := sha256.New()
	h.Write([]byte(`{"payloadHash":`))
	h.Write(mustJSON(inputHash))
	h.Write([]byte(`,"corrections":`))
	h.Write(corrections)
	h.Write([]byte(`}`))
	return hex.EncodeToString(h.Sum(nil))
}
